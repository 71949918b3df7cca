//! Address translation, measured: the latency staircase (`staircase`), the
//! TLB reach with the data held in cache (`tlb-reach`) and huge pages at
//! large sizes (`thp`). All three time the same dependent pointer chase, in
//! two page regimes, so they share [`ChasePoint`] and [`Regime`], defined
//! here; each experiment's results are in a file of their own.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;

mod measured;
mod spread;
mod staircase;
mod thp;
mod tlb_reach;

pub use measured::{
    CpuidLeaves, LineLayout, MeasuredGeometry, MeasuredTlb, ReachBasis, ReachSource, TlbFigure,
    TlbReachUsed,
};
pub use spread::MappingSpread;
pub use staircase::StaircaseResults;
pub use thp::{HugetlbAttempt, HugetlbReservation, ThpResults, ThpSize};
pub use tlb_reach::TlbReachResults;

/// `collector run staircase`: ns per load vs region size.
pub const STAIRCASE: &str = crate::Kind::Staircase.name();
/// `collector run tlb-reach`: ns per load vs pages touched, one line per page.
pub const TLB_REACH: &str = crate::Kind::TlbReach.name();
/// `collector run thp`: 4 KiB vs huge pages at large sizes, and what the
/// kernel actually granted.
pub const THP: &str = crate::Kind::Thp.name();

/// How the chased region is backed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// `MADV_NOHUGEPAGE`: every 4 KiB page needs its own translation.
    Small,
    /// A 2 MiB-aligned region with `MADV_HUGEPAGE` (then `MADV_COLLAPSE`
    /// where the kernel has it): one translation per 2 MiB, if granted.
    Huge,
    /// A 1 GiB page from the hugetlbfs pool (`MAP_HUGETLB |
    /// MAP_HUGE_1GB`): one translation for the whole region. Schema 5.
    Gigantic,
}

impl Regime {
    pub const ALL: [Regime; 3] = [Regime::Small, Regime::Huge, Regime::Gigantic];

    /// The name used in JSON and in the template context.
    pub fn name(self) -> &'static str {
        match self {
            Regime::Small => "small",
            Regime::Huge => "huge",
            Regime::Gigantic => "gigantic",
        }
    }

    /// How charts and tables label it.
    pub fn label(self) -> &'static str {
        match self {
            Regime::Small => "4 KiB pages",
            Regime::Huge => "huge pages (THP)",
            Regime::Gigantic => "1 GiB pages (hugetlbfs)",
        }
    }
}

/// One chase over one region: every repetition kept, and the counters that
/// prove what was timed.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ChasePoint {
    /// Bytes spanned by the chased slots (the x axis of the staircase).
    pub region_bytes: u64,
    /// Distinct 4 KiB pages holding at least one slot (the x axis of
    /// tlb-reach). Absent in published figures.
    pub pages: Option<u64>,
    /// Slots in the cycle, one pointer each: the distinct cache lines loaded.
    pub slots: Option<u64>,
    /// Dependent loads per timed sample.
    pub loads_per_sample: Option<u64>,
    /// ns per load of each timed sample, in the order run: with
    /// [`mappings`](Self::mappings), one run of equal length per mapping.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns_per_load: Vec<f64>,
    pub ns_per_load: Summary,
    /// Fresh mappings the samples were timed in, each mapped, linked and
    /// warmed anew (so each lands on other physical pages). Absent: one
    /// mapping for every sample (runs before schema 5, published figures).
    pub mappings: Option<u32>,
    /// The least share (0..1), over the mappings after the first, of a
    /// mapping's physical frames that no earlier mapping of the point had
    /// (`/proc/self/pagemap`, which shows frames only to CAP_SYS_ADMIN):
    /// the premise that the mappings differed. Absent when pagemap could
    /// not tell.
    pub frames_moved_fraction: Option<f64>,
    /// `AnonHugePages` of this mapping (`/proc/self/smaps`) after timing.
    pub anon_huge_kib: Option<u64>,
    /// `KernelPageSize` of this mapping (`/proc/self/smaps`): 1048576 for
    /// a 1 GiB hugetlbfs page. Recorded for hugetlbfs regions only.
    pub kernel_page_kib: Option<u64>,
    /// Fraction (0..1) of the region backed by huge pages. The collector
    /// derives it from `anon_huge_kib`; a published source may give only this.
    pub huge_fraction: Option<f64>,
    /// `MADV_COLLAPSE` on the region (huge regime only).
    pub collapse: Option<AdviceOutcome>,
    /// Minor faults of the measuring thread over all timed samples
    /// (`RUSAGE_THREAD`): ~0 when the timing measures translation, not faults.
    pub timed_minor_faults: Option<u64>,
    /// Hardware and software counters over all timed samples, where the
    /// kernel allowed them (see [`CounterStatus`]).
    pub dtlb_load_misses: Option<u64>,
    pub perf_page_faults: Option<u64>,
    /// What a published source said about this point in words.
    pub note: Option<String>,
}

