//! pagewalk's charts: the one place that turns run files into charts.
//!
//! * [`build`] (and the builders it names) turns [`RunFile`]s into a
//!   [`ChartSpec`], plain data that travels into the page as JSON;
//! * [`render_svg`] draws a spec as SVG: at build time for the static
//!   fallback, in the page (through `wasm-viz`) with the theme's colours;
//! * [`table_html`] writes the same numbers as an accessible table;
//! * [`figure_html`] puts the three together in the HTML block the
//!   preprocessor emits for `{{chart "NAME"}}`;
//! * [`overlay`] lays more series over a spec in the page: the browser's
//!   own results and the run files a reader drops, read by the model and
//!   charted by [`build`].
//!
//! Compiles natively and for `wasm32-unknown-unknown`.

mod builders;
pub mod overlay;
mod render;
mod spec;
mod table;

pub use builders::{
    alloc_latency, build, charts_of, first_touch_faults, first_touch_ns_per_page, noise_spread,
    series_name, syscall_floor, tail_histogram, tail_percentiles, BuildError, CHART_NAMES,
};
pub use builders::{
    inspect_faults, inspect_huge_pages, inspect_run_queue, inspect_switches, inspection_in,
};
pub use builders::{lab, size_label, staircase, thp, tlb_reach};
pub use pagewalk_model::RunFile;
pub use render::{
    byte_label, byte_ticks, esc, exact, linear_ticks, log_ticks, mark_label, mark_label_named,
    nice_step, render_svg, styles, tick_label, with_unit, Hue, Palette, Style, ValueScale, SHAPES,
};
pub use spec::{Axis, Category, ChartKind, ChartSpec, Point, Role, Scale, Series, Whiskers};
pub use spec::{Marker, MarkerKind};
pub use table::{table_csv, table_html};

/// Width of the static SVG the build puts in the page for a wide screen (it
/// scales down with the page through its `viewBox`).
pub const STATIC_WIDTH: u32 = 720;
/// Width of the one it puts there for a phone: the plot's width in a 390 px
/// window, so its text is drawn at its own size (never under 11 CSS px)
/// and a redraw there keeps its height.
pub const STATIC_NARROW_WIDTH: u32 = 350;

/// The spec as JSON that is safe inside `<script type="application/json">`:
/// `</` becomes `<\/` and `<!--` becomes `\u003c!--`, both still the same
/// JSON.
pub fn spec_json(spec: &ChartSpec) -> String {
    let json = serde_json::to_string(spec).unwrap_or_else(|_| "null".to_string());
    json.replace("</", "<\\/").replace("<!--", "\\u003c!--")
}

/// The HTML block for `{{chart "NAME"}}`: the static SVG (light palette),
/// the tooltip live region, the caption, the data table and the spec for
/// `wasm-viz`. One block with no blank line, so Markdown passes it through
/// as raw HTML. A caption that only repeats the title is left out: the
/// chart draws its title, and a title said twice prints twice.
///
/// The data table is in the page as HTML, with or without JavaScript (the
/// preprocessor keeps a figure's text out of the search index:
/// `preprocessor/src/search.rs`). The exact values as CSV are made when the
/// reader asks ("Copy as CSV", added by `wasm-viz`), so the numbers ship
/// three times (SVG, table, spec), not four.
pub fn figure_html(name: &str, spec: &ChartSpec, caption: &str) -> String {
    let description = if spec.description.is_empty() {
        spec.y.label.as_str()
    } else {
        spec.description.as_str()
    };
    // Two layouts, one shown by the page's CSS (`theme/pagewalk.css`,
    // `data-layout`): without JavaScript a phone gets a figure laid out for
    // its width, not a wide one scaled down to unreadable text.
    let layout = |width, name: &str| {
        render_svg(spec, &Palette::light(), width, 0).replacen(
            "<svg ",
            &format!("<svg data-layout=\"{name}\" "),
            1,
        )
    };
    let svg = layout(STATIC_WIDTH, "wide") + &layout(STATIC_NARROW_WIDTH, "narrow");
    format!(
        "<figure class=\"pw-chart\" id=\"chart-{name}\" data-chart=\"{name}\">\n\
         <div class=\"pw-chart-plot\" role=\"group\" aria-label=\"{label}\">{svg}</div>\n\
         <div class=\"pw-tooltip\" role=\"status\" aria-live=\"polite\"></div>\n\
         {caption}<details class=\"pw-chart-data\"><summary>Data table</summary>{table}</details>\n\
         <script type=\"application/json\" class=\"pw-chart-spec\">{json}</script>\n\
         </figure>",
        name = esc(name),
        label = esc(&format!("{}: {}", spec.title, description)),
        caption = if caption == spec.title {
            String::new()
        } else {
            format!("<figcaption>{}</figcaption>\n", esc(caption))
        },
        table = table_html(spec),
        json = spec_json(spec),
    )
}

#[cfg(test)]
mod tests;
