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
/// rather than overwrite an existing file.
pub fn write_new(dir: &Path, run_id: &str, run: &RunFile) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("{run_id}.json"));
    let tmp = dir.join(format!(".{run_id}.json.tmp"));
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
}
