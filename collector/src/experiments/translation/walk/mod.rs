//! # walk
//!
//! Premise: past the L2 TLB every load waits for a page walk, and what the
//! walk costs depends on where its entries are. One load per page over N
//! pages (four times the L2 TLB's 4 KiB entries as this run measured them:
//! tlb-reach's reach, else a probe of walk's own, CPUID's figure only when
//! neither could tell; [`super::measured`]), in a random cycle, at virtual
//! strides that spread the entries out level by level: at 4 KiB
//! neighbouring pages' last-level entries share a cache line; at 32 KiB
//! each sits in a line of its own; at 2 MiB each page needs its own
//! page-table page (and the directory entries above now differ too); at
//! 1 GiB its own page-directory page as well. Each added level that misses
//! in the caches and the page-walk caches is one more dependent load. On
//! huge pages the last level is gone: strides 2 MiB and 1 GiB, and 4 KiB as
//! the no-walk baseline (the same lines as the 4 KiB-page point, their
//! translations all in the TLB). The pages live in one `MAP_NORESERVE`
//! range, so only those touched are backed; the data line within a page
//! and the entry within each table vary from page to page so that no cache
//! set takes more than its share, on huge pages (physically contiguous)
//! too ([`range::offset`]). Checked: every sample ended where the cycle
//! says, `VmPTE` grew by the page tables the layout needs, huge pages
//! where asked and none elsewhere, no fault timed, the walk left the TLB
//! (the widest stride clearly slower than the 4 KiB one), the huge-page
//! lines fit L2's sets. Walk counters where the PMU allows, else skipped
//! with the reason. Every repetition runs in the one mapping (the range is
//! reserved once; `mappings: 1` says so): the strides are set against each
//! other, not against another placement.

mod checks;
mod counters;
mod range;
mod strides;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::walk::TIMES_L2_TLB;
use pagewalk_model::{Regime, Results, Summary, WalkPoint, WalkResults};

use super::chase::SEED;
use super::kernel;
use super::region::{human, unavailable};
use super::{geometry, measured};
use crate::experiments::{Env, Outcome};
use crate::{guard, interrupt, procfs, progress};
use counters::Counters;
use range::{predicted_tables_kib, vm_pte_kib, Range};
use strides::{GIB, HUGE, HUGE_STRIDES, PAGE, SMALL_STRIDES};

/// The most memory the huge-page points may back: each page is 2 MiB.
const HUGE_BUDGET: (u64, u64) = (GIB, 256 << 20);
const FULL_REPS: u32 = 5;
const SAMPLE_LOADS: (u64, u64) = (10_000, 1 << 30);

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let reach = measured::l2_reach(env, "walk");
    let l2_2m = geometry::read().data_tlb(2, HUGE).map(|t| t.entries);
    // Past every entry the measurement allows: its upper bound.
    let wanted = reach.past() * TIMES_L2_TLB;
    let wanted = if s.quick { wanted / 2 } else { wanted };
    // The worst 4 KiB point backs a data page, a page-table page and a
    // page-directory page per page visited.
    let per_page = PAGE * 3;
    let (pages, small_note) = match scale(wanted, per_page)? {
        Ok(x) => x,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let budget = if s.quick {
        HUGE_BUDGET.1
    } else {
        HUGE_BUDGET.0
    };
    let huge_wanted = pages.min(budget / HUGE);
    // No room for huge pages is not a skip of the whole experiment: the
    // huge-page points say so one by one.
    let (huge_pages, huge_note) = scale(huge_wanted, HUGE + 2 * PAGE)?.unwrap_or_default();
    let plan = Plan {
        repetitions: s.reps_or(FULL_REPS),
        sample_ns: if s.quick { 1e6 } else { 4e6 },
    };
    let counters = Counters::open(env);
    let overcommit = std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
        .ok()
        .and_then(|t| t.trim().parse().ok());
    let cells: Vec<(Regime, u64, u64)> = SMALL_STRIDES
        .iter()
        .map(|&st| (Regime::Small, st, pages))
        .chain(HUGE_STRIDES.iter().map(|&st| {
            // The baseline visits the 4 KiB point's lines; the others a
            // huge page each.
            (
                Regime::Huge,
                st,
                if st == PAGE { pages } else { huge_pages },
            )
        }))
        .collect();
    let bar = progress::bar(cells.len() as u64, "walk");
    let mut points = Vec::new();
    let mut proof = (0usize, Vec::new());
    for (regime, stride, n) in cells {
        let mut point = empty(regime, stride, n);
        point.skipped = unavailable(regime, &env.machine.thp).or_else(|| {
            (n < 2).then(|| "the memory guard left no room for huge pages".to_string())
        });
        if point.skipped.is_none() && !interrupt::requested() {
            bar.set_message(format!("{} {}", human(stride as usize), regime.name()));
            match measure(&mut point, &plan, &counters, overcommit) {
                Ok((verified, mismatches)) => {
                    proof.0 += verified;
                    proof.1.extend(mismatches);
                }
                Err(why) => point.skipped = Some(why),
            }
        }
        bar.inc(1);
        points.push(point);
    }
    bar.finish_and_clear();
    let mut checks = checks::checks(&points, &proof);
    checks.push(checks::left_tlb(&points, pages, &reach));
    checks.push(checks::baseline_fits(&points, &geometry::data_cache_sets()));
    Ok(Outcome::Done {
        results: Results::Walk(WalkResults {
            mappings: Some(1),
            pages,
            huge_pages,
            repetitions: plan.repetitions,
            seed: SEED,
            l2_tlb_entries: u32::try_from(reach.past()).ok(),
            l2_tlb_entries_2m: l2_2m,
            l2_tlb: Some(reach),
            overcommit_memory: overcommit,
            size_note: small_note.or(huge_note),
            counters: counters.status.clone(),
            points,
        }),
        checks,
    })
}

