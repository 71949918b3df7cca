//! The steps of the measured curves, what each one is, and whether they sit
//! where the machine's own description says.
//!
//! A step that stays put when the pages get bigger is a cache filling up; a
//! step that moves, vanishes, or leads to a clearly different latency is a
//! TLB level running out. CPUID and sysfs predict where both kinds should
//! be ([`Bend`]); a prediction agrees when a step of its kind lies within a
//! factor of two (a step of the other kind there is recorded, but does not).

use pagewalk_analysis::steps::{find_steps, octaves_apart, pair, Config, Rise};
use pagewalk_model::{Agreement, ChasePoint, Curve, Geometry, Regime, Step, StepKind};

use super::region::human;

/// How far (in doublings) a step may sit from a prediction, or from its
/// twin in the other regime, and still be the same step.
const SAME_STEP_OCTAVES: f64 = 1.0;

/// A bend the machine's description predicts.
#[derive(Debug, Clone, PartialEq)]
pub struct Bend {
    /// e.g. `L1 dTLB reach (72 × 4 KiB = 288 KiB)`.
    pub what: String,
    pub x: f64,
    pub kind: StepKind,
    /// The regime whose curve should show it: TLB reaches belong to the
    /// page size they count; caches show in both (`None`).
    pub regime: Option<Regime>,
}

/// Predicted bends on the staircase, whose x is the region in bytes.
pub fn staircase_bends(g: &Geometry) -> Vec<Bend> {
    let mut out = cache_bends(g, |bytes| bytes as f64, |_| String::new());
    out.extend(tlb_bends(
        g,
        |t| t.reach_bytes() as f64,
        |t| {
            format!(
                "{} × {} = {}",
                t.entries,
                human(t.page_bytes as usize),
                human(t.reach_bytes() as usize)
            )
        },
    ));
    out
}

/// Predicted bends on tlb-reach, whose x is pages touched, one 64-byte line
/// each: a TLB level runs out at its entry count (in 4 KiB pages), a cache
/// at its size in lines.
pub fn tlb_reach_bends(g: &Geometry) -> Vec<Bend> {
    let mut out = cache_bends(
        g,
        |bytes| (bytes / 64) as f64,
        |bytes| format!(" = {} lines", bytes / 64),
    );
    out.extend(tlb_bends(
        g,
        |t| (t.reach_bytes() / 4096) as f64,
        |t| match t.page_bytes {
            4096 => format!("{} entries", t.entries),
            _ => format!(
                "{} entries × {} = {} pages of 4 KiB",
                t.entries,
                human(t.page_bytes as usize),
                t.reach_bytes() / 4096
            ),
        },
    ));
    out
}

fn cache_bends(g: &Geometry, x: impl Fn(u64) -> f64, extra: impl Fn(u64) -> String) -> Vec<Bend> {
    g.caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| {
            let name = if c.level == 1 {
                "L1d".into()
            } else {
                format!("L{}", c.level)
            };
            Bend {
                what: format!(
                    "{name} cache ({}{})",
                    human(c.size_bytes as usize),
                    extra(c.size_bytes)
                ),
                x: x(c.size_bytes),
                kind: StepKind::Cache,
                regime: None,
            }
        })
        .collect()
}

fn tlb_bends(
    g: &Geometry,
    x: impl Fn(&pagewalk_model::TlbLevel) -> f64,
    arithmetic: impl Fn(&pagewalk_model::TlbLevel) -> String,
) -> Vec<Bend> {
    g.tlbs
        .iter()
        .filter(|t| t.kind != pagewalk_model::TlbKind::Instruction)
        .filter_map(|t| {
            let regime = match t.page_bytes {
                4096 => Regime::Small,
                p if p == 2 << 20 => Regime::Huge,
                p if p == 1 << 30 => Regime::Gigantic,
                _ => return None,
            };
            let name = if t.level == 1 { "L1 dTLB" } else { "L2 TLB" };
            Some(Bend {
                what: format!("{name} reach ({})", arithmetic(t)),
                x: x(t),
                kind: StepKind::Translation,
                regime: Some(regime),
            })
        })
        .collect()
}

