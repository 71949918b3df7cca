//! How far a chase point's samples spread within one mapping and between
//! fresh mappings, and what that is typically along a curve: the noise a
//! step or a difference must clear.

use super::Curve;
use crate::stats::Summary;

/// A chase point's spread within a mapping and between fresh mappings,
/// each as `max / min - 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MappingSpread {
    pub mappings: usize,
    /// The median, over mappings with two samples or more, of each
    /// mapping's own spread; `None` with one sample per mapping.
    pub within: Option<f64>,
    /// The spread of the mappings' medians.
    pub between: f64,
    /// The median over mappings of each mapping's fastest sample.
    pub fastest_typical: f64,
}

impl MappingSpread {
    /// The larger of the two: the noise a difference must clear.
    pub fn larger(&self) -> f64 {
        self.within.map_or(self.between, |w| w.max(self.between))
    }

    /// Where the mapping moved the time more than repetition did.
    pub fn between_is_larger(&self) -> bool {
        self.within.is_none_or(|w| self.between > w)
    }
}

impl Curve {
    /// The median, over the curve's points, of the between-mapping spread:
    /// how much placement alone moves a point of this curve. `None` when
    /// no point was timed in several mappings.
    pub fn typical_between_mapping_spread(&self) -> Option<f64> {
        let spreads: Vec<f64> = self
            .points
            .iter()
            .filter_map(|p| Some(p.mapping_spread()?.between))
            .collect();
        Some(Summary::of(&spreads)?.median)
    }

    /// The same median for the spread within one mapping.
    pub fn typical_within_mapping_spread(&self) -> Option<f64> {
        let spreads: Vec<f64> = self
            .points
            .iter()
            .filter_map(|p| p.mapping_spread()?.within)
            .collect();
        Some(Summary::of(&spreads)?.median)
    }
}
