//! Faster, slower, within noise or unstable: the one rule every page, the
//! chapters and `collector compare` use to say how two timings compare.
//!
//! Two questions, answered with the run's own data:
//!
//! 1. **Is the difference real?** A Mann–Whitney rank test on the two
//!    figures' repetitions ([`super::rank`]), two-sided at
//!    [`SIGNIFICANCE`]. Where a file kept only a figure's range, the test
//!    can still be answered when the ranges do not overlap (that is its
//!    most extreme outcome, whose chance needs only the counts); an overlap
//!    without the values is not evidence of a difference.
//! 2. **Is it larger than the machine's noise?** The A-vs-A floor: how far
//!    two identical batches of the run's `noise` experiment came apart. A
//!    real difference no larger than that is `within-noise`: the machine
//!    moves that much by itself.
//!
//! A difference beyond the floor that the rank test cannot confirm is
//! `unstable`: the figure's own repetitions scattered more than the two
//! figures differ, and more repetitions would tell. With one figure on a
//! side there is no scatter to test: `unrepeated` unless the floor already
//! covers the difference.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use super::rank;
use crate::stats::Summary;

/// The level of the rank test, two-sided. At three repetitions a side only
/// complete separation reaches it (chance gives that one time in ten); at
/// five, one crossed pair still does (0.016).
pub const SIGNIFICANCE: f64 = 0.10;

/// One figure's repetitions: their median, range and count, and the values
/// themselves where the file kept them.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeated {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
    /// Empty where only the summary is known.
    pub values: Vec<f64>,
}

impl Repeated {
    /// From every repetition's value; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Repeated> {
        let s = Summary::of(values)?;
        Some(Repeated {
            values: values.to_vec(),
            ..Repeated::summary(&s)
        })
    }

    /// From a summary alone (its values not kept).
    pub fn summary(s: &Summary) -> Repeated {
        Repeated::range(s.median, s.min, s.max, s.n)
    }

    /// A median with the range of `n` repetitions.
    pub fn range(median: f64, min: f64, max: f64, n: usize) -> Repeated {
        Repeated {
            median,
            min,
            max,
            n,
            values: Vec::new(),
        }
    }

    /// One figure, not repeated.
    pub fn single(x: f64) -> Repeated {
        Repeated::range(x, x, x, 1)
    }

    /// How far the repetitions spread, relative (`max / min - 1`).
    pub fn spread(&self) -> Option<f64> {
        (self.n >= 2 && self.min > 0.0).then(|| self.max / self.min - 1.0)
    }
}

/// `a` against `b`, for times (more is worse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, FromJson)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// `a` took longer, the rank test confirms it, and by more than the floor.
    Slower,
    /// `a` took less time, confirmed, by more than the floor.
    Faster,
    /// The medians differ by no more than the A-vs-A floor (or not at all).
    WithinNoise,
    /// Beyond the floor, but the repetitions overlap too much for the rank
    /// test: this run cannot tell.
    Unstable,
    /// One figure on a side and a difference beyond the floor (or no
    /// floor): there is no scatter to judge it by.
    Unrepeated,
}

impl Order {
    pub const ALL: [Order; 5] = [
        Order::Slower,
        Order::Faster,
        Order::WithinNoise,
        Order::Unstable,
        Order::Unrepeated,
    ];

    /// As a reader says it: `within noise`.
    pub fn label(self) -> &'static str {
        match self {
            Order::Slower => "slower",
            Order::Faster => "faster",
            Order::WithinNoise => "within noise",
            Order::Unstable => "unstable",
            Order::Unrepeated => "unrepeated",
        }
    }

    /// Slower or faster: a difference this run stands behind.
    pub fn is_difference(self) -> bool {
        matches!(self, Order::Slower | Order::Faster)
    }
}

/// What decided an [`Order`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The medians are the same number.
    Identical,
    /// The difference is no larger than the A-vs-A floor.
    Floor,
    /// The rank test on the repetitions' values.
    Ranks,
    /// The repetitions' ranges (the values were not kept).
    Ranges,
    /// One figure on a side: nothing to test.
    Single,
}

