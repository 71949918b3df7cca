//! `mlp`: how many misses one thread overlaps, `k` independent chains at a
//! time, over a region beyond the TLB's reach on 4 KiB and on huge pages,
//! and over a control region inside it.

use pagewalk_model::judge::curves::{ceiling, Ceiling};
use pagewalk_model::judge::measured::order;
use pagewalk_model::judge::pages::{backed, Backed};
use pagewalk_model::judge::{Measured, Noise, Order};
use pagewalk_model::{MlpRegion, MlpRegionResult, MlpResults, RunFile};
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::{size, Record};

/// The memory-level-parallelism view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Mlp {
    /// Skip reason, duration and checks.
    #[serde(flatten)]
    pub record: Record,
    /// Timed samples per chain count.
    pub repetitions: Option<u32>,
    /// True when `repetitions` is more than one.
    pub repeated: Option<bool>,
    /// The chain counts, in order (1 first).
    pub chains: Vec<u32>,
    /// The largest chain count.
    pub max_chains: Option<u32>,
    /// The large region (4 KiB and huge pages), as text.
    pub size: Option<String>,
    /// The control region, as text.
    pub control_size: Option<String>,
    /// The last-level cache, as text (sysfs).
    pub llc: Option<String>,
    /// The L2 TLB's 4 KiB reach, as text (CPUID).
    pub l2_tlb_reach: Option<String>,
    /// The three regions (KEY: `small`, `huge`, `control`).
    pub regions: Regions,
    /// One row per chain count: `{chains, small, huge, control}`, each a point or null.
    pub rows: Vec<Row>,
    /// Verdicts (below).
    pub verdict: Option<MlpVerdict>,
}

/// The regions.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Regions {
    /// 4 KiB pages, beyond the L2 TLB's reach and the last-level cache.
    pub small: Option<Region>,
    /// The same region on huge pages.
    pub huge: Option<Region>,
    /// 4 KiB pages inside the L2 TLB's reach.
    pub control: Option<Region>,
}

/// One region.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Region {
    /// How charts and tables name it.
    pub label: &'static str,
    /// Its size, as text.
    pub size: String,
    /// What it is against the sizes the run knows (the control: inside which levels), in the book's words: a size the run does not have is said to be unknown, never printed as one.
    pub note: Option<String>,
    /// Why it did not run; then the points are null.
    pub skipped: Option<String>,
    /// Percent of it on huge pages (`AnonHugePages`).
    pub huge_percent: Option<f64>,
    /// One chain.
    pub one: Option<Point>,
    /// The largest chain count.
    pub top: Option<Point>,
    /// The chain count with the highest parallelism.
    pub best: Option<Point>,
}

/// One chain count over one region.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Point {
    /// Chains in flight.
    pub chains: u32,
    /// Median ns per load (elapsed / (steps × chains)).
    pub ns: f64,
    /// Fastest repetition.
    pub ns_min: f64,
    /// Slowest repetition.
    pub ns_max: f64,
    /// `t(1) / t(k)`: loads overlapped, from the medians.
    pub parallelism: Option<f64>,
    /// Its lowest reading: one chain's fastest repetition against this count's slowest.
    pub parallelism_min: Option<f64>,
    /// Its highest: one chain's slowest against this count's fastest.
    pub parallelism_max: Option<f64>,
}

/// A table row.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Row {
    /// Chains in flight.
    pub chains: u32,
    /// 4 KiB pages beyond reach.
    pub small: Option<Point>,
    /// Huge pages.
    pub huge: Option<Point>,
    /// The control.
    pub control: Option<Point>,
}

/// Whether translation lowered the number of misses one thread overlaps
/// (the best `t(1)/t(k)` on 4 KiB pages against huge pages'), and whether
/// 4 KiB pages still cost more per load at one chain and with every chain
/// in flight; each null where its inputs are absent (a region skipped).
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct MlpVerdict {
    /// `lower-with-4k` (huge pages overlapped more loads at their best than 4 KiB pages at theirs, as `judge::order` decides), `same` (within the A-vs-A floor), `higher-with-4k`, or `unclear` (the repetitions cannot tell).
    pub ceiling: Option<Ceiling>,
    /// The best parallelism on huge pages over the best on 4 KiB pages.
    pub ceiling_ratio: Option<f64>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): 4 KiB pages against huge pages, ns per load, one chain.
    pub one: Option<Order>,
    /// The same with the largest chain count.
    pub top: Option<Order>,
    /// ns per load on 4 KiB pages over huge pages, one chain.
    pub one_ratio: Option<f64>,
    /// The same with the largest chain count.
    pub top_ratio: Option<f64>,
    /// `all`, `some`, `none`: how much of the huge region came in huge pages.
    pub huge_backed: Option<Backed>,
}

impl Point {
    fn ns_measured(&self) -> Measured {
        Measured::range(self.ns, self.ns_min, self.ns_max)
    }

    fn parallelism_measured(&self) -> Option<Measured> {
        Measured::ranged(self.parallelism, self.parallelism_min, self.parallelism_max)
    }
}

