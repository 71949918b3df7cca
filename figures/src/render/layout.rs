//! The sizes all parts of a drawing share: the font size, the padding and
//! the width under which a chart is laid out for a phone.

pub(super) const FONT: f64 = 12.0;
pub(super) const PAD: f64 = 12.0;
/// Below this width (a phone) the legend goes under the plot and the
/// lines chart's y-axis title above it.
pub(super) const NARROW: f64 = 560.0;
