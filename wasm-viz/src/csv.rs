//! "Copy as CSV": the exact values of a chart, as drawn now.

use pagewalk_figures::{esc, table_csv};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::{local, CHARTS};

/// The data table shows rounded values in human units; "Copy as CSV" puts
/// the exact ones on the clipboard ([`table_csv`] of the chart's current
/// spec, overlays included). Added from here because it needs script.
pub(crate) fn add_csv_button(figure: &Element) {
    let Some(details) = figure.query_selector(".pw-chart-data").ok().flatten() else {
        return;
    };
    if details
        .query_selector(".pw-copy-csv")
        .ok()
        .flatten()
        .is_none()
    {
        let _ = details.insert_adjacent_html(
            "beforeend",
            "<button type=\"button\" class=\"pw-copy-csv\">Copy as CSV</button>",
        );
    }
}

/// Puts the chart's exact values (its current spec, overlays included) on
/// the clipboard, and shows them under the button too: the clipboard may
/// be refused (no permission, an old browser), the text box never is.
pub(crate) fn copy_csv(figure: &Element, button: &Element) {
    let Some(csv) = local(&CHARTS, |charts| {
        charts
            .borrow()
            .iter()
            .find(|c| c.figure == *figure)
            .map(|c| table_csv(&c.spec))
    }) else {
        return;
    };
    let clipboard = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w.navigator(), &"clipboard".into()).ok())
        .filter(|c| c.is_object());
    if let Some(c) = clipboard {
        if let Some(write) = js_sys::Reflect::get(&c, &"writeText".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        {
            let _ = write.call1(&c, &JsValue::from_str(&csv));
        }
    }
    button.set_text_content(Some("Copied as CSV (also below)"));
    if let Some(old) = figure.query_selector(".pw-csv").ok().flatten() {
        old.remove();
    }
    let _ = button.insert_adjacent_html(
        "afterend",
        &format!(
            "<textarea class=\"pw-csv\" readonly rows=\"6\" aria-label=\"the data as CSV\">{}</textarea>",
            esc(&csv)
        ),
    );
}
