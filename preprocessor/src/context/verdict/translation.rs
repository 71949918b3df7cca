//! The address-translation verdicts: each step's match, the staircase's
//! half-level points and TLB step, the TLB-reach rise, R2's levels in words.

use schemars::JsonSchema;
use serde::Serialize;

use super::{backed, counterpart, half_point, order, reach_step, rise_cause, step_match};
use super::{Measured, StepAt, SLOWER};
use crate::context::staircase::{Published, Staircase};
use crate::context::tlb_reach::TlbReach;
use crate::context::translation::{Caches, Chase, Cpuid, StepCounts, StepView};
use crate::helpers::{format_num, MISSING};

/// What the staircase says.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct StairVerdict {
    /// True when the L1 dTLB's 4 KiB reach is smaller than the L2 cache: data can sit in that cache while translations run out; null when either is unknown.
    pub l1_reach_below_l2: Option<bool>,
    /// The same for the L2 TLB against the L3 cache.
    pub l2_reach_below_l3: Option<bool>,
    /// `found`, `none`, `off-chart`: a translation step on the 4 KiB curve within a factor of two of the L2 TLB reach (`stair.cpuid.l2_4k`); `off-chart` when the largest region is below half of it.
    pub l2_tlb_step: Option<&'static str>,
    /// `none`, `some`, `all`: `stair.huge_fraction_min`, the least-backed huge region of 2 MiB or more.
    pub least_backed: Option<&'static str>,
    /// At the largest region, from the dTLB-miss counter (the generic event counts misses that needed a walk): `parts` when 4 KiB pages walked at least once per 100 loads and at least twice as often as huge pages, `both` when huge pages walked nearly as often, `neither` when 4 KiB pages hardly walked; null without the counter.
    pub walks: Option<&'static str>,
    /// `apart` when at some region size the 4 KiB chase was slower than the huge-page chase beyond the repetitions' spread (the page size moved the curve, whatever the step detector paired); `together` when at none; null without a point that has both.
    pub curves: Option<&'static str>,
    /// What the timed samples' fault counter (`stair.timed_faults_max`) and the walk counter say about the gap at the largest region: `faults-in-it` when any timed sample took a minor fault (the kernel is inside some timed loads); else, with the 4 KiB chase slower there, `translation` when `walks` is `parts` (the counter proves the walks) and `not-the-kernel` otherwise; `no-extra` when the 4 KiB chase was not slower.
    pub extra_time: Option<&'static str>,
}

/// What the fault and walk counters say about the gap at the largest
/// region: `faults-in-it` when any timed sample faulted; else, with the
/// 4 KiB chase `slower` there, `translation` when the walk counter parts
/// the page sizes and `not-the-kernel` when only the fault counter speaks;
/// `no-extra` when it was not slower.
pub fn extra_time(
    small_vs_huge: Option<&str>,
    timed_faults: u64,
    walks: Option<&str>,
) -> &'static str {
    if timed_faults > 0 {
        "faults-in-it"
    } else if small_vs_huge != Some(SLOWER) {
        "no-extra"
    } else if walks == Some("parts") {
        "translation"
    } else {
        "not-the-kernel"
    }
}

/// What the TLB-reach curves say past the L2 TLB.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TlbVerdict {
    /// As for `stair`.
    pub l1_reach_below_l2: Option<bool>,
    /// As for `stair`.
    pub l2_reach_below_l3: Option<bool>,
    /// `slower`, `faster`, `within-noise`: the 4 KiB curve's point at `tlb.at.beyond` against `tlb.at.l2` (`slower`: it rose); null when the two are the same point.
    pub beyond_small: Option<&'static str>,
    /// The same for the huge-page curve.
    pub beyond_huge: Option<&'static str>,
    /// `translation` when only the 4 KiB curve rose, `shared` when the huge-page curve rose too, `none` when the 4 KiB curve did not.
    pub rise: Option<&'static str>,
}

fn step_list(steps: &[StepView]) -> Vec<StepAt> {
    steps
        .iter()
        .map(|s| StepAt {
            small: s.regime == "small",
            x: s.x,
            translation: s.kind == "translation",
            matched: s.near_kind.is_some(),
        })
        .collect()
}

