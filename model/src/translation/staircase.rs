//! `staircase`: ns per load against region size, in both page regimes.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use super::{curve_of, Agreement, CounterStatus, Curve, Geometry, PublishedLevel, Regime, Step};

/// `staircase` results. The run parameters are absent in published
/// figures, whose source did not give them.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct StaircaseResults {
    /// The largest region asked for and the largest used (the memory guard
    /// may scale it down; then `size_note` says why).
    pub requested_max_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
    pub size_note: Option<String>,
    /// One pointer per slot of this many bytes (64: one per cache line).
    pub stride_bytes: Option<u64>,
    pub repetitions: Option<u32>,
    /// Seed of the chase permutation (`pagewalk_analysis::chase::cycle`).
    pub seed: Option<u64>,
    /// `small` and `huge`, on the same sizes. Empty for published figures.
    pub curves: Vec<Curve>,
    /// Steps found in the curves, classified by comparing the regimes.
    pub steps: Vec<Step>,
    pub geometry: Geometry,
    /// Each CPUID/sysfs bend next to the measured step, where there is one.
    pub agreement: Vec<Agreement>,
    pub counters: Option<CounterStatus>,
    /// Published figures (reference files only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<PublishedLevel>,
}

impl StaircaseResults {
    pub fn curve(&self, regime: Regime) -> Option<&Curve> {
        curve_of(&self.curves, regime)
    }
}
