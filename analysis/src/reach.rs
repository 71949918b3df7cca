//! Each TLB level's reach, as the run measured it: the page counts of
//! tlb-reach's 4 KiB curve between which translation starts to cost.
//!
//! tlb-reach loads one line per 4 KiB page with the data held in cache, so
//! as pages are added the data changes little and the translations a lot.
//! The huge-page curve is the control: the same lines, a handful of
//! translations. A step of the 4 KiB curve is translation when its cost
//! over the control's (the 4 KiB ÷ huge ratio's numerator less its
//! denominator: see [`estimate`] for why not the ratio itself) rises past
//! its noise: the control did not step with it. A step on both curves is a data cache filling up, unless no
//! cache fills there: then it is translation seen on the control too (a
//! host that backs the guest's huge pages with 4 KiB pages hands the TLB
//! 4 KiB translations for both). Either way the level's reach is the last
//! page count still within noise of the plateau before the step and the
//! first one clearly past it: `low <= entries <= high`, as fine as the
//! ladder of page counts.
//!
//! The steps themselves are [`crate::steps::find_steps`]'s, on the 4 KiB
//! curve; this module decides which are translation, places each between
//! two measured points, and names the levels: below [`L1_MOST`] entries an
//! L1 dTLB, from there an L2 TLB.

use crate::steps::{find_steps, octaves_apart, Config};

/// The most entries an L1 dTLB holds for 4 KiB pages and the fewest an L2
/// TLB does: x86 L1 dTLBs hold 32 to 128 (Golden Cove 96, Zen 4 72, Zen 5
/// 96), L2 TLBs 512 (Goldmont) to 4096 (Zen 5). A step centred below it is
/// the L1 dTLB's.
pub const L1_MOST: f64 = 512.0;
/// The least noise a ratio or a latency is granted: timer and frequency
/// jitter when every sample happens to agree.
const NOISE_FLOOR: f64 = 0.02;
/// A step within this many doublings of a cache's capacity (in lines) is
/// that cache's.
const CACHE_OCTAVES: f64 = 0.5;

/// One page count: each mapping's fastest sample on 4 KiB pages, and on
/// the control's pages where there is a control (with one mapping, every
/// sample: its spread stands in for the placement's).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub pages: f64,
    pub small: Vec<f64>,
    pub control: Option<Vec<f64>>,
}

impl Point {
    /// The points of a 4 KiB curve, `(pages, levels)` in ascending order,
    /// each with the control's levels at the same page count. The control
    /// is used only where it was measured at every one of them (a curve cut
    /// short, or one of other counts, is no control).
    pub fn pair(small: &[(f64, Vec<f64>)], control: Option<&[(f64, Vec<f64>)]>) -> Vec<Point> {
        let at = |x: f64| {
            control.and_then(|c| c.iter().find(|(cx, _)| *cx == x).map(|(_, v)| v.clone()))
        };
        let complete = small.iter().all(|(x, _)| at(*x).is_some());
        small
            .iter()
            .map(|(x, v)| Point {
                pages: *x,
                small: v.clone(),
                control: at(*x).filter(|_| complete),
            })
            .collect()
    }
}

/// Why a step is translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The 4 KiB curve rose against the control: its cost over the
    /// control's rose past the noise.
    Control,
    /// The control rose with it, or there is no control, and no data cache
    /// fills at that size.
    NoCacheFills,
}

/// A TLB level's reach in 4 KiB entries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// 1: L1 dTLB, 2: L2 TLB.
    pub level: u8,
    /// The most pages at which the curve was still within noise of the
    /// plateau before: the level held them all.
    pub low: f64,
    /// The fewest at which it had clearly risen; `None` when the curve
    /// never stepped for this level (then `low` is its largest point, a
    /// lower bound).
    pub high: Option<f64>,
    /// Where the 4 KiB curve was steepest; `None` for a lower bound.
    pub at: Option<f64>,
    pub basis: Option<Basis>,
    /// The 4 KiB curve's ns per load on the plateaus before and after.
    pub ns_before: f64,
    pub ns_after: f64,
    /// The series' noise (the typical spread of a point's samples), as a
    /// share of the 4 KiB level before the step (0.05 = 5%): of the 4 KiB
    /// curve's cost over the control's for [`Basis::Control`], of the 4
    /// KiB curve otherwise. `low` is within one noise of the plateau
    /// before, `high` is past it by two with every sample.
    pub noise: f64,
}

