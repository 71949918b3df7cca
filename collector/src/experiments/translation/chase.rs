//! The dependent pointer chase that `staircase`, `tlb-reach` and `thp` all
//! time: one pointer per slot, linked in a random single cycle
//! ([`pagewalk_analysis::chase::cycle`]), so each load's address is the
//! previous load's value and no prefetcher can run ahead. One call of
//! [`run`] maps a region, writes the cycle into it, warms it, times it and
//! proves the loop did what it claims.
//!
//! The loop itself, and how a sample of it is timed, are [`super::kernel`]'s:
//! the one copy, which `walk` and mlp's chains time too.

use pagewalk_analysis::layout;
use pagewalk_model::{ChasePoint, Regime, Summary};

pub use super::counters::Counters;
use super::kernel::{link_with, per_sample, sample, warm};
use super::region::Region;

const LINE: usize = 64;
const PAGE: usize = 4096;
/// Warm-up loads: at least enough to settle, at most a few ms at DRAM
/// latency (a lap of a 1 GiB chase would take seconds; its first write
/// pass already touched every line).
const WARM_LOADS: (u64, u64) = (20_000, 1 << 18);
/// Loads per timed sample, whatever the calibration says.
const SAMPLE_LOADS: (u64, u64) = (10_000, 1 << 32);

/// Seed of every chase permutation: a run is reproducible, and both regimes
/// of one size follow the same order.
pub const SEED: u64 = 0x7061_6765_7761_6c6b; // "pagewalk"

/// Where slot `i` of the cycle lives in the region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Slot `i` at byte `i * stride`: every byte of the region is in play.
    Strided { stride: usize },
    /// Slot `i` is one line of page `i`, at the line
    /// [`pagewalk_analysis::layout::line`] gives (the folded page number
    /// times `step`, mod 64), so the lines fall in every cache set, on
    /// contiguous memory too, instead of in a few.
    LinePerPage { step: usize },
}

impl Layout {
    pub fn offset(self, slot: usize) -> usize {
        match self {
            Layout::Strided { stride } => slot * stride,
            Layout::LinePerPage { step } => {
                slot * PAGE + layout::line(slot as u64, step as u64) as usize * LINE
            }
        }
    }

    /// Bytes a chase of `slots` spans.
    pub fn bytes(self, slots: usize) -> usize {
        match self {
            Layout::Strided { stride } => slots * stride,
            Layout::LinePerPage { .. } => slots * PAGE,
        }
    }

    fn slot_at(self, offset: usize) -> usize {
        match self {
            Layout::Strided { stride } => offset / stride,
            Layout::LinePerPage { .. } => offset / PAGE,
        }
    }
}

/// How long and how often to time each point.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Fresh mappings per point: placement on physical memory (cache sets,
    /// DRAM rows, the host's backing) changes between them, not between
    /// repetitions in one.
    pub mappings: u32,
    /// Timed samples in each mapping.
    pub repetitions: u32,
    /// Target length of one timed sample: long enough that timer
    /// resolution and one interrupt do not matter.
    pub sample_ns: f64,
}

impl Plan {
    /// Three mappings of `repetitions` each; two (of one sample) with
    /// `--quick`.
    pub fn chase(settings: &crate::experiments::Settings, full_reps: u32, sample_ns: f64) -> Plan {
        Plan {
            mappings: if settings.quick { 2 } else { 3 },
            repetitions: settings.reps_or(full_reps),
            sample_ns,
        }
    }
}

/// One measured point and the proof that every sample followed the cycle.
pub struct Chased {
    pub point: ChasePoint,
    pub samples_verified: usize,
    /// One line per sample that did not land where the permutation says.
    pub mismatches: Vec<String>,
}

/// Maps a region for `regime` `plan.mappings` times, each afresh, and in
/// each links `next` with `layout`, collapses it into huge pages where
/// asked, warms it and times `plan.repetitions` samples. Every mapping is
/// held until the point is done: a page freed goes back to the head of
/// this CPU's free list (Linux's per-CPU lists are last in, first out), so
/// a mapping made after another was unmapped gets the same frames back and
/// only looks fresh. `/proc/self/pagemap`, where it may be read, confirms
/// that each mapping's frames are new to the point.
pub fn run(
    regime: Regime,
    layout: Layout,
    next: &[usize],
    plan: &Plan,
    counters: &Counters,
) -> Result<Chased, String> {
    let mut held: Vec<Region> = Vec::new();
    let mut seen: Option<Vec<u64>> = Some(Vec::new());
    let mut least_new: Option<f64> = None;
    let mut merged: Option<Chased> = None;
    for m in 0..plan.mappings.max(1) {
        let region = Region::map(layout.bytes(next.len()), regime)?;
        let loads = merged.as_ref().and_then(|c| c.point.loads_per_sample);
        let c = measure_in(&region, layout, next, plan, counters, loads);
        let frames = crate::procfs::frames(region.start as usize, region.window() / PAGE);
        seen = seen.zip(frames).map(|(mut seen, mut frames)| {
            frames.sort_unstable();
            if !seen.is_empty() {
                let new = frames
                    .iter()
                    .filter(|f| seen.binary_search(f).is_err())
                    .count();
                let share = new as f64 / frames.len().max(1) as f64;
                least_new = Some(least_new.map_or(share, |l: f64| l.min(share)));
            }
            seen.extend(frames);
            seen.sort_unstable();
            seen
        });
        merged = Some(match merged {
            None => c,
            Some(all) => all.then(c, m + 1),
        });
        held.push(region);
    }
    let mut chased = merged.expect("at least one mapping");
    chased.point.mappings = Some(plan.mappings.max(1));
    chased.point.frames_moved_fraction = seen.and(least_new);
    Ok(chased)
}

