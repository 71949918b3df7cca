//! Draws pagewalk's charts in the page.
//!
//! The book's HTML carries, for each `figure.pw-chart`, a static SVG (drawn
//! at build time with the light palette) and the chart's spec as JSON.
//! [`init`] redraws every chart with the current theme's colours using the
//! same renderer as the build (`pagewalk_figures::render_svg`), wires hover
//! and keyboard focus on the marks to the figure's tooltip, and redraws when
//! the reader switches the mdBook theme (a class on `<html>`).
//!
//! Nothing here panics on bad input: a spec that does not parse leaves the
//! static SVG in place, shows a message in the figure and logs a warning.
//!
//! [`replace_series`] lays extra series over a drawn chart (the lab page's
//! own results and the run files a reader loads; see
//! `theme/pagewalk-lab.js`): the chart is redrawn and its data table
//! rewritten from the merged spec.

use std::cell::RefCell;

use pagewalk_figures::overlay::{self, Overlay};
use pagewalk_figures::{esc, render_svg, table_html, ChartSpec, Palette, Role, STATIC_WIDTH};
use pagewalk_model::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, MutationObserver, MutationObserverInit};

/// The modules run single-threaded (no `atomics`), what talc's wasm
/// allocator needs.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

mod csv;
mod events;

use csv::add_csv_button;
use events::{rove, wire};

struct Chart {
    figure: Element,
    spec: ChartSpec,
}

thread_local! {
    /// Every chart set up so far, with the spec it is drawn from now.
    static CHARTS: RefCell<Vec<Chart>> = const { RefCell::new(Vec::new()) };
    static PALETTE: RefCell<Option<Palette>> = const { RefCell::new(None) };
    static OBSERVER: RefCell<Option<MutationObserver>> = const { RefCell::new(None) };
}

/// `key.with(f)`, or `R`'s default where the value is gone (never, in a
/// page: nothing is torn down), without `with`'s panic, whose message
/// would bring `Debug` formatting into the module.
pub(crate) fn local<T: 'static, R: Default>(
    key: &'static std::thread::LocalKey<T>,
    f: impl FnOnce(&T) -> R,
) -> R {
    key.try_with(f).unwrap_or_default()
}

fn warn(msg: &str) {
    web_sys::console::warn_1(&JsValue::from_str(msg));
}

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// Finds every `figure.pw-chart` not yet set up, draws it with the theme's
/// palette and wires its tooltip; installs the theme observer once.
/// Returns how many charts were drawn. Safe to call again (new figures only).
#[wasm_bindgen]
pub fn init() -> u32 {
    let Some(doc) = document() else {
        warn("pagewalk-viz: no document");
        return 0;
    };
    let Ok(list) = doc.query_selector_all("figure.pw-chart") else {
        return 0;
    };
    let palette = current_palette(&doc);
    let mut drawn = 0;
    for i in 0..list.length() {
        let Some(figure) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
            continue;
        };
        if figure.has_attribute("data-pw-state") {
            continue;
        }
        match read_spec(&figure) {
            Ok(spec) => {
                draw(&figure, &spec, &palette);
                wire(&figure);
                local(&CHARTS, |c| c.borrow_mut().push(Chart { figure, spec }));
                drawn += 1;
            }
            Err(msg) => show_error(&figure, &msg),
        }
    }
    local(&PALETTE, |p| *p.borrow_mut() = Some(palette));
    observe_theme(&doc);
    drawn
}

/// Replaces, in the chart whose figure has `data-chart="CHART"`, the
/// series of `role` (`browser` or `file`; with `label`, only the series of
/// that file) by those of `overlay` (JSON: `{"series": [...],
/// "categories": [...]}`), then redraws it and rewrites its data table.
/// Returns false when the page has no such chart; throws a string naming
/// a bad role or overlay.
#[wasm_bindgen]
pub fn replace_series(chart: &str, role: &str, label: &str, overlay: &str) -> bool {
    let role = match role {
        "browser" => Role::Browser,
        "file" => Role::File,
        other => throw(format!(
            "replace_series: role `{other}` is not browser or file"
        )),
    };
    let overlay: Overlay = match json::from_str(overlay) {
        Ok(overlay) => overlay,
        Err(e) => throw(format!(
            "replace_series: overlay for `{chart}` is not valid: {e}"
        )),
    };
    let label = (!label.is_empty()).then_some(label);
    with_chart(chart, |spec| overlay::replace(spec, role, label, overlay))
}

