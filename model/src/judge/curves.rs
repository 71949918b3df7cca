//! What the curves and the counters say about where time went: whether the
//! walk counter parts the page sizes, whether the 4 KiB curve parted from
//! the huge-page one anywhere, what the gap at the largest region is,
//! how many levels of the walk cost more, and where the memory-level
//! parallelism tops out.

use serde::Serialize;

use super::measured::{self, Measured, Noise};
use super::order::Order;

/// What the walk counter says about the page sizes at one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Walks {
    /// 4 KiB pages walked at least once per 100 loads and at least twice
    /// as often as huge pages.
    Parts,
    /// 4 KiB pages walked, and huge pages nearly as often.
    Both,
    /// 4 KiB pages hardly walked (fewer than once per 100 loads).
    Neither,
}

/// Whether the walk counter separates the page sizes at one point, from
/// each regime's dTLB misses per load. Counts, not timings, so no noise
/// floor: one walk per 100 loads is where a walk (tens of ns) starts to
/// show in a load of a few ns.
pub fn walks(small_per_load: f64, huge_per_load: f64) -> Walks {
    if small_per_load < 0.01 {
        Walks::Neither
    } else if small_per_load >= 2.0 * huge_per_load {
        Walks::Parts
    } else {
        Walks::Both
    }
}

/// Whether the 4 KiB curve parted from the huge-page curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Curves {
    /// At some size the 4 KiB chase was slower beyond the repetitions'
    /// spread: the page size moved the curve.
    Apart,
    /// At no size was it.
    Together,
}

/// The points' orders (the 4 KiB chase against the huge-page chase at each
/// size that has both): `apart` when any is `slower`, `together` when none
/// is; `None` without a point that has both.
pub fn curves(orders: &[Order]) -> Option<Curves> {
    if orders.is_empty() {
        None
    } else if orders.contains(&Order::Slower) {
        Some(Curves::Apart)
    } else {
        Some(Curves::Together)
    }
}

/// What the counters say about the gap between the page sizes at the
/// largest region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ExtraTime {
    /// A timed sample took a minor fault: the kernel is inside some timed
    /// loads.
    FaultsInIt,
    /// The 4 KiB chase was not slower: no gap to explain.
    NoExtra,
    /// Slower, and the walk counter parts the page sizes: the walks.
    Translation,
    /// Slower, no fault in it, but no walk counter to prove the walks.
    NotTheKernel,
}

/// What the fault and walk counters say about the gap at the largest
/// region: `faults-in-it` when any timed sample faulted; else, with the
/// 4 KiB chase `slower` there, `translation` when the walk counter parts
/// the page sizes and `not-the-kernel` when only the fault counter speaks;
/// `no-extra` when it was not slower.
pub fn extra_time(
    small_vs_huge: Option<Order>,
    timed_faults: u64,
    walks: Option<Walks>,
) -> ExtraTime {
    if timed_faults > 0 {
        ExtraTime::FaultsInIt
    } else if small_vs_huge != Some(Order::Slower) {
        ExtraTime::NoExtra
    } else if walks == Some(Walks::Parts) {
        ExtraTime::Translation
    } else {
        ExtraTime::NotTheKernel
    }
}

/// How many of the steps outward were `slower`, when all were judged.
pub fn levels_slower(steps: &[Option<Order>]) -> Option<u32> {
    steps
        .iter()
        .map(|s| s.map(|s| u32::from(s == Order::Slower)))
        .sum()
}

/// The best memory-level parallelism on 4 KiB pages against huge pages'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Ceiling {
    /// Huge pages overlapped more loads at their best than 4 KiB pages at
    /// theirs.
    #[serde(rename = "lower-with-4k")]
    LowerWith4k,
    /// Within the A-vs-A floor.
    Same,
    /// 4 KiB pages overlapped more.
    #[serde(rename = "higher-with-4k")]
    HigherWith4k,
    /// The repetitions cannot tell.
    Unclear,
}

