//! x/y lines with a point per value, and the x axis' labelled markers.

use std::fmt::Write;

use super::frame::{
    axis_title, band, gridlines, mark_attrs, marker_paint, marker_shape, marker_style, no_data,
    text_lines, title_room, Gridlines,
};
use super::layout::{FONT, NARROW, PAD};
use super::palette::{styles, Palette};
use super::scale::{clamp, values_of, xs_of, ValueScale};
use super::text::{esc, exact, n, text_width, with_unit, wrap, Esc, Exact, Px};
use crate::spec::{Axis, ChartSpec, Marker, Role};

/// Size and row pitch of marker labels.
const MARKER_FONT: f64 = 11.0;
const MARKER_ROW: f64 = 14.0;
/// Most rows of marker labels; a label that fits in none is left out of
/// the drawing but kept in the marker's tooltip and `aria-label`.
const MARKER_ROWS: usize = 4;

/// A marker inside the plotted range, and where its label goes.
struct Placed<'a> {
    m: &'a Marker,
    px: f64,
    /// Row (0 is nearest the plot), left edge, width, text anchor.
    label: Option<(usize, f64, f64, &'static str)>,
}

/// Lays the x axis' marker labels out in rows above the plot, so they
/// never cover the data nor each other: each takes the first row (from
/// the plot up) where it clears the previous label of that row. Near the
/// right edge a label hangs to the left of its line.
fn place_markers<'a>(x: &'a Axis, scale: &ValueScale, w: f64) -> (Vec<Placed<'a>>, usize) {
    let mut shown: Vec<&Marker> = x
        .markers
        .iter()
        .filter(|m| scale.places(m.x) && (scale.lo..=scale.hi).contains(&m.x))
        .collect();
    // By x, stable: markers at one x (a cache and a step found there) keep
    // the spec's order, which decides their label rows. They are a handful
    // (caches, TLB levels, steps), so an insertion sort; `model::sort`'s
    // heap sort is not stable, and std's sorts are kilobytes of wasm.
    for i in 1..shown.len() {
        let mut j = i;
        while j > 0 && shown[j - 1].x.total_cmp(&shown[j].x).is_gt() {
            shown.swap(j - 1, j);
            j -= 1;
        }
    }
    let right = scale.px0.max(scale.px1);
    let mut row_end = [f64::NEG_INFINITY; MARKER_ROWS];
    let mut rows = 0;
    let placed = shown
        .into_iter()
        .map(|m| {
            let px = scale.map(m.x);
            let width = text_width(drawn_label(m), MARKER_FONT);
            let (x0, anchor) = if px + 3.0 + width > right.max(w - 2.0) {
                (px - 3.0 - width, "end")
            } else {
                (px + 3.0, "start")
            };
            let label = (x0 >= 2.0)
                .then(|| row_end.iter().position(|&end| x0 > end + 6.0))
                .flatten()
                .map(|row| {
                    row_end[row] = x0 + width;
                    rows = rows.max(row + 1);
                    (row, x0, width, anchor)
                });
            Placed { m, px, label }
        })
        .collect();
    (placed, rows)
}

/// Draws the markers as dashed lines across the plot with their labels in
/// the rows above it (`band_bottom` is the baseline of row 0). A label's
/// line reaches up to it unless another label sits in the way. Markers
/// are `pw-marker` groups, not marks (no value to focus), so the marks'
/// keyboard order is unchanged.
fn draw_markers(
    out: &mut String,
    placed: &[Placed],
    unit: &str,
    pal: &Palette,
    band_bottom: f64,
    (top, bottom): (f64, f64),
) {
    if placed.is_empty() {
        return;
    }
    let baseline = |row: usize| band_bottom - MARKER_ROW * row as f64;
    out.push_str("<g class=\"pw-markers\">");
    for p in placed {
        let m = p.m;
        let (dash, colour) = marker_style(m.kind, pal);
        let aria = format!(
            "{} marker: {} at {}",
            m.kind.name(),
            m.label,
            with_unit(m.x, unit)
        );
        let (mut y1, mut label) = (top, String::new());
        if let Some((row, x0, width, anchor)) = p.label {
            let tx = if anchor == "end" { x0 + width } else { x0 };
            label = format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\" fill=\"{}\">{}</text>",
                Px(tx),
                Px(baseline(row)),
                Px(MARKER_FONT),
                Esc(colour),
                Esc(drawn_label(m))
            );
            let blocked = placed.iter().any(|o| {
                o.label.is_some_and(|(r, ox, ow, _)| {
                    r < row && (ox - 2.0..=ox + ow + 2.0).contains(&p.px)
                })
            });
            if !blocked {
                y1 = baseline(row) - 8.0;
            }
        }
        let _ = write!(
            out,
            "<g class=\"pw-marker pw-marker-{kind}\" data-kind=\"{kind}\" data-value=\"{v}\" role=\"graphics-symbol\" aria-label=\"{aria}\"><title>{aria}</title>\
             <line x1=\"{px}\" y1=\"{t}\" x2=\"{px}\" y2=\"{b}\" stroke=\"{c}\" stroke-dasharray=\"{dash}\"/>{label}</g>",
            kind = m.kind.name(),
            v = Exact(m.x),
            aria = Esc(&aria),
            px = Px(p.px),
            t = Px(y1),
            b = Px(bottom),
            c = Esc(colour),
        );
    }
    out.push_str("</g>");
}

