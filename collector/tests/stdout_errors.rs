//! Standard output that cannot be written: a reader that stopped reading
//! (`collector list | head -1`) ends the command quietly; a full disk
//! (`> /dev/full`) is an error message and exit status 1. Never a panic.

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.remove(0)
}

/// The commands that print, with enough output to fill a line or more.
fn commands() -> Vec<Vec<String>> {
    let file = example().display().to_string();
    let dir = example().parent().unwrap().display().to_string();
    vec![
        vec!["list".into()],
        vec!["validate".into(), dir],
        vec!["compare".into(), file.clone(), file.clone()],
        vec![
            "compare".into(),
            file.clone(),
            file,
            "--format".into(),
            "markdown".into(),
        ],
    ]
}

fn run_with_stdout(args: &[String], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("run collector")
}

/// A pipe whose read end is already closed: every write gets EPIPE.
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 returns.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors were just returned by pipe2 and are ours.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in commands() {
        let out = run_with_stdout(&args, closed_pipe());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_full_disk_is_an_error_and_exit_status_1() {
    for args in commands() {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = run_with_stdout(&args, Stdio::from(full));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: one message: {err}");
    }
}
