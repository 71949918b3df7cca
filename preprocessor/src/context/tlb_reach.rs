//! `tlb` (experiment `tlb-reach`): one line per page, translation alone.

use pagewalk_model::judge::measured::order_of;
use pagewalk_model::judge::steps::{rise_cause, RiseCause};
use pagewalk_model::judge::{Noise, Order};
use pagewalk_model::RunFile;
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::{
    agreement, below, in_vm, joined, size, steps, AgreementView, AtRow, Caches, Chase, Counters,
    Cpuid, Record, StepCounts, StepView, TlbLevelReach,
};

const LINE: u64 = 64;
const PAGE: u64 = 4096;

/// The TLB-reach view: one 64-byte line per 4 KiB page, the lines spread
/// over cache sets, so the data stays in cache while the page count grows
/// past each TLB level.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TlbReach {
    /// Skip reason, duration and checks.
    #[serde(flatten)]
    pub record: Record,
    /// Timed samples per point in each mapping (see `placement.mappings`; before schema 5, per point).
    pub repetitions: Option<u32>,
    /// True when a point has more than one timed sample.
    pub repeated: Option<bool>,
    /// Page `i` holds its line at `(i × line_step) mod 64` before schema 6, at `((i ^ i >> 6 ^ i >> 12) × line_step) mod 64` from it (so that lines spread over every cache set on physically contiguous memory too).
    pub line_step: Option<u64>,
    /// Smallest page count.
    pub min_pages: Option<u64>,
    /// Largest page count.
    pub max_pages: Option<u64>,
    /// The most data any point touches (pages × 64 B, kept within half of L2), bytes.
    pub data_limit_bytes: Option<u64>,
    /// The same as text.
    pub data_limit: Option<String>,
    /// The picked points.
    pub at: TlbAt,
    /// The same four points as table rows, in the order `few`, `l1`, `l2`, `beyond`: `{key, label, point}` (`point` null where there is none).
    pub at_rows: Vec<AtRow<TlbPoint>>,
    /// One per TLB level, in the chapter's order, with R2's beside it (from `r2.stair.cpuid`: R2 has no `tlb-reach`).
    pub cpuid_rows: Vec<CpuidRow>,
    /// One per page count, ascending.
    pub points: Vec<TlbPoint>,
    /// The bends the step detector found (`x` in pages).
    pub steps: Vec<StepView>,
    /// Steps of the 4 KiB curve by kind.
    pub step_counts: StepCounts,
    /// Each bend CPUID predicts next to the measured one.
    pub agreement: AgreementView,
    /// The TLB levels CPUID reports.
    pub cpuid: Cpuid,
    /// The TLB levels this run's curves measured, beside CPUID's, and which figure the book uses (see below).
    pub measured: super::measured::Measured,
    /// The data caches.
    pub caches: Caches,
    /// Whether the perf counters opened.
    pub counters: Counters,
    /// Verdicts on the rise past the L2 TLB (below).
    pub verdict: Option<TlbVerdict>,
}

/// One page count, both regimes.
#[derive(Clone, Serialize, JsonSchema)]
pub struct TlbPoint {
    /// Pages touched.
    pub pages: u64,
    /// Pages × 4 KiB, bytes.
    pub span_bytes: u64,
    /// The same as text.
    pub span: String,
    /// Pages × 64 B: the data touched.
    pub data_bytes: u64,
    /// Both regimes' ns per load.
    #[serde(flatten)]
    pub chase: Chase,
    /// The share (0..1) of the huge region backed by huge pages.
    pub huge_fraction: Option<f64>,
}

/// The picked points.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TlbAt {
    /// The smallest count.
    pub few: Option<TlbPoint>,
    /// The largest count within the L1 dTLB (4 KiB entries).
    pub l1: Option<TlbPoint>,
    /// The largest count within the L2 TLB.
    pub l2: Option<TlbPoint>,
    /// The largest count measured.
    pub beyond: Option<TlbPoint>,
}

/// What the TLB-reach curves say past the L2 TLB.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TlbVerdict {
    /// As for `stair`.
    pub l1_reach_below_l2: Option<bool>,
    /// As for `stair`.
    pub l2_reach_below_l3: Option<bool>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the 4 KiB curve's point at `tlb.at.beyond` against `tlb.at.l2` (`slower`: it rose); null when the two are the same point.
    pub beyond_small: Option<Order>,
    /// The same for the huge-page curve.
    pub beyond_huge: Option<Order>,
    /// `translation` when only the 4 KiB curve rose, `shared` when the huge-page curve rose too, `unclear` when the 4 KiB curve rose but the huge-page curve's repetitions cannot say, `none` when the 4 KiB curve did not.
    pub rise: Option<RiseCause>,
}

/// A row of the TLB-reach chapter's CPUID table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct CpuidRow {
    /// The level's KEY under `VIEW.cpuid`.
    pub key: &'static str,
    /// Its name in the table (`L1 dTLB, 4 KiB pages`).
    pub label: &'static str,
    /// The level on this source.
    pub run: Option<TlbLevelReach>,
    /// R2's (from `r2.stair.cpuid`: R2 has no `tlb-reach`; null on R2's own views).
    pub r2: Option<TlbLevelReach>,
}

