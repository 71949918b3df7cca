//! x/y lines with a point per value, and the x axis' labelled markers.

use std::fmt::Write;

use super::frame::{axis_title, gridlines, mark_attrs, no_data, Gridlines};
use super::scale::ValueScale;
use super::text::{esc, exact, n, text_width, with_unit};
use super::{Palette, PAD};
use crate::spec::{Axis, ChartSpec, Marker, Role};

/// The x axis' markers inside the plotted range, as dashed vertical lines.
/// Each label takes the first of four rows where it clears the previous
/// label of that row; a label that fits in no row is left out of the
/// drawing but kept in the marker's tooltip and `aria-label`. Markers are
/// `pw-marker` groups, not marks (no value to focus), so the marks'
/// keyboard order is unchanged.
fn markers(out: &mut String, x: &Axis, scale: &ValueScale, pal: &Palette, top: f64, bottom: f64) {
    const ROWS: usize = 4;
    const SIZE: f64 = 10.0;
    let mut shown: Vec<&Marker> = x
        .markers
        .iter()
        .filter(|m| scale.places(m.x) && (scale.lo..=scale.hi).contains(&m.x))
        .collect();
    if shown.is_empty() {
        return;
    }
    shown.sort_by(|a, b| a.x.total_cmp(&b.x));
    let right = scale.px0.max(scale.px1);
    let mut row_end = [f64::NEG_INFINITY; ROWS];
    out.push_str("<g class=\"pw-markers\">");
    for m in shown {
        let px = scale.map(m.x);
        let dash = match m.kind {
            crate::spec::MarkerKind::Step => "1 3",
            crate::spec::MarkerKind::Cache => "6 3",
            crate::spec::MarkerKind::Tlb => "3 3",
        };
        let aria = format!(
            "{} marker: {} at {}",
            m.kind.name(),
            m.label,
            with_unit(m.x, &x.unit)
        );
        // Near the right edge a label hangs to the left of its line.
        let width = text_width(&m.label, SIZE);
        let (x0, anchor) = if px + 3.0 + width > right + 24.0 {
            (px - 3.0 - width, "end")
        } else {
            (px + 3.0, "start")
        };
        let tx = if anchor == "end" { px - 3.0 } else { x0 };
        let label = row_end
            .iter()
            .position(|&end| x0 > end + 4.0)
            .map(|row| {
                row_end[row] = x0 + width;
                format!(
                    "<text x=\"{}\" y=\"{}\" font-size=\"{SIZE}\" text-anchor=\"{anchor}\" fill=\"{}\">{}</text>",
                    n(tx),
                    n(top + 10.0 + 11.0 * row as f64),
                    esc(&pal.axis),
                    esc(&m.label)
                )
            })
            .unwrap_or_default();
        let _ = write!(
            out,
            "<g class=\"pw-marker pw-marker-{kind}\" data-kind=\"{kind}\" data-value=\"{v}\" aria-label=\"{aria}\"><title>{aria}</title>\
             <line x1=\"{px}\" y1=\"{t}\" x2=\"{px}\" y2=\"{b}\" stroke=\"{c}\" stroke-dasharray=\"{dash}\"/>{label}</g>",
            kind = m.kind.name(),
            v = exact(m.x),
            aria = esc(&aria),
            px = n(px),
            t = n(top),
            b = n(bottom),
            c = esc(&pal.axis),
        );
    }
    out.push_str("</g>");
}

/// x/y lines with a marker per point; returns the SVG height.
pub(super) fn lines(
    out: &mut String,
    spec: &ChartSpec,
    pal: &Palette,
    w: f64,
    height: f64,
    top: f64,
) -> f64 {
    let h = if height > 0.0 {
        height
    } else {
        (w * 0.6).clamp(240.0, 520.0) + top
    };
    let left = PAD + 22.0 + 52.0;
    let right = w - PAD - 20.0;
    let bottom = h - PAD - 46.0;
    let pts = || spec.series.iter().flat_map(|s| s.points.iter());
    let xs: Vec<f64> = pts().filter_map(|p| p.x).collect();
    let ys: Vec<f64> = pts()
        .flat_map(|p| [p.value, p.min, p.max])
        .flatten()
        .collect();
    let xs_scale = ValueScale::fit(&spec.x, &xs, false, left, right);
    let ys_scale = ValueScale::fit(&spec.y, &ys, false, bottom, top);

    out.push_str("<g class=\"pw-grid\">");
    gridlines(out, &xs_scale, pal, Gridlines::Vertical { top, bottom });
    gridlines(out, &ys_scale, pal, Gridlines::Horizontal { left, right });
    let _ = write!(
        out,
        "<path d=\"M{l} {t}V{b}H{r}\" stroke=\"{}\" fill=\"none\"/></g>",
        esc(&pal.axis),
        l = n(left),
        t = n(top),
        b = n(bottom),
        r = n(right)
    );
    axis_title(
        out,
        pal,
        (left + right) / 2.0,
        bottom + 36.0,
        "middle",
        false,
        &spec.x.label,
    );
    axis_title(
        out,
        pal,
        PAD + 10.0,
        (top + bottom) / 2.0,
        "middle",
        true,
        &spec.y.label,
    );
    if ys.is_empty() {
        no_data(out, spec, pal, left + 8.0, top + 20.0);
    }
    markers(out, &spec.x, &xs_scale, pal, top, bottom);

    out.push_str("<g class=\"pw-marks\">");
    for (si, s) in spec.series.iter().enumerate() {
        let colour = esc(pal.series_colour(si));
        let dash = if s.role == Role::Reference {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        // A gap (absent or unplaceable value) breaks the line.
        let mut d = String::new();
        let mut pen_down = false;
        let mut marks = String::new();
        for p in &s.points {
            let placed = match (p.x, p.value) {
                (Some(x), Some(v)) if xs_scale.places(x) && ys_scale.places(v) => Some((x, v)),
                _ => None,
            };
            match placed {
                Some((x, v)) => {
                    let (px, py) = (n(xs_scale.map(x)), n(ys_scale.map(v)));
                    let _ = write!(d, "{}{px} {py}", if pen_down { "L" } else { "M" });
                    pen_down = true;
                    let key = exact(x);
                    let where_ = format!("{} {}", spec.x.label, with_unit(x, &spec.x.unit));
                    let _ = write!(
                        marks,
                        "<circle cx=\"{px}\" cy=\"{py}\" r=\"4\" fill=\"{colour}\"{}/>",
                        mark_attrs(&spec.y, s, &key, &where_, p)
                    );
                }
                None => pen_down = false,
            }
        }
        let _ = write!(
            out,
            "<path d=\"{d}\" stroke=\"{colour}\" stroke-width=\"2\" fill=\"none\"{dash} aria-hidden=\"true\"/>{marks}"
        );
    }
    out.push_str("</g>");
    h
}
