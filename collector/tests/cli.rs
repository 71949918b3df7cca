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

/// Starts a full run into `dir`, lets it get into first-touch, and sends
/// `signal`; returns the exit status and the one file it must still write.
fn run_then_signal(dir: &Path, signal: libc::c_int) -> (std::process::ExitStatus, PathBuf) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(["run", "--all", "--out", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Not a timing assertion: only enough for the first repetition to start.
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: signalling our own child, which has not been waited for.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = child.wait().unwrap();
    let files = json_files(dir);
    assert_eq!(files.len(), 1, "what finished is written: {files:?}");
    (status, files[0].clone())
}

#[test]
fn sigterm_and_sighup_keep_what_finished_and_say_it_was_cut_short() {
    for (signal, name, code) in [
        (libc::SIGTERM, "SIGTERM", 143),
        (libc::SIGHUP, "SIGHUP", 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (status, file) = run_then_signal(dir.path(), signal);
        assert_eq!(
            status.code(),
            Some(code),
            "{name}: exit as a shell reports it"
        );
        let run = read_run(&file).unwrap();
        let Provenance::Collector {
            interrupted,
            signal,
            ..
        } = run.provenance
        else {
            panic!("a collector run")
        };
        assert!(interrupted, "{name}");
        assert_eq!(
            signal.map(|s| s.name()),
            Some(name),
            "the signal is recorded"
        );
        // The experiment that was running is partial, and says so; none of
        // the later ones is in the file.
        let first = &run.experiments[0];
        assert_eq!(first.status, Status::Interrupted, "{name}: {first:?}");
        assert!(first.reason.as_deref().unwrap().contains(name), "{first:?}");
        assert_eq!(run.experiments.len(), 1, "{name}");
        // No partial file is left behind.
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn a_size_under_one_huge_page_is_refused_for_that_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = collector(&[
        "run",
        "first-touch",
        "--size",
        "1M",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let run = read_run(&json_files(dir.path())[0]).unwrap();
    let reason = run.experiments[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("(1 MiB) is under 2 MiB"),
        "{reason}\n{}",
        stdout(&out)
    );
    assert!(!reason.contains("MemAvailable"), "{reason}");
}

#[test]
fn validate_reports_a_killed_runs_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    fs::write(dir.path().join(format!(".r0.{gone}.json.tmp")), "{").unwrap();
    let out = collector(&["validate", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "a leftover does not make the folder invalid"
    );
    assert!(
        stderr(&out).contains(&format!("left by run process {gone}, which no longer runs")),
        "{}",
        stderr(&out)
    );
}

/// A memory cgroup of `limit` bytes below this process's own, removed on
/// drop; `Err` says why the machine cannot give one (not root, no memory
/// controller, a v2 hierarchy that does not delegate it).
struct MemoryCgroup(PathBuf);

impl MemoryCgroup {
    fn new(limit: u64) -> Result<MemoryCgroup, String> {
        let own = fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
        let path = |pred: &dyn Fn(&str) -> bool| {
            own.lines().find_map(|l| {
                let mut p = l.splitn(3, ':');
                let (_, c, path) = (p.next()?, p.next()?, p.next()?);
                pred(c).then(|| path.trim_start_matches('/').to_string())
            })
        };
        let (dir, file) = match path(&|c| c.split(',').any(|c| c == "memory")) {
            Some(v1) => (
                Path::new("/sys/fs/cgroup/memory").join(v1),
                "memory.limit_in_bytes",
            ),
            None => {
                let v2 = path(&|c| c.is_empty()).ok_or("no memory cgroup")?;
                (Path::new("/sys/fs/cgroup").join(v2), "memory.max")
            }
        };
        let dir = dir.join(format!("pagewalk-test-{}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let cg = MemoryCgroup(dir);
        fs::write(cg.0.join(file), limit.to_string())
            .map_err(|e| format!("cannot set {file}: {e}"))?;
        Ok(cg)
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        let _ = fs::remove_dir(&self.0);
    }
}

#[test]
fn a_full_quick_run_finishes_under_a_48_mib_memory_limit() {
    let cg = match MemoryCgroup::new(48 << 20) {
        Ok(cg) => cg,
        Err(why) => {
            eprintln!("skipped: this machine cannot make a memory cgroup here: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    // The shell joins the cgroup, then becomes the collector.
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} run --all --quick --out {}",
        cg.0.display(),
        env!("CARGO_BIN_EXE_collector"),
        dir.path().display()
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(
        out.status.success(),
        "status {:?} (137: killed by the OOM killer)\n{}",
        out.status,
        stderr(&out)
    );
    let run = read_run(&json_files(dir.path())[0]).unwrap();
    assert!(
        run.experiments.len() >= 9,
        "every experiment is in the file"
    );
    // The guard saw the limit and said so where it scaled sizes down.
    let Some(Results::FirstTouch(ft)) = &run.experiments[0].results else {
        panic!("first-touch ran")
    };
    let note = ft.size_note.as_deref().unwrap_or("");
    assert!(note.contains("cgroup memory limit (48 MiB)"), "{note}");
}
