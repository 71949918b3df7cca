//! SVG rendering of a [`ChartSpec`], used twice: at build time for the
//! static fallback (no JavaScript, print, screen readers) and in the page by
//! `wasm-viz` with the current theme's palette.
//!
//! Why not `plotters` (measured 2026-11-30 with plotters 0.3.7,
//! `default-features = false, features = ["svg_backend", "line_series"]`;
//! wasm32-unknown-unknown, opt-level z, LTO, panic=abort, then
//! `wasm-bindgen` 0.2.130 and `wasm-opt -Oz`):
//!
//! * size: a probe that parses a JSON array and draws a bar chart and a
//!   log-log line chart is 137,198 bytes (62,951 gzipped) with plotters and
//!   50,836 bytes (25,013 gzipped) drawing its SVG by hand: plotters adds
//!   ~86 KB. This crate's whole `wasm-viz` bundle (spec parsing, renderer,
//!   DOM wiring, tooltips, theme observer) is ~147 KB (~64 KB gzipped;
//!   `scripts/build-wasm` prints the current figure), so with plotters it
//!   would come to roughly 220-230 KB, over the 200 KB budget.
//! * addressable marks: plotters' `SVGBackend` writes fixed elements with no
//!   way to add attributes, so every bar and point would have to be drawn a
//!   second time as an overlay anyway (`data-series`, `data-category`,
//!   `data-value`, `tabindex`, `aria-label`).
//! * on wasm32, plotters measures text through a canvas (`web-sys`), so the
//!   static SVG (native, estimated text widths) and the page's SVG would not
//!   even share a layout.
//!
//! Log axes (the one thing plotters would have given for free) are a few
//! lines here: [`ValueScale`] and [`log_ticks`].
//!
//! One concern per file: [`layout`] (the sizes all share), [`palette`]
//! (colours), [`text`] (escaping, value labels, text widths), [`scale`]
//! (value to pixel, ticks and their labels), [`frame`] (title, legend,
//! gridlines, axis titles), [`bars`] and [`lines`] (the two chart kinds).

mod bars;
mod frame;
mod layout;
mod lines;
mod palette;
mod scale;
mod text;

use std::fmt::Write;

use crate::spec::{ChartKind, ChartSpec};

pub use palette::{styles, Hue, Palette, Style, SHAPES};
pub(crate) use scale::xs_of;
pub use scale::{
    byte_label, byte_ticks, linear_ticks, log_ticks, nice_step, tick_label, ValueScale,
};
pub use text::{esc, exact, mark_label, mark_label_named, with_unit};
pub(crate) use text::{Esc, Exact, Px};

use layout::{FONT, NARROW, PAD};

/// Draws `spec` as a standalone SVG string. `height` 0 picks a height that
/// fits the data (bars: one band per category); the SVG scales to its
/// container through its `viewBox`.
///
/// Every present value becomes one element with class `pw-mark` carrying
/// `data-series`, `data-category`, `data-value` (exact), `data-role`,
/// `tabindex="0"` and an `aria-label` with the value and unit; gaps get no
/// mark.
pub fn render_svg(spec: &ChartSpec, palette: &Palette, width: u32, height: u32) -> String {
    let w = f64::from(width.max(280));
    let mut body = String::new();
    // On a phone the legend goes under the plot, which keeps its height.
    let legend_below = w < NARROW;
    let mut top = frame::title(&mut body, spec, palette, w);
    if !legend_below {
        top = frame::legend(&mut body, spec, palette, w, top);
    }
    let mut h = match spec.kind {
        ChartKind::Bars => bars::bars(&mut body, spec, palette, w, f64::from(height), top),
        ChartKind::Lines => lines::lines(&mut body, spec, palette, w, f64::from(height), top),
    };
    if legend_below {
        h = frame::legend(&mut body, spec, palette, w, h - PAD) + PAD - 8.0;
    }
    let mut svg = String::with_capacity(body.len() + 400);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pw-svg\" role=\"graphics-document\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
         font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"{f}\">\
         <title>{t}</title><rect class=\"pw-bg\" width=\"{w}\" height=\"{h}\" fill=\"{bg}\"/>",
        w = Px(w),
        h = Px(h),
        f = Px(FONT),
        t = Esc(&spec.title),
        bg = Esc(&palette.bg),
    );
    svg.push_str(&body);
    svg.push_str("</svg>");
    svg
}
