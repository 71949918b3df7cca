//! A figure as a view holds it (a median with the range of its
//! repetitions, or one figure) and the run's noise, read by the one rule,
//! [`super::order`]: the chapters judge their numbers through these.

use super::order::{self as rule, Agreement, Basis, Order, Repeated};

/// The run's noise as a verdict needs it: the A-vs-A floor of its noise
/// experiment, and how many repetitions stand behind a figure given as a
/// range.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Noise {
    pub floor: Option<f64>,
    pub repetitions: usize,
}

impl Noise {
    /// The run's floor and its repetitions (one where it does not say).
    pub fn new(floor: Option<f64>, repetitions: Option<u32>) -> Noise {
        Noise {
            floor,
            repetitions: repetitions.map_or(1, |n| n as usize),
        }
    }
}

/// A repeated measurement: its median and the range of its repetitions.
/// Repetitions that all gave the same figure (a percentile read off the
/// same histogram bucket) are a range from `x` to `x`, still repeated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// One figure, not repeated: no range to judge by.
    pub single: bool,
}

impl Measured {
    /// A single figure: no range to judge by.
    pub fn single(x: f64) -> Measured {
        Measured {
            median: x,
            min: x,
            max: x,
            single: true,
        }
    }

    /// The range of the repetitions around `median`.
    pub fn range(median: f64, min: f64, max: f64) -> Measured {
        Measured {
            median,
            min,
            max,
            single: false,
        }
    }

    /// A median with its range; a single figure where an end is absent.
    pub fn ranged(median: Option<f64>, min: Option<f64>, max: Option<f64>) -> Option<Measured> {
        let median = median?;
        Some(match (min, max) {
            (Some(min), Some(max)) => Measured::range(median, min, max),
            _ => Measured::single(median),
        })
    }

    /// As the judge reads it: a range stands for the run's repetitions, a
    /// single figure for one.
    pub fn repeated(&self, noise: Noise) -> Repeated {
        if !self.single {
            Repeated::range(self.median, self.min, self.max, noise.repetitions)
        } else {
            Repeated::single(self.median)
        }
    }
}

/// `a` against `b`, for times (more is worse): the one rule,
/// [`rule::order`].
pub fn order(a: Measured, b: Measured, noise: Noise) -> Order {
    rule::order(&a.repeated(noise), &b.repeated(noise), noise.floor).order
}

/// How [`order`] decided between `a` and `b`.
pub fn basis(a: Measured, b: Measured, noise: Noise) -> Basis {
    rule::order(&a.repeated(noise), &b.repeated(noise), noise.floor).basis
}

/// Two measurements of what should be the same thing (the same
/// configuration in two experiments): `agree` unless the judge finds a
/// difference.
pub fn cross_check(a: Measured, b: Measured, noise: Noise) -> Agreement {
    rule::cross_check(&a.repeated(noise), &b.repeated(noise), noise.floor)
}

/// Two figures as the judge reads them, each present or not, against
/// each other with the run's floor.
pub fn order_of(a: Option<Repeated>, b: Option<Repeated>, noise: Noise) -> Option<Order> {
    Some(rule::order(&a?, &b?, noise.floor).order)
}

/// Batches from which the range of a cost leaves out the slowest tenth
/// (its 90th percentile instead of its maximum).
pub const MANY_BATCHES: u64 = 10;