/// Finds the steps of each curve, classifies them by comparing the
/// regimes, names what they match and sets every in-range prediction next
/// to what was measured. `x` reads a point's position (bytes or pages).
pub fn analyse(
    curves: &[Curve],
    x: fn(&ChasePoint) -> Option<f64>,
    bends: &[Bend],
) -> (Vec<Step>, Vec<Agreement>) {
    let found: Vec<Found> = curves
        .iter()
        .map(|c| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = c
                .points
                .iter()
                // The fastest repetition (interference, a shared machine,
                // an interrupt, only ever adds time) of the typical mapping.
                .filter_map(|p| Some((x(p)?, p.fastest())))
                .unzip();
            Found {
                regime: c.regime,
                rises: find_steps(&xs, &ys, &detector(c)),
                range: xs.first().zip(xs.last()).map(|(a, b)| *a..=*b),
            }
        })
        .collect();
    let of = |r: Regime| found.iter().find(|f| f.regime == r);

    let mut steps = Vec::new();
    for Found { regime, rises, .. } in &found {
        let other = of(other_regime(*regime));
        let twins = other.map(|o| {
            (
                pair(rises, &o.rises, SAME_STEP_OCTAVES),
                pair(&o.rises, rises, SAME_STEP_OCTAVES),
            )
        });
        for (i, r) in rises.iter().enumerate() {
            let in_other = other
                .and_then(|o| o.range.as_ref())
                .is_some_and(|range| range.contains(&r.at_x));
            let kind = match (&twins, other) {
                (Some((ab, ba)), Some(o)) => match ab[i] {
                    // Twins that lead to clearly different latencies: the
                    // page size changed the step, so it is translation.
                    Some(j) if ba[j] == Some(i) && differ(r.after, o.rises[j].after) => {
                        StepKind::Translation
                    }
                    Some(_) => StepKind::Cache,
                    None if in_other => StepKind::Translation,
                    None => StepKind::Unclassified,
                },
                _ => StepKind::Unclassified,
            };
            // A known size of the same kind first; else whatever is near.
            let on_curve = || {
                bends
                    .iter()
                    .filter(|b| b.regime.is_none_or(|g| g == *regime))
            };
            let matched = nearest(on_curve().filter(|b| same_kind(b, kind)), r.at_x)
                .or_else(|| nearest(on_curve(), r.at_x));
            steps.push(Step {
                regime: *regime,
                at_x: r.at_x,
                from_x: r.from_x,
                to_x: r.to_x,
                ns_before: r.before,
                ns_after: r.after,
                kind,
                matches: matched.map(|b| b.what.clone()),
                matches_kind: matched.map(|b| b.kind),
            });
        }
    }
    steps.sort_by(|a, b| (a.regime, a.at_x).partial_cmp(&(b.regime, b.at_x)).unwrap());

    let agreement = bends
        .iter()
        .filter_map(|b| {
            // Only where a curve that should show it was measured.
            let shown_by: Vec<Regime> = found
                .iter()
                .filter(|f| b.regime.is_none_or(|r| r == f.regime))
                .filter(|f| f.range.as_ref().is_some_and(|range| range.contains(&b.x)))
                .map(|f| f.regime)
                .collect();
            if shown_by.is_empty() {
                return None;
            }
            // A step of the predicted kind agrees; one of the other kind in
            // the same place is reported, but does not.
            let candidates = || steps.iter().filter(|s| shown_by.contains(&s.regime));
            let same = nearest_step(candidates().filter(|s| same_kind(b, s.kind)), b.x);
            let found = same.or_else(|| nearest_step(candidates(), b.x));
            Some(Agreement {
                what: b.what.clone(),
                expected_x: b.x,
                found_x: found.map(|s| s.at_x),
                found_kind: found.map(|s| s.kind),
                agrees: same.is_some(),
            })
        })
        .collect();
    (steps, agreement)
}