impl Mlp {
    /// Files `verdict` (nothing without both regions).
    pub fn judge(&mut self, noise: Noise) {
        let (Some(small), Some(huge)) = (&self.regions.small, &self.regions.huge) else {
            return;
        };
        let huge_backed = huge.huge_percent.map(|p| backed(p / 100.0));
        if small.skipped.is_some() || huge.skipped.is_some() {
            self.verdict = Some(MlpVerdict {
                huge_backed,
                ..MlpVerdict::default()
            });
            return;
        }
        let best = small
            .best
            .as_ref()
            .and_then(Point::parallelism_measured)
            .zip(huge.best.as_ref().and_then(Point::parallelism_measured));
        let one = small.one.as_ref().zip(huge.one.as_ref());
        let top = small.top.as_ref().zip(huge.top.as_ref());
        let ns = |(s, h): (&Point, &Point)| order(s.ns_measured(), h.ns_measured(), noise);
        self.verdict = Some(MlpVerdict {
            ceiling: best.map(|(s, h)| ceiling(s, h, noise)),
            ceiling_ratio: best
                .filter(|(s, _)| s.median > 0.0)
                .map(|(s, h)| h.median / s.median),
            one: one.map(ns),
            top: top.map(ns),
            one_ratio: one.map(|(s, h)| s.ns / h.ns),
            top_ratio: top.map(|(s, h)| s.ns / h.ns),
            huge_backed,
        });
    }
}

pub fn view(file: &RunFile) -> Option<Mlp> {
    let record = file.experiment(pagewalk_model::mlp::EXPERIMENT)?;
    let rec = Record::of(record);
    let Some(m) = file.mlp().filter(|_| rec.skipped.is_none()) else {
        return Some(Mlp {
            record: rec,
            ..Mlp::default()
        });
    };
    let region = |r: MlpRegion| m.region(r).map(|g| region(m, g));
    let row = |k: u32, r: MlpRegion| m.region(r).and_then(|g| point(g, k));
    Some(Mlp {
        record: rec,
        repetitions: Some(m.repetitions),
        repeated: Some(m.repetitions > 1),
        chains: m.chains.clone(),
        max_chains: m.chains.iter().copied().max(),
        size: m.region(MlpRegion::Small).map(|g| size(g.bytes)),
        control_size: m.region(MlpRegion::Control).map(|g| size(g.bytes)),
        llc: m.llc_bytes.map(size),
        l2_tlb_reach: m.l2_tlb_reach_bytes.map(size),
        regions: Regions {
            small: region(MlpRegion::Small),
            huge: region(MlpRegion::Huge),
            control: region(MlpRegion::Control),
        },
        rows: m
            .chains
            .iter()
            .map(|&k| Row {
                chains: k,
                small: row(k, MlpRegion::Small),
                huge: row(k, MlpRegion::Huge),
                control: row(k, MlpRegion::Control),
            })
            .collect(),
        verdict: None,
    })
}

fn region(m: &MlpResults, g: &MlpRegionResult) -> Region {
    let points: Vec<Point> = m.chains.iter().filter_map(|&k| point(g, k)).collect();
    // The fewest chains that reached the highest overlap.
    let best = points
        .iter()
        .filter(|p| p.parallelism.is_some())
        .fold(None::<&Point>, |best, p| match best {
            Some(b) if b.parallelism >= p.parallelism => Some(b),
            _ => Some(p),
        })
        .cloned();
    Region {
        label: g.region.label(),
        size: size(g.bytes),
        note: Some(note(m, g)),
        skipped: g.skipped.as_deref().map(pagewalk_model::reason::in_words),
        huge_percent: g.huge_fraction.map(|f| f * 100.0),
        one: points.iter().find(|p| p.chains == 1).cloned(),
        top: m.chains.iter().max().and_then(|&k| point(g, k)),
        best,
    }
}

fn point(g: &MlpRegionResult, k: u32) -> Option<Point> {
    let p = g.point(k)?;
    let s = &p.ns_per_load;
    if s.n == 0 || s.median <= 0.0 {
        return None;
    }
    let one = g.point(1).map(|o| &o.ns_per_load).filter(|o| o.n > 0);
    Some(Point {
        chains: k,
        ns: s.median,
        ns_min: s.min,
        ns_max: s.max,
        parallelism: one.map(|o| o.median / s.median),
        parallelism_min: one.filter(|_| s.max > 0.0).map(|o| o.min / s.max),
        parallelism_max: one.filter(|_| s.min > 0.0).map(|o| o.max / s.min),
    })
}

/// Where a region sits against the sizes the run measured or read: the
/// collector's own note said "(unknown)" where CPUID was silent.
fn note(m: &MlpResults, g: &MlpRegionResult) -> String {
    let reach = m.l2_tlb_reach_bytes.map(size);
    match g.region {
        MlpRegion::Small | MlpRegion::Huge => {
            let llc = m.llc_bytes.map_or(String::new(), |b| {
                format!(" and the last-level cache ({})", size(b))
            });
            match reach {
                Some(r) => format!(
                    "{}: beyond the L2 TLB's 4 KiB reach ({r}){llc}",
                    size(g.bytes)
                ),
                None => format!(
                    "{}: beyond {}; the L2 TLB's reach is not known on this run",
                    size(g.bytes),
                    m.llc_bytes
                        .map_or("the sizes this run knows".into(), |b| format!(
                            "the last-level cache ({})",
                            size(b)
                        ))
                ),
            }
        }
        MlpRegion::Control => {
            let caches = match m.l2_bytes {
                Some(l2) if g.bytes > l2 => {
                    format!("beyond L2 ({}), so served by the caches past it", size(l2))
                }
                Some(l2) => format!("inside L2 too ({})", size(l2)),
                None => "L2's size not known".into(),
            };
            match reach {
                Some(r) => format!(
                    "{}: inside the L2 TLB's 4 KiB reach ({r}); {caches}",
                    size(g.bytes)
                ),
                None => format!(
                    "{}: {caches}; whether it is inside the L2 TLB's reach this run cannot tell",
                    size(g.bytes)
                ),
            }
        }
    }
}