/// `wanted` pages of `per_page` bytes each, scaled by the memory guard:
/// the pages allowed and the guard's note when fewer.
fn scale(wanted: u64, per_page: u64) -> Result<Result<(u64, Option<String>), String>, String> {
    let bytes = (wanted * per_page).next_multiple_of(guard::GRANULE);
    Ok(guard::allow_now(bytes)?.map(|a| {
        let n = wanted.min(a.bytes / per_page);
        (n, a.note.filter(|_| n < wanted))
    }))
}

struct Plan {
    repetitions: u32,
    sample_ns: f64,
}

/// A point not yet measured.
fn empty(regime: Regime, stride_bytes: u64, pages: u64) -> WalkPoint {
    WalkPoint {
        regime,
        stride_bytes,
        pages,
        skipped: None,
        reserved_bytes: None,
        loads_per_sample: None,
        samples_ns_per_load: Vec::new(),
        ns_per_load: None,
        anon_huge_kib: None,
        page_table_kib: None,
        predicted_page_table_kib: None,
        timed_minor_faults: None,
        dtlb_misses: None,
        walks_completed: None,
        walk_active_cycles: None,
        walk_pending_cycles: None,
    }
}

/// Maps, links, warms and times one point; the samples verified and the
/// mismatches. `Err` is why the point could not run.
fn measure(
    point: &mut WalkPoint,
    plan: &Plan,
    counters: &Counters,
    overcommit: Option<u32>,
) -> Result<(usize, Vec<String>), String> {
    let (n, stride) = (point.pages, point.stride_bytes);
    let range = Range::map(n, stride, point.regime, overcommit)?;
    point.reserved_bytes = Some(range.len as u64);
    let next = cycle(n as usize, SEED);
    let pte_before = vm_pte_kib();
    // SAFETY: offsets of pages < n lie inside the aligned span, 8-byte
    // aligned (lines are multiples of 64).
    unsafe { kernel::link_with(&next, |i| range.at(i as u64, stride)) };
    point.page_table_kib = pte_before
        .zip(vm_pte_kib())
        .map(|(b, a)| a.saturating_sub(b));
    point.predicted_page_table_kib = Some(predicted_tables_kib(n, stride, point.regime));
    // Position -> page, to say where a sample must end.
    let order = kernel::order(&next);
    drop(next);
    let at = |i: usize| range.at(i as u64, stride) as *const usize;
    // One lap untimed: every page's entries where the steady state has them.
    let (mut p, pace) = kernel::warm(at(0), n);
    let loads = kernel::per_sample(plan.sample_ns, pace, SAMPLE_LOADS);
    let mut position = 0u64;
    let (mut samples, mut mismatches, mut faults) = (Vec::new(), Vec::new(), 0);
    let mut sums = [Some(0u64); 4];
    for rep in 0..plan.repetitions {
        let t = kernel::sample(p, loads, || counters.start(), || counters.stop());
        p = t.out;
        faults += t.minor_faults;
        for (sum, c) in sums.iter_mut().zip(t.counts) {
            *sum = sum.zip(c).map(|(a, b)| a + b);
        }
        samples.push(t.ns / loads as f64);
        position += loads;
        let expected = order[(position % n) as usize];
        if p != at(expected) {
            mismatches.push(format!(
                "{} {}, sample {}: did not end on page {expected}",
                human(stride as usize),
                point.regime.name(),
                rep + 1
            ));
        }
    }
    point.anon_huge_kib = procfs::read_smaps_at(range.start as usize)
        .ok()
        .flatten()
        .and_then(|m| m.get("AnonHugePages").copied());
    point.loads_per_sample = Some(loads);
    point.ns_per_load = Summary::of(&samples);
    point.samples_ns_per_load = samples;
    point.timed_minor_faults = Some(faults);
    let [dtlb, completed, active, pending] = sums;
    point.dtlb_misses = counters.dtlb.as_ref().and(dtlb);
    point.walks_completed = counters.walk[0].as_ref().and(completed);
    point.walk_active_cycles = counters.walk[1].as_ref().and(active);
    point.walk_pending_cycles = counters.walk[2].as_ref().and(pending);
    let verified = plan.repetitions as usize - mismatches.len();
    Ok((verified, mismatches))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::WalkCounters;

    #[test]
    fn a_small_walk_measures_and_checks_itself() {
        let counters = Counters {
            dtlb: None,
            walk: [None, None, None],
            status: WalkCounters {
                detail: "skipped: test".into(),
                dtlb_misses: false,
                walk_events: Vec::new(),
            },
        };
        let plan = Plan {
            repetitions: 2,
            sample_ns: 1e5,
        };
        for stride in [PAGE, HUGE] {
            let mut p = empty(Regime::Small, stride, 64);
            let (verified, mismatches) = measure(&mut p, &plan, &counters, None).unwrap();
            assert_eq!((verified, mismatches.len()), (2, 0));
            assert_eq!(p.samples_ns_per_load.len(), 2);
            assert_eq!(p.anon_huge_kib, Some(0));
            assert!(p.dtlb_misses.is_none());
            let c = checks::checks(&[p], &(verified, mismatches));
            // VmPTE is the whole process's: other tests map and unmap in
            // threads beside this one, so only the other checks are held.
            assert!(
                c.iter()
                    .filter(|c| !c.name.starts_with("VmPTE"))
                    .all(|c| c.passed),
                "{c:?}"
            );
        }
    }
}