/// Replaces the x-axis markers of chart `CHART` with `markers` (JSON
/// array of `{x, label, kind}`) and redraws it. Returns false when the page
/// has no such chart; throws a string when the markers do not read.
#[wasm_bindgen]
pub fn set_markers(chart: &str, markers: &str) -> bool {
    let markers = match json::from_str(markers) {
        Ok(markers) => markers,
        Err(e) => throw(format!(
            "set_markers: markers for `{chart}` are not valid: {e}"
        )),
    };
    with_chart(chart, |spec| overlay::set_x_markers(spec, markers))
}

/// Throws `msg` to the caller as a string, what an `Err(JsValue)` return
/// threw, without a `Result` return (whose three-value export shim the
/// module would carry for each function). Called with nothing borrowed:
/// the thrown exception leaves the wasm stack without unwinding it.
fn throw(msg: String) -> ! {
    wasm_bindgen::throw_val(JsValue::from_str(&msg))
}

/// Applies `change` to chart `chart`'s spec, then redraws the chart and
/// rewrites its data table. False when the page has no such chart.
fn with_chart(chart: &str, change: impl FnOnce(&mut ChartSpec)) -> bool {
    let Some(doc) = document() else {
        return false;
    };
    let palette = local(&PALETTE, |p| p.borrow().clone()).unwrap_or_else(|| current_palette(&doc));
    local(&CHARTS, |charts| {
        let mut charts = charts.borrow_mut();
        let Some(c) = charts
            .iter_mut()
            .find(|c| c.figure.get_attribute("data-chart").as_deref() == Some(chart))
        else {
            return false;
        };
        change(&mut c.spec);
        draw(&c.figure, &c.spec, &palette);
        if let Some(details) = c.figure.query_selector(".pw-chart-data").ok().flatten() {
            details.set_inner_html(&format!(
                "<summary>Data table</summary>{}",
                table_html(&c.spec)
            ));
            add_csv_button(&c.figure);
        }
        true
    })
}

fn read_spec(figure: &Element) -> Result<ChartSpec, String> {
    let script = figure
        .query_selector("script.pw-chart-spec")
        .ok()
        .flatten()
        .ok_or("the figure has no script.pw-chart-spec")?;
    let text = script.text_content().unwrap_or_default();
    ChartSpec::from_json(&text)
}

fn show_error(figure: &Element, msg: &str) {
    let id = figure.id();
    warn(&format!("pagewalk-viz: chart #{id}: {msg}"));
    let _ = figure.set_attribute("data-pw-state", "error");
    let html = format!(
        "<p class=\"pw-chart-error\" role=\"alert\">This chart could not be drawn interactively ({}); \
         the static chart and the data table below still hold its numbers.</p>",
        esc(msg)
    );
    let anchor = figure.query_selector(".pw-chart-plot").ok().flatten();
    match anchor {
        Some(plot) => {
            let _ = plot.insert_adjacent_html("afterend", &html);
        }
        None => {
            let _ = figure.insert_adjacent_html("afterbegin", &html);
        }
    }
}

