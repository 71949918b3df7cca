//! # walk
//!
//! Premise: past the L2 TLB every load waits for a page walk, and what the
//! walk costs depends on where its entries are. One load per page over N
//! pages (four times the L2 TLB's 4 KiB entries), in a random cycle, at
//! virtual strides that spread the entries out level by level: at 4 KiB
//! neighbouring pages' last-level entries share a cache line; at 32 KiB
//! each sits in a line of its own; at 2 MiB each page needs its own
//! page-table page (and the directory entries above now differ too); at
//! 1 GiB its own page-directory page as well. Each added level that misses
//! in the caches and the page-walk caches is one more dependent load. On
//! huge pages the last level is gone: strides 2 MiB and 1 GiB, and 4 KiB as
//! the baseline (the same lines as the 4 KiB-page point, their
//! translations all in the TLB). The pages live in one `MAP_NORESERVE`
//! range, so only those touched are backed; the data line within a page and
//! the entry within each table vary from page to page so no cache set takes
//! them all. Checked: every sample ended where the cycle says, `VmPTE` grew
//! by the page tables the layout needs, huge pages where asked and none
//! elsewhere, no fault timed. Walk counters where the PMU allows, else
//! skipped with the reason. Every repetition runs in the one mapping (the
//! range is reserved once; `mappings: 1` says so): the strides are set
//! against each other, not against another placement.

use std::hint::black_box;
use std::time::Instant;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{Check, Regime, Results, Summary, WalkCounters, WalkPoint, WalkResults};

use super::region::{errno_name, human};
use super::{geometry, unavailable, SEED};
use crate::experiments::{Env, Outcome};
use crate::faults::Faults;
use crate::machine::pmu::{self, Counter};
use crate::{guard, interrupt, procfs, progress};

