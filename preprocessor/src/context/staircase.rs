//! `stair` (and `r2.stair`): the latency staircase.

use pagewalk_model::judge::curves::{Curves, ExtraTime, Walks};
use pagewalk_model::judge::pages::Backed;
use pagewalk_model::judge::steps::{HalfPoint, ReachStep};
use pagewalk_model::judge::Order;
use pagewalk_model::{ChasePoint, Regime, RunFile};
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::{
    agreement, in_vm, joined, nearest, size, steps, AgreementView, AtRow, Caches, Chase, Counters,
    Cpuid, Gigantic, Placement, Record, StepCounts, StepView,
};

mod judge;

/// The staircase view: ns per load against region size, one pointer per
/// 64-byte line in a random cycle.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Staircase {
    /// Skip reason, duration and checks.
    #[serde(flatten)]
    pub record: Record,
    /// Timed samples per point in each mapping (see `placement.mappings`; before schema 5, per point).
    pub repetitions: Option<u32>,
    /// True when a point has more than one timed sample.
    pub repeated: Option<bool>,
    /// Bytes per slot (64: one pointer per cache line).
    pub stride_bytes: Option<u64>,
    /// How many region sizes were measured.
    pub sizes: Option<usize>,
    /// Smallest region, bytes.
    pub min_bytes: Option<f64>,
    /// The same as text.
    pub min_size: Option<String>,
    /// Largest region, bytes.
    pub max_bytes: Option<f64>,
    /// The same as text.
    pub max_size: Option<String>,
    /// Why the largest size was scaled down, if it was.
    pub size_note: Option<String>,
    /// The measured points nearest half of each cache level, and the largest.
    pub at: StairAt,
    /// The same four points as table rows, in the order `l1`, `l2`, `l3`, `largest` (`label`: `half of L1d`, ...; `point` null where the run has none).
    pub at_rows: Vec<AtRow<StairPoint>>,
    /// Lowest `huge_fraction` over huge regions of 2 MiB and more.
    pub huge_fraction_min: Option<f64>,
    /// What `MADV_COLLAPSE` returned over the sizes.
    pub collapse: Collapse,
    /// The most minor faults any point took while timed (≈0: the timing is translation, not faults).
    pub timed_faults_max: Option<u64>,
    /// One per size, ascending.
    pub points: Vec<StairPoint>,
    /// R2 only (empty for runs): its published levels.
    pub published: Vec<Published>,
    /// The bends the step detector found, by regime (`small` first) then size.
    pub steps: Vec<StepView>,
    /// Steps of the 4 KiB curve by kind.
    pub step_counts: StepCounts,
    /// Each bend CPUID and sysfs predict next to the measured one.
    pub agreement: AgreementView,
    /// The TLB levels (R2: its published figures, `l1d_4k` 96 entries, `l2_4k` 2048).
    pub cpuid: Cpuid,
    /// The data caches (null levels for R2).
    pub caches: Caches,
    /// Whether the perf counters opened.
    pub counters: Counters,
    /// The 1 GiB-page curve against THP at the largest region.
    pub gigantic: Gigantic,
    /// How much fresh mappings moved the 4 KiB points, against repetition.
    pub placement: Placement,
    /// Verdicts on the staircase (below).
    pub verdict: Option<StairVerdict>,
    /// The point where the 4 KiB chase was slowest against huge pages, among those where it was slower beyond the repetitions' spread; null where none was.
    pub widest_gap: Option<StairPoint>,
    /// 4 KiB over huge-page ns per load at `widest_gap`.
    pub widest_gap_ratio: Option<f64>,
}

/// One region size, both regimes.
#[derive(Clone, Serialize, JsonSchema)]
pub struct StairPoint {
    /// Region size, bytes.
    pub bytes: u64,
    /// The same as text (`1.5 MiB`).
    pub size: String,
    /// Both regimes' ns per load.
    #[serde(flatten)]
    pub chase: Chase,
    /// The share (0..1) of the huge region backed by huge pages.
    pub huge_fraction: Option<f64>,
    /// True when the point lies between the L1 dTLB's 4 KiB reach and the L2 cache's size; null when either is unknown.
    pub in_l1_tlb_gap: Option<bool>,
    /// The point the chapter compares at this size (see `verdict` below): filled for the `at` points.
    #[serde(flatten)]
    pub picked: Picked,
}

/// What a picked point (`stair.at.KEY`) adds.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Picked {
    /// `l1`, `l2`, `l3` only: `on-its-level` or `past-an-earlier-step`: whether more non-translation steps lie below the half-level point on the 4 KiB curve than the smaller caches account for.
    pub verdict: Option<HalfPoint>,
    /// With `past-an-earlier-step`, the extra step's size (`4.47 MiB`); else null.
    pub early_step: Option<String>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the 4 KiB point against the huge-page point at that size (`slower`: 4 KiB pages cost more).
    pub small_vs_huge: Option<Order>,
}