/// What the curves say.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// At most one per level, L1 first.
    pub levels: Vec<Reach>,
    /// Translation steps past the L2 TLB's (a walk's own loads leaving the
    /// caches), kept for the record.
    pub beyond: Vec<Reach>,
    /// The rise a step of the 4 KiB curve had to clear.
    pub min_rise: f64,
    /// The noise of the 4 KiB curve, and of its cost over the control's
    /// (each a share of the 4 KiB level).
    pub small_noise: f64,
    pub extra_noise: Option<f64>,
}

impl Estimate {
    pub fn level(&self, level: u8) -> Option<&Reach> {
        self.levels.iter().find(|r| r.level == level)
    }
}

/// Estimates each level's reach from `points` (ascending page counts).
/// `cache_lines`: each data cache's capacity in lines (a step there is the
/// cache's). `Err` says why the curves cannot tell.
pub fn estimate(points: &[Point], cache_lines: &[f64]) -> Result<Estimate, String> {
    if points.len() < 4 {
        return Err(format!(
            "{} page counts measured; a step needs at least 4",
            points.len()
        ));
    }
    if points.windows(2).any(|w| w[1].pages <= w[0].pages) {
        return Err("the page counts are not ascending".into());
    }
    let usable = |v: &[f64]| v.len() >= 2 && v.iter().all(|x| x.is_finite() && *x > 0.0);
    if !points.iter().all(|p| usable(&p.small)) {
        return Err(
            "a 4 KiB point holds fewer than two samples: no noise to judge a rise against".into(),
        );
    }
    let control = points
        .iter()
        .all(|p| p.control.as_deref().is_some_and(usable));
    let xs: Vec<f64> = points.iter().map(|p| p.pages).collect();
    let small: Vec<Band> = points.iter().map(|p| Band::of(&p.small)).collect();
    let spread = median(small.iter().map(|b| b.hi / b.lo - 1.0).collect());
    let min_rise = spread.max(Config::default().min_rise);
    let small_noise = spread.max(NOISE_FLOOR);
    let levels: Vec<f64> = small.iter().map(|b| b.mid).collect();
    let rises = find_steps(
        &xs,
        &levels,
        &Config {
            min_rise,
            ..Config::default()
        },
    );
    // The 4 KiB curve's cost over the control's, and its range over the
    // pairings of mappings: the translation the control does not pay. A
    // difference, not a ratio: a cache step adds the same ns to both
    // curves, which leaves a difference where it was and drags a ratio
    // down, so a TLB step just past a cache's would start below the ratio's
    // plateau and be placed late.
    let extra: Option<Vec<Band>> = control.then(|| {
        points
            .iter()
            .zip(&small)
            .map(|(p, s)| {
                let c = Band::of(p.control.as_deref().unwrap_or_default());
                Band {
                    lo: s.lo - c.hi,
                    mid: s.mid - c.mid,
                    hi: s.hi - c.lo,
                }
            })
            .collect()
    });
    // Its noise, relative to the 4 KiB level (so one threshold serves the
    // fast points and the slow ones).
    let extra_noise = extra.as_ref().map(|d| {
        let rel = d.iter().zip(&small).map(|(d, s)| (d.hi - d.lo) / s.mid);
        median(rel.collect()).max(NOISE_FLOOR)
    });

    let mut found = Vec::new();
    let mut unclassified_past_l1 = false;
    for rise in &rises {
        let (a, b) = (rise.from, rise.to);
        // The plateau before: the median of the last three points up to
        // `a`, so one noisy point does not move it.
        let plateau = |series: &[Band]| {
            let from = a.saturating_sub(2);
            median(series[from..=a].iter().map(|x| x.mid).collect())
        };
        // Within noise: a point's level is at most one noise above the
        // plateau. Clearly past: even its least sample is two above. Points
        // between are neither, and widen the interval.
        let bounds = |series: &[Band], noise: f64| {
            let base = plateau(series);
            let scale = noise * plateau(&small);
            (base + scale, base + 2.0 * scale)
        };
        // Translation the control does not share: the 4 KiB curve's cost
        // over it rose, past its noise, by as much as a step must rise
        // (a cache step on both curves leaves it within a few tenths of
        // a ns, which two samples a point can mistake for noise).
        let against_control = extra.as_ref().zip(extra_noise).filter(|(d, noise)| {
            let (_, past) = bounds(d, *noise);
            let step = plateau(d) + min_rise * plateau(&small);
            d[a + 1..=b].iter().any(|x| x.lo > past.max(step))
        });
        let (series, noise, basis) = match against_control {
            Some((d, noise)) => (d.as_slice(), noise, Basis::Control),
            None if !cache_lines.is_empty() => {
                let fills = cache_lines.iter().any(|&c| {
                    (xs[a]..=xs[b]).contains(&c) || octaves_apart(rise.at_x, c) <= CACHE_OCTAVES
                });
                if fills {
                    continue;
                }
                (small.as_slice(), small_noise, Basis::NoCacheFills)
            }
            None => {
                unclassified_past_l1 |= rise.at_x >= L1_MOST;
                continue;
            }
        };
        let (within, past) = bounds(series, noise);
        let high = (a + 1..xs.len()).find(|&i| series[i].lo > past);
        let low = (a.saturating_sub(2)..high.unwrap_or(b + 1))
            .rev()
            .find(|&i| series[i].mid <= within)
            .unwrap_or(a);
        found.push(Reach {
            level: 0,
            low: xs[low],
            high: high.map(|i| xs[i]),
            at: Some(rise.at_x),
            basis: Some(basis),
            ns_before: small[a].mid,
            ns_after: small[b].mid,
            noise,
        });
    }

    // The first step of each class is that level; later ones are beyond.
    let mut levels = Vec::new();
    let mut beyond = Vec::new();
    for r in found {
        let level = if centre(&r) < L1_MOST { 1 } else { 2 };
        if levels.iter().any(|l: &Reach| l.level >= level) {
            beyond.push(r);
        } else {
            levels.push(Reach { level, ..r });
        }
    }
    // No L2 step to the largest point, and every step past the L1 dTLB's
    // explained: the L2 TLB held them all.
    let largest = xs[xs.len() - 1];
    if !levels.iter().any(|l| l.level == 2) && largest >= L1_MOST && !unclassified_past_l1 {
        let last = &small[small.len() - 1];
        levels.push(Reach {
            level: 2,
            low: largest,
            high: None,
            at: None,
            basis: None,
            ns_before: last.mid,
            ns_after: last.mid,
            noise: small_noise,
        });
    }
    Ok(Estimate {
        levels,
        beyond,
        min_rise,
        small_noise,
        extra_noise,
    })
}

/// The geometric middle of a reach's bounds.
fn centre(r: &Reach) -> f64 {
    r.high.map_or(r.low, |h| (r.low * h).sqrt())
}

/// A point's level (the median of its values) and the least and most of
/// them.
#[derive(Debug, Clone, Copy)]
struct Band {
    lo: f64,
    mid: f64,
    hi: f64,
}

impl Band {
    fn of(v: &[f64]) -> Band {
        // The least and the most in `total_cmp` order, without a sort (a
        // sort instantiation is kilobytes in the page's WebAssembly).
        let (mut lo, mut hi) = (v[0], v[0]);
        for &x in &v[1..] {
            if x.total_cmp(&lo).is_lt() {
                lo = x;
            }
            if x.total_cmp(&hi).is_gt() {
                hi = x;
            }
        }
        Band {
            lo,
            mid: median(v.to_vec()),
            hi,
        }
    }
}

/// The median (0 for none), as the model summarises every set of samples.
fn median(v: Vec<f64>) -> f64 {
    pagewalk_model::Summary::of(&v).map_or(0.0, |s| s.median)
}
