//! The chart's data as an accessible table for screen readers, print and
//! anyone reading the numbers: values in human units with about three
//! significant digits. The exact values are in each cell's `data-value`
//! and in [`table_csv`] (the page's "Copy as CSV").

use std::fmt::Write;

use pagewalk_model::units;

use crate::render::{esc, exact, Esc, Exact};
use crate::spec::{ChartKind, ChartSpec, Point, Series};

// The helpers below run in the page too (wasm-viz redraws a table with
// its overlays), so they use no `str` pattern search, `replace` or
// slicing: each of those links kilobytes of searchers and panic text into
// the chart component (scripts/build-wasm holds it to its budget).

/// The first word of `unit` (`ns` of `ns per page`).
fn head(unit: &str) -> &str {
    unit.split(' ').next().unwrap_or("")
}

/// Whether [`human`] writes `unit` into each value (`1.52 µs`, `4 MiB`,
/// `99.5%`): then a header must not name a unit of its own, since the
/// values change unit down a column (`(bytes)` above `4 KiB` is wrong).
fn carries_unit(unit: &str) -> bool {
    matches!(
        head(unit),
        "ns" | "bytes" | "B" | "KiB" | "MiB" | "GiB" | "%"
    )
}

/// `text` with every space unbreakable.
fn unbroken(text: &str) -> String {
    text.chars()
        .map(|c| if c == ' ' { '\u{a0}' } else { c })
        .collect()
}

/// A value in a cell: the unit's quantity only (`1.52 µs`, `4 MiB`,
/// `99.5%`), since the caption names the whole unit (`ns per page`); the
/// number and its unit never part on a narrow screen.
fn human(v: f64, unit: &str) -> String {
    if carries_unit(unit) {
        unbroken(&units::value(v, head(unit)))
    } else {
        units::count(v)
    }
}

/// The words of `text` between spaces, brackets and commas.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split([' ', '(', ')', ','])
}

/// Whether `needle` stands anywhere in `hay`, byte for byte.
fn holds(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    !n.is_empty() && h.windows(n.len()).any(|w| w == n)
}

/// `label (unit)`, unless each value says its unit or the label already
/// names it (`time since the first sample (s)`, `pages touched`).
fn with_header_unit(label: &str, unit: &str) -> String {
    let named = unit.is_empty()
        || carries_unit(unit)
        || (unit.len() > 2 && holds(label, unit))
        || words(label).any(|w| w == unit);
    if named {
        label.to_string()
    } else {
        format!("{label} ({unit})")
    }
}

/// `w` without the punctuation that may follow a unit (`KiB),`).
#[cfg(not(target_arch = "wasm32"))]
fn bare(w: &str) -> &str {
    let b = w.as_bytes();
    let mut end = b.len();
    while end > 0 && matches!(b[end - 1], b')' | b',' | b';' | b':') {
        end -= 1;
    }
    w.get(..end).unwrap_or(w)
}

