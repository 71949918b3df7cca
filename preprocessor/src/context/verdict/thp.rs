//! The THP verdicts: each size's comparison and grant, and the cross-check
//! against the staircase.

use schemars::JsonSchema;
use serde::Serialize;

use super::{cross_check as agree, granted, order, Measured};
use crate::context::staircase::Staircase;
use crate::context::thp::{Size, Thp};

/// The same configuration measured by two experiments.
#[derive(Clone, Serialize, JsonSchema)]
pub struct CrossCheck {
    /// The size (`thp.medium`'s).
    pub size: String,
    /// The staircase's 4 KiB point there, median ns per load.
    pub stair_ns: f64,
    /// Its fastest repetition.
    pub stair_ns_min: f64,
    /// Its slowest repetition.
    pub stair_ns_max: f64,
    /// `thp`'s own 4 KiB figure there.
    pub thp_ns: f64,
    /// Its fastest repetition.
    pub thp_ns_min: f64,
    /// Its slowest repetition.
    pub thp_ns_max: f64,
    /// `agree` when the two ranges overlap, else `disagree`.
    pub verdict: &'static str,
}

/// `thp.sizes[].small_vs_huge` and `.granted`, also under `medium`, `large`.
pub fn sizes(thp: &mut Thp, floor: Option<f64>) {
    let one = |s: &mut Size| {
        let c = &s.chase;
        s.small_vs_huge = Measured::ranged(c.small_ns, c.small_ns_min, c.small_ns_max)
            .zip(Measured::ranged(c.huge_ns, c.huge_ns_min, c.huge_ns_max))
            .map(|(a, b)| order(a, b, floor));
        let windows = (s.bytes as f64 / (2u64 << 20) as f64) as u64;
        s.granted = s.huge_fraction.map(|f| granted(f, windows));
    };
    thp.sizes.iter_mut().for_each(one);
    thp.medium.iter_mut().for_each(one);
    thp.large.iter_mut().for_each(one);
}

/// `thp.cross_check`: the staircase's 4 KiB point at the size of the first
/// `thp` region, against the `thp` experiment's own 4 KiB figure there.
pub fn cross_check(stair: Option<&Staircase>, thp: &Thp) -> Option<CrossCheck> {
    let size = thp.medium.as_ref()?;
    let point = stair?.points.iter().find(|p| p.bytes == size.bytes)?;
    let small = |c: &crate::context::translation::Chase| {
        Measured::ranged(c.small_ns, c.small_ns_min, c.small_ns_max)
    };
    let (a, b) = (small(&point.chase)?, small(&size.chase)?);
    Some(CrossCheck {
        size: size.size.clone(),
        stair_ns: a.median,
        stair_ns_min: a.min,
        stair_ns_max: a.max,
        thp_ns: b.median,
        thp_ns_min: b.min,
        thp_ns_max: b.max,
        verdict: agree(a, b),
    })
}
