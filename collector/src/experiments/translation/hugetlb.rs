//! The hugetlbfs half of `thp`: `MAP_HUGETLB` from the pool of 2 MiB pages
//! set aside in advance. Unlike THP these are guaranteed and never split,
//! but only if someone reserved them; with none reserved the mapping fails
//! by design, and that is the result, not an error.
//!
//! The collector changes no system setting unless asked: only
//! `--reserve-hugepages N` writes the pool size, and the old value is put
//! back as soon as the attempt is over (also on an error, a panic or Ctrl-C,
//! which only ends the attempt early). Before the change, the old value is
//! written to a record (`/run/pagewalk-nr_hugepages`) held locked while
//! the change lasts: a collector killed with SIGKILL cannot put it back,
//! so the next one to start finds the record unlocked, puts the recorded
//! value back and says so ([`recover_left_over`]).

use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{HugetlbAttempt, HugetlbReservation};

use super::chase::{self, Counters, Layout, Plan};
use super::checks::Proof;
use super::region::{errno_name, human, Region, HUGE_PAGE};
use super::SEED;

const POOL: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB";
/// The pool size before a collector changed it. /run: root-only, and
/// emptied at boot, when the pool is back to its configured size anyway.
const RECORD: &str = "/run/pagewalk-nr_hugepages";

/// The 2 MiB pool's files, and where its size before a change is
/// recorded (a test points both at a folder of its own).
#[derive(Debug, Clone)]
pub struct Pool {
    dir: PathBuf,
    record: PathBuf,
}

impl Pool {
    pub fn system() -> Pool {
        Pool {
            dir: POOL.into(),
            record: RECORD.into(),
        }
    }