impl ChasePoint {
    /// A point of `region_bytes` with `samples` and nothing else known (a
    /// published figure, a test's point).
    pub fn of_samples(region_bytes: u64, samples: &[f64]) -> ChasePoint {
        ChasePoint {
            region_bytes,
            pages: None,
            slots: None,
            loads_per_sample: None,
            samples_ns_per_load: samples.to_vec(),
            ns_per_load: Summary::of(samples).unwrap_or(Summary {
                n: 0,
                min: 0.0,
                median: 0.0,
                max: 0.0,
                mean: 0.0,
            }),
            mappings: None,
            frames_moved_fraction: None,
            anon_huge_kib: None,
            kernel_page_kib: None,
            huge_fraction: None,
            collapse: None,
            timed_minor_faults: None,
            dtlb_load_misses: None,
            perf_page_faults: None,
            note: None,
        }
    }

    /// Total timed loads, when known: the denominator for counters.
    pub fn timed_loads(&self) -> Option<u64> {
        Some(self.loads_per_sample? * self.samples_ns_per_load.len() as u64)
    }

    /// dTLB load misses per load over the timed samples.
    pub fn dtlb_misses_per_load(&self) -> Option<f64> {
        Some(self.dtlb_load_misses? as f64 / self.timed_loads()? as f64)
    }

    /// The samples of each mapping, in the order mapped; one group when
    /// the point does not say it had several.
    pub fn by_mapping(&self) -> Vec<&[f64]> {
        let per = match self.mappings {
            Some(m) if m > 1 => self.samples_ns_per_load.len() / m as usize,
            _ => self.samples_ns_per_load.len(),
        };
        self.samples_ns_per_load.chunks(per.max(1)).collect()
    }

    /// The point as the judge reads it ([`crate::judge::order`]). Timed in
    /// fresh mappings, a mapping (where the region landed in physical
    /// memory) is the repetition: samples of one mapping are not
    /// independent of each other, so each mapping's median counts once.
    /// The median stays the point's median over every sample, the figure
    /// the book quotes.
    pub fn repeated(&self) -> crate::judge::Repeated {
        use crate::judge::Repeated;
        let medians: Vec<f64> = self
            .by_mapping()
            .iter()
            .filter_map(|g| Summary::of(g).map(|s| s.median))
            .collect();
        let judged = match self.mappings {
            Some(m) if m > 1 && medians.len() >= 2 => Repeated::of(&medians),
            _ => Repeated::of(&self.samples_ns_per_load),
        };
        match judged {
            Some(mut r) => {
                r.median = self.ns_per_load.median;
                r
            }
            None => Repeated::summary(&self.ns_per_load),
        }
    }

    /// What a repetition of [`ChasePoint::repeated`] is, in words.
    pub fn repeated_by(&self) -> String {
        match self.mappings {
            Some(m) if m > 1 => format!("{m} fresh mappings' medians"),
            _ => format!("{} repetitions", self.samples_ns_per_load.len().max(1)),
        }
    }

