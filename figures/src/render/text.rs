//! Text in a chart: escaping, value labels for marks, and the estimated
//! widths that lay labels out (the same natively and in wasm).

use std::fmt::{self, Write};

use crate::spec::Point;

/// Escapes text for SVG/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The exact value as written in `data-value` and the data table's CSV:
/// the shortest decimal that reads back as the same `f64`.
pub fn exact(v: f64) -> String {
    pagewalk_model::decimal::shortest(v)
}

/// A value as a person reads it, in its axis' unit with about three
/// significant digits: `252 ns per page`, `1.52 µs`, `4 MiB`
/// ([`pagewalk_model::units::value`]).
pub fn with_unit(v: f64, unit: &str) -> String {
    pagewalk_model::units::value(v, unit)
}

/// What a mark says to hover, focus and screen readers.
pub fn mark_label(where_: &str, series: &str, p: &Point, unit: &str) -> Option<String> {
    mark_label_named(where_, series, p, unit, ("min", "max"))
}

/// [`mark_label`] with the whisker ends named (e.g. `p50`, `p99`).
pub fn mark_label_named(
    where_: &str,
    series: &str,
    p: &Point,
    unit: &str,
    (low, high): (&str, &str),
) -> Option<String> {
    let v = p.value?;
    let mut s = format!("{where_}, {series}: {}", with_unit(v, unit));
    let mut extra = Vec::new();
    if let (Some(lo), Some(hi)) = (p.min, p.max) {
        extra.push(format!(
            "{low} {}, {high} {}",
            with_unit(lo, unit),
            with_unit(hi, unit)
        ));
    }
    if let Some(n) = &p.note {
        extra.push(n.clone());
    }
    if !extra.is_empty() {
        let _ = write!(s, " ({})", extra.join(", "));
    }
    Some(s)
}

/// Estimated width of `s` at font size `size`: the static SVG is laid out
/// without a browser, so per-character widths of common sans-serif faces,
/// rounded up (capitals and `m`/`w` wide, `i`/`l`/punctuation narrow) so a
/// label is never wider than the room made for it.
pub(super) fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | '(' | ')' => 0.34,
            'f' | 't' | 'r' | 'I' | '[' | ']' | '-' => 0.42,
            'm' | 'w' | 'M' | 'W' | '@' | '%' => 0.9,
            c if c.is_ascii_uppercase() || c == '_' => 0.72,
            _ => 0.6,
        })
        .sum();
    em * size
}

pub(super) fn truncate(s: &str, width: f64, size: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let mut t = String::new();
    for c in s.chars() {
        t.push(c);
        if text_width(&t, size) + text_width("…", size) > width {
            t.pop();
            break;
        }
    }
    t.push('…');
    t
}

/// `s` broken at spaces into lines no wider than `width` (a single word
/// wider than that is cut with an ellipsis): titles and labels wrap on a
/// phone instead of running off the chart.
pub(super) fn wrap(s: &str, width: f64, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let joined = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if text_width(&joined, size) <= width || line.is_empty() {
            line = joined;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    // In place: collecting a mapped `into_iter` was a kilobyte of wasm.
    for l in &mut lines {
        *l = truncate(l, width, size);
    }
    lines
}

pub(super) fn n(v: f64) -> String {
    // Two decimals are plenty for pixels.
    pagewalk_model::units::trimmed(v, 2)
}

// The three below are what [`n`], [`esc`] and [`exact`] write, as format
// arguments: the text goes straight into the string being written, with
// no `String` of its own to make and drop at each of the renderer's
// hundred or so places (about 2 KB of the page's wasm).

/// [`n`] of the value, as a format argument.
pub(crate) struct Px(pub f64);

impl fmt::Display for Px {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&n(self.0))
    }
}

/// [`esc`] of the text, as a format argument.
pub(crate) struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&esc(self.0))
    }
}

/// [`exact`] of the value, as a format argument.
pub(crate) struct Exact(pub f64);

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&exact(self.0))
    }
}
