//! What surrounds the data: title, legend, gridlines with tick labels,
//! axis titles, the no-data note; and the attributes every mark carries.

use std::fmt::Write;

use super::scale::ValueScale;
use super::text::{esc, exact, mark_label_named, n, text_width, truncate};
use super::{Palette, FONT, PAD};
use crate::spec::{Axis, ChartSpec, Point, Role, Series};

/// Title and legend; returns the y where the plot may start.
pub(super) fn header(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64) -> f64 {
    let mut y = PAD + 15.0;
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"15\" font-weight=\"600\" fill=\"{}\">{}</text>",
        n(PAD),
        n(y),
        esc(&pal.fg),
        esc(&truncate(&spec.title, w - 2.0 * PAD, 15.0))
    );
    y += 10.0;
    let mut x = PAD;
    let mut row = y;
    out.push_str("<g class=\"pw-legend\">");
    for (i, s) in spec.series.iter().enumerate() {
        let item = 16.0 + text_width(&s.name, FONT) + 18.0;
        if x > PAD && x + item > w - PAD {
            x = PAD;
            row += 18.0;
        }
        let colour = pal.series_colour(i);
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\" fill=\"{}\"{}/>\
             <text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>",
            n(x),
            n(row + 4.0),
            esc(colour),
            reference_style(s.role, colour),
            n(x + 16.0),
            n(row + 14.0),
            esc(&pal.fg),
            esc(&s.name)
        );
        x += item;
    }
    out.push_str("</g>");
    row + 26.0
}

/// Published figures are drawn hatched-looking (lighter fill, solid edge)
/// so they never read as the reader's own numbers.
pub(super) fn reference_style(role: Role, colour: &str) -> String {
    match role {
        Role::Reference => format!(
            " fill-opacity=\"0.45\" stroke=\"{}\" stroke-width=\"1.5\"",
            esc(colour)
        ),
        _ => String::new(),
    }
}

pub(super) fn mark_attrs(
    y: &Axis,
    s: &Series,
    where_key: &str,
    where_label: &str,
    p: &Point,
) -> String {
    let v = p.value.unwrap_or(f64::NAN);
    format!(
        " class=\"pw-mark\" data-series=\"{}\" data-category=\"{}\" data-value=\"{}\" data-role=\"{}\" tabindex=\"0\" aria-label=\"{}\"",
        esc(&s.name),
        esc(where_key),
        exact(v),
        s.role.name(),
        esc(&mark_label_named(where_label, &s.name, p, &y.unit, y.whisker_names())
            .unwrap_or_default())
    )
}

pub(super) fn axis_title(
    out: &mut String,
    pal: &Palette,
    x: f64,
    y: f64,
    anchor: &str,
    rotate: bool,
    text: &str,
) {
    let transform = if rotate {
        format!(" transform=\"rotate(-90 {} {})\"", n(x), n(y))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<text class=\"pw-axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" fill=\"{}\"{transform}>{}</text>",
        n(x),
        n(y),
        esc(&pal.axis),
        esc(text)
    );
}

pub(super) fn no_data(out: &mut String, spec: &ChartSpec, pal: &Palette, x: f64, y: f64) {
    let msg = spec.note.as_deref().unwrap_or("no data");
    let _ = write!(
        out,
        "<text class=\"pw-no-data\" x=\"{}\" y=\"{}\" fill=\"{}\">No data to draw: {}</text>",
        n(x),
        n(y),
        esc(&pal.axis),
        esc(msg)
    );
}

/// Which way a scale's gridlines run, and the plot edges they span.
pub(super) enum Gridlines {
    /// Ticks of a horizontal scale: lines from `top` to `bottom`, labels below.
    Vertical { top: f64, bottom: f64 },
    /// Ticks of a vertical scale: lines from `left` to `right`, labels left.
    Horizontal { left: f64, right: f64 },
}

/// A gridline and a tick label at each of `scale`'s ticks.
pub(super) fn gridlines(out: &mut String, scale: &ValueScale, pal: &Palette, dir: Gridlines) {
    for t in scale.ticks() {
        let at = scale.map(t);
        let ((x1, y1, x2, y2), (tx, ty), anchor) = match dir {
            Gridlines::Vertical { top, bottom } => {
                ((at, top, at, bottom), (at, bottom + 16.0), "middle")
            }
            Gridlines::Horizontal { left, right } => {
                ((left, at, right, at), (left - 6.0, at + 4.0), "end")
            }
        };
        let _ = write!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" fill=\"{}\">{}</text>",
            n(x1),
            n(y1),
            n(x2),
            n(y2),
            esc(&pal.grid),
            n(tx),
            n(ty),
            esc(&pal.axis),
            esc(&scale.label(t))
        );
    }
}
