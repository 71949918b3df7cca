//! The chart's data as an accessible table: for screen readers, print, and
//! anyone who wants the exact numbers.

use std::fmt::Write;

use crate::render::{esc, exact, tick_label};
use crate::spec::{ChartKind, ChartSpec, Point};

fn cell(p: Option<&Point>) -> String {
    match p {
        Some(Point {
            value: Some(v),
            min,
            max,
            ..
        }) => {
            let mut s = exact(*v);
            if let (Some(lo), Some(hi)) = (min, max) {
                let _ = write!(
                    s,
                    " <span class=\"pw-range\">({} – {})</span>",
                    exact(*lo),
                    exact(*hi)
                );
            }
            s
        }
        Some(Point {
            value: None, note, ..
        }) => format!(
            "<span class=\"pw-gap\">n/a{}</span>",
            note.as_deref()
                .map(|n| format!(" ({})", esc(n)))
                .unwrap_or_default()
        ),
        None => "<span class=\"pw-gap\">n/a</span>".to_string(),
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
                    let _ = write!(t, "<td>{}</td>", cell(s.at(&c.key)));
                }
                t.push_str("</tr>");
            }
        }
        ChartKind::Lines => {
            let mut xs: Vec<f64> = spec
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter_map(|p| p.x)
                .collect();
            xs.sort_by(|a, b| a.total_cmp(b));
            xs.dedup();
            for x in xs {
                let _ = write!(
                    t,
                    "<tr><th scope=\"row\"><span title=\"{}\">{}</span></th>",
                    exact(x),
                    esc(&tick_label(x, false))
                );
                for s in &spec.series {
                    let _ = write!(
                        t,
                        "<td>{}</td>",
                        cell(s.points.iter().find(|p| p.x == Some(x)))
                    );
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