/// What the staircase says.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct StairVerdict {
    /// True when the L1 dTLB's 4 KiB reach is smaller than the L2 cache: data can sit in that cache while translations run out; null when either is unknown.
    pub l1_reach_below_l2: Option<bool>,
    /// The same for the L2 TLB against the L3 cache.
    pub l2_reach_below_l3: Option<bool>,
    /// `found`, `none`, `off-chart`: a translation step on the 4 KiB curve within a factor of two of the L2 TLB reach (`stair.cpuid.l2_4k`); `off-chart` when the largest region is below half of it.
    pub l2_tlb_step: Option<ReachStep>,
    /// `none`, `some`, `all`: `stair.huge_fraction_min`, the least-backed huge region of 2 MiB or more.
    pub least_backed: Option<Backed>,
    /// At the largest region, from the dTLB-miss counter (the generic event counts misses that needed a walk): `parts` when 4 KiB pages walked at least once per 100 loads and at least twice as often as huge pages, `both` when huge pages walked nearly as often, `neither` when 4 KiB pages hardly walked; null without the counter.
    pub walks: Option<Walks>,
    /// `apart` when at some region size the 4 KiB chase was slower than the huge-page chase beyond the repetitions' spread (the page size moved the curve, whatever the step detector paired); `together` when at none; null without a point that has both.
    pub curves: Option<Curves>,
    /// What the timed samples' fault counter (`stair.timed_faults_max`) and the walk counter say about the gap at the largest region: `faults-in-it` when any timed sample took a minor fault (the kernel is inside some timed loads); else, with the 4 KiB chase slower there, `translation` when `walks` is `parts` (the counter proves the walks) and `not-the-kernel` otherwise; `no-extra` when the 4 KiB chase was not slower.
    pub extra_time: Option<ExtraTime>,
}

/// The picked points.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct StairAt {
    /// The point nearest half of L1d.
    pub l1: Option<StairPoint>,
    /// The point nearest half of L2.
    pub l2: Option<StairPoint>,
    /// The point nearest half of L3.
    pub l3: Option<StairPoint>,
    /// The largest region.
    pub largest: Option<StairPoint>,
}

/// What `MADV_COLLAPSE` returned over the huge regions.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Collapse {
    /// In words (`ok at every size`, `EINVAL at every size: this kernel has no MADV_COLLAPSE`, ...).
    pub text: Option<String>,
    /// True when it succeeded at every size it was tried.
    pub ok: Option<bool>,
}

/// One of R2's published levels; unreported ends are null.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Published {
    /// Where the level starts, bytes.
    pub from_bytes: Option<u64>,
    /// The same as text.
    pub from: Option<String>,
    /// Where it ends, bytes.
    pub to_bytes: Option<u64>,
    /// The same as text.
    pub to: Option<String>,
    /// Its ns per load (a single figure has `ns_min == ns_max`).
    pub ns_min: Option<f64>,
    /// The top of its range.
    pub ns_max: Option<f64>,
    /// What it adds over the previous level (R2's "+15 to +100"), low end.
    pub added_ns_min: Option<f64>,
    /// High end.
    pub added_ns_max: Option<f64>,
    /// What the curve appears to say there.
    pub naive: String,
    /// What was actually happening.
    pub actual: String,
    /// True for a level given as a range (`ns_min < ns_max`) rather than one figure.
    pub rising: Option<bool>,
    /// The region in words: `about 48 KiB`, `4 KiB to 32 KiB`, `beyond 8 MiB`, `up to 32 KiB`; null when the source gives neither end.
    pub region: Option<String>,
    /// Its ns per load in words: `12.0`, `12.0 rising to 24.0`, `15 to 100 more than the level before`; null when it gives none.
    pub latency: Option<String>,
}

impl Staircase {
    /// `at_rows`: the picked points in the chapter's order.
    pub fn fill_rows(&mut self) {
        let at = &self.at;
        self.at_rows = vec![
            AtRow::of("l1", "half of L1d", &at.l1),
            AtRow::of("l2", "half of L2", &at.l2),
            AtRow::of("l3", "half of L3", &at.l3),
            AtRow::of("largest", "largest", &at.largest),
        ];
    }

    /// Both regimes at the region of `bytes`, where one was measured.
    pub fn chase_at(&self, bytes: u64) -> Option<&Chase> {
        self.points
            .iter()
            .find(|p| p.bytes == bytes)
            .map(|p| &p.chase)
    }
}