/// A cost measured in `n` batches (a syscall's), as the judge reads it:
/// the batches' range when both ends are there, else the median alone.
/// From [`MANY_BATCHES`] up the slowest tenth is left out (the range runs
/// to the 90th percentile `p90`): on a shared or virtual machine a batch
/// the host preempted lands there, and a min-max range only widens as
/// batches are added (a 27 ns clock with one batch preempted at 433 ns was
/// "within noise" of a 105 ns getpid whose batches ran 104-114 ns up to
/// their 90th percentile). Those batches are then nine in ten of the
/// batches.
pub fn batches(
    median: f64,
    min: Option<f64>,
    max: Option<f64>,
    p90: Option<f64>,
    n: Option<u64>,
) -> Repeated {
    let n = n.unwrap_or(1);
    let (top, kept) = if n >= MANY_BATCHES {
        (p90, n * 9 / 10)
    } else {
        (max, n)
    };
    match (min, top) {
        (Some(min), Some(max)) => Repeated::range(median, min, max, kept as usize),
        _ => Repeated::single(median),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(min: f64, median: f64, max: f64) -> Measured {
        Measured::range(median, min, max)
    }

    /// Three repetitions a side, as the collector's default runs have.
    fn n(floor: Option<f64>) -> Noise {
        Noise {
            floor,
            repetitions: 3,
        }
    }

    #[test]
    fn order_is_the_judges_rule_on_the_ranges() {
        assert_eq!(
            order(m(5.0, 6.0, 7.0), m(1.0, 2.0, 3.0), n(None)),
            Order::Slower
        );
        assert_eq!(
            order(m(1.0, 2.0, 3.0), m(5.0, 6.0, 7.0), n(None)),
            Order::Faster
        );
        // Medians apart, ranges overlapping, beyond the floor: the repetitions
        // scatter more than the two differ.
        assert_eq!(
            order(m(1.0, 2.0, 5.0), m(3.0, 4.0, 6.0), n(Some(0.01))),
            Order::Unstable
        );
        // Separated ranges, but no further apart than the floor: the machine
        // moves that much by itself.
        assert_eq!(
            order(m(10.1, 10.2, 10.3), m(10.0, 10.0, 10.0), n(Some(0.5))),
            Order::WithinNoise
        );
        // Two repetitions a side can never separate convincingly (p = 1/3).
        let two = Noise {
            floor: None,
            repetitions: 2,
        };
        assert_eq!(
            order(m(5.0, 6.0, 7.0), m(1.0, 2.0, 3.0), two),
            Order::Unstable
        );
    }

    #[test]
    fn single_figures_are_judged_only_by_the_floor() {
        let (a, b) = (Measured::single(103.0), Measured::single(100.0));
        assert_eq!(order(a, b, n(Some(0.05))), Order::WithinNoise);
        assert_eq!(order(a, b, n(Some(0.01))), Order::Unrepeated);
        assert_eq!(order(a, b, n(None)), Order::Unrepeated);
        assert_eq!(order(a, a, n(None)), Order::WithinNoise);
    }

    #[test]
    fn a_missing_end_makes_a_single_figure() {
        assert_eq!(
            Measured::ranged(Some(5.0), Some(4.0), Some(6.0)),
            Some(m(4.0, 5.0, 6.0))
        );
        assert_eq!(
            Measured::ranged(Some(5.0), None, Some(6.0)),
            Some(Measured::single(5.0))
        );
        assert_eq!(Measured::ranged(None, Some(4.0), Some(6.0)), None);
        assert_eq!(Noise::new(Some(0.1), None).repetitions, 1);
    }

    #[test]
    fn cross_check_agrees_unless_the_judge_finds_a_difference() {
        assert_eq!(
            cross_check(m(170.0, 176.0, 180.0), m(178.0, 200.0, 220.0), n(None)),
            Agreement::Agree
        );
        assert_eq!(
            cross_check(m(170.0, 176.0, 180.0), m(200.0, 216.0, 230.0), n(None)),
            Agreement::Disagree
        );
    }

    #[test]
    fn basis_says_what_decided_an_order() {
        // A spread on both sides, beyond the floor: the ranges are the
        // evidence, apart or overlapping.
        assert_eq!(
            basis(m(5.0, 6.0, 7.0), m(1.0, 2.0, 3.0), n(None)),
            Basis::Ranges
        );
        assert_eq!(
            basis(m(1.0, 2.0, 5.0), m(3.0, 4.0, 6.0), n(Some(0.1))),
            Basis::Ranges
        );
        // A spread on one side only: the other is one figure, with no scatter
        // to test against.
        assert_eq!(
            basis(m(5.0, 6.0, 7.0), Measured::single(2.0), n(None)),
            Basis::Single
        );
        // One sample each ("ran from 6 to 6"): the A-vs-A floor decides when
        // it covers the difference; beyond it, or with no floor, there is
        // nothing to test.
        let a = Measured::single(6.0);
        assert_eq!(basis(a, Measured::single(5.9), n(Some(0.1))), Basis::Floor);
        assert_eq!(basis(a, Measured::single(2.0), n(Some(0.1))), Basis::Single);
        assert_eq!(basis(a, Measured::single(2.0), n(None)), Basis::Single);
        // Ranges apart but within the floor: the floor decided, not the ranges.
        assert_eq!(
            basis(m(10.1, 10.2, 10.3), m(9.9, 10.0, 10.05), n(Some(0.5))),
            Basis::Floor
        );
        // The same median: nothing to decide.
        assert_eq!(basis(a, a, n(None)), Basis::Identical);
    }

    #[test]
    fn an_absent_figure_is_no_order() {
        let r = |x: f64| Some(Repeated::range(x, x - 0.5, x + 0.5, 3));
        assert_eq!(order_of(r(6.0), r(2.0), n(None)), Some(Order::Slower));
        assert_eq!(order_of(None, r(2.0), n(None)), None);
        assert_eq!(order_of(r(6.0), None, n(None)), None);
    }

    #[test]
    fn from_ten_batches_up_the_slowest_tenth_is_left_out() {
        // Nine batches: the maximum ends the range, every batch counts.
        let nine = batches(105.0, Some(104.0), Some(2114.0), Some(113.0), Some(9));
        assert_eq!((nine.max, nine.n), (2114.0, 9));
        // Ten: the 90th percentile ends it, nine of them count.
        let ten = batches(105.0, Some(104.0), Some(2114.0), Some(113.0), Some(10));
        assert_eq!((ten.max, ten.n), (113.0, 9));
        // An end missing: the median alone.
        assert_eq!(
            batches(105.0, Some(104.0), None, None, Some(30)),
            Repeated::single(105.0)
        );
        assert_eq!(
            batches(105.0, None, Some(110.0), None, None),
            Repeated::single(105.0)
        );
    }
}
