//! How a reader acts on a drawn chart: hover and focus show a mark's
//! label in the tooltip, arrow keys move between marks, "Copy as CSV"
//! copies.

use pagewalk_model::decimal::fixed;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event};

use crate::csv::{add_csv_button, copy_csv};

/// The mark (element with `data-value`) an event happened on, if any.
fn mark_of(event: &Event) -> Option<Element> {
    let target: Element = event.target()?.dyn_into().ok()?;
    target.closest(".pw-mark[data-value]").ok().flatten()
}

/// One listener per figure, for every way a reader acts on a chart:
/// hover and focus on a mark show its label (value and unit) in the
/// figure's `.pw-tooltip` (a `role="status"` live region, so screen readers
/// hear it too); arrow keys move between marks; "Copy as CSV" copies.
/// It sits on the figure, so it survives redraws. Keys have a closure of
/// their own: moving the focus fires focusin inside the key handler, and a
/// wasm closure cannot be re-entered.
pub(crate) fn wire(figure: &Element) {
    add_csv_button(figure);
    let fig = figure.clone();
    let handler = Closure::<dyn FnMut(Event)>::new(move |event: Event| on_event(&fig, &event));
    for name in ["mouseover", "focusin", "mouseout", "focusout", "click"] {
        let _ = figure.add_event_listener_with_callback(name, handler.as_ref().unchecked_ref());
    }
    handler.forget();
    let fig = figure.clone();
    let on_key = Closure::<dyn FnMut(Event)>::new(move |event: Event| on_event(&fig, &event));
    let _ = figure.add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
    on_key.forget();
}

fn on_event(figure: &Element, event: &Event) {
    let Some(plot) = figure.query_selector(".pw-chart-plot").ok().flatten() else {
        return;
    };
    let mark = mark_of(event);
    match (event.type_().as_str(), mark) {
        ("mouseover", Some(mark)) => show_tooltip(figure, &mark),
        ("focusin", Some(mark)) => {
            // A mark reached by the mouse or from script becomes the tab stop.
            let at = marks_in(&plot).iter().position(|m| *m == mark);
            rove(&plot, at);
            show_tooltip(figure, &mark);
        }
        ("mouseout" | "focusout", mark) => {
            if let Some(mark) = mark {
                let _ = mark.class_list().remove_1("pw-active");
            }
            if let Some(tip) = figure.query_selector(".pw-tooltip").ok().flatten() {
                let _ = tip.class_list().remove_1("pw-visible");
            }
        }
        ("keydown", Some(mark)) => {
            if let Some(key) = event.dyn_ref::<web_sys::KeyboardEvent>() {
                arrow_key(&plot, &mark, key);
            }
        }
        ("click", _) => {
            let button = event
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|t| t.closest(".pw-copy-csv").ok().flatten());
            if let Some(button) = button {
                copy_csv(figure, &button);
            }
        }
        _ => {}
    }
}

fn show_tooltip(figure: &Element, mark: &Element) {
    let Some(tip) = figure.query_selector(".pw-tooltip").ok().flatten() else {
        return;
    };
    let label = mark.get_attribute("aria-label").unwrap_or_default();
    tip.set_text_content(Some(&label));
    let m = mark.get_bounding_client_rect();
    let f = figure.get_bounding_client_rect();
    // max/min, not clamp: clamp's panic message would bring float
    // formatting into the wasm.
    let left = (m.x() + m.width() / 2.0 - f.x())
        .max(0.0)
        .min(f.width().max(0.0));
    let top = m.y() - f.y();
    let _ = tip.set_attribute(
        "style",
        &format!("left:{}px;top:{}px", fixed(left, 0), fixed(top, 0)),
    );
    let _ = tip.class_list().add_1("pw-visible");
    let _ = mark.class_list().add_1("pw-active");
}

/// The chart's marks, in drawing order.
fn marks_in(plot: &Element) -> Vec<Element> {
    let Ok(list) = plot.query_selector_all(".pw-mark[data-value]") else {
        return Vec::new();
    };
    // A loop, not `filter_map(..).collect()`: smaller in the wasm.
    let mut marks = Vec::new();
    for i in 0..list.length() {
        if let Some(mark) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
            marks.push(mark);
        }
    }
    marks
}

/// One tab stop per chart (a roving tab index): mark `to` (else the one
/// last reached, kept in the plot's `data-pw-at` across redraws, else the
/// first) takes `tabindex="0"`, every other mark `-1`. Returns that mark.
pub(crate) fn rove(plot: &Element, to: Option<usize>) -> Option<Element> {
    let marks = marks_in(plot);
    let last = marks.len().checked_sub(1)?;
    let at = to
        .or_else(|| plot.get_attribute("data-pw-at")?.parse().ok())
        .unwrap_or(0)
        .min(last);
    let _ = plot.set_attribute("data-pw-at", &at.to_string());
    for (i, m) in marks.iter().enumerate() {
        let _ = m.set_attribute("tabindex", if i == at { "0" } else { "-1" });
    }
    marks.into_iter().nth(at)
}

/// Arrow keys move between a chart's marks (Right/Down next, Left/Up
/// previous, Home/End the ends); the focus, and with it the tooltip,
/// follows. Tab leaves the chart: it is one tab stop.
fn arrow_key(plot: &Element, mark: &Element, key: &web_sys::KeyboardEvent) {
    let marks = marks_in(plot);
    let Some(at) = marks.iter().position(|m| m == mark) else {
        return;
    };
    let to = match key.key().as_str() {
        "ArrowRight" | "ArrowDown" => (at + 1).min(marks.len() - 1),
        "ArrowLeft" | "ArrowUp" => at.saturating_sub(1),
        "Home" => 0,
        "End" => marks.len() - 1,
        _ => return,
    };
    // mdBook turns the page on the left and right arrows: not here.
    key.prevent_default();
    key.stop_propagation();
    if let Some(next) = rove(plot, Some(to)).and_then(|m| m.dyn_into::<web_sys::SvgElement>().ok())
    {
        let _ = next.focus();
    }
}