pub fn view(run: &RunFile) -> Option<Staircase> {
    let record = run.experiment(pagewalk_model::translation::STAIRCASE)?;
    let s = run.staircase();
    let curves = s.map_or(&[][..], |s| &s.curves);
    let points = joined(
        curves,
        |p| Some(p.region_bytes),
        |bytes, small, huge| StairPoint {
            bytes,
            size: size(bytes),
            chase: Chase::of(small, huge),
            huge_fraction: huge.and_then(|h| h.huge_fraction),
            in_l1_tlb_gap: None,
            picked: Picked::default(),
        },
    );
    let cache = |level| {
        s.and_then(|s| s.geometry.data_cache(level))
            .map(|c| c.size_bytes as f64)
    };
    let at = |target: Option<f64>| {
        target
            .and_then(|t| nearest(&points, |p| p.bytes as f64, t))
            .cloned()
    };
    let huge: Vec<&ChasePoint> = s
        .and_then(|s| s.curve(Regime::Huge))
        .map_or(Vec::new(), |c| c.points.iter().collect());
    let (step_list, step_counts) = steps(s.map_or(&[][..], |s| &s.steps), |x| size(x as u64));
    let first = points.first().map(|p| p.bytes);
    let last = points.last().map(|p| p.bytes);
    let published = s
        .map_or(&[][..], |s| &s.published)
        .iter()
        .map(|l| Published {
            from_bytes: l.from_bytes,
            from: l.from_bytes.map(size),
            to_bytes: l.to_bytes,
            to: l.to_bytes.map(size),
            ns_min: l.ns.map(|r| r.min),
            ns_max: l.ns.map(|r| r.max),
            added_ns_min: l.added_ns.map(|r| r.min),
            added_ns_max: l.added_ns.map(|r| r.max),
            naive: l.naive.clone(),
            actual: l.actual.clone(),
            rising: None,
            region: None,
            latency: None,
        })
        .collect();
    Some(Staircase {
        record: Record::of(record),
        repetitions: s.and_then(|s| s.repetitions),
        repeated: None,
        stride_bytes: s.and_then(|s| s.stride_bytes),
        sizes: s.map(|_| points.len()),
        min_bytes: first.map(|b| b as f64),
        min_size: first.map(size),
        max_bytes: last.map(|b| b as f64),
        max_size: last.map(size),
        size_note: s.and_then(|s| s.size_note.clone()),
        at: StairAt {
            l1: at(cache(1).map(|c| c / 2.0)),
            l2: at(cache(2).map(|c| c / 2.0)),
            l3: at(cache(3).map(|c| c / 2.0)),
            largest: points.last().cloned(),
        },
        at_rows: Vec::new(),
        huge_fraction_min: huge
            .iter()
            .filter(|p| p.region_bytes >= 2 << 20)
            .filter_map(|p| p.huge_fraction)
            .reduce(f64::min),
        collapse: collapse(&huge),
        timed_faults_max: curves
            .iter()
            .flat_map(|c| &c.points)
            .filter_map(|p| p.timed_minor_faults)
            .max(),
        points,
        published,
        steps: step_list,
        step_counts,
        agreement: agreement(
            s.map_or(&[][..], |s| &s.agreement),
            |x| size(x as u64),
            in_vm(run),
        ),
        cpuid: Cpuid::of(s.map(|s| &s.geometry)),
        caches: Caches::of(s.map(|s| &s.geometry)),
        counters: Counters::of(s.and_then(|s| s.counters.as_ref())),
        gigantic: Gigantic::of(
            curves,
            s.map(|s| &s.geometry),
            |p| Some(p.region_bytes),
            size,
        ),
        placement: Placement::of(curves, |p| Some(p.region_bytes), size),
        verdict: None,
        widest_gap: None,
        widest_gap_ratio: None,
    })
}

/// What `MADV_COLLAPSE` returned over the huge regions: `text` and `ok`.
fn collapse(huge: &[&ChasePoint]) -> Collapse {
    let tried: Vec<(&ChasePoint, &pagewalk_model::AdviceOutcome)> = huge
        .iter()
        .filter_map(|p| Some((*p, p.collapse.as_ref()?)))
        .collect();
    if tried.is_empty() {
        return Collapse::default();
    }
    let failed: Vec<String> = tried
        .iter()
        .filter(|(_, c)| !c.ok)
        .map(|(p, c)| {
            format!(
                "{} at {}",
                c.errno.as_deref().unwrap_or("failed"),
                size(p.region_bytes)
            )
        })
        .collect();
    let text = if failed.is_empty() {
        "ok at every size".to_string()
    } else if tried
        .iter()
        .all(|(_, c)| c.errno.as_deref() == Some("EINVAL"))
    {
        "EINVAL at every size: this kernel has no MADV_COLLAPSE".to_string()
    } else if failed.len() == tried.len() {
        format!("failed: {}", failed.join(", "))
    } else {
        format!("{}; ok at the other sizes", failed.join(", "))
    };
    Collapse {
        text: Some(text),
        ok: Some(failed.is_empty()),
    }
}
