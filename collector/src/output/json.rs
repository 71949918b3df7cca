//! Writing a run file so that a crash never leaves half a file and a new run
//! never replaces an old one: write a temporary file in the same directory,
//! fsync it, rename it into place with `RENAME_NOREPLACE`, fsync the
//! directory.

use std::ffi::CString;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use pagewalk_model::RunFile;

/// Writes `run` to `dir/<run_id>.json`, creating `dir` if needed. Fails
/// rather than overwrite an existing file. Temporary files that killed runs
/// left behind in `dir` are removed first (see [`stale_temp_files`]).
pub fn write_new(dir: &Path, run_id: &str, run: &RunFile) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for stale in stale_temp_files(dir) {
        let _ = fs::remove_file(&stale.path);
    }
    let path = dir.join(format!("{run_id}.json"));
    let tmp = dir.join(temp_name(run_id, std::process::id()));
    let mut text =
        serde_json::to_string_pretty(run).map_err(|e| format!("cannot serialise the run: {e}"))?;
    text.push('\n');
    let result = write_synced(&tmp, text.as_bytes())
        .and_then(|()| rename_noreplace(&tmp, &path))
        .and_then(|()| File::open(dir)?.sync_all());
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(format!("cannot write {}: {e}", path.display()));
    }
    Ok(path)
}

/// `.RUNID.PID.json.tmp`: the writer's process id is in the name, so a
/// later run can tell a dead writer's leftover from a live one's file.
fn temp_name(run_id: &str, pid: u32) -> String {
    format!(".{run_id}.{pid}.json.tmp")
}

/// A temporary file left in a run folder by a writer that no longer runs
/// (killed with SIGKILL, or the machine lost power, mid-write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleTemp {
    pub path: PathBuf,
    /// The writer's process id, when the name carries one.
    pub pid: Option<u32>,
}

/// The temporary files in `dir` whose writer is gone: its process id no
/// longer exists, or (names from before the id was recorded) the file is
/// over an hour old. A concurrent live run's file is never listed.
pub fn stale_temp_files(dir: &Path) -> Vec<StaleTemp> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stale: Vec<StaleTemp> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_prefix('.')?.strip_suffix(".json.tmp")?;
            let pid = stem
                .rsplit_once('.')
                .and_then(|(_, p)| p.parse::<u32>().ok());
            let dead = match pid {
                Some(pid) => !process_exists(pid),
                None => e
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 3600),
            };
            dead.then(|| StaleTemp {
                path: e.path(),
                pid,
            })
        })
        .collect();
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    stale
}

fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let rc = unsafe { libc::kill(pid, 0) };
    // EPERM: it exists but belongs to someone else.
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::options().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// `renameat2(RENAME_NOREPLACE)`; where the filesystem does not support the
/// flag (EINVAL), `link` + `unlink`, which also refuses to replace.
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (from_c, to_c) = (c(from)?, c(to)?);
    // SAFETY: both paths are valid NUL-terminated strings for the call's duration.
    let rc = unsafe {
        libc::renameat2(
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
    if err.raw_os_error() != Some(libc::EINVAL) {
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
        fs::write(&live_tmp, "{").unwrap();
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
