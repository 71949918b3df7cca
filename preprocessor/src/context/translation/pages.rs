//! What the staircase view adds about the pages themselves: the 1 GiB
//! regime (`stair.gigantic`) and how much the physical placement of a fresh
//! mapping moved the points (`stair.placement`). The verdicts are filed
//! here too, by [`Gigantic::judge`] and the placement constructor, from the
//! run's own ranges, each by a judge of `pagewalk_model::judge`. (The TLB-reach curve's 1 GiB points are in its chart;
//! no chapter sentence needs them judged.)

use pagewalk_model::{ChasePoint, Curve, Geometry, Regime, Summary};
use schemars::JsonSchema;
use serde::Serialize;

use pagewalk_figures::size_label as size;
use pagewalk_model::judge::measured::order;
use pagewalk_model::judge::pages::{larger, reach_side, Larger, ReachSide};
use pagewalk_model::judge::{Measured, Noise, Order};

/// The 1 GiB-page curve at the largest x it shares with the THP curve.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Gigantic {
    /// False for runs before schema 5, which had no 1 GiB regime (then every other key is null).
    pub recorded: bool,
    /// Why the 1 GiB curve is missing (`the CPU has no pdpe1gb`, `no 1 GiB page is reserved ...`); null when it was measured or not recorded.
    pub skipped: Option<String>,
    /// Where its page came from (`1 free page of a pool of 1`, `reserved 1 page for this run ...`).
    pub pages_from: Option<String>,
    /// Points measured on 1 GiB pages.
    pub points: usize,
    /// The largest x measured on both 1 GiB and THP pages, as text (`1 GiB`, `4096 pages`).
    pub at: Option<String>,
    /// 1 GiB pages there, median ns per load.
    pub ns: Option<f64>,
    /// Its fastest sample.
    pub ns_min: Option<f64>,
    /// Its slowest sample.
    pub ns_max: Option<f64>,
    /// THP (2 MiB) pages at the same x, median ns per load.
    pub huge_ns: Option<f64>,
    /// 4 KiB pages at the same x, median ns per load.
    pub small_ns: Option<f64>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): 1 GiB pages against THP at `at`, by their samples' ranges (`faster`: 1 GiB pages cost less).
    pub vs_huge: Option<Order>,
    /// The same against 4 KiB pages.
    pub vs_small: Option<Order>,
    /// The 2 MiB pages' L2 TLB reach, as text (`4 GiB`): a region inside it loses nothing to 2 MiB pages that 1 GiB pages could win back.
    pub huge_reach: Option<String>,
    /// `inside` when the largest shared region is within `huge_reach`, `beyond` when past it; null when either is unknown.
    pub region_vs_huge_reach: Option<ReachSide>,
    /// The THP and 4 KiB points at `at`, for [`Gigantic::judge`].
    #[serde(skip)]
    others: (Option<Measured>, Option<Measured>),
}

impl Gigantic {
    /// `x` reads a point's position (bytes or pages) and `region` its
    /// span in bytes; `label` writes an x as text.
    pub fn of(
        curves: &[Curve],
        geometry: Option<&Geometry>,
        x: fn(&ChasePoint) -> Option<u64>,
        label: fn(u64) -> String,
    ) -> Gigantic {
        let of = |r: Regime| curves.iter().find(|c| c.regime == r);
        let Some(g) = of(Regime::Gigantic) else {
            return Gigantic::default();
        };
        let huge = of(Regime::Huge).map_or(&[][..], |c| &c.points);
        let small = of(Regime::Small).map_or(&[][..], |c| &c.points);
        let find =
            |points: &[ChasePoint], at: u64| points.iter().find(|p| x(p) == Some(at)).cloned();
        let shared = g
            .points
            .iter()
            .filter_map(x)
            .filter(|&at| find(huge, at).is_some())
            .max();
        let at = |points: &[ChasePoint]| shared.and_then(|s| find(points, s));
        let (gp, hp, sp) = (at(&g.points), at(huge), at(small));
        let reach = geometry
            .and_then(|g| g.data_tlb(2, 2 << 20))
            .map(|t| t.reach_bytes());
        let span = gp.as_ref().map(|p| p.region_bytes);
        let ns = |p: &Option<ChasePoint>| p.as_ref().map(|p| p.ns_per_load);
        let range = |p: &Option<ChasePoint>| ns(p).map(|s| Measured::range(s.median, s.min, s.max));
        Gigantic {
            recorded: true,
            skipped: g.skipped.as_deref().map(pagewalk_model::reason::in_words),
            pages_from: g.pages_from.clone(),
            points: g.points.len(),
            at: shared.map(label),
            ns: ns(&gp).map(|s| s.median),
            ns_min: ns(&gp).map(|s| s.min),
            ns_max: ns(&gp).map(|s| s.max),
            huge_ns: ns(&hp).map(|s| s.median),
            small_ns: ns(&sp).map(|s| s.median),
            vs_huge: None,
            vs_small: None,
            others: (range(&hp), range(&sp)),
            huge_reach: reach.map(size),
            region_vs_huge_reach: span.zip(reach).map(|(span, reach)| reach_side(span, reach)),
        }
    }

