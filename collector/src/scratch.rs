//! Private temporary folders. A file in the shared temporary directory
//! under a name anyone can guess (the process id) can be a symlink planted
//! there first, and the collector, often root, would write through it.
//! Instead each use gets a folder of its own: a random name, created
//! exclusively, mode 0700, removed when the [`Scratch`] is dropped (a
//! return, an error or a panic). A SIGKILL leaves it behind: the folder
//! is held locked while in use (see [`crate::lockfile`]), so
//! [`leftovers`] can tell a killed collector's folder from a live one's,
//! and `collector validate` names them.

use std::fs::{File, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::lockfile;

/// Every private folder's name starts with this: one the collector alone
/// writes, so `validate` never names another program's folder (the browser
/// tests' `pagewalk-browser-*` profiles, say) as the collector's leftover.
pub const PREFIX: &str = "pagewalk-collector-";

/// A private folder, removed on drop.
pub struct Scratch {
    // Dropped in this order: the folder is removed, then the lock goes.
    dir: tempfile::TempDir,
    _lock: File,
}

impl Scratch {
    /// A new folder `pagewalk-collector-PURPOSE-PID-RANDOM` in the temporary
    /// directory.
    pub fn new(purpose: &str) -> io::Result<Scratch> {
        Scratch::new_in(&std::env::temp_dir(), purpose)
    }

    pub fn new_in(base: &Path, purpose: &str) -> io::Result<Scratch> {
        let prefix = format!("{PREFIX}{purpose}-{}-", std::process::id());
        let dir = tempfile::Builder::new()
            .prefix(&prefix)
            .permissions(Permissions::from_mode(0o700))
            .tempdir_in(base)?;
        let lock = lockfile::lock_existing(dir.path())?;
        Ok(Scratch { dir, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The private folders in `base` whose collector is gone (killed before
/// it could remove them). A folder created a moment ago and not locked
/// yet may be listed too; it is only ever reported, never removed.
pub fn leftovers(base: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(PREFIX))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| lockfile::unheld(p).is_some())
        .collect();
    found.sort();
    found
}

/// Entries of the temp folder whose names start with `prefix`: for tests
/// that check a call left nothing behind.
#[cfg(test)]
pub fn in_temp_dir(prefix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_locked_and_gone_after_drop() {
        let base = tempfile::tempdir().unwrap();
        let s = Scratch::new_in(base.path(), "test").unwrap();
        let path = s.path().to_path_buf();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("{PREFIX}test-{}-", std::process::id())));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(leftovers(base.path()).is_empty(), "held while in use");
        std::fs::write(path.join("f"), "x").unwrap();
        drop(s);
        assert!(!path.exists());
    }

    #[test]
    fn a_folder_nobody_holds_is_a_leftover() {
        let base = tempfile::tempdir().unwrap();
        let s = Scratch::new_in(base.path(), "test").unwrap();
        let killed = base.path().join(format!("{PREFIX}test-1-abcdef"));
        std::fs::create_dir(&killed).unwrap();
        std::fs::create_dir(base.path().join("other")).unwrap();
        assert_eq!(leftovers(base.path()), vec![killed]);
        drop(s);
    }
}
