//! What every diagram draws its arrows with.

/// The arrowhead every diagram's arrows end in (`marker-end="url(#pw-dg-head)"`).
pub(super) const ARROW_HEAD: &str =
    "<defs><marker id=\"pw-dg-head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
     markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
     <path d=\"M0,0 L10,5 L0,10 z\" class=\"pw-dg-arrowhead\"/></marker></defs>";