/// What is drawn at a marker's line: its tag, or its label when it has none.
fn drawn_label(m: &Marker) -> &str {
    if m.tag.is_empty() {
        &m.label
    } else {
        &m.tag
    }
}

/// How long the rotated y-axis title may be: about the plot's height.
fn y_room(w: f64) -> f64 {
    clamp(w * 0.6, 240.0, 520.0) - 90.0
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
    let narrow = w < NARROW;
    let xs = xs_of(spec);
    let ys = values_of(spec, &|_| true, spec.y.band.as_ref());
    // The y scale's labels set the left margin; its pixels come later.
    let ys_domain = ValueScale::fit(&spec.y, &ys, false, 1.0, 0.0);
    let widest = ys_domain
        .ticks()
        .iter()
        .map(|&t| text_width(&ys_domain.label(t), FONT))
        .fold(0.0, f64::max);
    // A phone has no room for a rotated y title beside the plot: it goes
    // above the plot, wrapped, and the left margin holds only the ticks.
    let (left, mut plot_top) = if narrow {
        let lines = wrap(&spec.y.label, w - 2.0 * PAD, FONT);
        let attrs = format!(" class=\"pw-axis-title\" fill=\"{}\"", Esc(&pal.axis));
        out.push_str(&text_lines(PAD, top + 4.0, 14.0, &lines, &attrs));
        (PAD + widest + 10.0, top + 14.0 * lines.len() as f64)
    } else {
        // The rotated title's lines stack rightwards from x = PAD + 10.
        let extra = 14.0 * (wrap(&spec.y.label, y_room(w), FONT).len() - 1) as f64;
        (PAD + 24.0 + extra + widest.max(36.0) + 6.0, top)
    };
    // Room for the curves' last values after the plot, when written.
    let right = w - PAD - if spec.y.value_labels { 36.0 } else { 20.0 };
    let xs_scale = ValueScale::fit(&spec.x, &xs, false, left, right);
    let (placed, rows) = place_markers(&spec.x, &xs_scale, w);
    let band_bottom = plot_top + MARKER_ROW * rows as f64 - 2.0;
    if rows > 0 {
        plot_top = band_bottom + 8.0;
    }
    let (title_at, title_room) = title_room(&spec.x.label, left, right, w);
    let title_lines = wrap(&spec.x.label, title_room, FONT).len();
    let below = 32.0 + 14.0 * title_lines as f64;
    let h = if height > 0.0 {
        height
    } else {
        clamp(w * 0.6, 240.0, 520.0) + plot_top
    };
    let bottom = h - PAD - below;
    let ys_scale = ValueScale::fit(&spec.y, &ys, false, bottom, plot_top);
    let top = plot_top;

    out.push_str("<g class=\"pw-grid\">");
    gridlines(out, &xs_scale, pal, Gridlines::Vertical { top, bottom });
    gridlines(out, &ys_scale, pal, Gridlines::Horizontal { left, right });
    let _ = write!(
        out,
        "<path d=\"M{l} {t}V{b}H{r}\" stroke=\"{}\" fill=\"none\"/></g>",
        Esc(&pal.axis),
        l = Px(left),
        t = Px(top),
        b = Px(bottom),
        r = Px(right)
    );
    axis_title(
        out,
        pal,
        (title_at, bottom + 36.0),
        false,
        title_room,
        &spec.x.label,
    );
    if !narrow {
        axis_title(
            out,
            pal,
            (PAD + 10.0, (top + bottom) / 2.0),
            true,
            y_room(w),
            &spec.y.label,
        );
    }
    if ys.is_empty() {
        no_data(out, spec, pal, (left, right), top);
    }
    if let Some(b) = spec.y.band.as_ref() {
        if ys_scale.places(b.low) && ys_scale.places(b.high) {
            let at = (ys_scale.map(b.high), ys_scale.map(b.low));
            band(out, pal, b, &spec.y.unit, at, (left, right), false);
        }
    }
    draw_markers(out, &placed, &spec.x.unit, pal, band_bottom, (top, bottom));
    if spec.y.diagonal.is_some() {
        diagonal(out, &xs_scale, &ys_scale, pal);
    }

    out.push_str("<g class=\"pw-marks\">");
    let styles = styles(spec);
    let mut ends = Vec::new();
    // Faint series first, then the dropped files', so the curves the
    // chart is about sit on top and the run is never hidden under a file
    // (passes, not a sort: a sort's code is kilobytes of the module).
    let rank = |s: &crate::spec::Series| {
        if s.faint {
            0
        } else if s.role == Role::File {
            1
        } else {
            2
        }
    };
    for pass in 0..3 {
        for (s, &style) in spec.series.iter().zip(&styles) {
            if rank(s) != pass {
                continue;
            }
            let file = pass == 1;
            let colour = esc(pal.colour(style.hue));
            let paint = marker_paint(style, pal);
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
                            "<{}{paint}{}/>",
                            // A file's a little larger: on the run's point, a rim.
                            marker_shape(
                                style.shape,
                                xs_scale.map(x),
                                ys_scale.map(v),
                                if file { 5.0 } else { 4.0 }
                            ),
                            mark_attrs(&spec.y, s, &key, &where_, p)
                        );
                    }
                    None => pen_down = false,
                }
            }
            let _ = write!(
                out,
                "<g{}><path d=\"{d}\" stroke=\"{colour}\" stroke-width=\"2\" fill=\"none\"{dash} aria-hidden=\"true\"/>{marks}</g>",
                if s.faint { " opacity=\"0.35\"" } else { "" }
            );
            // The curve's last value past its end, in the margin right of the
            // plot where no line runs, so its ceiling is read without a tap.
            let last = s.points.iter().rev().find_map(|p| {
                let (x, v) = (p.x?, p.value?);
                (xs_scale.places(x) && ys_scale.places(v)).then_some((x, v))
            });
            if let (true, Some((x, v))) = (spec.y.value_labels, last) {
                ends.push((xs_scale.map(x) + 7.0, ys_scale.map(v) + 4.0, colour, v));
            }
        }
    }
    out.push_str("</g>");
    end_labels(out, ends, pal);
    h
}

