//! The steps of a latency curve against the sizes the run knows: whether
//! a half-cache point sits on its level, what a step's position matches,
//! whether the 4 KiB curve steps near a TLB's reach, and why a curve rose.

use serde::Serialize;

use super::order::Order;

/// A step of a curve, as the views list them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepAt {
    /// On the 4 KiB curve (else on a huge-page curve).
    pub small: bool,
    /// Where, in bytes or pages.
    pub x: f64,
    /// The detector called it a translation step.
    pub translation: bool,
    /// A known size (cache or TLB reach) lies within a factor of two.
    pub matched: bool,
}

/// A point measured at half of a cache level, against the steps below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HalfPoint {
    /// Only the steps of the smaller caches lie below it on the 4 KiB curve.
    OnItsLevel,
    /// More non-translation steps lie below it than the smaller caches
    /// account for: the data left that level earlier than its size says.
    PastAnEarlierStep,
}

/// A point measured at half of cache level `level` (1 = L1d): `on-its-level`
/// when only the steps of the smaller caches lie below it on the 4 KiB
/// curve, else `past-an-earlier-step` with the extra step's x: the data left
/// that level earlier than its size says.
pub fn half_point(x: f64, level: usize, steps: &[StepAt]) -> (HalfPoint, Option<f64>) {
    let below: Vec<f64> = steps
        .iter()
        .filter(|s| s.small && !s.translation && s.x < x)
        .map(|s| s.x)
        .collect();
    match below.get(level.saturating_sub(1)) {
        Some(&early) => (HalfPoint::PastAnEarlierStep, Some(early)),
        None => (HalfPoint::OnItsLevel, None),
    }
}

/// What a step's position says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum StepMatch {
    /// A known size lies within a factor of two.
    Matches,
    /// A step that stayed put with the page size, no known size near, but
    /// the other page regime's step within a factor of two matches one.
    AsOtherRegime,
    /// A step that stayed put with the page size whose counterpart matches
    /// nothing either: not translation, and no cache explains it.
    BothRegimes,
    /// Nothing known near it.
    Unmatched,
}

/// What a step's position says: `matches` a known size; for a step that
/// stayed put with the page size, `as-other-regime` (no known size near,
/// but the other page regime's step within a factor of two matches one) or
/// `both-regimes` (that step matches nothing either: not translation, and
/// no cache explains it); else `unmatched`.
pub fn step_match(step: StepAt, steps: &[StepAt]) -> StepMatch {
    match counterpart(step, steps).map(|i| steps[i]) {
        _ if step.matched => StepMatch::Matches,
        _ if step.translation => StepMatch::Unmatched,
        Some(o) if o.matched => StepMatch::AsOtherRegime,
        Some(_) => StepMatch::BothRegimes,
        None => StepMatch::Unmatched,
    }
}

/// The same bend on the other page regime's curve: the index in `steps` of
/// the nearest step there, less than a factor of two away, whose own
/// nearest step here is `step` (so one bend is never paired with two).
pub fn counterpart(step: StepAt, steps: &[StepAt]) -> Option<usize> {
    let nearest = |s: StepAt| {
        steps
            .iter()
            .enumerate()
            .filter(|(_, o)| o.small != s.small)
            .map(|(i, o)| (i, (o.x / s.x).ln().abs()))
            .filter(|&(_, d)| d < 2f64.ln())
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    let i = nearest(step)?;
    (nearest(steps[i]).map(|j| steps[j]) == Some(step)).then_some(i)
}

/// Whether the 4 KiB curve steps near a TLB's reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReachStep {
    /// A translation step within a factor of two of the reach.
    Found,
    /// No such step, though the curve reaches that far.
    None,
    /// The largest point measured is below half the reach.
    OffChart,
}

