//! No limit loses a run: for each one (file size, open files, address
//! space, a full disk, a read-only folder), set before the run starts or
//! while it measures, the run is either refused before anything is
//! measured or ends up in a file (or, as the last resort, on standard
//! output) that the model reads. Each test says where it ended up.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

fn leftovers(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// `collector ARGS` in `cwd` with `resource` set to (soft, hard) in the
/// child before it starts, as `prlimit` would.
fn limited(
    args: &[&str],
    cwd: &Path,
    resource: Option<(libc::__rlimit_resource_t, u64, u64)>,
) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_collector"));
    cmd.args(args).current_dir(cwd).env("HOME", cwd);
    if let Some((r, soft, hard)) = resource {
        // SAFETY: setrlimit is async-signal-safe, and nothing else runs
        // between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let l = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(r, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

const INF: u64 = libc::RLIM_INFINITY;

#[test]
fn a_hard_file_size_limit_is_found_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runs");
    let o = limited(
        &["run", "syscall", "--quick", "--out", out.to_str().unwrap()],
        dir.path(),
        Some((libc::RLIMIT_FSIZE, 4096, 4096)),
    )
    .output()
    .unwrap();
    let (_, stderr) = text(&o);
    // Before the fix: killed by SIGXFSZ while writing (no status code), a
    // 4 KiB `.tmp` left and no run anywhere.
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ulimit -f") && stderr.contains("nothing was measured"),
        "{stderr}"
    );
    assert!(json_files(&out).is_empty() && leftovers(&out).is_empty());
    assert!(json_files(dir.path()).is_empty());
    eprintln!("file size 4096 hard: refused before measuring, exit 1");
}

#[test]
fn a_soft_file_size_limit_is_raised() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runs");
    let o = limited(
        &["run", "syscall", "--quick", "--out", out.to_str().unwrap()],
        dir.path(),
        Some((libc::RLIMIT_FSIZE, 4096, INF)),
    )
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let files = json_files(&out);
    assert_eq!(files.len(), 1);
    pagewalk_model::read_run(&files[0]).unwrap();
    eprintln!("file size 4096 soft: raised to the hard limit, the run in its folder");
}

/// Starts a run long enough to change something while it measures (the
/// staircase takes seconds even with --quick), and waits until it has got
/// past the checks it makes before measuring.
fn start_measuring(out: &Path, cwd: &Path) -> Child {
    let mut child = limited(
        &[
            "run",
            "staircase",
            "--quick",
            "--out",
            out.to_str().unwrap(),
        ],
        cwd,
        None,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Not a timing assertion: the probe file comes and goes within
    // milliseconds of the start; a second is ample for it to be gone.
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run finished before the limit could be set"
    );
    child
}

#[test]
fn a_file_size_limit_lowered_while_measuring_leaves_the_run_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runs");
    let child = start_measuring(&out, dir.path());
    let l = libc::rlimit {
        rlim_cur: 4096,
        rlim_max: 4096,
    };
    // SAFETY: prlimit on our own child, which has not been waited for.
    let rc = unsafe {
        libc::prlimit(
            child.id() as libc::pid_t,
            libc::RLIMIT_FSIZE,
            &l,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    // No file could take it (every one is held to 4 KiB); a pipe is no file.
    assert!(stderr.contains("follows on standard output"), "{stderr}");
    let saved = dir.path().join("from-stdout.json");
    std::fs::write(&saved, stdout.as_bytes()).unwrap();
    let run = pagewalk_model::read_run(&saved).unwrap();
    assert_eq!(run.experiments.len(), 1);
    assert!(leftovers(&out).is_empty(), "{:?}", leftovers(&out));
    eprintln!("file size lowered to 4096 while measuring: the run on standard output, exit 1");
}

#[test]
fn too_few_open_files_is_found_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runs");
    let args = ["run", "syscall", "--quick", "--out", out.to_str().unwrap()];
    let o = limited(&args, dir.path(), Some((libc::RLIMIT_NOFILE, 8, 8)))
        .output()
        .unwrap();
    let (_, stderr) = text(&o);
    // Before: every experiment failed for want of a descriptor, scratch
    // folders were left, and the run went both to its folder and elsewhere.
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ulimit -n") && stderr.contains("nothing was measured"),
        "{stderr}"
    );
    assert!(json_files(&out).is_empty() && json_files(dir.path()).is_empty());
    // A soft limit is raised to the hard one.
    let o = limited(&args, dir.path(), Some((libc::RLIMIT_NOFILE, 8, 4096)))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert_eq!(json_files(&out).len(), 1);
    assert!(json_files(dir.path()).is_empty(), "one copy, in its folder");
    eprintln!("open files 8 hard: refused before measuring; 8 soft: raised, the run in its folder");
}