/// The best parallelism of 4 KiB pages against that of huge pages, each
/// with its range: `lower-with-4k`, `same`, `higher-with-4k` or `unclear`.
pub fn ceiling(small: Measured, huge: Measured, noise: Noise) -> Ceiling {
    // `order` reads more as slower; here more is more loads overlapped.
    match measured::order(huge, small, noise) {
        Order::Slower => Ceiling::LowerWith4k,
        Order::Faster => Ceiling::HigherWith4k,
        Order::WithinNoise => Ceiling::Same,
        Order::Unstable | Order::Unrepeated => Ceiling::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::word;

    #[test]
    fn the_walk_counter_parts_or_not() {
        assert_eq!(walks(0.99, 0.0), Walks::Parts);
        assert_eq!(walks(0.5, 0.3), Walks::Both);
        assert_eq!(walks(0.001, 0.0), Walks::Neither);
        // Once per 100 loads is a walk that shows; twice the huge pages'
        // rate parts them.
        assert_eq!(walks(0.01, 0.0), Walks::Parts);
        assert_eq!(walks(0.0099, 0.0), Walks::Neither);
        assert_eq!(walks(0.6, 0.3), Walks::Parts);
        assert_eq!(walks(0.59, 0.3), Walks::Both);
    }

    #[test]
    fn the_curves_part_only_where_a_point_is_slower() {
        use Order::*;
        assert_eq!(curves(&[WithinNoise, Slower]), Some(Curves::Apart));
        // Unstable is not a difference; huge pages slower is not the 4 KiB
        // curve parting upward.
        assert_eq!(
            curves(&[Unstable, Faster, Unrepeated, WithinNoise]),
            Some(Curves::Together)
        );
        assert_eq!(curves(&[]), None);
    }

    #[test]
    fn extra_time_is_translation_only_with_both_counters() {
        let parts = Some(Walks::Parts);
        assert_eq!(
            extra_time(Some(Order::Slower), 0, parts),
            ExtraTime::Translation
        );
        assert_eq!(
            extra_time(Some(Order::Slower), 0, None),
            ExtraTime::NotTheKernel
        );
        assert_eq!(
            extra_time(Some(Order::Slower), 0, Some(Walks::Both)),
            ExtraTime::NotTheKernel
        );
        // A fault inside a timed sample: the kernel is in the time.
        assert_eq!(
            extra_time(Some(Order::Slower), 2, parts),
            ExtraTime::FaultsInIt
        );
        assert_eq!(
            extra_time(Some(Order::WithinNoise), 2, None),
            ExtraTime::FaultsInIt
        );
        // No gap to explain.
        assert_eq!(
            extra_time(Some(Order::WithinNoise), 0, parts),
            ExtraTime::NoExtra
        );
        assert_eq!(extra_time(Some(Order::Faster), 0, None), ExtraTime::NoExtra);
        assert_eq!(extra_time(None, 0, None), ExtraTime::NoExtra);
    }

    #[test]
    fn levels_are_counted_only_when_all_were_judged() {
        use Order::*;
        assert_eq!(
            levels_slower(&[Some(Slower), Some(WithinNoise), Some(Slower)]),
            Some(2)
        );
        assert_eq!(levels_slower(&[Some(Slower), None, Some(Slower)]), None);
        assert_eq!(levels_slower(&[Some(Faster); 3]), Some(0));
        // Only a confirmed difference counts: unstable and unrepeated
        // levels are not slower.
        assert_eq!(
            levels_slower(&[Some(Unstable), Some(Unrepeated), Some(Slower)]),
            Some(1)
        );
    }

    fn m(median: f64, spread: f64) -> Measured {
        Measured::range(median, median - spread, median + spread)
    }

    /// Three repetitions a side, as the collector's default runs have.
    fn n(floor: Option<f64>) -> Noise {
        Noise {
            floor,
            repetitions: 3,
        }
    }

    #[test]
    fn huge_pages_overlapping_more_is_a_lower_ceiling_on_4k() {
        assert_eq!(
            ceiling(m(6.0, 0.5), m(14.0, 1.0), n(None)),
            Ceiling::LowerWith4k
        );
        // Overlapping ranges beyond the floor: the judge cannot tell.
        assert_eq!(
            ceiling(m(20.0, 2.0), m(20.5, 2.0), n(None)),
            Ceiling::Unclear
        );
        assert_eq!(
            ceiling(m(20.0, 1.0), m(14.0, 1.0), n(None)),
            Ceiling::HigherWith4k
        );
        // Ranges apart but no further than the floor: the same.
        assert_eq!(
            ceiling(m(20.0, 0.1), m(20.5, 0.1), n(Some(0.05))),
            Ceiling::Same
        );
    }

    #[test]
    fn one_repetition_never_moves_the_ceiling() {
        let one = Measured::single;
        let once = |floor| Noise {
            floor,
            repetitions: 1,
        };
        // Within the floor: the same.
        assert_eq!(
            ceiling(one(20.0), one(20.6), once(Some(0.05))),
            Ceiling::Same
        );
        // Twice as many loads overlapped, but one figure a side has no
        // scatter to judge it by: no ceiling is claimed either way.
        assert_eq!(
            ceiling(one(10.0), one(20.0), once(Some(0.05))),
            Ceiling::Unclear
        );
        assert_eq!(ceiling(one(20.0), one(10.0), once(None)), Ceiling::Unclear);
        // With three repetitions and ranges apart, the same medians do.
        assert_eq!(
            ceiling(m(10.0, 0.5), m(20.0, 0.5), n(Some(0.05))),
            Ceiling::LowerWith4k
        );
    }

    #[test]
    fn outcomes_read_as_the_chapters_write_them() {
        assert_eq!(word(Walks::Parts), "parts");
        assert_eq!(word(Walks::Both), "both");
        assert_eq!(word(Walks::Neither), "neither");
        assert_eq!(word(Curves::Apart), "apart");
        assert_eq!(word(Curves::Together), "together");
        assert_eq!(word(ExtraTime::FaultsInIt), "faults-in-it");
        assert_eq!(word(ExtraTime::NoExtra), "no-extra");
        assert_eq!(word(ExtraTime::Translation), "translation");
        assert_eq!(word(ExtraTime::NotTheKernel), "not-the-kernel");
        assert_eq!(word(Ceiling::LowerWith4k), "lower-with-4k");
        assert_eq!(word(Ceiling::Same), "same");
        assert_eq!(word(Ceiling::HigherWith4k), "higher-with-4k");
        assert_eq!(word(Ceiling::Unclear), "unclear");
    }
}
