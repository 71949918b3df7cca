//! `tail` (and `r2.tail`): per-iteration tails, as written and pre-faulted.

use pagewalk_model::judge::counts::{
    count_against, none_or_some, per_page, percentile_band, Count, NoneOrSome, PerPage,
    PercentileBand,
};
use pagewalk_model::judge::measured::order;
use pagewalk_model::judge::tail::{p999_cause, P999Cause};
use pagewalk_model::judge::{Measured, Noise, Order};
use pagewalk_model::{RunFile, Stat, TailRepetition, TailVariant, TailVariantResult};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::{failed_checks, ratio, skipped, FailedCheck, Stats};

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

/// What the tail says: as written against the pre-faulted headline.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TailVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): as written against `tail.prefaulted`, p50 (single figures: the A-vs-A floor decides).
    pub p50: Option<Order>,
    /// The same for p99.9, held against the spread of the repetitions' own figures (`.p999_rep_min`/`_max` of each variant).
    pub p999: Option<Order>,
    /// The same for the mean (`.mean_rep_min`/`_max`).
    pub mean: Option<Order>,
    /// The pre-faulted maximum against the as-written p99.9 (`slower`: outliers beyond it survived pre-faulting).
    pub outliers: Option<Order>,
    /// `above-p99`, `between-p99-and-p999`, `below-p999`: `tail.fault_share` against the shares p99 and p99.9 stand for.
    pub fault_share: Option<PercentileBand>,
    /// `as-expected`, `more`, `fewer`: as-written hot-loop faults against `tail.pages`.
    pub faults: Option<Count>,
    /// `exact`, `about-one-per-page`, `more`, `fewer`: the same count, allowing as many extra as the most any pre-faulted repetition's loop took over memory already present (`tail.prefault_faults_max`).
    pub per_page: Option<PerPage>,
    /// `none`, `some`: did any pre-faulted repetition's hot loop take a minor fault (`tail.prefault_faults_max`)? `none` rules faults out of the pre-faulted variants' slow iterations.
    pub prefaulted_faults: Option<NoneOrSome>,
    /// `faults`, `not-faults`, `unproved`: what the fault counter says about the as-written p99.9. `faults` when pre-faulting took faults out of the loop, one iteration in a thousand or more meets a fresh page (`fault_share`), and the p99.9 fell beyond the spread (`p999` is `slower`); `not-faults` when the faults went and the p99.9 did not fall; `unproved` when the counter did not fall or faulting iterations are too rare to be the p99.9.
    pub p999_cause: Option<P999Cause>,
}

impl Tail {
    /// Files `verdict`: as written against the pre-faulted headline, each
    /// statistic against the spread of its repetitions where they were
    /// kept.
    pub fn judge(&mut self, noise: Noise) {
        let (Some(written), Some(pre)) =
            (self.variants.as_written.as_ref(), self.prefaulted.as_ref())
        else {
            return;
        };
        // Each figure with the spread of the repetitions' own figures.
        let p999 = |v: &Variant| Measured::ranged(v.stats.p999, v.p999_rep_min, v.p999_rep_max);
        let mean = |v: &Variant| Measured::ranged(v.stats.mean, v.mean_rep_min, v.mean_rep_max);
        let max = |v: &Variant| Measured::ranged(v.stats.max, v.max_rep_min, v.max_rep_max);
        let compare =
            |a: Option<Measured>, b: Option<Measured>| a.zip(b).map(|(a, b)| order(a, b, noise));
        let p999_order = compare(p999(written), p999(pre));
        let band = self.fault_share.map(percentile_band);
        let counted = written.faults.zip(self.pages);
        let allowance = self.prefault_faults_max.unwrap_or(0.0);
        self.verdict = Some(TailVerdict {
            p50: compare(
                written.stats.p50.map(Measured::single),
                pre.stats.p50.map(Measured::single),
            ),
            p999: p999_order,
            mean: compare(mean(written), mean(pre)),
            outliers: compare(max(pre), p999(written)),
            fault_share: band,
            faults: counted.map(|(f, p)| count_against(f, p as f64)),
            per_page: counted.map(|(f, p)| per_page(f, p as f64, allowance)),
            prefaulted_faults: self.prefault_faults_max.map(none_or_some),
            p999_cause: match (p999_order, band) {
                (Some(order), Some(band)) => written
                    .faults
                    .zip(self.prefault_faults_max)
                    .map(|(w, pre)| p999_cause(order, band, w, pre)),
                _ => None,
            },
        });
    }
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
        skipped: v.skipped.as_deref().map(pagewalk_model::reason::in_words),
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

/// A figure of a variant: (lowest repetition, merged figure, highest
/// repetition).
#[cfg(test)]
pub(crate) type Figure = Option<(f64, f64, f64)>;

#[cfg(test)]
impl Variant {
    /// A variant: p50, then p99.9, mean and maximum each as a [`Figure`].
    pub(crate) fn of_figures(p50: f64, p999: Figure, mean: Figure, max: Figure) -> Variant {
        Variant {
            stats: Stats {
                p50: Some(p50),
                p999: p999.map(|f| f.1),
                mean: mean.map(|f| f.1),
                max: max.map(|f| f.1),
                ..Stats::default()
            },
            skipped: None,
            label: "",
            faults: None,
            faults_max: None,
            prepare_ns: None,
            p999_rep_min: p999.map(|f| f.0),
            p999_rep_max: p999.map(|f| f.2),
            mean_rep_min: mean.map(|f| f.0),
            mean_rep_max: mean.map(|f| f.2),
            max_rep_min: max.map(|f| f.0),
            max_rep_max: max.map(|f| f.2),
        }
    }
}