/// Each curve's last value after its end; labels closer than a line
/// apart are pushed down in turn so none is written over another.
fn end_labels(out: &mut String, mut ends: Vec<(f64, f64, String, f64)>, pal: &Palette) {
    // Top to bottom, curves ending level in drawing order: an insertion
    // sort, stable as `sort_by` is, for a handful of curves (the standard
    // sort's code was about 3.5 KB of the page's module).
    for i in 1..ends.len() {
        let mut j = i;
        while j > 0 && ends[j - 1].1.total_cmp(&ends[j].1).is_gt() {
            ends.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut floor = f64::MIN;
    for (x, y, colour, v) in ends {
        let y = y.max(floor + 12.0);
        floor = y;
        let _ = write!(
            out,
            "<text class=\"pw-value\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{colour}\" stroke=\"{}\" stroke-width=\"3\" paint-order=\"stroke\" aria-hidden=\"true\">{}</text>",
            Px(x),
            Px(y),
            Esc(&pal.bg),
            pagewalk_model::units::count(v)
        );
    }
}

/// y = x over the part of the plot both scales cover, dashed.
fn diagonal(out: &mut String, xs: &ValueScale, ys: &ValueScale, pal: &Palette) {
    let lo = xs.lo.max(ys.lo);
    let hi = xs.hi.min(ys.hi);
    if lo >= hi {
        return;
    }
    let _ = write!(
        out,
        "<path class=\"pw-diagonal\" d=\"M{} {}L{} {}\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" fill=\"none\" aria-hidden=\"true\"/>",
        Px(xs.map(lo)),
        Px(ys.map(lo)),
        Px(xs.map(hi)),
        Px(ys.map(hi)),
        Esc(&pal.axis)
    );
}
