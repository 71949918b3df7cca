//! What the collector is asked for and where it runs never costs a run: a
//! command line that would write a file the model refuses is refused before
//! anything runs, a memory limit skips what does not fit instead of
//! aborting, and a folder that cannot be written is found before measuring.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use pagewalk_model::{read_run, Status};

fn collector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .output()
        .expect("run collector")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn entries(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn command_lines_a_run_file_cannot_hold_are_refused_up_front() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    // This test's own process: it exists, so only the options can be wrong.
    let pid = std::process::id().to_string();
    let pid = pid.as_str();
    let cases: &[(&[&str], &[&str])] = &[
        // 1,201 samples: more than a run file keeps.
        (
            &["inspect", pid, "--for", "2m"],
            &["--for", "--interval", "1201 samples", "at most 1024"],
        ),
        (
            &["inspect", pid, "--for", "100ms", "--interval", "1us"],
            &["'--interval <DURATION>'", "at least 10ms"],
        ),
        (&["inspect", pid, "--for", "1000000000h"], &["--for"]),
        (
            &["inspect", pid, "--for", "1s", "--interval", "2s"],
            &["--interval (2s) is longer than --for (1s)"],
        ),
        (
            &["run", "first-touch", "--size", "1E"],
            &["'--size <SIZE>'", "more than 1 PiB"],
        ),
        (
            &["run", "first-touch", "--reps", "2000"],
            &["'--reps <N>'", "1..=1024"],
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().copied().chain(["--out", dir]).collect();
        let o = collector(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}\n{err}");
        for e in *expected {
            assert!(err.contains(e), "{args:?}: no {e:?} in\n{err}");
        }
        assert!(stdout(&o).is_empty(), "{args:?}: nothing ran");
    }
    assert_eq!(entries(out.path()), 0, "no file written");
}

/// `collector run --all --quick` with this process's address space
/// limited to `bytes` (as `prlimit --as` or `ulimit -v` would).
fn run_with_address_space(bytes: u64, out: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_collector"));
    cmd.args(["run", "--all", "--quick", "--out", out.to_str().unwrap()]);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("run collector")
}

#[test]
fn an_address_space_limit_skips_what_does_not_fit_and_keeps_the_rest() {
    // Found by trying (debug build): at 22 MiB the first experiments run at
    // scaled-down sizes and the chases' regions no longer fit. Before the
    // guard read RLIMIT_AS, first-touch's 64 MiB Vec aborted the process
    // here (status 134, no file).
    let dir = tempfile::tempdir().unwrap();
    let o = run_with_address_space(22 << 20, dir.path());
    assert!(
        o.status.success(),
        "status {:?} (134: an allocation aborted)\n{}",
        o.status,
        stderr(&o)
    );
    let files: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let run = read_run(&files[0]).unwrap();
    assert!(
        run.experiments.len() >= 9,
        "every experiment is in the file"
    );
    let skipped: Vec<_> = run
        .experiments
        .iter()
        .filter(|e| e.status == Status::Skipped)
        .filter(|e| e.reason.as_deref().unwrap_or("").contains("RLIMIT_AS"))
        .collect();
    assert!(
        !skipped.is_empty(),
        "some experiment is skipped for the limit:\n{}",
        stdout(&o)
    );
    for e in &skipped {
        let reason = e.reason.as_deref().unwrap();
        assert!(reason.contains("22 MiB"), "the limit is named: {reason}");
    }
    assert!(
        run.experiments.iter().any(|e| e.status == Status::Ok),
        "what fits is measured:\n{}",
        stdout(&o)
    );
}

#[test]
fn an_output_folder_that_cannot_be_written_fails_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    fs::write(&file, "x").unwrap();
    let under_a_file = file.join("runs");
    // /proc refuses new files even for root, where chmod would not.
    for out in [under_a_file.to_str().unwrap(), "/proc"] {
        let o = collector(&["run", "--all", "--quick", "--out", out]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{out}: {err}");
        assert!(
            err.contains(&format!("cannot write run files to {out}")),
            "{err}"
        );
        assert!(err.contains("nothing was measured"), "{err}");
        assert!(
            !stdout(&o).contains("first-touch"),
            "no experiment ran: {}",
            stdout(&o)
        );
    }
    let pid = std::process::id().to_string();
    let o = collector(&["inspect", &pid, "--out", "/proc"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing was watched"), "{}", stderr(&o));
}