/// Each step's `match`, and `step_counts.both_regimes`; an unmatched
/// step's label says what is known of it instead of naming a level nothing
/// measured.
pub fn steps(steps: &mut [StepView], counts: &mut StepCounts) {
    let list = step_list(steps);
    // 4 KiB-curve steps in both regimes leave the count of their kind: a
    // step no cache explains is not counted as a cache step.
    let both: Vec<&str> = list
        .iter()
        .zip(steps.iter())
        .filter(|(s, _)| s.small && step_match(**s, &list) == "both-regimes")
        .map(|(_, v)| v.kind)
        .collect();
    for kind in &both {
        let n = match *kind {
            "cache" => &mut counts.cache,
            "translation" => &mut counts.translation,
            _ => &mut counts.unclassified,
        };
        *n = n.saturating_sub(1);
    }
    counts.both_regimes = both.len();
    let labels: Vec<String> = steps.iter().map(|s| s.label.clone()).collect();
    for (step, s) in steps.iter_mut().zip(&list) {
        let m = step_match(*s, &list);
        let label = match (m, s.translation) {
            ("as-other-regime", _) => counterpart(*s, &list)
                .map(|i| format!("where the other curve's step is: {}", labels[i])),
            ("both-regimes", _) => Some("no known size near it".into()),
            ("unmatched", true) => Some("matches no TLB reach".into()),
            ("unmatched", false) => Some("matches no known size".into()),
            _ => None,
        };
        if let Some(label) = label {
            step.label = label;
        }
        step.matched = Some(m);
        if m == "both-regimes" {
            step.behaved = "both regimes, matches no cache size";
        }
    }
}

/// `stair.at.l1/l2/l3.verdict` (and `.early_step`), each picked point's
/// `small_vs_huge`, `stair.verdict`, the points in the L1 TLB gap and
/// R2's levels in words.
pub fn staircase(stair: &mut Staircase, floor: Option<f64>) {
    let list = step_list(&stair.steps);
    let picked = [
        (1, &mut stair.at.l1),
        (2, &mut stair.at.l2),
        (3, &mut stair.at.l3),
        (0, &mut stair.at.largest),
    ];
    for (level, point) in picked {
        let Some(point) = point.as_mut() else {
            continue;
        };
        if level > 0 {
            let (verdict, early) = half_point(point.bytes as f64, level, &list);
            point.picked.verdict = Some(verdict);
            point.picked.early_step = early.map(|x| pagewalk_figures::size_label(x as u64));
        }
        point.picked.small_vs_huge = small_vs_huge(&point.chase, floor);
    }
    let max_x = stair.max_bytes.unwrap_or(0.0);
    stair.verdict = Some(StairVerdict {
        l1_reach_below_l2: below(&stair.cpuid, &stair.caches).0,
        l2_reach_below_l3: below(&stair.cpuid, &stair.caches).1,
        l2_tlb_step: stair
            .cpuid
            .l2_4k
            .as_ref()
            .map(|r| reach_step(r.reach_bytes as f64, max_x, &list)),
        least_backed: stair.huge_fraction_min.map(backed),
        walks: stair.at.largest.as_ref().and_then(|p| walks(&p.chase)),
        curves: None,
        extra_time: None,
    });
    // The widest gap between the page sizes, among points where the
    // 4 KiB chase was slower beyond the spread: the second staircase seen
    // directly, not through the steps the detector paired.
    let judged: Vec<_> = stair
        .points
        .iter()
        .filter_map(|p| Some((p, small_vs_huge(&p.chase, floor)?)))
        .collect();
    let widest = judged
        .iter()
        .filter(|(_, v)| *v == SLOWER)
        .filter_map(|(p, _)| Some((*p, p.chase.small_ns? / p.chase.huge_ns?)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    stair.widest_gap = widest.map(|(p, _)| p.clone());
    stair.widest_gap_ratio = widest.map(|(_, r)| r);
    if let Some(v) = stair.verdict.as_mut() {
        v.curves = (!judged.is_empty()).then_some(if widest.is_some() {
            "apart"
        } else {
            "together"
        });
    }
    if let Some(v) = stair.verdict.as_mut() {
        let largest = stair
            .at
            .largest
            .as_ref()
            .and_then(|p| p.picked.small_vs_huge);
        v.extra_time = stair
            .timed_faults_max
            .map(|f| extra_time(largest, f, v.walks));
    }
    // The points between the L1 dTLB's reach and the L2 cache's size.
    let gap = stair
        .cpuid
        .l1d_4k
        .as_ref()
        .map(|r| r.reach_bytes as f64)
        .zip(stair.caches.l2.as_ref().map(|c| c.bytes as f64));
    for point in &mut stair.points {
        point.in_l1_tlb_gap = gap.map(|(reach, l2)| {
            let b = point.bytes as f64;
            b > reach && b < l2
        });
    }
    for level in &mut stair.published {
        level.rising = level.ns_min.zip(level.ns_max).map(|(lo, hi)| lo < hi);
        level.region = published_region(level);
        level.latency = published_latency(level);
    }
}

/// Whether the walk counter separates the page sizes at one point. Counts,
/// not timings, so no noise floor: one walk per 100 loads is where a walk
/// (tens of ns) starts to show in a load of a few ns.
fn walks(c: &Chase) -> Option<&'static str> {
    let (small, huge) = c.small_dtlb_per_load.zip(c.huge_dtlb_per_load)?;
    Some(if small < 0.01 {
        "neither"
    } else if small >= 2.0 * huge {
        "parts"
    } else {
        "both"
    })
}

/// 4 KiB against huge pages at one point, over their repetitions.
fn small_vs_huge(c: &Chase, floor: Option<f64>) -> Option<&'static str> {
    let small = Measured::ranged(c.small_ns, c.small_ns_min, c.small_ns_max)?;
    let huge = Measured::ranged(c.huge_ns, c.huge_ns_min, c.huge_ns_max)?;
    Some(order(small, huge, floor))
}

