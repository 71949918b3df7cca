//! `walk`: one load per page at strides that spread the walk's entries out
//! level by level, on 4 KiB pages and on huge pages.

use pagewalk_model::judge::curves::levels_slower;
use pagewalk_model::judge::measured::order;
use pagewalk_model::judge::{Measured, Noise, Order};
use pagewalk_model::{Regime, RunFile, WalkPoint, WalkResults};
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::counters::why_failed;
use super::translation::{size, Record};

const KIB: u64 = 1024;
const STRIDES: [u64; 4] = [4 * KIB, 32 * KIB, 2 << 20, 1 << 30];

/// The walk view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Walk {
    /// Skip reason, duration and checks.
    #[serde(flatten)]
    pub record: Record,
    /// Timed samples per point.
    pub repetitions: Option<u32>,
    /// True when `repetitions` is more than one.
    pub repeated: Option<bool>,
    /// Pages visited at each 4 KiB-page stride.
    pub pages: Option<u64>,
    /// Huge pages visited at the 2 MiB and 1 GiB huge-page strides.
    pub huge_pages: Option<u64>,
    /// The L2 TLB's entries for 4 KiB pages the run sized itself past: from schema 6 the measured bound (see `sized_from`), before it CPUID's figure.
    pub l2_tlb_entries: Option<u32>,
    /// Where `l2_tlb_entries` came from, in words for running prose (`measured by tlb-reach earlier in this run`); null before schema 6, when it was CPUID's.
    pub sized_from: Option<String>,
    /// Its entries for 2 MiB pages.
    pub l2_tlb_entries_2m: Option<u32>,
    /// True when every huge page visited fits the L2 TLB's 2 MiB entries (so the huge-page strides take no walk at all).
    pub huge_within_l2_tlb: Option<bool>,
    /// Memory the huge pages would need to pass the L2 TLB's 2 MiB reach, as text.
    pub huge_reach_needs: Option<String>,
    /// What the counters are, or why not, as the run file has it (raw: keep it out of sentences).
    pub counters: Option<String>,
    /// Why no counter opened, in words for running prose; null when one did.
    pub counters_why: Option<&'static str>,
    /// True when the generic dTLB-miss counter opened.
    pub dtlb_counted: Option<bool>,
    /// True when the CPU's own walk events (walks completed, cycles walking) opened.
    pub walk_events: Option<bool>,
    /// 4 KiB pages, per stride (KEY: `s4k`, `s32k`, `s2m`, `s1g`).
    pub small: Strides,
    /// Huge pages, per stride (`s32k` is always null).
    pub huge: Strides,
    /// One row per stride: `{stride, small, huge}`.
    pub rows: Vec<Row>,
    /// Verdicts (below).
    pub verdict: Option<WalkVerdict>,
}

/// One page size's strides.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Strides {
    /// 4 KiB apart: eight neighbours' last-level entries share a cache line.
    pub s4k: Option<Point>,
    /// 32 KiB apart: each last-level entry in a line of its own.
    pub s32k: Option<Point>,
    /// 2 MiB apart: each page its own page-table page.
    pub s2m: Option<Point>,
    /// 1 GiB apart: each page its own page-directory page too.
    pub s1g: Option<Point>,
}

impl Strides {
    pub fn get(&self, stride: u64) -> Option<&Point> {
        match stride {
            s if s == STRIDES[0] => self.s4k.as_ref(),
            s if s == STRIDES[1] => self.s32k.as_ref(),
            s if s == STRIDES[2] => self.s2m.as_ref(),
            _ => self.s1g.as_ref(),
        }
    }
}

/// One stride on one page size.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Point {
    /// The stride, as text.
    pub stride: String,
    /// Pages visited.
    pub pages: u64,
    /// Median ns per load; null when skipped.
    pub ns: Option<f64>,
    /// Fastest repetition.
    pub ns_min: Option<f64>,
    /// Slowest repetition.
    pub ns_max: Option<f64>,
    /// ns per load above the huge-page 4 KiB stride (the same lines, every translation in the TLB); null where either is missing, and where this point was the faster of the two (see `below_baseline`): a negative "above" is no figure.
    pub extra_ns: Option<f64>,
    /// True when this point's median was under the no-walk baseline's; null where either is missing.
    pub below_baseline: Option<bool>,
    /// Why it did not run.
    pub skipped: Option<String>,
    /// How far the process's page tables grew for it (`VmPTE`), as text.
    pub page_tables: Option<String>,
    /// dTLB misses per load, where counted.
    pub dtlb_per_load: Option<f64>,
    /// Walks completed per load, where the CPU has the event.
    pub walks_per_load: Option<f64>,
    /// Cycles with a walk in progress, per load, where the CPU has the event.
    pub walk_cycles_per_load: Option<f64>,
}

/// A table row.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Row {
    /// The stride, as text.
    pub stride: String,
    /// 4 KiB pages.
    pub small: Option<Point>,
    /// Huge pages.
    pub huge: Option<Point>,
}

/// Each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct WalkVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): 4 KiB pages at the 4 KiB stride against huge pages at the same stride (the same lines, no walk): what a walk whose entries share cache lines adds (repetition ranges, else the A-vs-A floor).
    pub shared_walk: Option<Order>,
    /// 4 KiB pages, 32 KiB stride against 4 KiB: each last-level entry in a line of its own.
    pub own_line: Option<Order>,
    /// 2 MiB against 32 KiB: a page-table page each.
    pub own_table: Option<Order>,
    /// 1 GiB against 2 MiB: a page-directory page each.
    pub own_directory: Option<Order>,
    /// How many of `own_line`, `own_table`, `own_directory` were `slower`.
    pub levels_slower: Option<u32>,
    /// The 1 GiB stride's extra ns over the 4 KiB stride's (both against the no-walk baseline).
    pub widest_over_shared: Option<f64>,
    /// An order: 4 KiB pages against huge pages at the 2 MiB stride.
    pub huge_2m: Option<Order>,
}

