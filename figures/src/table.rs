//! The chart's data as an accessible table for screen readers, print and
//! anyone reading the numbers: values in human units with about three
//! significant digits. The exact values are in each cell's `data-value`
//! and in [`table_csv`] (the page's "Copy as CSV").

use std::fmt::Write;

use pagewalk_model::units;

use crate::render::{esc, exact};
use crate::spec::{ChartKind, ChartSpec, Point, Series};

/// A value in a cell: the unit's quantity only (`1.52 µs`, `4 MiB`,
/// `99.5%`), since the caption names the whole unit (`ns per page`).
fn human(v: f64, unit: &str) -> String {
    match unit.split(' ').next().unwrap_or("") {
        head @ ("ns" | "bytes" | "B" | "KiB" | "MiB" | "GiB" | "%") => units::value(v, head),
        _ => units::count(v),
    }
}

fn cell(p: Option<&Point>, unit: &str) -> String {
    match p {
        Some(Point {
            value: Some(v),
            min,
            max,
            ..
        }) => {
            let mut s = format!("<td data-value=\"{}\">{}", exact(*v), esc(&human(*v, unit)));
            if let (Some(lo), Some(hi)) = (min, max) {
                let _ = write!(
                    s,
                    " <span class=\"pw-range\">({} – {})</span>",
                    esc(&human(*lo, unit)),
                    esc(&human(*hi, unit))
                );
            }
            s.push_str("</td>");
            s
        }
        Some(Point {
            value: None, note, ..
        }) => format!(
            "<td><span class=\"pw-gap\">n/a{}</span></td>",
            note.as_deref()
                .map(|n| format!(" ({})", esc(n)))
                .unwrap_or_default()
        ),
        None => "<td><span class=\"pw-gap\">n/a</span></td>".to_string(),
    }
}

/// A `<table>` of every value in `spec`: one row per category (bars) or x
/// value (lines), one column per series; gaps read "n/a" with the reason.
pub fn table_html(spec: &ChartSpec) -> String {
    let mut t = String::from("<table class=\"pw-table\">");
    let unit = if spec.y.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", esc(&spec.y.unit))
    };
    let spread = spec
        .series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.min.is_some() && p.max.is_some());
    let _ = write!(
        t,
        "<caption>{}: {}{}{}</caption>",
        esc(&spec.title),
        esc(&spec.y.label),
        unit,
        if spread {
            let (low, high) = spec.y.whisker_names();
            format!("; {} – {} in brackets", esc(low), esc(high))
        } else {
            String::new()
        }
    );
    let first = match spec.kind {
        ChartKind::Bars => spec.x.label.clone(),
        ChartKind::Lines if spec.x.unit.is_empty() => spec.x.label.clone(),
        ChartKind::Lines => format!("{} ({})", spec.x.label, spec.x.unit),
    };
    let _ = write!(t, "<thead><tr><th scope=\"col\">{}</th>", esc(&first));
    for s in &spec.series {
        let _ = write!(t, "<th scope=\"col\">{}</th>", esc(&s.name));
    }
    t.push_str("</tr></thead><tbody>");
    match spec.kind {
        ChartKind::Bars => {
            for c in &spec.categories {
                let _ = write!(t, "<tr><th scope=\"row\">{}</th>", esc(&c.label));
                for s in &spec.series {
                    t.push_str(&cell(s.at(&c.key), &spec.y.unit));
                }
                t.push_str("</tr>");
            }
        }
        ChartKind::Lines => {
            for x in xs(spec) {
                let _ = write!(
                    t,
                    "<tr><th scope=\"row\" data-value=\"{}\">{}</th>",
                    exact(x),
                    esc(&human(x, &spec.x.unit))
                );
                for s in &spec.series {
                    t.push_str(&cell(
                        s.points.iter().find(|p| p.x == Some(x)),
                        &spec.y.unit,
                    ));
                }
                t.push_str("</tr>");
            }
        }
    }
    t.push_str("</tbody></table>");
    if let Some(note) = &spec.note {
        let _ = write!(t, "<p class=\"pw-chart-note\">{}</p>", esc(note));
    }
    t
}

/// The chart's exact values as CSV (RFC 4180 quoting): a header row, then
/// one row per category or x value; a series with whiskers gets two more
/// columns for their ends. Gaps are empty fields.
pub fn table_csv(spec: &ChartSpec) -> String {
    // Fields are written straight into one string (small in the page's wasm).
    fn field(out: &mut String, s: &str, first: bool) {
        if !first {
            out.push(',');
        }
        if s.contains([',', '"', '\n', '\r']) {
            let _ = write!(out, "\"{}\"", s.replace('"', "\"\""));
        } else {
            out.push_str(s);
        }
    }
    let spread = |s: &Series| s.points.iter().any(|p| p.min.is_some() && p.max.is_some());
    let (low, high) = spec.y.whisker_names();
    let with_unit = |name: &str, unit: &str| {
        if unit.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({unit})")
        }
    };
    let x_unit = if spec.kind == ChartKind::Lines {
        spec.x.unit.as_str()
    } else {
        ""
    };
    let mut out = String::new();
    field(&mut out, &with_unit(&spec.x.label, x_unit), true);
    for s in &spec.series {
        field(&mut out, &with_unit(&s.name, &spec.y.unit), false);
        if spread(s) {
            field(&mut out, &format!("{} {low}", s.name), false);
            field(&mut out, &format!("{} {high}", s.name), false);
        }
    }
    out.push_str("\r\n");
    let mut row = |first: &str, at: &dyn Fn(&Series) -> Option<&Point>| {
        field(&mut out, first, true);
        for s in &spec.series {
            let p = at(s);
            let ends = if spread(s) { 3 } else { 1 };
            for v in [
                p.and_then(|p| p.value),
                p.and_then(|p| p.min),
                p.and_then(|p| p.max),
            ]
            .into_iter()
            .take(ends)
            {
                field(&mut out, &v.map(exact).unwrap_or_default(), false);
            }
        }
        out.push_str("\r\n");
    };
    match spec.kind {
        ChartKind::Bars => {
            for c in &spec.categories {
                row(&c.label, &|s| s.at(&c.key));
            }
        }
        ChartKind::Lines => {
            for x in xs(spec) {
                row(&exact(x), &|s| s.points.iter().find(|p| p.x == Some(x)));
            }
        }
    }
    out
}

/// Every x value of a lines chart, once, in order.
fn xs(spec: &ChartSpec) -> Vec<f64> {
    let mut xs: Vec<f64> = spec
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.x)
        .collect();
    pagewalk_model::sort::sort_floats(&mut xs);
    xs.dedup();
    xs
}