/// Whether the 4 KiB curve has a translation step within a factor of two of
/// a TLB `reach`: `found`, `none`, or `off-chart` when the largest point
/// measured (`max_x`) is below half the reach.
pub fn reach_step(reach: f64, max_x: f64, steps: &[StepAt]) -> ReachStep {
    if max_x < reach / 2.0 {
        ReachStep::OffChart
    } else if steps
        .iter()
        .any(|s| s.small && s.translation && s.x >= reach / 2.0 && s.x <= reach * 2.0)
    {
        ReachStep::Found
    } else {
        ReachStep::None
    }
}

/// Why a curve rose between two points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RiseCause {
    /// Only the 4 KiB curve rose; the huge-page curve measurably did not.
    Translation,
    /// The huge-page curve rose too.
    Shared,
    /// The 4 KiB curve rose, but the huge-page curve's repetitions cannot
    /// say whether it did.
    Unclear,
    /// The 4 KiB curve did not rise.
    None,
}

/// Why a curve rose between two points, from whether each regime rose
/// (`order` of the later point against the earlier): `translation` when
/// only the 4 KiB curve rose (the huge-page curve measurably did not),
/// `shared` when the huge-page curve rose too, `unclear` when the 4 KiB
/// curve rose but the huge-page curve's repetitions cannot say, `none`
/// when the 4 KiB curve did not rise.
pub fn rise_cause(small: Order, huge: Order) -> RiseCause {
    match (small, huge) {
        (Order::Slower, Order::Slower) => RiseCause::Shared,
        (Order::Slower, Order::WithinNoise | Order::Faster) => RiseCause::Translation,
        (Order::Slower, Order::Unstable | Order::Unrepeated) => RiseCause::Unclear,
        _ => RiseCause::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::word;

    fn step(small: bool, x: f64, translation: bool, matched: bool) -> StepAt {
        StepAt {
            small,
            x,
            translation,
            matched,
        }
    }

    #[test]
    fn half_point_sees_an_early_step() {
        let mib = 1048576.0;
        let l1 = step(true, 0.036 * mib, false, true);
        let l2 = step(true, 1.1 * mib, false, true);
        let early = step(true, 4.7 * mib, false, false);
        let tlb = step(true, 0.5 * mib, true, false);
        // Half of a 32 MiB L3 after the L1, L2 and an unexplained step.
        let steps = [l1, tlb, l2, early];
        assert_eq!(
            half_point(16.0 * mib, 3, &steps),
            (HalfPoint::PastAnEarlierStep, Some(4.7 * mib))
        );
        // Without it, the point is on its level; a translation step below
        // does not move the data out of a cache.
        assert_eq!(
            half_point(16.0 * mib, 3, &[l1, tlb, l2]),
            (HalfPoint::OnItsLevel, None)
        );
        assert_eq!(
            half_point(0.5 * mib, 2, &steps),
            (HalfPoint::OnItsLevel, None)
        );
        // A step at the point itself is not below it.
        assert_eq!(
            half_point(4.7 * mib, 3, &steps),
            (HalfPoint::OnItsLevel, None)
        );
    }

    #[test]
    fn a_step_in_both_regimes_near_no_known_size() {
        let mib = 1048576.0;
        let small = step(true, 887.0 * mib, false, false);
        let huge = step(false, 900.0 * mib, false, false);
        let alone = step(true, 108.0 * mib, true, false);
        let moved = step(false, 150.0 * mib, true, false);
        let known = step(true, 1.1 * mib, false, true);
        let beside_known = step(false, 1.2 * mib, false, false);
        let all = [small, huge, alone, moved, known, beside_known];
        assert_eq!(step_match(small, &all), StepMatch::BothRegimes);
        assert_eq!(step_match(huge, &all), StepMatch::BothRegimes);
        assert_eq!(step_match(alone, &all), StepMatch::Unmatched);
        assert_eq!(step_match(known, &all), StepMatch::Matches);
        assert_eq!(step_match(beside_known, &all), StepMatch::AsOtherRegime);
        assert_eq!(counterpart(beside_known, &all), Some(4));
        // The other curve's step near it is already paired with a closer
        // step here: no counterpart, so nothing is borrowed from it.
        let far = step(true, 2.3 * mib, false, false);
        let paired = [known, beside_known, far];
        assert_eq!(step_match(far, &paired), StepMatch::Unmatched);
        assert_eq!(counterpart(far, &paired), None);
        // A factor of two apart exactly is too far to be the same bend.
        let twice = [step(true, 2.0, false, false), step(false, 4.0, false, true)];
        assert_eq!(step_match(twice[0], &twice), StepMatch::Unmatched);
    }

    #[test]
    fn reach_step_found_none_or_off_chart() {
        let mib = 1048576.0;
        let reach = 12.0 * mib;
        let near = [step(true, 14.0 * mib, true, true)];
        let far = [step(true, 108.0 * mib, true, false)];
        assert_eq!(reach_step(reach, 1024.0 * mib, &near), ReachStep::Found);
        assert_eq!(reach_step(reach, 1024.0 * mib, &far), ReachStep::None);
        // A cache step near the reach is not a TLB step.
        let cache = [step(true, 12.0 * mib, false, true)];
        assert_eq!(reach_step(reach, 1024.0 * mib, &cache), ReachStep::None);
        assert_eq!(reach_step(reach, 4.0 * mib, &near), ReachStep::OffChart);
        // Half the reach measured is on the chart; a factor of two either
        // way is near.
        assert_eq!(reach_step(reach, 6.0 * mib, &far), ReachStep::None);
        let edges = [step(true, 6.0 * mib, true, false)];
        assert_eq!(reach_step(reach, 6.0 * mib, &edges), ReachStep::Found);
        let edges = [step(true, 24.0 * mib, true, false)];
        assert_eq!(reach_step(reach, 24.0 * mib, &edges), ReachStep::Found);
    }

    #[test]
    fn rise_cause_needs_the_huge_curve_flat() {
        assert_eq!(
            rise_cause(Order::Slower, Order::WithinNoise),
            RiseCause::Translation
        );
        assert_eq!(
            rise_cause(Order::Slower, Order::Faster),
            RiseCause::Translation
        );
        assert_eq!(rise_cause(Order::Slower, Order::Slower), RiseCause::Shared);
        assert_eq!(
            rise_cause(Order::Slower, Order::Unstable),
            RiseCause::Unclear
        );
        assert_eq!(
            rise_cause(Order::Slower, Order::Unrepeated),
            RiseCause::Unclear
        );
        assert_eq!(
            rise_cause(Order::WithinNoise, Order::Slower),
            RiseCause::None
        );
        assert_eq!(
            rise_cause(Order::Faster, Order::WithinNoise),
            RiseCause::None
        );
        assert_eq!(rise_cause(Order::Unstable, Order::Slower), RiseCause::None);
    }

    #[test]
    fn outcomes_read_as_the_chapters_write_them() {
        assert_eq!(word(HalfPoint::OnItsLevel), "on-its-level");
        assert_eq!(word(HalfPoint::PastAnEarlierStep), "past-an-earlier-step");
        assert_eq!(word(StepMatch::Matches), "matches");
        assert_eq!(word(StepMatch::AsOtherRegime), "as-other-regime");
        assert_eq!(word(StepMatch::BothRegimes), "both-regimes");
        assert_eq!(word(StepMatch::Unmatched), "unmatched");
        assert_eq!(word(ReachStep::Found), "found");
        assert_eq!(word(ReachStep::None), "none");
        assert_eq!(word(ReachStep::OffChart), "off-chart");
        assert_eq!(word(RiseCause::Translation), "translation");
        assert_eq!(word(RiseCause::Shared), "shared");
        assert_eq!(word(RiseCause::Unclear), "unclear");
        assert_eq!(word(RiseCause::None), "none");
    }
}