/// [`run`] on one region mapped by the caller (the hugetlbfs pools).
pub fn run_in(
    region: &Region,
    layout: Layout,
    next: &[usize],
    plan: &Plan,
    counters: &Counters,
) -> Chased {
    let mut chased = measure_in(region, layout, next, plan, counters, None);
    chased.point.mappings = Some(1);
    chased
}

/// One mapping's part of [`run`], with the loads per sample fixed where an
/// earlier mapping calibrated them.
fn measure_in(
    region: &Region,
    layout: Layout,
    next: &[usize],
    plan: &Plan,
    counters: &Counters,
    loads: Option<u64>,
) -> Chased {
    link(region, layout, next);
    let collapse = region.collapse();
    let mut chased = time(region, layout, next, plan, counters, loads);
    let p = &mut chased.point;
    match region.kernel_page_kib() {
        // A hugetlbfs mapping: its page size says it all (AnonHugePages
        // counts transparent huge pages only, and reads 0 here).
        Some(kib) if kib > 4 => p.kernel_page_kib = Some(kib),
        _ => {
            p.anon_huge_kib = region.anon_huge_kib();
            p.huge_fraction = p
                .anon_huge_kib
                .map(|k| (k as f64 * 1024.0 / region.window() as f64).min(1.0));
        }
    }
    p.collapse = collapse;
    chased
}

impl Chased {
    /// This mapping's samples after `self`'s, counters summed; the huge
    /// pages are the least any mapping had (a premise holds for all).
    fn then(mut self, next: Chased, mapping: u32) -> Chased {
        let p = &mut self.point;
        let n = next.point;
        p.samples_ns_per_load.extend(&n.samples_ns_per_load);
        if let Some(s) = Summary::of(&p.samples_ns_per_load) {
            p.ns_per_load = s;
        }
        let sum = |a: Option<u64>, b: Option<u64>| a.zip(b).map(|(a, b)| a + b);
        p.timed_minor_faults = sum(p.timed_minor_faults, n.timed_minor_faults);
        p.dtlb_load_misses = sum(p.dtlb_load_misses, n.dtlb_load_misses);
        p.perf_page_faults = sum(p.perf_page_faults, n.perf_page_faults);
        if n.anon_huge_kib < p.anon_huge_kib {
            (p.anon_huge_kib, p.huge_fraction) = (n.anon_huge_kib, n.huge_fraction);
        }
        if p.collapse.as_ref().is_none_or(|c| c.ok) {
            p.collapse = n.collapse;
        }
        self.samples_verified += next.samples_verified;
        self.mismatches.extend(
            next.mismatches
                .into_iter()
                .map(|m| format!("mapping {mapping}, {m}")),
        );
        self
    }
}

/// Writes the cycle: slot `i` holds the address of slot `next[i]`. Slots
/// are written in address order, so this pass is also the first touch.
pub fn link(region: &Region, layout: Layout, next: &[usize]) {
    let at = |slot: usize| region.start.wrapping_add(layout.offset(slot));
    assert!(
        layout.bytes(next.len()) <= region.len,
        "the cycle fits the region"
    );
    // SAFETY: every offset is below layout.bytes(n) <= region.len, and
    // slots are 8-byte aligned (strides and lines are multiples of 64).
    unsafe { link_with(next, |slot| at(slot).cast()) };
}