impl TlbReach {
    /// Each step's `match`, and `tlb.verdict`: did each curve rise from the
    /// last point within the L2 TLB to the largest count, and what that
    /// says.
    pub fn judge(&mut self, noise: Noise) {
        steps::judge(&mut self.steps, &mut self.step_counts);
        let rose = |regime: usize| {
            let (from, to) = (self.at.l2.as_ref()?, self.at.beyond.as_ref()?);
            if from.pages == to.pages {
                return None;
            }
            order_of(
                to.chase.repeated(regime, noise),
                from.chase.repeated(regime, noise),
                noise,
            )
        };
        let (small, huge) = (rose(0), rose(1));
        let (l1, l2) = below(&self.cpuid, &self.caches);
        self.verdict = Some(TlbVerdict {
            l1_reach_below_l2: l1,
            l2_reach_below_l3: l2,
            beyond_small: small,
            beyond_huge: huge,
            rise: small.zip(huge).map(|(s, h)| rise_cause(s, h)),
        });
    }

    /// `at_rows`, and `cpuid_rows` with R2's levels beside (`r2_cpuid`, from
    /// R2's staircase: R2 published its TLB figures with it, and no
    /// `tlb-reach`).
    pub fn fill_rows(&mut self, r2_cpuid: Option<&Cpuid>) {
        let at = &self.at;
        self.at_rows = vec![
            AtRow::of("few", "fewest pages", &at.few),
            AtRow::of("l1", "most pages within the L1 dTLB", &at.l1),
            AtRow::of("l2", "most pages within the L2 TLB", &at.l2),
            AtRow::of("beyond", "most pages measured", &at.beyond),
        ];
        self.cpuid_rows = cpuid_rows(&self.cpuid, r2_cpuid);
    }
}

/// One per TLB level, in the chapter's order.
fn cpuid_rows(run: &Cpuid, r2: Option<&Cpuid>) -> Vec<CpuidRow> {
    type Level = fn(&Cpuid) -> &Option<TlbLevelReach>;
    let levels: [(&str, &str, Level); 6] = [
        ("l1d_4k", "L1 dTLB, 4 KiB pages", |c| &c.l1d_4k),
        ("l2_4k", "L2 TLB, 4 KiB pages", |c| &c.l2_4k),
        ("l1d_2m", "L1 dTLB, 2 MiB pages", |c| &c.l1d_2m),
        ("l2_2m", "L2 TLB, 2 MiB pages", |c| &c.l2_2m),
        ("l1d_1g", "L1 dTLB, 1 GiB pages", |c| &c.l1d_1g),
        ("l2_1g", "L2 TLB, 1 GiB pages", |c| &c.l2_1g),
    ];
    levels
        .iter()
        .map(|&(key, label, level)| CpuidRow {
            key,
            label,
            run: level(run).clone(),
            r2: r2.and_then(|c| level(c).clone()),
        })
        .collect()
}

pub fn view(run: &RunFile) -> Option<TlbReach> {
    let record = run.experiment(pagewalk_model::translation::TLB_REACH)?;
    let t = run.tlb_reach();
    let curves = t.map_or(&[][..], |t| &t.curves);
    let points = joined(
        curves,
        |p| p.pages,
        |pages, small, huge| TlbPoint {
            pages,
            span_bytes: pages * PAGE,
            span: size(pages * PAGE),
            data_bytes: pages * LINE,
            chase: Chase::of(small, huge),
            huge_fraction: huge.and_then(|h| h.huge_fraction),
        },
    );
    let measured = t.map(super::measured::view).unwrap_or_default();
    // The points within each level's reach: by the measured bounds where
    // the curves gave them (CPUID is a claim), else by CPUID's figure.
    let entries = |level| {
        let by_measure = match level {
            1 => measured.l1.as_ref(),
            _ => measured.l2.as_ref(),
        }
        .and_then(|l| l.used_entries);
        by_measure.or_else(|| {
            t.and_then(|t| t.geometry.data_tlb(level, PAGE))
                .map(|l| u64::from(l.entries))
        })
    };
    // The largest count within `limit` pages (and above `floor`).
    let within = |floor: u64, limit: Option<u64>| {
        limit
            .and_then(|limit| {
                points
                    .iter()
                    .rfind(|p| (floor + 1..=limit).contains(&p.pages))
            })
            .cloned()
    };
    let (step_list, step_counts) =
        steps(t.map_or(&[][..], |t| &t.steps), |x| format!("{x:.0} pages"));
    let l1 = entries(1);
    Some(TlbReach {
        record: Record::of(record),
        repetitions: t.map(|t| t.repetitions),
        repeated: None,
        line_step: t.map(|t| t.line_step),
        min_pages: points.first().map(|p| p.pages),
        max_pages: points.last().map(|p| p.pages),
        data_limit_bytes: t.map(|t| t.data_limit_bytes),
        data_limit: t.map(|t| size(t.data_limit_bytes)),
        at: TlbAt {
            few: points.first().cloned(),
            l1: within(0, l1),
            l2: within(l1.unwrap_or(0), entries(2)),
            beyond: points.last().cloned(),
        },
        at_rows: Vec::new(),
        cpuid_rows: Vec::new(),
        points,
        steps: step_list,
        step_counts,
        agreement: agreement(
            t.map_or(&[][..], |t| &t.agreement),
            |x| format!("{x:.0} pages"),
            in_vm(run),
        ),
        cpuid: Cpuid::of(t.map(|t| &t.geometry)),
        measured,
        caches: Caches::of(t.map(|t| &t.geometry)),
        counters: Counters::of(t.and_then(|t| t.counters.as_ref())),
        verdict: None,
    })
}
