//! Reserving hugetlbfs pages for a run: a pool grown by what an attempt
//! or the gigantic regime needs, capped to what it maps and to what the
//! memory guard allows (reserved pages are taken from everyone else), and
//! put back to its old size when the reservation ends: restored, dropped on
//! an error or a panic, or, after SIGKILL, by the next collector from the
//! pool's record.

use std::fmt;

use pagewalk_model::HugetlbReservation;

use super::super::region::human;
use super::pool::{undo_left_over, Pool, Record};
use crate::guard::Allowance;

/// What the memory guard allows ([`crate::guard::allow_now`]).
pub(super) type Allowed = Result<Result<Allowance, String>, String>;

/// Pages reserved for an attempt or an experiment; the previous pool size
/// goes back on drop if [`Reservation::restore`] was not called. While it
/// lasts, the previous size is in the pool's record.
#[derive(Debug)]
pub(super) struct Reservation {
    pool: Pool,
    record: Option<Record>,
    pub(super) requested: u64,
    capped: Option<String>,
    obtained: u64,
    previous: u64,
    done: bool,
}

/// What [`Reservation::make`] came to: the pool size before and the one
/// asked of the kernel, what capped the request, and the reservation or
/// why none was made (`None`: nothing was left to reserve once capped).
pub(super) struct Made {
    pub(super) previous: u64,
    pub(super) target: u64,
    pub(super) capped: Option<Capped>,
    pub(super) result: Result<Reservation, Option<String>>,
}

impl Reservation {
    /// Sets the pool to `base + pages`, `pages` capped to what `want` bytes
    /// take and to what the memory guard (`allow`) allows for them:
    /// reserved pages are taken from everyone else.
    pub(super) fn make(
        pool: &Pool,
        base: u64,
        pages: u64,
        want: u64,
        allow: impl FnOnce(u64) -> Allowed,
    ) -> Made {
        let blocked = undo_left_over(pool);
        let previous = pool.read("nr_hugepages").unwrap_or(0);
        let (more, capped) = cap_reservation(pages, want, pool.page_bytes(), allow(want));
        let target = base + more;
        let result = if more == 0 {
            Err(None)
        } else if let Some(why) = blocked {
            Err(Some(why))
        } else {
            let note = capped.as_ref().map(Capped::to_string);
            Reservation::change(pool, pages, note, previous, target).map_err(Some)
        };
        Made {
            previous,
            target,
            capped,
            result,
        }
    }

    /// `--reserve-hugepages pages` for the 2 MiB attempt of `want` bytes:
    /// the pool set to `pages`, capped. What got in the way is said on
    /// stderr, and the `Err` is already the record of why not.
    pub(super) fn for_attempt(
        pool: &Pool,
        pages: u64,
        want: u64,
    ) -> Result<Reservation, HugetlbReservation> {
        let made = Reservation::make(pool, 0, pages, want, crate::guard::allow_now);
        let capped = made.capped.as_ref().map(Capped::to_string);
        if let Some(why) = &capped {
            eprintln!("thp: --reserve-hugepages {pages}: {why}");
        }
        made.result.map_err(|why| {
            if let Some(why) = why {
                eprintln!("thp: --reserve-hugepages {}: {why}", made.target);
            }
            HugetlbReservation {
                requested: pages,
                capped,
                obtained: made.previous,
                previous: made.previous,
                restored: true,
            }
        })
    }

    /// Records `previous`, then sets the pool to `target`.
    pub(super) fn change(
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
    /// so (else it stays, for the next collector to try again). Says on
    /// stderr when it could not.
    fn put_back(&mut self) -> bool {
        self.done = true;
        match self.pool.put_back(self.previous) {
            Ok(()) => {
                if let Some(record) = self.record.take() {
                    record.remove();
                }
                true
            }
            Err(why) => {
                eprintln!(
                    "{}: could not put {} back to {}: {why}",
                    self.pool.speaker(),
                    self.pool.nr_hugepages(),
                    self.previous
                );
                false
            }
        }
    }

    pub(super) fn restore(mut self) -> HugetlbReservation {
        let restored = self.put_back();
        HugetlbReservation {
            requested: self.requested,
            capped: self.capped.clone(),
            obtained: self.obtained,
            previous: self.previous,
            restored,
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.done {
            self.put_back();
        }
    }
}

/// Why fewer pages than asked are reserved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Capped {
    most: u64,
    asked: u64,
    pub(super) reason: String,
}

impl fmt::Display for Capped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "capped to {} pages (of {} asked): {}",
            self.most, self.asked, self.reason
        )
    }
}

/// How many pages of `page` bytes to reserve for `asked`: never more than
/// the `want` bytes they are for, nor than the guard's allowance for them.
fn cap_reservation(asked: u64, want: u64, page: u64, allowance: Allowed) -> (u64, Option<Capped>) {
    let (allowed, why) = match allowance {
        Ok(Ok(a)) => (a.bytes / page, a.note),
        Ok(Err(why)) | Err(why) => (0, Some(why)),
    };
    let most = (want / page).min(allowed);
    if asked <= most {
        return (asked, None);
    }
    let reason =
        why.unwrap_or_else(|| format!("the attempt maps at most {}", human(want as usize)));
    (
        most,
        Some(Capped {
            most,
            asked,
            reason,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::super::super::region::HUGE_PAGE;
    use super::super::pool::{fake_pool_of, recorded_previous, recover, HUGE_KIB};
    use super::*;
    use std::fs;

    const MIB: u64 = 1 << 20;
    const HUGE: u64 = HUGE_PAGE as u64;

    /// A 2 MiB pool of `nr` pages in a folder of its own, its record beside it.
    fn fake_pool(nr: u64) -> (tempfile::TempDir, Pool) {
        fake_pool_of(HUGE_KIB, nr, nr)
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
    fn a_huge_request_is_capped_to_what_the_attempt_maps() {
        let plenty = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        let (pages, why) = cap_reservation(99_999_999_999, 256 * MIB, HUGE, plenty);
        assert_eq!(pages, 128);
        assert!(why.unwrap().to_string().contains("of 99999999999 asked"));
        let ok = Ok(Ok(Allowance {
            bytes: 256 * MIB,
            note: None,
        }));
        assert_eq!(cap_reservation(16, 256 * MIB, HUGE, ok), (16, None));
    }

    #[test]
    fn the_guard_caps_it_further_and_says_why() {
        let tight = Ok(Ok(Allowance {
            bytes: 64 * MIB,
            note: Some("scaled down: a quarter of MemAvailable (256 MiB)".into()),
        }));
        let (pages, why) = cap_reservation(1000, 256 * MIB, HUGE, tight);
        assert_eq!(pages, 32);
        assert!(why.unwrap().reason.contains("MemAvailable"));
        let none = Ok(Err("not even 2 MiB fits".to_string()));
        assert_eq!(cap_reservation(1000, 256 * MIB, HUGE, none).0, 0);
    }
}