/// The step detector for `curve`: a step must rise by more than placement
/// alone moves this curve's points (the typical spread between fresh
/// mappings), where that is more than the default's 20%.
pub fn detector(curve: &Curve) -> Config {
    let default = Config::default();
    Config {
        min_rise: curve
            .typical_between_mapping_spread()
            .map_or(default.min_rise, |s| s.max(default.min_rise)),
        ..default
    }
}

/// Records on each curve the least rise its steps had to clear.
pub fn record_thresholds(curves: &mut [Curve]) {
    for c in curves.iter_mut().filter(|c| !c.points.is_empty()) {
        c.step_min_rise = Some(detector(c).min_rise);
    }
}

/// Whether two plateaus differ by more than half: more than noise, and
/// more than a cache step's height can depend on the page size.
fn differ(a: f64, b: f64) -> bool {
    a.max(b) > 1.5 * a.min(b)
}

/// One curve's steps and the x range it covers.
struct Found {
    regime: Regime,
    rises: Vec<Rise>,
    range: Option<std::ops::RangeInclusive<f64>>,
}

/// The curve a step is classified against: 4 KiB pages against THP, any
/// huge page against 4 KiB pages.
fn other_regime(r: Regime) -> Regime {
    match r {
        Regime::Small => Regime::Huge,
        Regime::Huge | Regime::Gigantic => Regime::Small,
    }
}

fn same_kind(b: &Bend, kind: StepKind) -> bool {
    kind == StepKind::Unclassified || kind == b.kind
}

fn nearest<'a>(bends: impl Iterator<Item = &'a Bend>, x: f64) -> Option<&'a Bend> {
    bends
        .map(|b| (b, octaves_apart(b.x, x)))
        .filter(|(_, d)| *d <= SAME_STEP_OCTAVES)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| b)
}