/// Times the chase already linked into `region`: `loads` per sample, or
/// as many as fill `plan.sample_ns` at the warm-up's pace.
pub fn time(
    region: &Region,
    layout: Layout,
    next: &[usize],
    plan: &Plan,
    counters: &Counters,
    loads: Option<u64>,
) -> Chased {
    let n = next.len();
    let at = |slot: usize| region.start.wrapping_add(layout.offset(slot)) as *const usize;
    let (mut p, pace) = warm(at(0), (n as u64).clamp(WARM_LOADS.0, WARM_LOADS.1));
    let loads = loads.unwrap_or_else(|| per_sample(plan.sample_ns, pace, SAMPLE_LOADS));

    let mut samples = Vec::new();
    let mut mismatches = Vec::new();
    let (mut faults, mut dtlb, mut perf_faults) = (0, Some(0), Some(0));
    for rep in 0..plan.repetitions {
        let slot = layout.slot_at(p as usize - region.start as usize);
        let t = sample(p, loads, || counters.start(), || counters.stop());
        let (end, (d, f)) = (t.out, t.counts);
        faults += t.minor_faults;
        dtlb = dtlb.zip(d).map(|(a, b)| a + b);
        perf_faults = perf_faults.zip(f).map(|(a, b)| a + b);
        samples.push(t.ns / loads as f64);
        // The proof: `loads` steps of the permutation from where the sample
        // started (the cycle has length n, so loads mod n steps suffice).
        let expected = walk(next, slot, loads % n as u64);
        if end != at(expected) {
            let got = layout.slot_at(end as usize - region.start as usize);
            mismatches.push(format!(
                "sample {}: ended at slot {got}, the permutation says {expected}",
                rep + 1
            ));
        }
        p = end;
    }
    let summary = Summary::of(&samples).unwrap_or(Summary {
        n: 0,
        min: 0.0,
        median: 0.0,
        max: 0.0,
        mean: 0.0,
    });
    Chased {
        samples_verified: samples.len() - mismatches.len(),
        mismatches,
        point: ChasePoint {
            region_bytes: layout.bytes(n) as u64,
            pages: Some(layout.bytes(n).div_ceil(PAGE) as u64),
            slots: Some(n as u64),
            loads_per_sample: Some(loads),
            samples_ns_per_load: samples,
            ns_per_load: summary,
            anon_huge_kib: None,
            kernel_page_kib: None,
            huge_fraction: None,
            collapse: None,
            timed_minor_faults: Some(faults),
            dtlb_load_misses: counters.dtlb.as_ref().and(dtlb),
            perf_page_faults: counters.faults.as_ref().and(perf_faults),
            note: None,
            mappings: None,
            frames_moved_fraction: None,
        },
    }
}

/// Where `steps` steps of the permutation lead from `slot`.
fn walk(next: &[usize], mut slot: usize, steps: u64) -> usize {
    for _ in 0..steps {
        slot = next[slot];
    }
    slot
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_analysis::chase::cycle;

    #[test]
    fn layouts_place_slots() {
        let s = Layout::Strided { stride: 64 };
        assert_eq!((s.offset(3), s.bytes(10), s.slot_at(192)), (192, 640, 3));
        let l = Layout::LinePerPage { step: 13 };
        assert_eq!(l.offset(0), 0);
        assert_eq!(l.offset(1), 4096 + 13 * 64);
        assert_eq!(l.offset(5), 5 * 4096 + 64); // 65 mod 64 = line 1
        assert_eq!(l.slot_at(l.offset(77)), 77);
        // An odd step puts 64 consecutive pages' lines on 64 different lines.
        let mut lines: Vec<usize> = (0..64).map(|i| l.offset(i) % 4096 / 64).collect();
        lines.sort_unstable();
        assert_eq!(lines, (0..64).collect::<Vec<_>>());
        // Pages 64 apart do not share a line: page 64's is page 1's
        // folded in (64 ^ 1 = 65, 65 mod 64 = 1, times 13).
        assert_eq!(l.offset(64) % 4096, 13 * 64);
        assert_ne!(l.offset(64) % 4096, l.offset(0) % 4096);
    }

    #[test]
    fn a_chase_lands_where_the_permutation_says() {
        let counters = Counters::open();
        // Three mappings: with only the last one held, the third would get
        // the first one's frames back from the per-CPU free list.
        let plan = Plan {
            mappings: 3,
            repetitions: 3,
            sample_ns: 2e5,
        };
        for (layout, n) in [
            (Layout::Strided { stride: 64 }, 1000),
            (Layout::LinePerPage { step: 13 }, 300),
        ] {
            let next = cycle(n, 7);
            let c = run(Regime::Small, layout, &next, &plan, &counters).unwrap();
            assert!(c.mismatches.is_empty(), "{:?}", c.mismatches);
            assert_eq!(c.samples_verified, 9);
            let p = &c.point;
            assert_eq!(p.samples_ns_per_load.len(), 9);
            assert_eq!(p.mappings, Some(3));
            assert_eq!(p.by_mapping().len(), 3);
            // Readable as root: a mapping made while the earlier ones are
            // held cannot sit on their frames.
            if let Some(moved) = p.frames_moved_fraction {
                assert!(moved > 0.99, "{moved}");
            }
            assert!(p.ns_per_load.min > 0.0);
            assert_eq!(p.slots, Some(n as u64));
            assert_eq!(p.anon_huge_kib, Some(0));
            assert!(p.collapse.is_none());
        }
    }

    #[test]
    fn a_broken_cycle_is_caught() {
        let counters = Counters::open();
        let plan = Plan {
            mappings: 1,
            repetitions: 2,
            sample_ns: 1e5,
        };
        let layout = Layout::Strided { stride: 64 };
        let next = cycle(512, 1);
        let region = Region::map(layout.bytes(512), Regime::Small).unwrap();
        link(&region, layout, &next);
        // The loop runs on memory that disagrees with what `time` is told:
        // two steps per load instead of one.
        let lying: Vec<usize> = (0..512).map(|i| next[next[i]]).collect();
        let c = time(&region, layout, &lying, &plan, &counters, None);
        let loads = c.point.loads_per_sample.unwrap();
        assert!(
            c.mismatches.len() == 2 || loads.is_multiple_of(512),
            "{:?}",
            c.mismatches
        );
    }
}
