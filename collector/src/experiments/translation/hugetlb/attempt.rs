//! The second half of `thp`: a `MAP_HUGETLB` chase from the 2 MiB pool,
//! reserving pages first only when `--reserve-hugepages` asks. With none
//! reserved the mapping fails by design, and that failure, with the pool's
//! numbers, is the result.

use pagewalk_analysis::chase::cycle;
use pagewalk_model::HugetlbAttempt;

use super::super::chase::{self, Counters, Layout, Plan, SEED};
use super::super::checks::Proof;
use super::super::region::{errno_name, human, Region, HUGE_PAGE};
use super::pool::{Pool, HUGE_KIB};
use super::reservation::Reservation;

/// Tries to chase `want` bytes of hugetlbfs memory (less if the pool is
/// smaller), reserving `reserve` pages first when asked.
pub fn attempt(
    want: u64,
    reserve: Option<u64>,
    plan: &Plan,
    counters: &Counters,
    proof: &mut Proof,
) -> HugetlbAttempt {
    let pool = Pool::system(HUGE_KIB);
    let mut reservation = reserve.map(|pages| Reservation::for_attempt(&pool, pages, want));
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
