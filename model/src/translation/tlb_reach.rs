//! `tlb-reach`: ns per load against pages touched, the data kept in cache.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use super::{
    curve_of, Agreement, CounterStatus, Curve, Geometry, LineLayout, MeasuredGeometry, Regime, Step,
};

/// `tlb-reach` results: one cache line per 4 KiB page, lines spread over
/// cache sets, so the data stays cached while the page count grows.
///
/// The fields it shares with [`StaircaseResults`] (curves to counters) are
/// spelled out in both rather than in a `#[serde(flatten)]` struct: flatten
/// would lose the field path a load error names ([`crate::json`]).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TlbReachResults {
    /// Line offset step: page `i` holds its line at `(i * k) mod 64`, or
    /// at the folded page number times `k` (see `line_layout`).
    pub line_step: u64,
    /// How the offsets were chosen; absent before schema 6, when they
    /// were `(i * line_step) mod 64`.
    pub line_layout: Option<LineLayout>,
    pub repetitions: u32,
    pub seed: u64,
    /// The data every point touches stays at or below this (half of L2
    /// when L2 is known): the premise that only translation changes.
    pub data_limit_bytes: u64,
    /// Why fewer pages were chased than half of L2 allows: every page is
    /// mapped and touched, and the memory guard scaled the span down.
    pub size_note: Option<String>,
    /// `small` and `huge`; `ChasePoint::pages` is the x axis.
    pub curves: Vec<Curve>,
    pub steps: Vec<Step>,
    pub geometry: Geometry,
    pub agreement: Vec<Agreement>,
    pub counters: Option<CounterStatus>,
    /// Each TLB level's reach as these curves measured it, against CPUID;
    /// absent before schema 6.
    pub measured: Option<MeasuredGeometry>,
}

impl TlbReachResults {
    pub fn curve(&self, regime: Regime) -> Option<&Curve> {
        curve_of(&self.curves, regime)
    }

    pub fn line_layout(&self) -> LineLayout {
        self.line_layout.unwrap_or(LineLayout::Step)
    }
}
