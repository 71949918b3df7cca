//! A hugetlbfs pool's files, and the record that makes a change to its
//! size undoable: written, and held locked, before the change; removed once
//! the old size is back. A collector killed in between leaves the record
//! unlocked, and the next one to start puts the recorded size back
//! ([`recover_left_over`]).

use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;

use super::super::region::{errno_name, human, GIGANTIC_PAGE, HUGE_PAGE};

/// The 2 MiB pool's page size, as its folder names it.
pub const HUGE_KIB: u64 = (HUGE_PAGE >> 10) as u64;
/// The 1 GiB pool's.
pub const GIGANTIC_KIB: u64 = (GIGANTIC_PAGE >> 10) as u64;

const POOLS: &str = "/sys/kernel/mm/hugepages";
/// The pool size before a collector changed it. /run: root-only, and
/// emptied at boot, when the pool is back to its configured size anyway.
/// The 2 MiB pool's record keeps the name it had when it was the only one
/// (so that a record an older collector left is still recovered); the
/// others' add their page size.
const RECORD: &str = "/run/pagewalk-nr_hugepages";

/// A pool's files, and where its size before a change is recorded (a
/// test points both at a folder of its own).
#[derive(Debug, Clone)]
pub struct Pool {
    pub(super) dir: PathBuf,
    pub(super) record: PathBuf,
    page_kib: u64,
}

impl Pool {
    /// The pool of `page_kib` pages: [`HUGE_KIB`], [`GIGANTIC_KIB`].
    pub fn system(page_kib: u64) -> Pool {
        let record = if page_kib == HUGE_KIB {
            RECORD.to_string()
        } else {
            format!("{RECORD}-{page_kib}kB")
        };
        Pool {
            dir: format!("{POOLS}/hugepages-{page_kib}kB").into(),
            record: record.into(),
            page_kib,
        }
    }

    pub(super) fn page_bytes(&self) -> u64 {
        self.page_kib << 10
    }

    /// `the 1 GiB pool's nr_hugepages`, for messages.
    pub(super) fn nr_hugepages(&self) -> String {
        format!(
            "the {} pool's nr_hugepages",
            human(self.page_bytes() as usize)
        )
    }

    /// Who says on stderr what happened to this pool: what reserves from it.
    pub(super) fn speaker(&self) -> &'static str {
        if self.page_kib == HUGE_KIB {
            "thp"
        } else {
            "gigantic"
        }
    }

    pub(super) fn read(&self, file: &str) -> Option<u64> {
        fs::read_to_string(self.dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// `nr_hugepages` and `free_hugepages`; `None` without such a pool.
    pub(super) fn size(&self) -> Option<(u64, u64)> {
        Some((self.read("nr_hugepages")?, self.read("free_hugepages")?))
    }

    pub(super) fn set(&self, pages: u64) -> Result<(), String> {
        let path = self.dir.join("nr_hugepages");
        fs::write(&path, pages.to_string()).map_err(|e| {
            let root = matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM));
            format!(
                "writing {pages} to {} failed with {}{}",
                path.display(),
                errno_name(&e),
                if root { " (it takes root)" } else { "" }
            )
        })
    }

    /// Sets the size back to `previous`; true when it reads back so.
    pub(super) fn put_back(&self, previous: u64) -> Result<(), String> {
        self.set(previous)?;
        match self.read("nr_hugepages") {
            Some(now) if now == previous => Ok(()),
            now => Err(format!(
                "it reads {} after writing {previous}",
                now.map_or("nothing".into(), |n| n.to_string())
            )),
        }
    }
}

/// The pool size before this collector changed it, in [`Pool::record`],
/// whose lock is held for as long as the change lasts.
#[derive(Debug)]
pub(super) struct Record {
    path: PathBuf,
    _lock: File,
}

impl Record {
    pub(super) fn write(pool: &Pool, previous: u64) -> Result<Record, String> {
        let path = pool.record.clone();
        let mut file = crate::lockfile::create_locked(&path, 0o644).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "another collector is changing {} (it holds {}); not changing it too",
                    pool.nr_hugepages(),
                    path.display()
                )
            } else {
                format!(
                    "cannot record the pool size before changing it in {}: {e}",
                    path.display()
                )
            }
        })?;
        let text = format!("previous {previous}\npid {}\n", std::process::id());
        if let Err(e) = file
            .write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
        {
            let _ = fs::remove_file(&path);
            return Err(format!("cannot write {}: {e}", path.display()));
        }
        Ok(Record { path, _lock: file })
    }

    /// The change is undone: the record goes (while its lock is held).
    pub(super) fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// `previous N` of a record's text.
