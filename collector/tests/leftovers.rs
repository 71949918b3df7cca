//! What a killed collector leaves behind is reported by `collector
//! validate`: its private temporary folders (`pagewalk-collector-*` in the
//! temporary directory, which a live collector holds locked).

use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::process::{Command, Output};

fn validate_with_tmpdir(tmp: &std::path::Path, data: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(["validate", data.to_str().unwrap()])
        .env("TMPDIR", tmp)
        .output()
        .expect("run collector")
}

#[test]
fn validate_reports_a_killed_runs_private_folder_and_not_a_live_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let killed = tmp.path().join("pagewalk-collector-syscall-4242-Xa9bQ2");
    let live = tmp.path().join("pagewalk-collector-strace-4243-Zz1kP0");
    // Another program's folder under a name like the collector's (the
    // browser tests' Chromium profiles) is not the collector's leftover.
    let other = tmp.path().join("pagewalk-browser-HY6O0U");
    for d in [&killed, &live, &other] {
        fs::create_dir(d).unwrap();
    }
    fs::write(killed.join("open-close"), "pagewalk").unwrap();
    let held = File::open(&live).unwrap();
    // SAFETY: a valid open descriptor.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);

    let out = validate_with_tmpdir(tmp.path(), data.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "a leftover is a warning: {err}");
    assert!(
        err.contains(&killed.display().to_string()),
        "the killed run's folder is named: {err}"
    );
    assert!(
        !err.contains("pagewalk-collector-strace"),
        "a live one is not: {err}"
    );
    assert!(!err.contains("pagewalk-browser"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(killed.exists(), "reported, not removed");
    drop(held);
}