impl Walk {
    /// Files `verdict`: what a walk cost where its entries share lines,
    /// and at which stride each further level of the walk started to cost
    /// more (nothing for a skipped run).
    pub fn judge(&mut self, noise: Noise) {
        if self.record.skipped.is_some() {
            return;
        }
        let measured = |p: Option<&Point>| {
            let p = p?;
            Measured::ranged(p.ns, p.ns_min, p.ns_max)
        };
        let cmp = |a: Option<&Point>, b: Option<&Point>| {
            measured(a)
                .zip(measured(b))
                .map(|(a, b)| order(a, b, noise))
        };
        let s = &self.small;
        let own_line = cmp(s.s32k.as_ref(), s.s4k.as_ref());
        let own_table = cmp(s.s2m.as_ref(), s.s32k.as_ref());
        let own_directory = cmp(s.s1g.as_ref(), s.s2m.as_ref());
        let extra = |p: &Option<Point>| p.as_ref().and_then(|p| p.extra_ns);
        self.verdict = Some(WalkVerdict {
            shared_walk: cmp(s.s4k.as_ref(), self.huge.s4k.as_ref()),
            own_line,
            own_table,
            own_directory,
            levels_slower: levels_slower(&[own_line, own_table, own_directory]),
            widest_over_shared: extra(&s.s1g)
                .zip(extra(&s.s4k))
                .filter(|(_, shared)| *shared > 0.0)
                .map(|(wide, shared)| wide / shared),
            huge_2m: cmp(s.s2m.as_ref(), self.huge.s2m.as_ref()),
        });
    }
}

pub fn view(file: &RunFile) -> Option<Walk> {
    let record = file.experiment(pagewalk_model::walk::EXPERIMENT)?;
    let rec = Record::of(record);
    let Some(w) = file.walk().filter(|_| rec.skipped.is_none()) else {
        return Some(Walk {
            record: rec,
            ..Walk::default()
        });
    };
    let baseline = w
        .point(Regime::Huge, STRIDES[0])
        .and_then(|p| p.ns_per_load.as_ref())
        .map(|s| s.median);
    let strides = |r: Regime| {
        let at = |s: u64| w.point(r, s).map(|p| point(p, baseline));
        Strides {
            s4k: at(STRIDES[0]),
            s32k: at(STRIDES[1]),
            s2m: at(STRIDES[2]),
            s1g: at(STRIDES[3]),
        }
    };
    let (small, huge) = (strides(Regime::Small), strides(Regime::Huge));
    Some(Walk {
        record: rec,
        repetitions: Some(w.repetitions),
        repeated: Some(w.repetitions > 1),
        pages: Some(w.pages),
        huge_pages: Some(w.huge_pages),
        l2_tlb_entries: w.l2_tlb_entries,
        sized_from: w.l2_tlb.as_ref().map(|u| sized_from(u.source)),
        l2_tlb_entries_2m: w.l2_tlb_entries_2m,
        huge_within_l2_tlb: w.l2_tlb_entries_2m.map(|e| w.huge_pages <= u64::from(e)),
        huge_reach_needs: w.l2_tlb_entries_2m.map(|e| size(u64::from(e) * (2 << 20))),
        counters: Some(w.counters.detail.clone()),
        counters_why: (!w.counters.dtlb_misses && w.counters.walk_events.is_empty())
            .then(|| why_failed(&w.counters.detail)),
        dtlb_counted: Some(w.counters.dtlb_misses),
        walk_events: Some(!w.counters.walk_events.is_empty()),
        rows: rows(w, &small, &huge),
        small,
        huge,
        verdict: None,
    })
}

fn rows(w: &WalkResults, small: &Strides, huge: &Strides) -> Vec<Row> {
    STRIDES
        .iter()
        .filter(|&&s| w.points.iter().any(|p| p.stride_bytes == s))
        .map(|&s| Row {
            stride: size(s),
            small: small.get(s).cloned(),
            huge: huge.get(s).cloned(),
        })
        .collect()
}

fn point(p: &WalkPoint, baseline: Option<f64>) -> Point {
    let s = p.ns_per_load.as_ref().filter(|_| p.skipped.is_none());
    Point {
        stride: size(p.stride_bytes),
        pages: p.pages,
        ns: s.map(|s| s.median),
        ns_min: s.map(|s| s.min),
        ns_max: s.map(|s| s.max),
        extra_ns: s
            .zip(baseline)
            .map(|(s, b)| s.median - b)
            .filter(|extra| *extra >= 0.0),
        below_baseline: s.zip(baseline).map(|(s, b)| s.median < b),
        skipped: p.skipped.as_deref().map(pagewalk_model::reason::in_words),
        page_tables: p.page_table_kib.map(|k| size(k * KIB)),
        dtlb_per_load: p.per_load(p.dtlb_misses),
        walks_per_load: p.per_load(p.walks_completed),
        walk_cycles_per_load: p.per_load(p.walk_active_cycles),
    }
}

/// How a chapter says where the reach a run sized itself past came from.
pub fn sized_from(source: pagewalk_model::ReachSource) -> String {
    use pagewalk_model::ReachSource;
    match source {
        ReachSource::TlbReach => "as tlb-reach measured it earlier in this run",
        ReachSource::Probe => "as the experiment's own quick probe measured it",
        ReachSource::Cpuid => "CPUID's figure, which nothing measured confirmed",
        ReachSource::Assumed => {
            "an assumption: nothing measured it and CPUID gave too little to trust"
        }
    }
    .to_string()
}
