//! The real binary, end to end: what a reader (and the book build) relies on.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pagewalk_model::{read_run, Mode, Provenance, Results, Status};

fn collector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .output()
        .expect("run collector")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A small first-touch run into `dir`; returns the file it wrote.
fn quick_run(dir: &Path) -> PathBuf {
    let before = json_files(dir);
    let out = collector(&[
        "run",
        "first-touch",
        "--quick",
        "--size",
        "16M",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    let after = json_files(dir);
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    let new = after.into_iter().find(|p| !before.contains(p)).unwrap();
    assert!(
        stdout(&out).contains(&new.display().to_string()),
        "summary names the file"
    );
    new
}

#[test]
fn quick_run_writes_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = quick_run(dir.path());
    let run = read_run(&path).unwrap();

    assert_eq!(run.schema_version, pagewalk_model::SCHEMA_VERSION);
    let Provenance::Collector {
        run_id,
        quick,
        interrupted,
        ..
    } = &run.provenance
    else {
        panic!("not a collector run: {:?}", run.provenance)
    };
    assert_eq!(path.file_stem().unwrap().to_str(), Some(run_id.as_str()));
    assert!(*quick && !*interrupted);
    let machine = run.machine.as_ref().expect("machine context");
    assert!(machine.base_page_bytes >= 4096 && machine.memory.mem_total_kib > 0);

    let e = run.experiment("first-touch").unwrap();
    assert_eq!(e.status, Status::Ok, "{:?}", e.reason);
    assert!(e.duration_s.is_some());
    assert!(!e.checks.is_empty());
    let Some(Results::FirstTouch(ft)) = &e.results else {
        panic!()
    };
    assert_eq!(ft.size_bytes, 16 << 20);
    assert_eq!(ft.repetitions, 1);
    assert_eq!(ft.pages, ft.size_bytes / ft.stride_bytes);
    assert_eq!(ft.modes.len(), Mode::ALL.len());
    for m in &ft.modes {
        match &m.skipped {
            Some(reason) => assert!(!reason.is_empty() && m.samples.is_empty(), "{m:?}"),
            None => {
                assert_eq!(m.samples.len(), 1, "{:?}", m.mode);
                assert!(m.summary.first_pass.is_some(), "{:?}", m.mode);
            }
        }
    }
    let plain = ft.mode(Mode::Nohugepage).unwrap();
    let faults = plain.samples[0]
        .first_pass
        .as_ref()
        .unwrap()
        .minor_faults
        .unwrap();
    assert!(
        faults >= ft.pages,
        "nohugepage first pass took {faults} faults for {} pages",
        ft.pages
    );
    assert!(ft.mode(Mode::VecMacro).unwrap().samples[0]
        .allocator_calls
        .is_some());
}

#[test]
fn a_second_run_never_touches_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let first = quick_run(dir.path());
    let original = fs::read(&first).unwrap();
    let second = quick_run(dir.path());
    assert_ne!(first, second);
    assert_eq!(fs::read(&first).unwrap(), original);
    assert_eq!(json_files(dir.path()).len(), 2);
}

#[test]
fn modes_and_reps_select_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = collector(&[
        "run",
        "first-touch",
        "--size",
        "4M",
        "--reps",
        "2",
        "--modes",
        "calloc,nohugepage",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let run = read_run(&json_files(dir.path())[0]).unwrap();
    let ft = run.first_touch().unwrap();
    let modes: Vec<Mode> = ft.modes.iter().map(|m| m.mode).collect();
    assert_eq!(modes, vec![Mode::Nohugepage, Mode::Calloc]);
    assert!(ft.modes.iter().all(|m| m.samples.len() == 2));
}

#[test]
fn validate_names_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let good = quick_run(dir.path());
    let ok = collector(&["validate", good.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", stderr(&ok));

    let text = fs::read_to_string(&good).unwrap();
    let bad = dir.path().join("corrupt.json");
    fs::write(
        &bad,
        text.replacen("\"status\": \"ok\"", "\"status\": 42", 1),
    )
    .unwrap();
    let out = collector(&["validate", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("corrupt.json"), "{err}");
    assert!(err.contains("experiments[0].status"), "{err}");
}

#[test]
fn list_and_help() {
    let out = collector(&["list"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("first-touch"));

    let help = collector(&["run", "--help"]);
    assert!(stdout(&help).contains("Examples:"), "{}", stdout(&help));
}

#[test]
fn unknown_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = collector(&[
        "run",
        "no-such-thing",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("first-touch"),
        "lists the known experiments: {}",
        stderr(&out)
    );
    assert!(json_files(dir.path()).is_empty());
    assert!(!collector(&["run", "--all", "--modes", "huge"])
        .status
        .success());
}