/// Whether each TLB reach (4 KiB pages) falls short of the cache level
/// after it: the L1 dTLB against L2, the L2 TLB against L3 (null when
/// unknown). Where it does, data can sit in that cache while translations
/// run out.
fn below(cpuid: &Cpuid, caches: &Caches) -> (Option<bool>, Option<bool>) {
    let cmp = |reach: Option<u64>, size: Option<u64>| reach.zip(size).map(|(r, s)| r < s);
    (
        cmp(
            cpuid.l1d_4k.as_ref().map(|r| r.reach_bytes),
            caches.l2.as_ref().map(|c| c.bytes),
        ),
        cmp(
            cpuid.l2_4k.as_ref().map(|r| r.reach_bytes),
            caches.l3.as_ref().map(|c| c.bytes),
        ),
    )
}

/// `tlb.verdict`: did each curve rise from the last point within the L2 TLB
/// to the largest count, and what that says.
pub fn tlb_reach(tlb: &mut TlbReach, floor: Option<f64>) {
    let rose = |pick: fn(&Chase) -> Option<Measured>| {
        let (from, to) = (tlb.at.l2.as_ref()?, tlb.at.beyond.as_ref()?);
        if from.pages == to.pages {
            return None;
        }
        Some(order(pick(&to.chase)?, pick(&from.chase)?, floor))
    };
    let small = rose(|c| Measured::ranged(c.small_ns, c.small_ns_min, c.small_ns_max));
    let huge = rose(|c| Measured::ranged(c.huge_ns, c.huge_ns_min, c.huge_ns_max));
    let (l1, l2) = below(&tlb.cpuid, &tlb.caches);
    tlb.verdict = Some(TlbVerdict {
        l1_reach_below_l2: l1,
        l2_reach_below_l3: l2,
        beyond_small: small,
        beyond_huge: huge,
        rise: small.zip(huge).map(|(s, h)| rise_cause(s, h)),
    });
}

/// A published level's region in words: `about 48 KiB`, `4 KiB to 32 KiB`,
/// `beyond 8 MiB`, `up to 32 KiB`; null when it gives neither end.
fn published_region(level: &Published) -> Option<String> {
    match (&level.from, &level.to) {
        (Some(from), Some(_)) if level.from_bytes == level.to_bytes => {
            Some(format!("about {from}"))
        }
        (Some(from), Some(to)) => Some(format!("{from} to {to}")),
        (Some(from), None) => Some(format!("beyond {from}")),
        (None, Some(to)) => Some(format!("up to {to}")),
        (None, None) => None,
    }
}

/// A published level's ns per load in words: one figure (`12.0`), a range
/// (`12.0 rising to 24.0`), or what it adds (`15 to 100 more than the level
/// before`); null when it gives none.
fn published_latency(level: &Published) -> Option<String> {
    // A zero is no figure, as the chapter's `#if` used to read it.
    let figure = |x: Option<f64>| x.filter(|x| *x != 0.0);
    let show = |x: Option<f64>, d| x.map_or(MISSING.into(), |x| format_num(x, d));
    if let Some(lo) = figure(level.ns_min) {
        Some(if level.ns_max == Some(lo) {
            format_num(lo, 1)
        } else {
            format!("{} rising to {}", format_num(lo, 1), show(level.ns_max, 1))
        })
    } else if figure(level.added_ns_min).is_some() {
        Some(format!(
            "{} to {} more than the level before",
            show(level.added_ns_min, 0),
            show(level.added_ns_max, 0)
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod walk_tests {
    use super::walks;
    use crate::context::translation::Chase;

    fn chase(small: Option<f64>, huge: Option<f64>) -> Chase {
        Chase {
            small_dtlb_per_load: small,
            huge_dtlb_per_load: huge,
            ..Chase::default()
        }
    }

    #[test]
    fn the_walk_counter_parts_or_not() {
        assert_eq!(walks(&chase(Some(0.99), Some(0.0))), Some("parts"));
        assert_eq!(walks(&chase(Some(0.5), Some(0.3))), Some("both"));
        assert_eq!(walks(&chase(Some(0.001), Some(0.0))), Some("neither"));
        assert_eq!(walks(&chase(None, Some(0.0))), None);
    }
}