/// The verdict and the numbers behind it, for a reader who asks why.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Judgement {
    pub order: Order,
    pub basis: Basis,
    /// `a / b - 1` of the medians: 0.05 is 5% slower.
    pub difference: f64,
    /// The A-vs-A floor it was held against, where the run had one.
    pub floor: Option<f64>,
    /// The rank test's two-sided p-value, where one could be computed.
    pub p: Option<f64>,
}

/// `a` against `b` with the A-vs-A `floor` (a fraction; the larger of the
/// two runs' where they come from two).
pub fn order(a: &Repeated, b: &Repeated, floor: Option<f64>) -> Judgement {
    let difference = if b.median > 0.0 {
        a.median / b.median - 1.0
    } else {
        f64::INFINITY
    };
    let judged = |order, basis, p| Judgement {
        order,
        basis,
        difference,
        floor,
        p,
    };
    if a.median == b.median {
        return judged(Order::WithinNoise, Basis::Identical, None);
    }
    // The gap as the larger over the smaller, so that `a` against `b` and
    // `b` against `a` are held to the floor alike (a 31% rise is a 24%
    // fall the other way round; near the floor the two would disagree).
    let (hi, lo) = (a.median.max(b.median), a.median.min(b.median));
    let gap = if lo > 0.0 {
        hi / lo - 1.0
    } else {
        f64::INFINITY
    };
    let beyond_floor = floor.is_none_or(|f| gap > f);
    let (p, basis) = evidence(a, b);
    let order = match (p, beyond_floor) {
        (_, false) => return judged(Order::WithinNoise, Basis::Floor, p),
        (None, true) => Order::Unrepeated,
        (Some(p), true) if p <= SIGNIFICANCE && a.median > b.median => Order::Slower,
        (Some(p), true) if p <= SIGNIFICANCE => Order::Faster,
        (Some(_), true) => Order::Unstable,
    };
    judged(order, basis, p)
}

/// The rank test's p-value and what it was computed from; no p-value with
/// a single figure on a side.
fn evidence(a: &Repeated, b: &Repeated) -> (Option<f64>, Basis) {
    if a.n < 2 || b.n < 2 {
        return (None, Basis::Single);
    }
    if a.values.len() == a.n && b.values.len() == b.n {
        return (rank::p_value(&a.values, &b.values), Basis::Ranks);
    }
    let separated = a.min > b.max || b.min > a.max;
    // Overlapping ranges without the values: the test cannot reject.
    let p = if separated {
        rank::separated_p(a.n, b.n)
    } else {
        1.0
    };
    (Some(p), Basis::Ranges)
}

/// A p-value as a reader sees it: `p 0.036`, or `p < 0.001` below what
/// three decimals show.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_string()
    } else {
        format!("p {}", crate::decimal::fixed(p, 3))
    }
}

/// Two measurements of what should be the same thing (one configuration in
/// two experiments): do they agree?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    /// The rank test finds no difference, or one within the floor.
    Agree,
    /// They differ beyond the floor, and the test confirms it.
    Disagree,
}

