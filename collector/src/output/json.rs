//! Writing a run file so that a crash never leaves half a file and a new run
//! never replaces an old one: write a temporary file in the same directory,
//! fsync it, rename it into place with `RENAME_NOREPLACE`, fsync the
//! directory. The writer holds the temporary file's lock meanwhile, which
//! is how a later run tells a killed writer's leftover from a live one's.

use std::ffi::CString;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use pagewalk_model::RunFile;

use crate::lockfile;

/// Writes `run` to `dir/<run_id>.json`, creating `dir` if needed. Fails
/// rather than overwrite an existing file. Temporary files that killed runs
/// left behind in `dir` are removed first (see [`stale_temp_files`]).
pub fn write_new(dir: &Path, run_id: &str, run: &RunFile) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    remove_stale_temp_files(dir);
    let path = dir.join(format!("{run_id}.json"));
    let tmp = dir.join(temp_name(run_id, std::process::id()));
    let mut text =
        serde_json::to_string_pretty(run).map_err(|e| format!("cannot serialise the run: {e}"))?;
    text.push('\n');
    // The lock is held from the file's creation until it has its final
    // name: while it is held, no other run takes the file for a leftover.
    let result = lockfile::create_locked(&tmp, 0o644).and_then(|mut file| {
        write_synced(&mut file, text.as_bytes())
            .and_then(|()| rename_noreplace(&tmp, &path))
            .inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            })
    });
    if let Err(e) = result {
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    // The file is whole and in place from here on: a folder that cannot be
    // synced costs durability across a power cut, not the run, and it must
    // not send a second copy elsewhere.
    if let Err(e) = File::open(dir).and_then(|d| d.sync_all()) {
        eprintln!(
            "collector: warning: {} is written, but its folder could not be synced ({e}); a power cut now could still lose it",
            pagewalk_model::display::path_for_terminal(&path)
        );
    }
    Ok(path)
}

/// `.RUNID.PID.json.tmp`: unique to its writer. The process id is for
/// people (`collector validate` names it); whether the writer is still
/// there is told by the file's lock, since a process id means nothing
/// across PID namespaces.
fn temp_name(run_id: &str, pid: u32) -> String {
    format!(".{run_id}.{pid}.json.tmp")
}

/// A temporary file left in a run folder by a writer that no longer runs
/// (killed with SIGKILL, or the machine lost power, mid-write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleTemp {
    pub path: PathBuf,
    /// The writer's process id, when the name carries one (in the
    /// writer's PID namespace, which may not be this one).
    pub pid: Option<u32>,
}

/// The temporary files in `dir` whose writer is gone: nobody holds their
/// lock (a writer holds it for as long as the file exists under that
/// name; the kernel releases it when the writer dies). A concurrent live
/// run's file is never listed, whichever PID namespace it runs in.
pub fn stale_temp_files(dir: &Path) -> Vec<StaleTemp> {
    stale_temp_files_locked(dir)
        .into_iter()
        .map(|(stale, _lock)| stale)
        .collect()
}

/// Removes the stale temporary files in `dir`, each while holding its
/// lock, so that no writer can take it in between.
fn remove_stale_temp_files(dir: &Path) {
    for (stale, _lock) in stale_temp_files_locked(dir) {
        let _ = fs::remove_file(&stale.path);
    }
}

fn stale_temp_files_locked(dir: &Path) -> Vec<(StaleTemp, File)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stale: Vec<(StaleTemp, File)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_prefix('.')?.strip_suffix(".json.tmp")?;
            let pid = stem
                .rsplit_once('.')
                .and_then(|(_, p)| p.parse::<u32>().ok());
            let lock = lockfile::unheld(&e.path())?;
            Some((
                StaleTemp {
                    path: e.path(),
                    pid,
                },
                lock,
            ))
        })
        .collect();
    stale.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    stale
}

fn write_synced(file: &mut File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

/// `renameat2(RENAME_NOREPLACE)`; where the filesystem does not support the
/// flag (EINVAL) or a kernel without the call (ENOSYS), `link` + `unlink`,
/// which also refuses to replace.
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (from_c, to_c) = (c(from)?, c(to)?);
    // The system call itself (Linux 3.15), not glibc's wrapper, which
    // came only in glibc 2.28: the release binary runs on glibc from 2.17.
    // SAFETY: both paths are valid NUL-terminated strings for the call's duration.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from_c.as_ptr(),
            libc::AT_FDCWD,
            to_c.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    // EINVAL: a filesystem without the flag; ENOSYS: a kernel before 3.15
    // (or a sandbox that refuses the call).
    if !matches!(err.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
        return Err(err);
    }
    fs::hard_link(from, to)?;
    fs::remove_file(from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> RunFile {
        RunFile {
            schema_version: pagewalk_model::SCHEMA_VERSION,
            provenance: pagewalk_model::Provenance::Reference {
                source_id: "T".into(),
                name: "test".into(),
                conditions: "c".into(),
                note: "n".into(),
            },
            machine: None,
            experiments: Vec::new(),
        }
    }

    #[test]
    fn writes_once_and_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("runs");
        let path = write_new(&out, "r1", &run()).unwrap();
        assert_eq!(path, out.join("r1.json"));
        let first = fs::read(&path).unwrap();
        pagewalk_model::read_run(&path).unwrap();

        let err = write_new(&out, "r1", &run()).unwrap_err();
        assert!(err.contains("exists"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), first);
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(&out).unwrap().count(), 1);
    }

    /// Whether a temp file is stale is decided by its lock, not by its
    /// writer's process id: a writer in another PID namespace has an id
    /// that means nothing here (or another process's).
    #[test]
    fn a_locked_temp_file_is_live_whatever_its_pid_and_an_unlocked_one_stale() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        // No process has this id (above any pid_max), as a writer in
        // another PID namespace looks from here.
        let foreign = dir.path().join(temp_name("r1", 999_999_999));
        fs::write(&foreign, "{").unwrap();
        // The lock is held by another open file description, as the
        // writer's would be.
        let held = File::open(&foreign).unwrap();
        // SAFETY: a valid open descriptor.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        // Our own (live) id, but no lock: nobody is writing it.
        let abandoned = dir.path().join(temp_name("r2", std::process::id()));
        fs::write(&abandoned, "{").unwrap();
        let stale = stale_temp_files(dir.path());
        assert_eq!(
            stale,
            vec![StaleTemp {
                path: abandoned.clone(),
                pid: Some(std::process::id())
            }]
        );
        write_new(dir.path(), "r3", &run()).unwrap();
        assert!(foreign.exists(), "a locked file is never removed");
        assert!(!abandoned.exists(), "an unlocked leftover is removed");
        drop(held);
        assert_eq!(
            stale_temp_files(dir.path()).len(),
            1,
            "once unlocked, stale"
        );
    }

    #[test]
    fn a_dead_writers_temp_file_is_removed_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        // A child that has exited and been reaped: its pid is free.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let dead_tmp = dir.path().join(temp_name("r0", dead));
        let live_tmp = dir.path().join(temp_name("r9", std::process::id()));
        fs::write(&dead_tmp, "{").unwrap();
        // A live writer holds its file's lock.
        let _writing = lockfile::create_locked(&live_tmp, 0o644).unwrap();
        let stale = stale_temp_files(dir.path());
        assert_eq!(
            stale,
            vec![StaleTemp {
                path: dead_tmp.clone(),
                pid: Some(dead)
            }]
        );
        write_new(dir.path(), "r1", &run()).unwrap();
        assert!(!dead_tmp.exists(), "the dead run's leftover is gone");
        assert!(live_tmp.exists(), "a live run's file is never touched");
    }
}
