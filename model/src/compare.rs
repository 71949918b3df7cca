//! Is a difference real? The rule the book applies everywhere: if A vs B
//! differs by less than A vs A (the same thing measured twice), nothing was
//! measured. One definition, used by the collector's summary, the charts and
//! the chapters.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;

/// `|b / a - 1|` of the medians: 0.05 means 5% apart. `None` when `a`'s
/// median is not positive.
pub fn relative_difference(a: &Summary, b: &Summary) -> Option<f64> {
    (a.median > 0.0).then(|| (b.median / a.median - 1.0).abs())
}

/// Standard deviation over mean; `None` for fewer than two samples or a
/// mean of zero.
pub fn coefficient_of_variation(samples: &[f64]) -> Option<f64> {
    let n = samples.len();
    if n < 2 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    if mean == 0.0 {
        return None;
    }
    let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(var.sqrt() / mean.abs())
}

/// A difference between two distributions held against the A-vs-A noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Verdict {
    /// Relative difference of the two medians compared.
    pub difference: f64,
    /// The A-vs-A noise floor: how far apart measurements that should not
    /// differ came out (at least the medians of two identical batches).
    pub noise: f64,
    /// `difference <= noise`: the comparison measured nothing.
    pub inside_noise: bool,
}

impl Verdict {
    pub fn new(difference: f64, noise: f64) -> Verdict {
        Verdict {
            difference,
            noise,
            inside_noise: difference <= noise,
        }
    }

    /// `a` vs `b` against the noise of `a` vs `a_again`.
    pub fn of(a: &Summary, a_again: &Summary, b: &Summary) -> Option<Verdict> {
        Some(Verdict::new(
            relative_difference(a, b)?,
            relative_difference(a, a_again)?,
        ))
    }

    /// `5.2% apart, inside the A-vs-A noise (7.1%)`; two significant
    /// figures, so that two small differences never print alike.
    pub fn describe(&self) -> String {
        let pct = |x: f64| match x * 100.0 {
            p if p.is_finite() => format!("{}%", two_figures(p)),
            _ => crate::units::NOT_A_NUMBER.to_string(),
        };
        format!(
            "{} apart, {} the A-vs-A noise ({})",
            pct(self.difference),
            if self.inside_noise {
                "inside"
            } else {
                "outside"
            },
            pct(self.noise)
        )
    }
}

/// `0.24`, `7.1`, `52`: two significant figures, at most two decimals.
fn two_figures(x: f64) -> String {
    let decimals = if x >= 10.0 {
        0
    } else if x >= 1.0 {
        1
    } else {
        2
    };
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(median: f64) -> Summary {
        Summary {
            n: 3,
            min: median,
            median,
            max: median,
            mean: median,
        }
    }

    #[test]
    fn a_difference_smaller_than_a_vs_a_is_noise() {
        let v = Verdict::of(&s(100.0), &s(104.0), &s(103.0)).unwrap();
        assert!(v.inside_noise);
        assert!((v.difference - 0.03).abs() < 1e-12);
        let v = Verdict::of(&s(100.0), &s(101.0), &s(150.0)).unwrap();
        assert!(!v.inside_noise);
        assert_eq!(v.describe(), "50% apart, outside the A-vs-A noise (1.0%)");
        assert!(Verdict::of(&s(0.0), &s(1.0), &s(1.0)).is_none());
        assert_eq!(
            Verdict::new(0.0024, 0.0018).describe(),
            "0.24% apart, outside the A-vs-A noise (0.18%)"
        );
    }

    #[test]
    fn cv() {
        assert_eq!(coefficient_of_variation(&[1.0]), None);
        let cv = coefficient_of_variation(&[9.0, 11.0]).unwrap();
        assert!((cv - 2f64.sqrt() / 10.0).abs() < 1e-12, "{cv}");
    }
}
