//! `tail` (and `r2.tail`): per-iteration tails, as written and pre-faulted.

use pagewalk_model::{RunFile, Stat, TailRepetition, TailVariant, TailVariantResult};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::{failed_checks, ratio, skipped, FailedCheck, Stats};
use super::verdict::hot_path::TailVerdict;

/// The pre-faulted variant a chapter compares with, in order of preference.
const HEADLINE: [TailVariant; 4] = [
    TailVariant::Populate,
    TailVariant::TouchEarly,
    TailVariant::Mlockall,
    TailVariant::Prefaulted,
];

/// The tail view: one hot loop writing fresh memory, timed per iteration.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Tail {
    /// Why the experiment was skipped or failed; else null.
    pub skipped: Option<String>,
    /// Timed iterations per repetition.
    pub iterations: Option<u64>,
    /// Repetitions per variant (the percentiles merge them).
    pub repetitions: Option<u32>,
    /// True when `repetitions` is more than one.
    pub repeated: Option<bool>,
    /// Fresh memory walked per repetition, MiB.
    pub region_mib: Option<f64>,
    /// The same in 4 KiB pages.
    pub pages: Option<u64>,
    /// Fresh bytes each iteration writes.
    pub bytes_per_iteration: Option<u64>,
    /// Iterations per page: one in this many meets a fault as written.
    pub iterations_per_page: Option<u64>,
    /// `1 / iterations_per_page`: the fraction of iterations that fault as written.
    pub fault_share: Option<f64>,
    /// What each iteration computes besides writing (text).
    pub work: Option<String>,
    /// One view per variant.
    pub variants: Variants,
    /// The headline pre-faulted variant, same shape as a variant: `populate` for a run (else `touch_early`, `mlockall`), `prefaulted` for R2.
    pub prefaulted: Option<Variant>,
    /// Which variant KEY that is.
    pub prefaulted_key: Option<String>,
    /// As-written p99.9 / pre-faulted p99.9 (R2: 39 µs / 7.6 µs).
    pub p999_ratio: Option<f64>,
    /// The same for p50: near 1 is the point.
    pub p50_ratio: Option<f64>,
    /// The same for the mean.
    pub mean_ratio: Option<f64>,
    /// True / false; null when not tried.
    pub mlockall_permitted: Option<bool>,
    /// Most hot-loop faults seen in any pre-faulted repetition (expected ~0).
    pub prefault_faults_max: Option<f64>,
    /// Every premise check passed (null when there are no results).
    pub all_checks_passed: Option<bool>,
    /// The premise checks that failed.
    pub failed_checks: Vec<FailedCheck>,
    /// Verdicts on the tail (below).
    pub verdict: Option<TailVerdict>,
}

/// One view per variant (KEY); null where it did not run.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Variants {
    /// A plain `mmap`: every new page faults inside the hot loop.
    pub as_written: Option<Variant>,
    /// `mmap(MAP_POPULATE)`: the kernel faults everything in up front.
    pub populate: Option<Variant>,
    /// One write per page before the hot loop starts.
    pub touch_early: Option<Variant>,
    /// `mlockall(MCL_CURRENT | MCL_FUTURE)` before the `mmap`.
    pub mlockall: Option<Variant>,
    /// Pre-faulted, the lever not named (R2 only).
    pub prefaulted: Option<Variant>,
}

impl Variants {
    fn slot(&mut self, v: TailVariant) -> &mut Option<Variant> {
        match v {
            TailVariant::AsWritten => &mut self.as_written,
            TailVariant::Populate => &mut self.populate,
            TailVariant::TouchEarly => &mut self.touch_early,
            TailVariant::Mlockall => &mut self.mlockall,
            TailVariant::Prefaulted => &mut self.prefaulted,
        }
    }
}