/// [`order`] read as agreement: anything but a confirmed difference agrees.
pub fn cross_check(a: &Repeated, b: &Repeated, floor: Option<f64>) -> Agreement {
    if order(a, b, floor).order.is_difference() {
        Agreement::Disagree
    } else {
        Agreement::Agree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(values: &[f64]) -> Repeated {
        Repeated::of(values).unwrap()
    }

    #[test]
    fn three_a_side_must_separate_to_count() {
        let a = r(&[110.0, 111.0, 112.0]);
        let b = r(&[100.0, 101.0, 102.0]);
        let j = order(&a, &b, None);
        assert_eq!((j.order, j.basis), (Order::Slower, Basis::Ranks));
        assert!((j.p.unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(order(&b, &a, None).order, Order::Faster);
        // One crossed pair: p = 0.2, more than the level.
        let c = r(&[101.5, 111.0, 112.0]);
        assert_eq!(order(&c, &b, None).order, Order::Unstable);
    }

    #[test]
    fn the_floor_sets_the_smallest_difference_that_counts() {
        let a = r(&[103.0, 103.1, 103.2]);
        let b = r(&[100.0, 100.1, 100.2]);
        // 3% apart, separated: slower under a 2% floor, within a 4% one.
        assert_eq!(order(&a, &b, Some(0.02)).order, Order::Slower);
        let j = order(&a, &b, Some(0.04));
        assert_eq!((j.order, j.basis), (Order::WithinNoise, Basis::Floor));
        // At the floor exactly: within it.
        let a = r(&[66.0, 66.0, 66.0]);
        let b = r(&[64.0, 64.0, 64.0]);
        assert_eq!(order(&a, &b, Some(0.03125)).order, Order::WithinNoise);
    }

    #[test]
    fn either_way_round_the_floor_reads_the_same() {
        // 180 against 137.2 is +31%, 137.2 against 180 is -24%: with a 28.8%
        // floor both must land on the same side of it.
        let a = r(&[179.0, 180.0, 181.0]);
        let b = r(&[137.0, 137.2, 137.4]);
        let ab = order(&a, &b, Some(0.288)).order;
        let ba = order(&b, &a, Some(0.288)).order;
        assert_eq!((ab, ba), (Order::Slower, Order::Faster));
        assert_eq!(order(&a, &b, Some(0.32)).order, Order::WithinNoise);
        assert_eq!(order(&b, &a, Some(0.32)).order, Order::WithinNoise);
    }

    #[test]
    fn ranges_alone_count_only_when_apart() {
        let a = Repeated::range(110.0, 108.0, 112.0, 5);
        let b = Repeated::range(100.0, 98.0, 102.0, 5);
        let j = order(&a, &b, None);
        assert_eq!((j.order, j.basis), (Order::Slower, Basis::Ranges));
        assert!((j.p.unwrap() - 2.0 / 252.0).abs() < 1e-12);
        let b = Repeated::range(100.0, 98.0, 108.5, 5);
        assert_eq!(order(&a, &b, None).order, Order::Unstable);
        // With the values, the same overlap can still be a difference.
        let a = r(&[108.0, 109.0, 110.0, 111.0, 112.0]);
        let b = r(&[98.0, 99.0, 100.0, 101.0, 108.5]);
        assert_eq!(order(&a, &b, None).order, Order::Slower);
    }

    #[test]
    fn one_figure_a_side_is_never_a_difference() {
        let a = Repeated::single(110.0);
        let b = r(&[100.0, 101.0, 102.0]);
        let j = order(&a, &b, Some(0.01));
        assert_eq!((j.order, j.basis), (Order::Unrepeated, Basis::Single));
        assert_eq!(order(&a, &b, Some(0.2)).order, Order::WithinNoise);
        let same = Repeated::single(100.0);
        assert_eq!(
            order(&same, &Repeated::single(100.0), None).order,
            Order::WithinNoise
        );
    }

    #[test]
    fn more_repetitions_spread_out_do_not_make_noise_a_difference() {
        // The complaint about min-max ranges: they widen with n. The rank
        // test does not: forty values each from one spread, shuffled
        // differently, stay unjudged.
        let a: Vec<f64> = (0..40).map(|i| 100.0 + ((i * 7) % 40) as f64).collect();
        let b: Vec<f64> = (0..40)
            .map(|i| 100.0 + ((i * 13) % 40) as f64 + 0.5)
            .collect();
        assert_eq!(order(&r(&a), &r(&b), None).order, Order::Unstable);
        let shifted: Vec<f64> = a.iter().map(|x| x + 20.0).collect();
        assert_eq!(order(&r(&shifted), &r(&a), None).order, Order::Slower);
    }

    #[test]
    fn small_p_values_do_not_print_as_zero() {
        assert_eq!(p_text(0.0000123), "p < 0.001");
        assert_eq!(p_text(0.1), "p 0.100");
        assert_eq!(p_text(2.0 / 252.0), "p 0.008");
    }

    #[test]
    fn agreement() {
        let a = r(&[100.0, 101.0, 102.0]);
        let b = r(&[100.5, 101.5, 101.8]);
        assert_eq!(cross_check(&a, &b, None), Agreement::Agree);
        let c = r(&[150.0, 151.0, 152.0]);
        assert_eq!(cross_check(&a, &c, None), Agreement::Disagree);
    }
}
