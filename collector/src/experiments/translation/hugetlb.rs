//! The hugetlbfs half of `thp`: `MAP_HUGETLB` from the pool of 2 MiB pages
//! set aside in advance. Unlike THP these are guaranteed and never split,
//! but only if someone reserved them; with none reserved the mapping fails
//! by design, and that is the result, not an error.
//!
//! The collector changes no system setting unless asked: only
//! `--reserve-hugepages N` writes the pool size, and the old value is put
//! back as soon as the attempt is over (also on an error, a panic or Ctrl-C,
//! which only ends the attempt early).

use std::fs;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{HugetlbAttempt, HugetlbReservation};

use super::chase::{self, Counters, Layout, Plan};
use super::checks::Proof;
use super::region::{errno_name, human, Region, HUGE_PAGE};
use super::SEED;

const POOL: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB";

/// Tries to chase `want` bytes of hugetlbfs memory (less if the pool is
/// smaller), reserving `reserve` pages first when asked.
pub fn attempt(
    want: u64,
    reserve: Option<u64>,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let mut reservation = reserve.map(|pages| Reservation::make(pages, want));
    let mut result = try_pool(want, plan, counters, proof);
    if let Some(r) = reservation.take() {
        result.reserved = Some(match r {
            Ok(r) => r.restore(),
            Err(failed) => failed,
        });
    }
    result
}

fn try_pool(want: u64, plan: &Plan, counters: &Counters, proof: &mut Proof) -> HugetlbAttempt {
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
    let (Some(nr), Some(free)) = (pool("nr_hugepages"), pool("free_hugepages")) else {
        result.outcome = format!("this kernel has no 2 MiB hugetlbfs pool ({POOL})");
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

fn pool(file: &str) -> Option<u64> {
    fs::read_to_string(format!("{POOL}/{file}"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn set_pool(pages: u64) -> Result<(), String> {
    fs::write(format!("{POOL}/nr_hugepages"), pages.to_string())
        .map_err(|e| format!("cannot write {POOL}/nr_hugepages: {} ({e})", errno_name(&e)))
}

/// Pages reserved for the attempt; the previous pool size goes back on
/// drop if [`Reservation::restore`] was not called.
struct Reservation {
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
    fn make(pages: u64, want: u64) -> Result<Reservation, HugetlbReservation> {
        let previous = pool("nr_hugepages").unwrap_or(0);
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
        if let Err(why) = set_pool(target) {
            eprintln!("thp: --reserve-hugepages {target}: {why}");
            return Err(failed(previous));
        }
        Ok(Reservation {
            requested: pages,
            capped,
            // The kernel gives what it can find: maybe fewer.
            obtained: pool("nr_hugepages").unwrap_or(0),
            previous,
            done: false,
        })
    }

    fn restore(mut self) -> HugetlbReservation {
        self.done = true;
        let restored =
            set_pool(self.previous).is_ok() && pool("nr_hugepages") == Some(self.previous);
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
            if let Err(why) = set_pool(self.previous) {
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