const KIB: u64 = 1024;
const PAGE: u64 = 4 * KIB;
const HUGE: u64 = 2 << 20;
const GIB: u64 = 1 << 30;
/// Strides on 4 KiB pages: entries sharing a line, a line each, a
/// page-table page each, a page-directory page each.
pub const SMALL_STRIDES: [u64; 4] = [PAGE, 32 * KIB, HUGE, GIB];
/// On huge pages: the baseline (every translation in the TLB), then a
/// directory line shared, then a page-directory page each.
pub const HUGE_STRIDES: [u64; 3] = [PAGE, HUGE, GIB];
/// Pages visited: this many times the L2 TLB's 4 KiB entries.
const TIMES_L2_TLB: u64 = 4;
const UNKNOWN_L2_TLB: u64 = 2048;
/// The most memory the huge-page points may back: each page is 2 MiB.
const HUGE_BUDGET: (u64, u64) = (GIB, 256 << 20);
/// The range's first page-directory and page-upper-directory tables may
/// already exist for a neighbouring mapping.
const SHARED_TABLES_KIB: u64 = 8;
const FULL_REPS: u32 = 5;
const SAMPLE_LOADS: (u64, u64) = (10_000, 1 << 30);

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let geometry = geometry::read();
    let l2 = geometry.data_tlb(2, PAGE).map(|t| t.entries);
    let l2_2m = geometry.data_tlb(2, HUGE).map(|t| t.entries);
    let wanted = u64::from(l2.unwrap_or(UNKNOWN_L2_TLB as u32)) * TIMES_L2_TLB;
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
    let checks = checks(&points, &proof);
    Ok(Outcome::Done {
        results: Results::Walk(WalkResults {
            mappings: Some(1),
            pages,
            huge_pages,
            repetitions: plan.repetitions,
            seed: SEED,
            l2_tlb_entries: l2,
            l2_tlb_entries_2m: l2_2m,
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

/// Where page `i` of a layout with `stride` lives, from the start of the
/// range: `i` strides in, then a table entry and a cache line that vary
/// from page to page (odd steps, so 64 or 512 neighbours take them all).
pub fn offset(i: u64, stride: u64) -> u64 {
    let line = (i * 13) % 64 * 64;
    let pte = if stride >= HUGE {
        (i * 37) % 512 * PAGE
    } else {
        0
    };
    let pmd = if stride >= GIB {
        (i * 41) % 512 * HUGE
    } else {
        0
    };
    i * stride + pmd + pte + line
}

/// The page-table pages a layout needs on top of what the range's
/// neighbours share: one per distinct table at each level the walk reads
/// (PTE tables only on 4 KiB pages), in KiB.
pub fn predicted_tables_kib(pages: u64, stride: u64, regime: Regime) -> u64 {
    let distinct = |shift: u32| {
        let mut v: Vec<u64> = (0..pages).map(|i| offset(i, stride) >> shift).collect();
        v.dedup();
        v.len() as u64
    };
    let pte = if regime == Regime::Small {
        distinct(21)
    } else {
        0
    };
    (pte + distinct(30) + distinct(39)) * 4
}

/// One reserved range, unmapped on drop.
struct Range {
    base: *mut u8,
    len: usize,
    start: *mut u8,
}

impl Range {
    /// `pages` pages of `stride` in a `MAP_NORESERVE` range aligned to the
    /// stride (so page `i` is in table `i` of its level), advised for the
    /// regime.
    fn map(
        pages: u64,
        stride: u64,
        regime: Regime,
        overcommit: Option<u32>,
    ) -> Result<Range, String> {
        let align = stride.max(HUGE);
        let span = pages * stride;
        let len = span + align;
        if let Some(a) = guard::address_space() {
            if len > a.limit.saturating_sub(a.used) {
                return Err(format!(
                    "needs {} of address space, and RLIMIT_AS ({}) leaves {}",
                    human(len as usize),
                    human(a.limit as usize),
                    human(a.limit.saturating_sub(a.used) as usize)
                ));
            }
        }
        let len = usize::try_from(len).map_err(|_| "the range exceeds usize".to_string())?;
        let base = crate::mapping::anonymous(len, libc::MAP_NORESERVE).map_err(|e| {
            let why = if overcommit == Some(2) {
                " (vm.overcommit_memory=2 ignores MAP_NORESERVE)"
            } else {
                ""
            };
            format!(
                "mmap of {} with MAP_NORESERVE: {} ({e}){why}",
                human(len),
                errno_name(&e)
            )
        })?;
        let start = base.wrapping_add(base.align_offset(align as usize));
        let range = Range { base, len, start };
        let advice = match regime {
            Regime::Small => libc::MADV_NOHUGEPAGE,
            Regime::Huge => libc::MADV_HUGEPAGE,
            Regime::Gigantic => unreachable!("walk times 4 KiB and THP ranges only"),
        };
        // SAFETY: [start, start + span) lies inside the mapping.
        if unsafe { libc::madvise(start.cast(), span as usize, advice) } != 0 {
            return Err(format!("madvise: {}", std::io::Error::last_os_error()));
        }
        Ok(range)
    }

    fn at(&self, i: u64, stride: u64) -> *mut usize {
        self.start.wrapping_add(offset(i, stride) as usize).cast()
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `map` mapped.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// `VmPTE` of this process, KiB.
fn vm_pte_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    procfs::parse_kib_fields(&text).get("VmPTE").copied()
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
    for (i, &j) in next.iter().enumerate() {
        // SAFETY: offsets of pages < n lie inside the aligned span, 8-byte
        // aligned (lines are multiples of 64).
        unsafe {
            range
                .at(i as u64, stride)
                .write(range.at(j as u64, stride) as usize)
        };
    }
    point.page_table_kib = pte_before
        .zip(vm_pte_kib())
        .map(|(b, a)| a.saturating_sub(b));
    point.predicted_page_table_kib = Some(predicted_tables_kib(n, stride, point.regime));
    // Position -> page, to say where a sample must end.
    let mut order = Vec::with_capacity(n as usize);
    let mut page = 0;
    for _ in 0..n {
        order.push(page);
        page = next[page];
    }
    drop(next);
    let at = |i: usize| range.at(i as u64, stride) as *const usize;
    // One lap untimed: every page's entries where the steady state has them.
    let started = Instant::now();
    let mut p = black_box(chase(at(0), n));
    let estimate = started.elapsed().as_nanos() as f64 / n as f64;
    let loads = ((plan.sample_ns / estimate.max(0.1)) as u64).clamp(SAMPLE_LOADS.0, SAMPLE_LOADS.1);
    let mut position = 0u64;
    let (mut samples, mut mismatches, mut faults) = (Vec::new(), Vec::new(), 0);
    let mut sums = [Some(0u64); 4];
    for rep in 0..plan.repetitions {
        let before = Faults::of_this_thread();
        counters.start();
        let t = Instant::now();
        p = black_box(chase(black_box(p), loads));
        let ns = t.elapsed().as_nanos() as f64;
        let counts = counters.stop();
        faults += (Faults::of_this_thread() - before).minor;
        for (sum, c) in sums.iter_mut().zip(counts) {
            *sum = sum.zip(c).map(|(a, b)| a + b);
        }
        samples.push(ns / loads as f64);
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

/// `loads` dependent loads from `p`.
#[inline(never)]
fn chase(mut p: *const usize, loads: u64) -> *const usize {
    for _ in 0..loads {
        // SAFETY: every visited page holds the address of another page of
        // the linked range, which outlives the call.
        p = unsafe { p.read() } as *const usize;
    }
    p
}

/// A CPU's own page-walk events, as raw `PERFEVTSEL` codes: the event, and
/// `(name, unit mask, counter mask)` for walks completed, cycles with a
/// walk active, and walks pending summed over cycles. From Linux's
/// `tools/perf/pmu-events/arch/x86/{skylake,sapphirerapids}/virtual-memory.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkEvents {
    pub family: &'static str,
    pub event: u64,
}

/// `(name, umask, cmask)` of the three walk events, in the order the
/// points store them.
pub const WALK_EVENTS: [(&str, u64, u64); 3] = [
    ("DTLB_LOAD_MISSES.WALK_COMPLETED", 0x0e, 0),
    ("DTLB_LOAD_MISSES.WALK_ACTIVE", 0x10, 1),
    ("DTLB_LOAD_MISSES.WALK_PENDING", 0x10, 0),
];

impl WalkEvents {
    /// The events for this CPU, where pagewalk knows them: Intel Skylake
    /// and its client successors (event 0x08), Sapphire and Emerald Rapids
    /// (event 0x12). AMD Zen counts walks with the generic event only.
    pub fn of(vendor: &str, family: u32, model: u32) -> Option<WalkEvents> {
        if vendor != "GenuineIntel" || family != 6 {
            return None;
        }
        match model {
            0x4e | 0x5e | 0x8e | 0x9e | 0xa5 | 0xa6 | 0x55 => Some(WalkEvents {
                family: "Skylake",
                event: 0x08,
            }),
            0x8f | 0xcf => Some(WalkEvents {
                family: "Sapphire Rapids",
                event: 0x12,
            }),
            _ => None,
        }
    }

    /// `PERF_TYPE_RAW` config: event, unit mask << 8, counter mask << 24.
    pub fn config(&self, umask: u64, cmask: u64) -> u64 {
        self.event | umask << 8 | cmask << 24
    }
}

const PERF_TYPE_RAW: u32 = 4;

/// The counters of every point, opened once.
struct Counters {
    dtlb: Option<Counter>,
    walk: [Option<Counter>; 3],
    status: WalkCounters,
}

impl Counters {
    fn open(env: &Env) -> Counters {
        let none = || [None, None, None];
        let pmu = &env.machine.pmu;
        if !pmu.hardware_counters {
            return Counters {
                dtlb: None,
                walk: none(),
                status: WalkCounters {
                    detail: format!("skipped: no PMU ({})", pmu.detail),
                    dtlb_misses: false,
                    walk_events: Vec::new(),
                },
            };
        }
        let (kind, config) = pmu::DTLB_READ_MISS;
        let dtlb = Counter::open(kind, config, true);
        let mut detail = match &dtlb {
            Ok(_) => "dTLB read misses (PERF_TYPE_HW_CACHE) opened".to_string(),
            Err(e) => format!("dTLB read misses failed: {} ({e})", errno_name(e)),
        };
        let cpu = &env.machine.cpu;
        let mut walk = none();
        let mut names = Vec::new();
        match WalkEvents::of(&cpu.vendor, cpu.family, cpu.model) {
            Some(events) => {
                for (slot, (name, umask, cmask)) in walk.iter_mut().zip(WALK_EVENTS) {
                    match Counter::open(PERF_TYPE_RAW, events.config(umask, cmask), true) {
                        Ok(c) => {
                            *slot = Some(c);
                            names.push(name.to_string());
                        }
                        Err(e) => detail.push_str(&format!("; {name} failed: {}", errno_name(&e))),
                    }
                }
                detail.push_str(&format!("; {} walk events: {}", events.family, names.join(", ")));
            }
            None => detail.push_str(&format!(
                "; walk cycles skipped: no walk events known to pagewalk for {} family {} model {:#x}",
                cpu.vendor, cpu.family, cpu.model
            )),
        }
        Counters {
            status: WalkCounters {
                detail,
                dtlb_misses: dtlb.is_ok(),
                walk_events: names,
            },
            dtlb: dtlb.ok(),
            walk,
        }
    }

    fn all(&self) -> [Option<&Counter>; 4] {
        [
            self.dtlb.as_ref(),
            self.walk[0].as_ref(),
            self.walk[1].as_ref(),
            self.walk[2].as_ref(),
        ]
    }

    fn start(&self) {
        self.all().into_iter().flatten().for_each(Counter::start);
    }

    fn stop(&self) -> [Option<u64>; 4] {
        self.all().map(|c| c.and_then(Counter::stop))
    }
}

fn checks(points: &[WalkPoint], proof: &(usize, Vec<String>)) -> Vec<Check> {
    let measured: Vec<&WalkPoint> = points.iter().filter(|p| p.ns_per_load.is_some()).collect();
    let label = |p: &WalkPoint| format!("{} {}", human(p.stride_bytes as usize), p.regime.name());
    let mut checks = vec![Check::new(
        "every timed sample landed where the cycle says",
        proof.1.is_empty() && proof.0 > 0,
        "after k loads: the page k steps on in the cycle, in every sample",
        if proof.1.is_empty() {
            format!("{} samples verified", proof.0)
        } else {
            format!("{} did not: {}", proof.1.len(), proof.1.join("; "))
        },
    )];
    let short: Vec<String> = measured
        .iter()
        .filter(|p| {
            p.page_table_kib
                .zip(p.predicted_page_table_kib)
                .is_none_or(|(got, want)| got + SHARED_TABLES_KIB < want)
        })
        .map(|p| {
            format!(
                "{}: {} KiB of {} KiB",
                label(p),
                p.page_table_kib.map_or("?".into(), |k| k.to_string()),
                p.predicted_page_table_kib.unwrap_or(0)
            )
        })
        .collect();
    checks.push(Check::new(
        "VmPTE grew by the page tables each layout needs",
        short.is_empty(),
        format!(
            "one 4 KiB table per distinct table of each level, less {SHARED_TABLES_KIB} KiB (the range's first PMD and PUD tables may be a neighbour's)"
        ),
        if short.is_empty() {
            let widest = measured
                .iter()
                .filter_map(|p| Some((p.page_table_kib?, *p)))
                .max_by_key(|(k, _)| *k);
            match widest {
                Some((k, p)) => format!("in all {}; the most, {k} KiB at {}", measured.len(), label(p)),
                None => "no point measured".into(),
            }
        } else {
            format!("short at {}", short.join(", "))
        },
    ));
    for (regime, want_huge) in [(Regime::Huge, true), (Regime::Small, false)] {
        let pts: Vec<&&WalkPoint> = measured.iter().filter(|p| p.regime == regime).collect();
        if pts.is_empty() {
            continue;
        }
        let wrong: Vec<String> = pts
            .iter()
            .filter(|p| (p.anon_huge_kib.unwrap_or(0) > 0) != want_huge)
            .map(|p| label(p))
            .collect();
        let name = if want_huge {
            "huge pages: AnonHugePages > 0 at every huge-page stride"
        } else {
            "4 KiB pages: AnonHugePages == 0 at every 4 KiB stride"
        };
        checks.push(Check::new(
            name,
            wrong.is_empty(),
            if want_huge { "> 0 kB" } else { "0 kB" },
            if wrong.is_empty() {
                format!("in all {}", pts.len())
            } else {
                format!("not at {}", wrong.join(", "))
            },
        ));
    }
    let worst = measured
        .iter()
        .filter_map(|p| Some((p.timed_minor_faults?, *p)))
        .max_by_key(|(f, _)| *f);
    if let Some((faults, p)) = worst {
        checks.push(Check::new(
            "timed loops took no page faults (RUSAGE_THREAD)",
            faults <= 2,
            "<= 2 minor faults per point",
            format!("at most {faults} (at {})", label(p)),
        ));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_spread_the_entries_level_by_level() {
        // 4 KiB: 8 neighbouring pages share one line of last-level entries.
        let pte_line = |i: u64, s: u64| (offset(i, s) >> 12) * 8 / 64;
        assert_eq!(pte_line(0, PAGE), pte_line(7, PAGE));
        // 32 KiB: a line each.
        assert_ne!(pte_line(0, 32 * KIB), pte_line(1, 32 * KIB));
        // 2 MiB: a page-table page each, the entry inside it varying.
        assert_ne!(offset(0, HUGE) >> 21, offset(1, HUGE) >> 21);
        assert_ne!((offset(1, HUGE) >> 12) % 512, (offset(2, HUGE) >> 12) % 512);
        // 1 GiB: a page-directory page each.
        assert_ne!(offset(3, GIB) >> 30, offset(4, GIB) >> 30);
        // Every page stays inside its own stride.
        for s in SMALL_STRIDES {
            for i in 0..1000 {
                assert_eq!(offset(i, s) / s, i, "stride {s}, page {i}");
            }
        }
    }

    #[test]
    fn predicted_tables() {
        // 1024 pages at 4 KiB: 2 PTE tables, one PMD, one PUD table.
        assert_eq!(predicted_tables_kib(1024, PAGE, Regime::Small), 16);
        // At 2 MiB a PTE table each; at 1 GiB a PMD table each as well.
        assert_eq!(
            predicted_tables_kib(64, HUGE, Regime::Small),
            (64 + 1 + 1) * 4
        );
        assert_eq!(
            predicted_tables_kib(64, GIB, Regime::Small),
            (64 + 64 + 1) * 4
        );
        // Huge pages need no PTE table.
        assert_eq!(predicted_tables_kib(64, GIB, Regime::Huge), (64 + 1) * 4);
    }

    #[test]
    fn walk_events_are_known_for_two_intel_families_only() {
        let skl = WalkEvents::of("GenuineIntel", 6, 0x55).unwrap();
        assert_eq!(skl.config(0x10, 1), 0x0100_1008);
        let spr = WalkEvents::of("GenuineIntel", 6, 0x8f).unwrap();
        assert_eq!(spr.config(0x0e, 0), 0x0e12);
        assert_eq!(WalkEvents::of("AuthenticAMD", 25, 1), None);
        assert_eq!(WalkEvents::of("GenuineIntel", 6, 0x3c), None);
    }

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
            let c = checks(&[p], &(verified, mismatches));
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