    /// The levels the point measured: each mapping's fastest sample (a
    /// placement's level; interference only adds time), or every sample
    /// when it was timed in one mapping (their spread then stands in for
    /// the placement's).
    pub fn levels(&self) -> Vec<f64> {
        match self.mappings {
            Some(m) if m > 1 => self
                .by_mapping()
                .iter()
                .filter_map(|g| g.iter().copied().reduce(f64::min))
                .collect(),
            _ => self.samples_ns_per_load.clone(),
        }
    }

    /// How far the samples spread within one mapping and between
    /// mappings; `None` with fewer than two mappings.
    pub fn mapping_spread(&self) -> Option<MappingSpread> {
        let groups: Vec<Summary> = self
            .by_mapping()
            .iter()
            .filter_map(|g| Summary::of(g))
            .collect();
        if groups.len() < 2 {
            return None;
        }
        let medians: Vec<f64> = groups.iter().map(|g| g.median).collect();
        let between = Summary::of(&medians)?;
        let within: Vec<f64> = groups
            .iter()
            .filter(|g| g.n >= 2)
            .map(|g| g.spread() - 1.0)
            .collect();
        Some(MappingSpread {
            mappings: groups.len(),
            within: Summary::of(&within).map(|w| w.median),
            between: between.spread() - 1.0,
            fastest_typical: Summary::of(&groups.iter().map(|g| g.min).collect::<Vec<_>>())?.median,
        })
    }

    /// The latency a step detector reads: the fastest sample (interference
    /// only adds time), of the typical mapping when there were several (a
    /// lucky placement is not the machine).
    pub fn fastest(&self) -> f64 {
        self.mapping_spread()
            .map_or(self.ns_per_load.min, |s| s.fastest_typical)
    }
}

/// The result of an `madvise` call whose failure is a finding (not an
/// error): `MADV_COLLAPSE` returns `EINVAL` on kernels without it and
/// `ENOMEM`/`EAGAIN` when no huge page could be found.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct AdviceOutcome {
    /// e.g. `MADV_COLLAPSE`.
    pub advice: String,
    pub ok: bool,
    /// `errno` name when it failed, e.g. `ENOMEM`.
    pub errno: Option<String>,
    /// The error text, or what a published source reported.
    pub detail: Option<String>,
}

/// One page regime's curve.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Curve {
    pub regime: Regime,
    /// Why this regime could not run (THP disabled...); then no points.
    pub skipped: Option<String>,
    /// Where its pages came from when a pool had to supply them (`1 free
    /// page of a pool of 1`); absent for the page allocator's own.
    pub pages_from: Option<String>,
    /// The least rise (0.2 = 20%) the step detector took for a step on
    /// this curve: its default, or the curve's typical spread between
    /// fresh mappings where that is larger. Absent before schema 5.
    pub step_min_rise: Option<f64>,
    pub points: Vec<ChasePoint>,
}

/// Whether each counter could be opened, and why not (no PMU in a VM,
/// `perf_event_paranoid`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct CounterStatus {
    /// `PERF_TYPE_HW_CACHE` dTLB read misses, user space only.
    pub dtlb_load_misses: CounterState,
    /// `PERF_COUNT_SW_PAGE_FAULTS`, user space only.
    pub page_faults: CounterState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct CounterState {
    pub available: bool,
    /// How it was opened, or the error that stopped it.
    pub detail: String,
}

/// TLB and cache geometry as the machine describes itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Geometry {
    /// Where the TLB figures came from, e.g. `CPUID 0x80000005/0x80000006
    /// (AMD)`, or why there are none.
    pub tlb_source: String,
    pub tlbs: Vec<TlbLevel>,
    /// From `/sys/devices/system/cpu/cpu0/cache/index*`.
    pub caches: Vec<CacheLevel>,
}