    /// `vs_huge` and `vs_small`, from the samples' ranges (several fresh
    /// mappings' worth for the THP and 4 KiB points), else the A-vs-A
    /// `floor`.
    pub fn judge(&mut self, noise: Noise) {
        if let Some(g) = Measured::ranged(self.ns, self.ns_min, self.ns_max) {
            let (huge, small) = self.others;
            self.vs_huge = huge.map(|h| order(g, h, noise));
            self.vs_small = small.map(|s| order(g, s, noise));
        }
    }
}

/// How far fresh mappings of one size moved the 4 KiB curve, beside how
/// far repetitions within one mapping did.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Placement {
    /// Fresh mappings per point (each mapped, linked and warmed anew); null for runs before schema 5, which timed every sample in one mapping.
    pub mappings: Option<u32>,
    /// Timed samples in each mapping.
    pub repetitions: Option<u32>,
    /// The least share, %, of a later mapping's physical frames that no earlier mapping of its point had (`/proc/self/pagemap`); null where the run could not read frames (they need CAP_SYS_ADMIN).
    pub frames_moved_pct: Option<f64>,
    /// The 4 KiB curve's median, over its points, of the spread between mappings (`max / min - 1` of the mappings' medians), %.
    pub typical_between_pct: Option<f64>,
    /// The same for the spread within one mapping (each mapping's own `max / min - 1`, median over mappings), %.
    pub typical_within_pct: Option<f64>,
    /// `between-larger` when placement moved the typical point more than repetition did, `within-larger` otherwise; null with one mapping or one sample per mapping.
    pub typical: Option<Larger>,
    /// The 4 KiB point whose mappings differed most.
    pub widest: Option<PlacementPoint>,
    /// The least rise, %, the step detector took for a step on the 4 KiB curve: 20, or the typical between-mapping spread where larger.
    pub step_min_rise_pct: Option<f64>,
    /// True when placement set that least rise: the recorded threshold is the curve's typical between-mapping spread (the collector takes the larger of that and its default).
    pub step_threshold_raised: Option<bool>,
}

/// One point's spreads.
#[derive(Clone, Serialize, JsonSchema)]
pub struct PlacementPoint {
    /// Its x as text (`256 MiB`, `2048 pages`).
    pub at: String,
    /// The fastest mapping's median, ns per load.
    pub fastest_ns: f64,
    /// The slowest mapping's median.
    pub slowest_ns: f64,
    /// Between mappings, %.
    pub between_pct: f64,
    /// Within a mapping (median over mappings), %; null with one sample per mapping.
    pub within_pct: Option<f64>,
    /// `between-larger` or `within-larger`, as for `typical`, at this point.
    pub verdict: Larger,
}