/// `text` escaped, each number and the unit after it (`4 KiB pages`,
/// `order 1 (8 KiB)`) kept on one line; the text itself unchanged. In the
/// page (a table redrawn with an overlay) the text is escaped only: the
/// build's table did the rest, and the chart component has no room for it.
#[cfg(target_arch = "wasm32")]
fn label(text: &str) -> String {
    esc(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn label(text: &str) -> String {
    let mut out = String::new();
    let mut words = text.split(' ').peekable();
    while let Some(w) = words.next() {
        if !out.is_empty() {
            out.push(' ');
        }
        let number = w.as_bytes().last().is_some_and(u8::is_ascii_digit);
        let unit = words.peek().map(|u| bare(u));
        if number && unit.is_some_and(|u| carries_unit(u) || matches!(u, "s" | "pages" | "TiB")) {
            let u = words.next().unwrap_or_default();
            let _ = write!(out, "<span class=\"pw-num\">{} {}</span>", Esc(w), Esc(u));
        } else {
            out.push_str(&esc(w));
        }
    }
    out
}

/// `v`'s number and unit, split at its last unbreakable space (in the
/// page, none: each end keeps its unit, for room's sake).
#[cfg(target_arch = "wasm32")]
fn number_and_unit(_: &str) -> Option<(&str, &str)> {
    None
}

#[cfg(not(target_arch = "wasm32"))]
fn number_and_unit(v: &str) -> Option<(&str, &str)> {
    let (at, _) = v.char_indices().rfind(|&(_, c)| c == '\u{a0}')?;
    Some((v.get(..at)?, v.get(at + '\u{a0}'.len_utf8()..)?))
}

/// `lo – hi` of a point's whiskers, the unit said once when both ends
/// share it (`1.09 – 1.13 ns`); one unbreakable run of text.
fn range(lo: f64, hi: f64, unit: &str) -> String {
    let (lo, hi) = (human(lo, unit), human(hi, unit));
    let shared = match (number_and_unit(&lo), number_and_unit(&hi)) {
        (Some((n, u)), Some((_, u2))) if u == u2 => Some(n.to_string()),
        _ => None,
    };
    format!("{}\u{a0}–\u{a0}{hi}", shared.unwrap_or(lo))
}

/// The cells of point `p`: its value, then (`spread`) its whiskers' range
/// in a column of its own, so that a number never wraps in a cell.
fn cells(t: &mut String, p: Option<&Point>, unit: &str, spread: bool) {
    match p {
        Some(Point {
            value: Some(v),
            min,
            max,
            ..
        }) => {
            let _ = write!(
                t,
                "<td class=\"pw-num\" data-value=\"{}\">{}</td>",
                Exact(*v),
                Esc(&human(*v, unit))
            );
            if spread {
                match (min, max) {
                    (Some(lo), Some(hi)) => {
                        let _ = write!(
                            t,
                            "<td class=\"pw-num pw-range\">{}</td>",
                            Esc(&range(*lo, *hi, unit))
                        );
                    }
                    _ => t.push_str("<td></td>"),
                }
            }
        }
        _ => {
            let note = p.and_then(|p| p.note.as_deref());
            let _ = write!(
                t,
                "<td><span class=\"pw-gap\">n/a{}</span></td>",
                note.map(|n| format!(" ({})", Esc(n))).unwrap_or_default()
            );
            if spread {
                t.push_str("<td></td>");
            }
        }
    }
}

/// A `<table>` of every value in `spec`: one row per category (bars) or x
/// value (lines), one column per series, and after a series with whiskers
/// their range (`min – max`) in a column of its own; gaps read "n/a" with
/// the reason.
pub fn table_html(spec: &ChartSpec) -> String {
    let mut t = String::from("<table class=\"pw-table\">");
    let spread: Vec<bool> = spec
        .series
        .iter()
        .map(|s| s.points.iter().any(|p| p.min.is_some() && p.max.is_some()))
        .collect();
    let _ = write!(
        t,
        "<caption><span>{}: {}</span></caption>",
        Esc(&spec.title),
        Esc(&with_header_unit(&spec.y.label, &spec.y.unit)),
    );
    let first = match spec.kind {
        ChartKind::Bars => spec.x.label.clone(),
        ChartKind::Lines => with_header_unit(&spec.x.label, &spec.x.unit),
    };
    let _ = write!(t, "<thead><tr><th scope=\"col\">{}</th>", label(&first));
    let (low, high) = spec.y.whisker_names();
    for (s, &spread) in spec.series.iter().zip(&spread) {
        let _ = write!(t, "<th scope=\"col\">{}</th>", label(&s.name));
        if spread {
            let _ = write!(
                t,
                "<th scope=\"col\" class=\"pw-range\" aria-label=\"{}: {} to {}\">{}\u{a0}–\u{a0}{}</th>",
                Esc(&s.name),
                Esc(low),
                Esc(high),
                Esc(low),
                Esc(high)
            );
        }
    }
    t.push_str("</tr></thead><tbody>");
    match spec.kind {
        ChartKind::Bars => {
            for c in &spec.categories {
                let _ = write!(t, "<tr><th scope=\"row\">{}</th>", label(&c.label));
                for (s, &spread) in spec.series.iter().zip(&spread) {
                    cells(&mut t, s.at(&c.key), &spec.y.unit, spread);
                }
                t.push_str("</tr>");
            }
        }
        ChartKind::Lines => {
            for x in xs(spec) {
                let _ = write!(
                    t,
                    "<tr><th scope=\"row\" class=\"pw-num\" data-value=\"{}\">{}</th>",
                    Exact(x),
                    Esc(&human(x, &spec.x.unit))
                );
                for (s, &spread) in spec.series.iter().zip(&spread) {
                    let p = s.points.iter().find(|p| p.x == Some(x));
                    cells(&mut t, p, &spec.y.unit, spread);
                }
                t.push_str("</tr>");
            }
        }
    }
    t.push_str("</tbody></table>");
    if let Some(note) = &spec.note {
        let _ = write!(t, "<p class=\"pw-chart-note\">{}</p>", Esc(note));
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
    let mut xs = crate::render::xs_of(spec);
    pagewalk_model::sort::sort_floats(&mut xs);
    xs.dedup();
    xs
}