pub(super) fn recorded_previous(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("previous "))?
        .trim()
        .parse()
        .ok()
}

/// At a collector's start, for each pool: if a collector that had changed
/// its size was killed before it could put it back (its record is there
/// and nobody holds its lock), puts the recorded size back, removes the
/// record and says so on stderr.
pub fn recover_left_over() {
    for pool in [HUGE_KIB, GIGANTIC_KIB].map(Pool::system) {
        match recover(&pool) {
            Ok(Some(done)) => eprintln!("{done}"),
            Ok(None) => {}
            Err(why) => eprintln!("{}: warning: {why}", pool.speaker()),
        }
    }
}

/// Before a pool is read for a change: a killed collector's change is
/// undone first (said on stderr), or its value would be taken for this
/// machine's own. `Some(why)` when a live collector is changing it now.
pub(super) fn undo_left_over(pool: &Pool) -> Option<String> {
    match recover(pool) {
        Ok(done) => {
            if let Some(done) = done {
                eprintln!("{done}");
            }
            None
        }
        Err(why) => Some(why),
    }
}

/// What [`recover_left_over`] does for `pool`: `Ok(Some(message))` when
/// the size was put back, `Ok(None)` when there was nothing to do, `Err`
/// when a live collector holds the record or the size could not be put
/// back (the record then stays, for the next start to try again).
pub(super) fn recover(pool: &Pool) -> Result<Option<String>, String> {
    let record = &pool.record;
    if fs::symlink_metadata(record).is_err() {
        return Ok(None);
    }
    let Some(lock) = crate::lockfile::unheld(record) else {
        return Err(format!(
            "{} is held by a collector changing {} now",
            record.display(),
            pool.nr_hugepages()
        ));
    };
    let text = fs::read_to_string(record).unwrap_or_default();
    let Some(previous) = recorded_previous(&text) else {
        // Killed before the record was written, so before any change.
        let _ = fs::remove_file(record);
        return Ok(None);
    };
    let now = pool.read("nr_hugepages");
    let left = format!(
        "a collector killed while it had changed {} left it at {}",
        pool.nr_hugepages(),
        now.map_or("?".into(), |n| n.to_string())
    );
    pool.put_back(previous).map_err(|why| {
        format!(
            "{left}; putting back the recorded {previous} failed: {why} (the record stays in {})",
            record.display()
        )
    })?;
    let _ = fs::remove_file(record);
    drop(lock);
    Ok(Some(format!(
        "{}: {left}; put back to {previous}, the value recorded in {} before the change",
        pool.speaker(),
        record.display()
    )))
}

/// A pool of `nr` pages of `page_kib`, `free` of them free, in a folder of
/// its own with its record beside it: what the tests of every part of
/// hugetlb change instead of the system's pools.
#[cfg(test)]
pub(super) fn fake_pool_of(page_kib: u64, nr: u64, free: u64) -> (tempfile::TempDir, Pool) {
    let dir = tempfile::tempdir().unwrap();
    let pool = Pool {
        dir: dir.path().join(format!("hugepages-{page_kib}kB")),
        record: dir.path().join("pagewalk-nr_hugepages"),
        page_kib,
    };
    fs::create_dir(&pool.dir).unwrap();
    fs::write(pool.dir.join("nr_hugepages"), format!("{nr}\n")).unwrap();
    fs::write(pool.dir.join("free_hugepages"), format!("{free}\n")).unwrap();
    (dir, pool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_the_killed_run_never_filled_changed_nothing() {
        let (_dir, pool) = fake_pool_of(HUGE_KIB, 3, 3);
        fs::write(&pool.record, "").unwrap();
        assert_eq!(recover(&pool), Ok(None));
        assert!(!pool.record.exists());
        assert_eq!(pool.read("nr_hugepages"), Some(3));
    }

    #[test]
    fn each_pool_has_its_folder_and_record() {
        let huge = Pool::system(HUGE_KIB);
        assert_eq!(
            huge.dir,
            PathBuf::from("/sys/kernel/mm/hugepages/hugepages-2048kB")
        );
        // The name an older collector's record has.
        assert_eq!(huge.record, PathBuf::from("/run/pagewalk-nr_hugepages"));
        let gigantic = Pool::system(GIGANTIC_KIB);
        assert_eq!(
            gigantic.dir,
            PathBuf::from("/sys/kernel/mm/hugepages/hugepages-1048576kB")
        );
        assert_eq!(
            gigantic.record,
            PathBuf::from("/run/pagewalk-nr_hugepages-1048576kB")
        );
        assert_eq!(gigantic.nr_hugepages(), "the 1 GiB pool's nr_hugepages");
    }
}
