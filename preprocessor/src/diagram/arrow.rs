//! What every diagram is drawn with: its width and its arrowheads.

/// The width of every diagram's `viewBox`, in user units. The page shows a
/// diagram at most 440 px wide (`theme/pagewalk-diagrams.css`) and, on a
/// 390 px phone, in a 350 px column: drawn 340 wide, its 11 px notes are
/// never smaller than 11 CSS px on a phone, and about 14 px on a screen.
/// Every line of text is laid out to fit its box at this width.
pub(super) const WIDTH: u32 = 340;

/// The arrowhead every diagram's arrows end in (`marker-end="url(#pw-dg-head)"`).
pub(super) const ARROW_HEAD: &str =
    "<defs><marker id=\"pw-dg-head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
     markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
     <path d=\"M0,0 L10,5 L0,10 z\" class=\"pw-dg-arrowhead\"/></marker></defs>";