/// The theme's palette from the CSS custom properties on `<html>`; a
/// property the theme does not set keeps the light palette's colour.
fn current_palette(doc: &Document) -> Palette {
    let mut pal = Palette::light();
    let style = doc
        .document_element()
        .and_then(|root| web_sys::window()?.get_computed_style(&root).ok().flatten());
    let Some(style) = style else {
        return pal;
    };
    let get = |name: &str| {
        style
            .get_property_value(name)
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    // The light palette's six series hues, each named in full (no
    // `format!` of the number).
    let series = [
        "--pw-series-1",
        "--pw-series-2",
        "--pw-series-3",
        "--pw-series-4",
        "--pw-series-5",
        "--pw-series-6",
    ];
    for (slot, name) in pal.series.iter_mut().zip(series) {
        if let Some(v) = get(name) {
            *slot = v;
        }
    }
    for (name, slot) in [
        ("--pw-browser", &mut pal.browser),
        ("--pw-file", &mut pal.file),
        ("--pw-axis", &mut pal.axis),
        ("--pw-grid", &mut pal.grid),
        ("--fg", &mut pal.fg),
        ("--bg", &mut pal.bg),
    ] {
        if let Some(v) = get(name) {
            *slot = v;
        }
    }
    pal
}

/// The width charts are drawn at for paper: the print stylesheet gives a
/// chart half the A4 measure (about 344 CSS px), and this is the phone
/// width whose layout the browser tests check for overlapping labels, so
/// the labels print at about 8 pt.
const PRINT_WIDTH: u32 = 390;

fn draw(figure: &Element, spec: &ChartSpec, palette: &Palette) {
    draw_at(figure, spec, palette, None)
}

/// Draws at the plot's width, or at `width` when given (printing).
fn draw_at(figure: &Element, spec: &ChartSpec, palette: &Palette, width: Option<u32>) {
    let Some(plot) = figure.query_selector(".pw-chart-plot").ok().flatten() else {
        show_error(figure, "the figure has no .pw-chart-plot");
        return;
    };
    let width = width.unwrap_or(match plot.client_width() {
        w if w >= 280 => w as u32,
        _ => STATIC_WIDTH,
    });
    plot.set_inner_html(&render_svg(spec, palette, width, 0));
    rove(&plot, None);
    let _ = figure.set_attribute("data-pw-state", "ready");
}

/// Redraws every chart with the theme's palette, if it changed.
fn redraw_all() {
    let Some(doc) = document() else { return };
    let palette = current_palette(&doc);
    if local(&PALETTE, |p| p.borrow().as_ref() != Some(&palette)) {
        draw_all(palette, None);
    }
}

fn draw_all(palette: Palette, width: Option<u32>) {
    local(&CHARTS, |charts| {
        for c in charts.borrow().iter() {
            draw_at(&c.figure, &c.spec, &palette, width);
        }
    });
    local(&PALETTE, |p| *p.borrow_mut() = Some(palette));
}

/// Paper is white whatever the screen theme, and a printed chart is half
/// the measure: print with the light palette at [`PRINT_WIDTH`], then
/// draw again for the screen.
fn observe_print() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let before = Closure::<dyn FnMut()>::new(|| draw_all(Palette::light(), Some(PRINT_WIDTH)));
    let after = Closure::<dyn FnMut()>::new(|| {
        if let Some(doc) = document() {
            draw_all(current_palette(&doc), None);
        }
    });
    let _ = window.add_event_listener_with_callback("beforeprint", before.as_ref().unchecked_ref());
    let _ = window.add_event_listener_with_callback("afterprint", after.as_ref().unchecked_ref());
    before.forget();
    after.forget();
}

/// mdBook switches themes by changing `<html>`'s class: redraw then.
fn observe_theme(doc: &Document) {
    if local(&OBSERVER, |o| o.borrow().is_some()) {
        return;
    }
    let Some(root) = doc.document_element() else {
        return;
    };
    let callback = Closure::<dyn FnMut()>::new(redraw_all);
    let Ok(observer) = MutationObserver::new(callback.as_ref().unchecked_ref()) else {
        warn("pagewalk-viz: no MutationObserver; charts will not follow theme switches");
        return;
    };
    callback.forget();
    observe_print();
    let options = MutationObserverInit::new();
    options.set_attributes(true);
    options.set_attribute_filter(&js_sys::Array::of1(&JsValue::from_str("class")));
    if observer.observe_with_options(&root, &options).is_ok() {
        local(&OBSERVER, |o| *o.borrow_mut() = Some(observer));
    }
}