fn nearest_step<'a>(steps: impl Iterator<Item = &'a Step>, x: f64) -> Option<&'a Step> {
    steps
        .map(|s| (s, octaves_apart(s.at_x, x)))
        .filter(|(_, d)| *d <= SAME_STEP_OCTAVES)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{CacheLevel, Summary, TlbKind, TlbLevel};

    const MIB: f64 = 1048576.0;

    fn geometry() -> Geometry {
        let tlb = |level, page_bytes, entries| TlbLevel {
            level,
            kind: TlbKind::Data,
            page_bytes,
            entries,
            associativity: None,
        };
        Geometry {
            tlb_source: "test".into(),
            tlbs: vec![tlb(1, 4096, 64), tlb(2, 4096, 2048), tlb(1, 2 << 20, 32)],
            caches: vec![CacheLevel {
                level: 2,
                kind: "Unified".into(),
                size_bytes: 1 << 20,
            }],
        }
    }

    /// A curve over 64 KiB..64 MiB with steps at the given capacities,
    /// each adding `extra` ns once far past it.
    fn curve(regime: Regime, caps: &[(f64, f64)]) -> Curve {
        let points = (0..=40)
            .map(|k| {
                let x = 65536.0 * 2f64.powf(k as f64 / 4.0);
                let ns = caps
                    .iter()
                    .filter(|&&(c, _)| x > c)
                    .fold(2.0, |y, &(c, extra)| y + extra * (1.0 - c / x));
                ChasePoint::of_samples(x as u64, &[ns])
            })
            .collect();
        Curve {
            regime,
            skipped: None,
            pages_from: None,
            step_min_rise: None,
            points,
        }
    }

    #[test]
    fn steps_that_stay_are_cache_steps_that_move_are_translation() {
        let g = geometry();
        let curves = [
            curve(Regime::Small, &[(MIB, 10.0), (8.0 * MIB, 10.0)]),
            curve(Regime::Huge, &[(MIB, 10.0)]),
        ];
        let (steps, agreement) = analyse(
            &curves,
            |p| Some(p.region_bytes as f64),
            &staircase_bends(&g),
        );
        let small: Vec<&Step> = steps.iter().filter(|s| s.regime == Regime::Small).collect();
        assert_eq!(small.len(), 2, "{steps:?}");
        assert_eq!(small[0].kind, StepKind::Cache);
        assert_eq!(small[0].matches.as_deref(), Some("L2 cache (1 MiB)"));
        assert_eq!(small[1].kind, StepKind::Translation);
        assert_eq!(
            small[1].matches.as_deref(),
            Some("L2 TLB reach (2048 × 4 KiB = 8 MiB)")
        );
        // In range: L2 cache, L2 TLB (8 MiB) and L1 dTLB 2M (64 MiB); the
        // L1 dTLB at 4 KiB (256 KiB) is in range too and was not found.
        let by = |w: &str| agreement.iter().find(|a| a.what.starts_with(w)).unwrap();
        assert!(by("L2 cache").agrees);
        assert!(by("L2 TLB").agrees);
        assert!(!by("L1 dTLB reach (64").agrees);
    }

    #[test]
    fn a_step_much_taller_with_small_pages_is_translation() {
        // Both regimes rise at 8 MiB (a VM's host pages splinter the guest's
        // huge pages), but the 4 KiB curve lands far higher.
        let curves = [
            curve(Regime::Small, &[(8.0 * MIB, 60.0)]),
            curve(Regime::Huge, &[(8.0 * MIB, 10.0)]),
        ];
        let (steps, _) = analyse(&curves, |p| Some(p.region_bytes as f64), &[]);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(
            steps.iter().all(|s| s.kind == StepKind::Translation),
            "{steps:?}"
        );
    }

    #[test]
    fn one_regime_alone_cannot_classify() {
        let (steps, _) = analyse(
            &[curve(Regime::Small, &[(MIB, 10.0)])],
            |p| Some(p.region_bytes as f64),
            &[],
        );
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].kind, StepKind::Unclassified);
    }

    #[test]
    fn tlb_reach_predictions_are_in_pages() {
        let b = tlb_reach_bends(&geometry());
        let x = |w: &str| b.iter().find(|b| b.what.starts_with(w)).unwrap().x;
        assert_eq!(x("L1 dTLB reach (64"), 64.0);
        assert_eq!(x("L2 cache"), 16384.0);
        assert_eq!(x("L1 dTLB reach (32"), 32.0 * 512.0);
    }

    /// `curve` with each point timed in three mappings: the second one
    /// `placement` times slower than the others.
    fn mapped(c: Curve, placement: f64) -> Curve {
        let points = c
            .points
            .into_iter()
            .map(|mut p| {
                let ns = p.ns_per_load.median;
                p.samples_ns_per_load = vec![ns, ns, ns * placement, ns * placement, ns, ns];
                p.ns_per_load = Summary::of(&p.samples_ns_per_load).unwrap();
                p.mappings = Some(3);
                p
            })
            .collect();
        Curve { points, ..c }
    }

    #[test]
    fn a_step_within_the_placement_noise_is_no_step() {
        // A 60% rise at 1 MiB: a step on its own...
        let small = || curve(Regime::Small, &[(MIB, 1.2)]);
        let x = |p: &ChasePoint| Some(p.region_bytes as f64);
        let (steps, _) = analyse(&[mapped(small(), 1.05)], x, &[]);
        assert_eq!(steps.len(), 1, "{steps:?}");
        // ...but not when fresh mappings of one size differ by 80%.
        let noisy = mapped(small(), 1.8);
        assert!((noisy.typical_between_mapping_spread().unwrap() - 0.8).abs() < 1e-9);
        assert!((detector(&noisy).min_rise - 0.8).abs() < 1e-9);
        let (steps, _) = analyse(&[noisy], x, &[]);
        assert!(steps.is_empty(), "{steps:?}");
        // The level read is the typical mapping's fastest, not the luckiest.
        let p = &mapped(small(), 0.5).points[0];
        assert_eq!(p.fastest(), p.ns_per_load.median);
    }
}