    fn read(&self, file: &str) -> Option<u64> {
        fs::read_to_string(self.dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    fn set(&self, pages: u64) -> Result<(), String> {
        let path = self.dir.join("nr_hugepages");
        fs::write(&path, pages.to_string())
            .map_err(|e| format!("cannot write {}: {} ({e})", path.display(), errno_name(&e)))
    }

    /// Sets the size back to `previous`; true when it reads back so.
    fn put_back(&self, previous: u64) -> Result<(), String> {
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
struct Record {
    path: PathBuf,
    _lock: File,
}

impl Record {
    fn write(pool: &Pool, previous: u64) -> Result<Record, String> {
        let path = pool.record.clone();
        let mut file = crate::lockfile::create_locked(&path, 0o644).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "another collector is changing nr_hugepages (it holds {}); not changing it too",
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
    fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// `previous N` of a record's text.
fn recorded_previous(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("previous "))?
        .trim()
        .parse()
        .ok()
}

/// At a collector's start: if a collector that had changed the pool size
/// was killed before it could put it back (its record is there and
/// nobody holds its lock), puts the recorded size back, removes the
/// record and says so on stderr.
pub fn recover_left_over() {
    match recover(&Pool::system()) {
        Ok(Some(done)) => eprintln!("{done}"),
        Ok(None) => {}
        Err(why) => eprintln!("thp: warning: {why}"),
    }
}

/// What [`recover_left_over`] does for `pool`: `Ok(Some(message))` when
/// the size was put back, `Ok(None)` when there was nothing to do, `Err`
/// when a live collector holds the record or the size could not be put
/// back (the record then stays, for the next start to try again).
fn recover(pool: &Pool) -> Result<Option<String>, String> {
    let record = &pool.record;
    if fs::symlink_metadata(record).is_err() {
        return Ok(None);
    }
    let Some(lock) = crate::lockfile::unheld(record) else {
        return Err(format!(
            "{} is held by a collector changing nr_hugepages now",
            record.display()
        ));
    };
    let text = fs::read_to_string(record).unwrap_or_default();
    let Some(previous) = recorded_previous(&text) else {
        // Killed before the record was written, so before any change.
        let _ = fs::remove_file(record);
        return Ok(None);
    };
    let now = pool.read("nr_hugepages");
    pool.put_back(previous).map_err(|why| {
        format!(
            "a collector killed while it had changed nr_hugepages left it at {}; putting back the recorded {previous} failed: {why} (the record stays in {})",
            now.map_or("?".into(), |n| n.to_string()),
            record.display()
        )
    })?;
    let _ = fs::remove_file(record);
    drop(lock);
    Ok(Some(format!(
        "thp: a collector killed while it had changed nr_hugepages left it at {}; put back to {previous}, the value recorded in {} before the change",
        now.map_or("?".into(), |n| n.to_string()),
        record.display()
    )))
}

/// Tries to chase `want` bytes of hugetlbfs memory (less if the pool is
/// smaller), reserving `reserve` pages first when asked.
pub fn attempt(
    want: u64,
    reserve: Option<u64>,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let pool = Pool::system();
    let mut reservation = reserve.map(|pages| Reservation::make(&pool, pages, want));
    let mut result = try_pool(&pool, want, plan, counters, proof);
    if let Some(r) = reservation.take() {
        result.reserved = Some(match r {
            Ok(r) => r.restore(),
            Err(failed) => failed,
        });
    }
    result
}

fn try_pool(
    pool: &Pool,
    want: u64,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let mut result = HugetlbAttempt {
        page_bytes: HUGE_PAGE as u64,
        nr_hugepages: 0,
        free_hugepages: 0,
        reserved: None,
        size_bytes: 0,
        mapped: false,
        chase: None,
        outcome: String::new(),
        errno: None,
    };
    let (Some(nr), Some(free)) = (pool.read("nr_hugepages"), pool.read("free_hugepages")) else {
        result.outcome = format!(
            "this kernel has no 2 MiB hugetlbfs pool ({})",
            pool.dir.display()
        );
        return result;
    };
    (result.nr_hugepages, result.free_hugepages) = (nr, free);
    // With no free page, still ask for one: the kernel's answer is the finding.
    let size = (want / HUGE_PAGE as u64).min(free).max(1) * HUGE_PAGE as u64;
    result.size_bytes = size;
    let region = match Region::map_hugetlb(size as usize) {
        Ok(r) => r,
        Err(e) => {
            result.errno = Some(errno_name(&e));
            result.outcome = match (nr, free) {
                (0, _) => format!(
                    "no huge pages reserved (nr_hugepages 0): MAP_HUGETLB cannot map ({}), as designed; reserve some with --reserve-hugepages N (root)",
                    errno_name(&e)
                ),
                (_, 0) => format!(
                    "all {nr} reserved huge pages are in use: MAP_HUGETLB cannot map ({})",
                    errno_name(&e)
                ),
                _ => format!("MAP_HUGETLB of {} failed: {e}", human(size as usize)),
            };
            return result;
        }
    };
    let layout = Layout::Strided { stride: 64 };
    let next = cycle(size as usize / 64, SEED);
    let c = chase::run_in(&region, layout, &next, plan, counters);
    proof.add(&format!("hugetlbfs {}", human(size as usize)), &c);
    result.outcome = format!(
        "mapped {} from a pool of {nr} reserved 2 MiB pages ({free} free): {:.1} ns per load",
        human(size as usize),
        c.point.ns_per_load.median
    );
    result.mapped = true;
    result.chase = Some(c.point);
    result
}

/// Pages reserved for the attempt; the previous pool size goes back on
/// drop if [`Reservation::restore`] was not called. While it lasts, the
/// previous size is in the pool's record.
#[derive(Debug)]
struct Reservation {
    pool: Pool,
    record: Option<Record>,
    requested: u64,
    capped: Option<String>,
    obtained: u64,
    previous: u64,
    done: bool,
}

impl Reservation {
    /// Sets the pool to `pages`, capped to what an attempt of `want` bytes
    /// maps and to what the memory guard allows (reserved pages are taken
    /// from everyone else); the `Err` is already the record of why not.
    fn make(pool: &Pool, pages: u64, want: u64) -> Result<Reservation, HugetlbReservation> {
        // A killed collector's change is undone first, or its value would
        // be taken for this machine's own.
        let blocked = match recover(pool) {
            Ok(done) => {
                if let Some(done) = done {
                    eprintln!("{done}");
                }
                None
            }
            Err(why) => Some(why),
        };
        let previous = pool.read("nr_hugepages").unwrap_or(0);
        let (target, capped) = cap_reservation(pages, want, crate::guard::allow_now(want));
        if let Some(why) = &capped {
            eprintln!("thp: --reserve-hugepages {pages}: {why}");
        }
        let failed = |obtained| HugetlbReservation {
            requested: pages,
            capped: capped.clone(),
            obtained,
            previous,
            restored: true,
        };
        if target == 0 {
            return Err(failed(previous));
        }
        if let Some(why) = blocked {
            eprintln!("thp: --reserve-hugepages {target}: {why}");
            return Err(failed(previous));
        }
        Reservation::change(pool, pages, capped.clone(), previous, target).map_err(|why| {
            eprintln!("thp: --reserve-hugepages {target}: {why}");
            failed(previous)
        })
    }

    /// Records `previous`, then sets the pool to `target`.
    fn change(
        pool: &Pool,
        requested: u64,
        capped: Option<String>,
        previous: u64,
        target: u64,
    ) -> Result<Reservation, String> {
        let record = Record::write(pool, previous)?;
        if let Err(why) = pool.set(target) {
            record.remove();
            return Err(why);
        }
        Ok(Reservation {
            pool: pool.clone(),
            record: Some(record),
            requested,
            capped,
            // The kernel gives what it can find: maybe fewer.
            obtained: pool.read("nr_hugepages").unwrap_or(0),
            previous,
            done: false,
        })
    }

    /// Puts the previous size back; the record goes once it reads back
    /// so (else it stays, for the next collector to try again).
    fn put_back(&mut self) -> Result<(), String> {
        self.done = true;
        self.pool.put_back(self.previous)?;
        if let Some(record) = self.record.take() {
            record.remove();
        }
        Ok(())
    }

    fn restore(mut self) -> HugetlbReservation {
        let restored = match self.put_back() {
            Ok(()) => true,
            Err(why) => {
                eprintln!(
                    "thp: could not put nr_hugepages back to {}: {why}",
                    self.previous
                );
                false
            }
        };
        HugetlbReservation {
            requested: self.requested,
            capped: self.capped.clone(),
            obtained: self.obtained,
            previous: self.previous,
            restored,
        }
    }
}

/// How many pages to reserve for `asked`: never more than the `want`
/// bytes the attempt maps, nor than the guard's allowance for them.
fn cap_reservation(
    asked: u64,
    want: u64,
    allowance: Result<Result<crate::guard::Allowance, String>, String>,
) -> (u64, Option<String>) {
    let huge = HUGE_PAGE as u64;
    let (allowed, why) = match allowance {
        Ok(Ok(a)) => (a.bytes / huge, a.note),
        Ok(Err(why)) | Err(why) => (0, Some(why)),
    };
    let most = (want / huge).min(allowed);
    if asked <= most {
        return (asked, None);
    }
    let reason =
        why.unwrap_or_else(|| format!("the attempt maps at most {}", human(want as usize)));
    (
        most,
        Some(format!(
            "capped to {most} pages (of {asked} asked): {reason}"
        )),
    )
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.done {
            if let Err(why) = self.put_back() {
                eprintln!(
                    "thp: could not put nr_hugepages back to {}: {why}",
                    self.previous
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::Allowance;

    const MIB: u64 = 1 << 20;

    /// A pool of `nr` pages in a folder of its own, its record beside it.
    fn fake_pool(nr: u64) -> (tempfile::TempDir, Pool) {
        let dir = tempfile::tempdir().unwrap();
        let pool = Pool {
            dir: dir.path().join("hugepages-2048kB"),
            record: dir.path().join("pagewalk-nr_hugepages"),
        };
        fs::create_dir(&pool.dir).unwrap();
        fs::write(pool.dir.join("nr_hugepages"), format!("{nr}\n")).unwrap();
        fs::write(pool.dir.join("free_hugepages"), format!("{nr}\n")).unwrap();
        (dir, pool)
    }

    impl Reservation {
        /// What SIGKILL does: nothing is put back, and the kernel closes
        /// the record (which releases its lock).
        fn killed(mut self) {
            self.done = true;
        }
    }

    #[test]
    fn a_killed_runs_change_is_put_back_at_the_next_start() {
        let (_dir, pool) = fake_pool(0);
        let r = Reservation::change(&pool, 16, None, 0, 16).unwrap();
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        // While the run lives, its change is its own.
        let live = recover(&pool).unwrap_err();
        assert!(live.contains("held by a collector"), "{live}");
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        r.killed();
        assert_eq!(pool.read("nr_hugepages"), Some(16), "left changed");

        let said = recover(&pool).unwrap().expect("put back");
        assert_eq!(pool.read("nr_hugepages"), Some(0));
        assert!(said.contains("left it at 16; put back to 0"), "{said}");
        assert!(!pool.record.exists(), "the record goes once done");
        assert_eq!(recover(&pool), Ok(None), "nothing more to do");
        // The next reservation takes 0 for the old value, not 16.
        let next = Reservation::change(&pool, 4, None, pool.read("nr_hugepages").unwrap(), 4);
        let next = next.unwrap().restore();
        assert_eq!((next.previous, next.restored), (0, true));
        assert_eq!(pool.read("nr_hugepages"), Some(0));
    }

    #[test]
    fn a_normal_restore_or_drop_removes_the_record() {
        let (_dir, pool) = fake_pool(2);
        let r = Reservation::change(&pool, 8, None, 2, 8).unwrap();
        assert!(pool.record.exists());
        assert_eq!(
            recorded_previous(&fs::read_to_string(&pool.record).unwrap()),
            Some(2)
        );
        let done = r.restore();
        assert!(done.restored);
        assert_eq!(pool.read("nr_hugepages"), Some(2));
        assert!(!pool.record.exists());

        // An error or a panic ends the attempt by dropping it.
        drop(Reservation::change(&pool, 8, None, 2, 8).unwrap());
        assert_eq!(pool.read("nr_hugepages"), Some(2));
        assert!(!pool.record.exists());
    }

    #[test]
    fn a_second_collector_does_not_change_a_pool_another_holds() {
        let (_dir, pool) = fake_pool(0);
        let first = Reservation::change(&pool, 16, None, 0, 16).unwrap();
        let second = Reservation::change(&pool, 4, None, 16, 4).unwrap_err();
        assert!(second.contains("another collector"), "{second}");
        assert_eq!(pool.read("nr_hugepages"), Some(16));
        first.restore();
        assert_eq!(pool.read("nr_hugepages"), Some(0));
    }

    #[test]
    fn a_record_the_killed_run_never_filled_changed_nothing() {
        let (_dir, pool) = fake_pool(3);
        fs::write(&pool.record, "").unwrap();
        assert_eq!(recover(&pool), Ok(None));
        assert!(!pool.record.exists());
        assert_eq!(pool.read("nr_hugepages"), Some(3));
    }

    #[test]
    fn a_huge_request_is_capped_to_what_the_attempt_maps() {
        let plenty = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        let (pages, why) = cap_reservation(99_999_999_999, 256 * MIB, plenty);
        assert_eq!(pages, 128);
        assert!(why.unwrap().contains("of 99999999999 asked"));
        let ok = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        assert_eq!(cap_reservation(16, 256 * MIB, ok), (16, None));
    }

    #[test]
    fn the_guard_caps_it_further_and_says_why() {
        let tight = Ok(Ok(Allowance {
            bytes: 64 * MIB,
            note: Some("scaled down: a quarter of MemAvailable (256 MiB)".into()),
        }));
        let (pages, why) = cap_reservation(1000, 256 * MIB, tight);
        assert_eq!(pages, 32);
        assert!(why.unwrap().contains("MemAvailable"));
        let none = Ok(Err("not even 2 MiB fits".to_string()));
        assert_eq!(cap_reservation(1000, 256 * MIB, none).0, 0);
    }
}
