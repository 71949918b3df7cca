//! Telling a live writer's file from a killed one's: the writer holds
//! `flock(LOCK_EX)` on it for as long as it needs it, and the kernel
//! drops the lock when the writer dies, however it dies. A file is
//! abandoned only if `flock(LOCK_EX | LOCK_NB)` succeeds. Unlike a process
//! id, the lock means the same in every PID namespace (a collector in a
//! container writing to a shared folder has an id that means nothing, or
//! another process, outside it).
//!
//! flock locks belong to an open file description: the `File` returned
//! holds the lock until it (and any duplicate) is closed.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Creates `path` (which must not exist; a symlink there is refused, not
/// followed) with `mode`, and returns it open for writing with the lock
/// held. Someone who removed the file between its creation and the lock
/// (taking it for abandoned) only makes it try again.
pub fn create_locked(path: &Path, mode: u32) -> io::Result<File> {
    for _ in 0..8 {
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)?;
        match lock(&file, libc::LOCK_EX) {
            Ok(()) => {}
            // A file system without locks (some network ones): then no
            // reader can take the lock either, so nobody takes the file
            // for abandoned, and the write must not fail for it.
            Err(e) if unsupported(&e) => return Ok(file),
            Err(e) => return Err(e),
        }
        if same_file(&file, path) {
            return Ok(file);
        }
    }
    Err(io::Error::other(format!(
        "{}: removed as soon as it was created, again and again",
        path.display()
    )))
}

/// Takes the lock of an existing directory or file at `path` (not through
/// a symlink) and returns the open directory or file holding it.
pub fn lock_existing(path: &Path) -> io::Result<File> {
    let file = open_nofollow(path)?;
    lock(&file, libc::LOCK_EX)?;
    Ok(file)
}

/// `Some` (holding the lock, so the caller may remove it before anyone
/// else takes it) when nobody holds the lock of the file or directory at
/// `path`: its writer is gone. `None` when it is held, is a symlink or
/// something else than a file or directory, or cannot be opened: then
/// nothing is known, and nothing may be removed.
pub fn unheld(path: &Path) -> Option<File> {
    let file = open_nofollow(path).ok()?;
    lock(&file, libc::LOCK_EX | libc::LOCK_NB).ok()?;
    // The name may have been given to another file since it was opened.
    same_file(&file, path).then_some(file)
}

fn open_nofollow(path: &Path) -> io::Result<File> {
    let meta = fs::symlink_metadata(path)?;
    if !(meta.is_file() || meta.is_dir()) {
        return Err(io::Error::other("neither a file nor a directory"));
    }
    // O_NONBLOCK: a FIFO swapped in after the check does not hang the open.
    File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

fn lock(file: &File, how: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: flock on a descriptor this `File` owns.
        if unsafe { libc::flock(file.as_raw_fd(), how) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::EINVAL)
    )
}

/// The open `file` is what `path` names now.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_seen_by_another_open_file_and_released_on_close() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let held = create_locked(&path, 0o600).unwrap();
        assert!(unheld(&path).is_none(), "held by `held`");
        drop(held);
        let taken = unheld(&path).expect("nobody holds it");
        assert!(unheld(&path).is_none(), "now held by `taken`");
        drop(taken);
        assert!(
            create_locked(&path, 0o600).is_err(),
            "never replaces a file"
        );
    }

    #[test]
    fn symlinks_are_neither_followed_nor_taken() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, "kept").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(create_locked(&link, 0o600).is_err());
        assert!(unheld(&link).is_none());
        assert_eq!(fs::read_to_string(&target).unwrap(), "kept");
    }
}