impl Placement {
    pub fn of(
        curves: &[Curve],
        x: fn(&ChasePoint) -> Option<u64>,
        label: fn(u64) -> String,
    ) -> Placement {
        let Some(c) = curves.iter().find(|c| c.regime == Regime::Small) else {
            return Placement::default();
        };
        let spreads: Vec<(&ChasePoint, pagewalk_model::MappingSpread)> = c
            .points
            .iter()
            .filter_map(|p| Some((p, p.mapping_spread()?)))
            .collect();
        let pct = |v: f64| v * 100.0;
        let median = |v: Vec<f64>| Summary::of(&v).map(|s| s.median);
        let between = median(spreads.iter().map(|(_, s)| s.between).collect());
        let within = median(spreads.iter().filter_map(|(_, s)| s.within).collect());
        let first = c.points.first();
        let widest = spreads
            .iter()
            .max_by(|a, b| a.1.between.total_cmp(&b.1.between))
            .and_then(|(p, s)| {
                let medians: Vec<f64> = p
                    .by_mapping()
                    .iter()
                    .filter_map(|g| Summary::of(g).map(|s| s.median))
                    .collect();
                let m = Summary::of(&medians)?;
                Some(PlacementPoint {
                    at: label(x(p)?),
                    fastest_ns: m.min,
                    slowest_ns: m.max,
                    between_pct: pct(s.between),
                    within_pct: s.within.map(pct),
                    verdict: larger(Some(s.between), s.within)?,
                })
            });
        let rise = c.step_min_rise;
        Placement {
            mappings: first.and_then(|p| p.mappings),
            repetitions: first.and_then(|p| {
                let m = p.mappings? as usize;
                Some((p.samples_ns_per_load.len() / m.max(1)) as u32)
            }),
            frames_moved_pct: c
                .points
                .iter()
                .filter_map(|p| p.frames_moved_fraction)
                .reduce(f64::min)
                .map(pct),
            typical_between_pct: between.map(pct),
            typical_within_pct: within.map(pct),
            typical: larger(between, within),
            widest,
            step_min_rise_pct: rise.map(pct),
            // The recorded threshold is max(default, typical spread): it
            // was raised exactly when it is that spread.
            step_threshold_raised: rise.zip(between).map(|(r, b)| (r - b).abs() <= r * 1e-9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(bytes: u64, samples: &[f64], mappings: Option<u32>) -> ChasePoint {
        ChasePoint {
            pages: Some(bytes / 4096),
            mappings,
            frames_moved_fraction: Some(1.0),
            ..ChasePoint::of_samples(bytes, samples)
        }
    }

    fn curve(regime: Regime, points: Vec<ChasePoint>) -> Curve {
        Curve {
            regime,
            skipped: None,
            pages_from: None,
            step_min_rise: Some(0.2),
            points,
        }
    }

    fn bytes(p: &ChasePoint) -> Option<u64> {
        Some(p.region_bytes)
    }

    #[test]
    fn placement_is_judged_against_repetition() {
        // Mappings at 100, 150 and 101 ns, each within 1%: placement wins.
        let wide = point(
            1 << 30,
            &[100.0, 101.0, 150.0, 151.0, 101.0, 100.0],
            Some(3),
        );
        // Mappings within 2% of each other, repetitions 10% apart.
        let calm = point(1 << 20, &[10.0, 11.0, 10.2, 11.2, 10.1, 11.0], Some(3));
        let p = Placement::of(
            &[curve(Regime::Small, vec![calm.clone(), wide.clone()])],
            bytes,
            size,
        );
        let w = p.widest.clone().unwrap();
        assert_eq!((w.at.as_str(), w.verdict), ("1 GiB", Larger::BetweenLarger));
        assert_eq!((w.fastest_ns, w.slowest_ns), (100.5, 150.5));
        assert!((w.between_pct - (150.5 / 100.5 - 1.0) * 100.0).abs() < 1e-9);
        assert_eq!(p.mappings, Some(3));
        assert_eq!(p.repetitions, Some(2));
        assert_eq!(p.frames_moved_pct, Some(100.0));
        // The detector kept its own threshold (recorded 20%), not the
        // typical spread; had it taken the spread, the view says so.
        assert_eq!(p.step_threshold_raised, Some(false));
        let typical = p.typical_between_pct.unwrap() / 100.0;
        let mut raised = curve(Regime::Small, vec![calm.clone(), wide.clone()]);
        raised.step_min_rise = Some(typical);
        let p = Placement::of(&[raised], bytes, size);
        assert_eq!(p.step_threshold_raised, Some(true));
        assert!((p.step_min_rise_pct.unwrap() - typical * 100.0).abs() < 1e-9);
        // Only repetitions spread: within is larger everywhere.
        let calm = point(1 << 20, &[10.0, 11.0, 10.2, 11.2, 10.1, 11.0], Some(3));
        let p = Placement::of(&[curve(Regime::Small, vec![calm])], bytes, size);
        assert_eq!(p.typical, Some(Larger::WithinLarger));
        // One mapping (a run before schema 5): nothing to judge.
        let old = point(1 << 20, &[10.0, 11.0, 12.0], None);
        let p = Placement::of(&[curve(Regime::Small, vec![old])], bytes, size);
        assert!(p.typical.is_none() && p.widest.is_none() && p.mappings.is_none());
    }

    #[test]
    fn gigantic_pages_are_set_against_thp_at_the_largest_shared_size() {
        // Three samples a point, the slowest `n` times the fastest.
        let at = |ns: f64, n: f64| point(1 << 30, &[ns, ns * (1.0 + n) / 2.0, ns * n], Some(1));
        let curves = |g: f64| {
            vec![
                curve(Regime::Small, vec![at(270.0, 1.05)]),
                curve(Regime::Huge, vec![at(100.0, 1.05)]),
                curve(Regime::Gigantic, vec![at(g, 1.02)]),
            ]
        };
        let judged = |g: f64, floor| {
            let mut v = Gigantic::of(&curves(g), None, bytes, size);
            v.judge(Noise {
                floor,
                repetitions: 3,
            });
            v
        };
        // 101-103 ns against THP's 100-105: 0.5% apart, inside a 2% floor;
        // far below the 4 KiB pages' 270-284.
        let same = judged(101.0, Some(0.02));
        assert_eq!(
            (same.vs_huge, same.vs_small),
            (Some(Order::WithinNoise), Some(Order::Faster))
        );
        assert_eq!(same.at.as_deref(), Some("1 GiB"));
        assert_eq!(same.region_vs_huge_reach, None);
        // With no floor the same overlapping ranges are unstable: not a
        // difference either way.
        assert_eq!(judged(101.0, None).vs_huge, Some(Order::Unstable));
        assert_eq!(judged(80.0, Some(0.02)).vs_huge, Some(Order::Faster));
        assert_eq!(judged(130.0, Some(0.02)).vs_huge, Some(Order::Slower));
        // A run before schema 5 records no 1 GiB curve at all.
        let old = Gigantic::of(&curves(80.0)[..2], None, bytes, size);
        assert!(!old.recorded && old.vs_huge.is_none());
    }
}