impl Geometry {
    /// The data (or unified) TLB of `level` for pages of `page_bytes`.
    pub fn data_tlb(&self, level: u8, page_bytes: u64) -> Option<&TlbLevel> {
        self.tlbs.iter().find(|t| {
            t.level == level && t.page_bytes == page_bytes && t.kind != TlbKind::Instruction
        })
    }

    /// The data (or unified) cache of `level`.
    pub fn data_cache(&self, level: u8) -> Option<&CacheLevel> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.kind != "Instruction")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum TlbKind {
    Data,
    Instruction,
    Unified,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct TlbLevel {
    /// 1 for the L1 dTLB, 2 for the second-level (STLB / L2 TLB).
    pub level: u8,
    pub kind: TlbKind,
    pub page_bytes: u64,
    pub entries: u32,
    /// e.g. `fully associative`, `6-way`; absent when not reported.
    pub associativity: Option<String>,
}

impl TlbLevel {
    /// Memory one full TLB level maps: entries x page size.
    pub fn reach_bytes(&self) -> u64 {
        u64::from(self.entries) * self.page_bytes
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct CacheLevel {
    pub level: u8,
    /// `Data`, `Instruction` or `Unified`, as sysfs says.
    pub kind: String,
    pub size_bytes: u64,
}

/// What a step in a latency curve is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    /// Stays put when the pages get bigger: a cache level filling up.
    Cache,
    /// Moves or vanishes with huge pages: a TLB level running out.
    Translation,
    /// Seen in only one regime where the other could not tell.
    Unclassified,
}

/// A rise in a latency curve found by the step detector.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Step {
    /// The regime whose curve has the step.
    pub regime: Regime,
    /// x where the curve is steepest: bytes for the staircase, pages for
    /// tlb-reach.
    pub at_x: f64,
    pub from_x: f64,
    pub to_x: f64,
    /// Plateau latency before and after the rise, ns per load, from the
    /// fastest repetition of each point (what the detector reads:
    /// interference only ever adds time).
    pub ns_before: f64,
    pub ns_after: f64,
    pub kind: StepKind,
    /// The known size it matches, e.g. `L2 cache (1 MiB)`, `L1 dTLB reach
    /// (72 x 4 KiB = 288 KiB)`; absent when nothing known is near.
    pub matches: Option<String>,
    /// What that known size is. It differs from `kind` when, say, a TLB
    /// reach's step stays put with huge pages (in a VM whose host backs
    /// guest huge pages with 4 KiB pages).
    pub matches_kind: Option<StepKind>,
}

/// One expected bend (from CPUID or sysfs) against what the curve showed.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Agreement {
    /// e.g. `L1 dTLB reach, 4 KiB pages`.
    pub what: String,
    /// Where the bend should be: bytes (staircase) or pages (tlb-reach).
    pub expected_x: f64,
    /// The detected step nearest to it within a factor of two, one of the
    /// predicted kind first; absent if none.
    pub found_x: Option<f64>,
    pub found_kind: Option<StepKind>,
    /// A step of the predicted kind (or unclassified) was found.
    pub agrees: bool,
}

/// A published latency level in a source's own words: a size range and an
/// ns range, either end possibly unreported.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct PublishedLevel {
    pub from_bytes: Option<u64>,
    pub to_bytes: Option<u64>,
    /// Absolute ns per load (a single figure has min == max).
    pub ns: Option<ValueRange>,
    /// ns added on top of the previous level, when the source gave only that.
    pub added_ns: Option<ValueRange>,
    /// The reading the source warns against, e.g. `L2 slows as it fills`.
    pub naive: String,
    /// What the source says is actually happening.
    pub actual: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ValueRange {
    pub min: f64,
    pub max: f64,
}

/// The curve of `regime`, in either sweep's curves.
fn curve_of(curves: &[Curve], regime: Regime) -> Option<&Curve> {
    curves.iter().find(|c| c.regime == regime)
}
