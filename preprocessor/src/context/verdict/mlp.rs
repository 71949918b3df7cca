//! `mlp.verdict`: whether translation lowered the number of misses one
//! thread overlaps (the best `t(1)/t(k)` on 4 KiB pages against huge
//! pages'), and whether 4 KiB pages still cost more per load at one chain
//! and with every chain in flight.

use schemars::JsonSchema;
use serde::Serialize;

use super::{backed, order, Measured, FASTER, SLOWER};
use crate::context::mlp::{Mlp, Point};

/// Each null where its inputs are absent (a region skipped).
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct MlpVerdict {
    /// `lower-with-4k` (huge pages overlapped more loads at their best than 4 KiB pages at theirs, beyond the repetitions' ranges, else the A-vs-A floor), `same`, or `higher-with-4k`.
    pub ceiling: Option<&'static str>,
    /// The best parallelism on huge pages over the best on 4 KiB pages.
    pub ceiling_ratio: Option<f64>,
    /// `slower`, `faster`, `within-noise`: 4 KiB pages against huge pages, ns per load, one chain.
    pub one: Option<&'static str>,
    /// The same with the largest chain count.
    pub top: Option<&'static str>,
    /// ns per load on 4 KiB pages over huge pages, one chain.
    pub one_ratio: Option<f64>,
    /// The same with the largest chain count.
    pub top_ratio: Option<f64>,
    /// `all`, `some`, `none`: how much of the huge region came in huge pages.
    pub huge_backed: Option<&'static str>,
}

/// The best parallelism of 4 KiB pages against that of huge pages, each
/// with its range: `lower-with-4k`, `same` or `higher-with-4k`.
pub fn ceiling(small: Measured, huge: Measured, floor: Option<f64>) -> &'static str {
    // `order` reads more as slower; here more is more loads overlapped.
    match order(huge, small, floor) {
        SLOWER => "lower-with-4k",
        FASTER => "higher-with-4k",
        _ => "same",
    }
}

fn ns(p: &Point) -> Measured {
    Measured {
        median: p.ns,
        min: p.ns_min,
        max: p.ns_max,
    }
}

fn parallelism(p: &Point) -> Option<Measured> {
    Measured::ranged(p.parallelism, p.parallelism_min, p.parallelism_max)
}

/// Files the verdict under `mlp`.
pub fn add(mlp: &mut Mlp, floor: Option<f64>) {
    let (Some(small), Some(huge)) = (&mlp.regions.small, &mlp.regions.huge) else {
        return;
    };
    if small.skipped.is_some() || huge.skipped.is_some() {
        mlp.verdict = Some(MlpVerdict {
            huge_backed: huge.huge_percent.map(|p| backed(p / 100.0)),
            ..MlpVerdict::default()
        });
        return;
    }
    let best = small
        .best
        .as_ref()
        .and_then(parallelism)
        .zip(huge.best.as_ref().and_then(parallelism));
    let one = small.one.as_ref().zip(huge.one.as_ref());
    let top = small.top.as_ref().zip(huge.top.as_ref());
    mlp.verdict = Some(MlpVerdict {
        ceiling: best.map(|(s, h)| ceiling(s, h, floor)),
        ceiling_ratio: best
            .filter(|(s, _)| s.median > 0.0)
            .map(|(s, h)| h.median / s.median),
        one: one.map(|(s, h)| order(ns(s), ns(h), floor)),
        top: top.map(|(s, h)| order(ns(s), ns(h), floor)),
        one_ratio: one.map(|(s, h)| s.ns / h.ns),
        top_ratio: top.map(|(s, h)| s.ns / h.ns),
        huge_backed: huge.huge_percent.map(|p| backed(p / 100.0)),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(median: f64, spread: f64) -> Measured {
        Measured {
            median,
            min: median - spread,
            max: median + spread,
        }
    }

    #[test]
    fn huge_pages_overlapping_more_is_a_lower_ceiling_on_4k() {
        assert_eq!(ceiling(m(6.0, 0.5), m(14.0, 1.0), None), "lower-with-4k");
        assert_eq!(ceiling(m(20.0, 2.0), m(20.5, 2.0), None), "same");
        assert_eq!(ceiling(m(20.0, 1.0), m(14.0, 1.0), None), "higher-with-4k");
        // One repetition: the floor decides.
        let one = Measured::single;
        assert_eq!(ceiling(one(20.0), one(20.6), Some(0.05)), "same");
        assert_eq!(ceiling(one(10.0), one(20.0), Some(0.05)), "lower-with-4k");
    }
}