#[test]
fn an_address_space_limit_never_loses_the_run() {
    for mib in [24u64, 64, 256] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("runs");
        let bytes = mib << 20;
        let o = limited(
            &[
                "run",
                "first-touch",
                "syscall",
                "--quick",
                "--out",
                out.to_str().unwrap(),
            ],
            dir.path(),
            Some((libc::RLIMIT_AS, bytes, bytes)),
        )
        .output()
        .unwrap();
        let (_, stderr) = text(&o);
        let files = json_files(&out);
        match o.status.code() {
            Some(0) | Some(1) if files.len() == 1 => {
                pagewalk_model::read_run(&files[0]).unwrap();
                eprintln!(
                    "address space {mib} MiB: the run in its folder (exit {:?})",
                    o.status.code()
                );
            }
            Some(1) if stderr.contains("nothing was measured") => {
                eprintln!("address space {mib} MiB: refused before measuring");
            }
            other => panic!("address space {mib} MiB: exit {other:?}, files {files:?}: {stderr}"),
        }
    }
}

/// A tmpfs of `size` mounted on a new folder, unmounted on drop; `None`
/// (and the reason printed) where this process may not mount one.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn new(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match o {
            Ok(o) if o.status.success() => Some(Tmpfs(dir)),
            Ok(o) => {
                eprintln!(
                    "skipped: cannot mount a tmpfs here: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount command: {e}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_disk_too_full_for_a_run_file_is_found_before_measuring() {
    let Some(fs) = Tmpfs::new("1m") else { return };
    let cwd = tempfile::tempdir().unwrap();
    let out = fs.path().join("runs");
    let o = limited(
        &["run", "syscall", "--quick", "--out", out.to_str().unwrap()],
        cwd.path(),
        None,
    )
    .output()
    .unwrap();
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("No space left") && stderr.contains("nothing was measured"),
        "{stderr}"
    );
    assert!(json_files(&out).is_empty() && leftovers(&out).is_empty());
    eprintln!("1 MiB free: refused before measuring");
}

#[test]
fn a_disk_that_fills_or_turns_read_only_while_measuring_keeps_the_run_elsewhere() {
    for how in ["full", "read-only"] {
        let Some(fs) = Tmpfs::new("8m") else { return };
        let cwd = tempfile::tempdir().unwrap();
        let out = fs.path().join("runs");
        let child = start_measuring(&out, cwd.path());
        match how {
            "full" => {
                let fill = fs.path().join("fill");
                let _ = std::fs::write(&fill, vec![0u8; 16 << 20]);
            }
            _ => {
                let s = Command::new("mount")
                    .args(["-o", "remount,ro"])
                    .arg(fs.path())
                    .status()
                    .unwrap();
                assert!(s.success());
            }
        }
        let o = child.wait_with_output().unwrap();
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{how}: {stderr}");
        let kept = json_files(cwd.path());
        assert_eq!(kept.len(), 1, "{how}: kept in the current folder: {stderr}");
        pagewalk_model::read_run(&kept[0]).unwrap();
        assert!(
            stderr.contains(&kept[0].display().to_string()),
            "{how}: the message says where: {stderr}"
        );
        eprintln!("disk {how} while measuring: the run kept in the current folder, exit 1");
    }
}