/// One variant's distribution, per iteration, all repetitions merged.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Variant {
    /// The distribution, ns (`p999` is p99.9; `n` the iterations in it).
    #[serde(flatten)]
    pub stats: Stats,
    /// Why the variant did not run (e.g. `mlockall` not permitted).
    pub skipped: Option<String>,
    /// How it is written in code (`MAP_POPULATE`).
    pub label: &'static str,
    /// Minor faults during the hot loop, median over repetitions.
    pub faults: Option<f64>,
    /// The same, the most in any repetition.
    pub faults_max: Option<f64>,
    /// Median time spent pre-faulting before the hot loop, ns (the cost moved to startup).
    pub prepare_ns: Option<f64>,
    /// The lowest of each repetition's own p99.9: the spread a verdict holds differences against (null for R2).
    pub p999_rep_min: Option<f64>,
    /// The highest.
    pub p999_rep_max: Option<f64>,
    /// The lowest repetition mean.
    pub mean_rep_min: Option<f64>,
    /// The highest.
    pub mean_rep_max: Option<f64>,
    /// The lowest repetition maximum.
    pub max_rep_min: Option<f64>,
    /// The highest.
    pub max_rep_max: Option<f64>,
}

pub fn view(run: &RunFile) -> Option<Tail> {
    let record = run.experiment(pagewalk_model::tail::EXPERIMENT)?;
    let t = run.tail();
    let get = |v: TailVariant| t.and_then(|t| t.variant(v));
    let headline = HEADLINE
        .into_iter()
        .find(|&v| get(v).is_some_and(|r| r.latency.is_some()));
    let stat = |v: Option<TailVariant>, s: Stat| get(v?)?.latency.as_ref()?.get(s);
    let written = Some(TailVariant::AsWritten);
    let page = t.and_then(|t| Some(t.region_bytes? / t.pages?.max(1)));
    let per_page = t.and_then(|t| Some(page? / t.bytes_per_iteration?.max(1)));
    let prefault_faults = t.and_then(|t| {
        t.variants
            .iter()
            .filter(|v| v.variant.prefaulted())
            .filter_map(|v| v.hot_minor_faults.map(|f| f.max))
            .reduce(f64::max)
    });
    let mut variants = Variants::default();
    for &v in TailVariant::ALL.iter() {
        *variants.slot(v) = get(v).map(variant);
    }
    Some(Tail {
        skipped: skipped(record),
        iterations: t.and_then(|t| t.iterations),
        repetitions: t.and_then(|t| t.repetitions),
        repeated: None,
        region_mib: t
            .and_then(|t| t.region_bytes)
            .map(|b| b as f64 / (1 << 20) as f64),
        pages: t.and_then(|t| t.pages),
        bytes_per_iteration: t.and_then(|t| t.bytes_per_iteration),
        iterations_per_page: per_page,
        fault_share: per_page.map(|n| 1.0 / n as f64),
        work: t.and_then(|t| t.work.clone()),
        variants,
        prefaulted: headline.and_then(get).map(variant),
        prefaulted_key: headline.map(|v| v.name().replace('-', "_")),
        p999_ratio: ratio(stat(written, Stat::P999), stat(headline, Stat::P999)),
        p50_ratio: ratio(stat(written, Stat::P50), stat(headline, Stat::P50)),
        mean_ratio: ratio(stat(written, Stat::Mean), stat(headline, Stat::Mean)),
        mlockall_permitted: get(TailVariant::Mlockall).map(|v| v.skipped.is_none()),
        prefault_faults_max: prefault_faults,
        all_checks_passed: t.map(|_| record.failed_checks().next().is_none()),
        failed_checks: failed_checks(record),
        verdict: None,
    })
}

/// One figure of a repetition (its p99.9, mean or maximum).
type RepFigure = fn(&TailRepetition) -> f64;

fn variant(v: &TailVariantResult) -> Variant {
    // Each repetition's own figure, so a verdict can hold a difference
    // against the spread between repetitions (`p999_rep_min`, ...).
    let range = |f: RepFigure| {
        let values = v.repetitions.iter().map(f);
        (values.clone().reduce(f64::min), values.reduce(f64::max))
    };
    let (p999_rep_min, p999_rep_max) = range(|r| r.p999_ns);
    let (mean_rep_min, mean_rep_max) = range(|r| r.mean_ns);
    let (max_rep_min, max_rep_max) = range(|r| r.max_ns);
    Variant {
        stats: Stats::of(v.latency.as_ref()),
        skipped: v.skipped.clone(),
        label: v.variant.label(),
        faults: v.hot_minor_faults.map(|f| f.median),
        faults_max: v.hot_minor_faults.map(|f| f.max),
        prepare_ns: v.prepare_ns.map(|p| p.median),
        p999_rep_min,
        p999_rep_max,
        mean_rep_min,
        mean_rep_max,
        max_rep_min,
        max_rep_max,
    }
}
