//! What surrounds the data: title, legend, gridlines with tick labels,
//! axis titles, the no-data note; and the attributes every mark carries.

use std::fmt::Write;

use super::layout::{FONT, PAD};
use super::palette::{entries, styles, Palette, Style, SHAPES};
use super::scale::ValueScale;
use super::text::{esc, mark_label_named, n, text_width, wrap, Esc, Exact, Px};
use crate::spec::{Axis, Band, ChartKind, ChartSpec, MarkerKind, Point, Scale, Series};

/// Text of one or more lines (`<tspan>`s sharing `x`, `line_h` apart), so
/// a wrapped title or label stays one element for readers and search.
pub(super) fn text_lines(x: f64, y: f64, line_h: f64, lines: &[String], attrs: &str) -> String {
    let mut t = format!("<text x=\"{}\" y=\"{}\"{attrs}>", Px(x), Px(y));
    if let [one] = lines {
        t.push_str(&esc(one));
    } else {
        for (i, l) in lines.iter().enumerate() {
            let dy = if i == 0 { 0.0 } else { line_h };
            // The space keeps the words apart in the text's content.
            let gap = if i + 1 < lines.len() { " " } else { "" };
            let _ = write!(
                t,
                "<tspan x=\"{}\" dy=\"{}\">{}{gap}</tspan>",
                Px(x),
                Px(dy),
                Esc(l)
            );
        }
    }
    t.push_str("</text>");
    t
}

/// The title, wrapped to the width; returns the y below it.
pub(super) fn title(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64) -> f64 {
    const SIZE: f64 = 15.0;
    // Bold glyphs are about a tenth wider than the estimate's regular ones.
    let lines = wrap(&spec.title, (w - 2.0 * PAD) / 1.1, SIZE);
    let attrs = format!(
        " class=\"pw-title\" font-size=\"{}\" font-weight=\"600\" fill=\"{}\"",
        Px(SIZE),
        Esc(&pal.fg)
    );
    out.push_str(&text_lines(PAD, PAD + 15.0, 19.0, &lines, &attrs));
    PAD + 15.0 + 19.0 * (lines.len() - 1) as f64 + 10.0
}

/// The legend, starting at `y`; returns the y below it. One item per
/// legend entry ([`entries`]: a source drawn in several panels is one), in
/// its hue and shape, its gaps said once (`R2 (n/a for 3 of 9: not
/// published)`) rather than an "n/a" at every empty place; items flow in
/// rows and a name too long for the chart's width wraps. After the series comes the
/// key to the markers' line styles, once per kind drawn.
pub(super) fn legend(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64, y: f64) -> f64 {
    let mut flow = Flow {
        x: PAD,
        row: y,
        row_h: 18.0,
        w,
    };
    out.push_str("<g class=\"pw-legend\">");
    let styles = styles(spec);
    let (of, first) = entries(spec);
    for (e, &i) in first.iter().enumerate() {
        // The entry's gaps, said once: how many, and why when one reason
        // holds for all.
        let (mut total, mut gaps, mut reason) = (0, 0, None);
        let mut one_reason = true;
        for (s, _) in spec.series.iter().zip(&of).filter(|(_, &o)| o == e) {
            total += s.points.len();
            for p in s.points.iter().filter(|p| p.value.is_none()) {
                gaps += 1;
                match reason {
                    None => reason = Some(&p.note),
                    Some(r) => one_reason &= r == &p.note,
                }
            }
        }
        let mut name = spec.legend_name(&spec.series[i]).to_string();
        if spec.series[i].faint {
            name.push_str(", faint: for context");
        }
        if gaps > 0 {
            let _ = write!(name, " (n/a for {gaps} of {total}");
            if let (true, Some(Some(r))) = (one_reason, reason) {
                name.push_str(": ");
                name.push_str(r);
            }
            name.push(')');
        }
        flow.item(
            out,
            pal,
            &name,
            // A marker where the plot draws one: a line's points, and a
            // bar chart's dots on a log axis.
            Swatch::Series(
                styles[i],
                spec.kind == ChartKind::Lines || spec.y.scale == Scale::Log,
            ),
        );
    }
    for (kind, text) in [
        (MarkerKind::Cache, "cache size"),
        (MarkerKind::Tlb, "TLB reach"),
        (MarkerKind::Step, "step found"),
    ] {
        if spec.x.markers.iter().any(|m| m.kind == kind) {
            flow.item(out, pal, text, Swatch::Marker(kind));
        }
    }
    if let Some(band) = &spec.y.band {
        flow.item(out, pal, &band.label, Swatch::Band);
    }
    if let Some(label) = &spec.y.diagonal {
        flow.item(out, pal, label, Swatch::Diagonal);
    }
    out.push_str("</g>");
    flow.row + flow.row_h + 8.0
}

/// Where the next legend item goes.
struct Flow {
    x: f64,
    row: f64,
    row_h: f64,
    w: f64,
}

/// What stands before a legend item's name.
enum Swatch {
    /// A legend entry's style, as a line's marker (`true`) or a bar.
    Series(Style, bool),
    /// A piece of a marker kind's line.
    Marker(MarkerKind),
    /// The shaded range of [`crate::spec::Axis::band`].
    Band,
    /// The dashed y = x of [`crate::spec::Axis::diagonal`].
    Diagonal,
}

impl Flow {
    /// One item, on a new row when it does not fit; its name wraps.
    fn item(&mut self, out: &mut String, pal: &Palette, name: &str, swatch: Swatch) {
        let lines = wrap(name, self.w - 2.0 * PAD - 16.0, FONT);
        let mut widest = 0.0;
        for l in &lines {
            widest = f64::max(widest, text_width(l, FONT));
        }
        let item = 20.0 + widest + 18.0;
        if self.x > PAD && self.x + item > self.w - PAD {
            self.x = PAD;
            self.row += self.row_h;
            self.row_h = 18.0;
        }
        self.row_h = f64::max(self.row_h, 4.0 + 14.0 * lines.len() as f64);
        let _ = match swatch {
            Swatch::Series(style, true) => write!(
                out,
                "<{}{}/>",
                marker_shape(style.shape, self.x + 6.0, self.row + 9.5, 4.5),
                marker_paint(style, pal)
            ),
            Swatch::Series(style, false) => write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\"{}/>",
                Px(self.x + 0.5),
                Px(self.row + 4.5),
                bar_paint(style, pal)
            ),
            Swatch::Band => write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\"{}/>",
                Px(self.x + 0.5),
                Px(self.row + 4.5),
                BandPaint(pal)
            ),
            Swatch::Diagonal => write!(
                out,
                "<path d=\"M{} {}l16 -10\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
                Px(self.x),
                Px(self.row + 15.0),
                Esc(&pal.axis)
            ),
            Swatch::Marker(kind) => {
                let (dash, colour) = marker_style(kind, pal);
                write!(
                    out,
                    "<path d=\"M{} {}h16\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"{dash}\"/>",
                    Px(self.x),
                    Px(self.row + 10.0),
                    Esc(colour)
                )
            }
        };
        let attrs = format!(" fill=\"{}\"", Esc(&pal.fg));
        out.push_str(&text_lines(
            self.x + 20.0,
            self.row + 14.0,
            14.0,
            &lines,
            &attrs,
        ));
        self.x += item;
    }
}

/// A band's paint, in the plot and in the legend: shaded, with its edges.
struct BandPaint<'a>(&'a Palette);

impl std::fmt::Display for BandPaint<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = Esc(&self.0.axis);
        write!(
            f,
            " fill=\"{c}\" fill-opacity=\"0.3\" stroke=\"{c}\" stroke-opacity=\"0.75\""
        )
    }
}

/// `band` drawn from `a` to `b` along the value axis and across `c` to
/// `d` (`across_x`: the value axis is horizontal, a bar chart's), at
/// least 4 px thick around its true place: a band far thinner than a
/// pixel (a noise floor of 0.04% on a 0-10% axis) must still be seen, as
/// the text asks the reader to read the marks against it. Its edges are
/// drawn; its title (the tooltip) gives its true ends.
pub(super) fn band(
    out: &mut String,
    pal: &Palette,
    band: &Band,
    unit: &str,
    (a, b): (f64, f64),
    (c, d): (f64, f64),
    across_x: bool,
) {
    let mid = (a + b) / 2.0;
    let half = f64::max((a - b).abs() / 2.0, 2.0);
    let (lo, size) = (mid - half, 2.0 * half);
    let (x, y, w, h) = if across_x {
        (lo, c, size, d - c)
    } else {
        (c, lo, d - c, size)
    };
    let _ = write!(
        out,
        "<rect class=\"pw-band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}><title>{}: {} to {}</title></rect>",
        Px(x),
        Px(y),
        Px(w),
        Px(h),
        BandPaint(pal),
        Esc(&band.label),
        Esc(&super::text::with_unit(band.low, unit)),
        Esc(&super::text::with_unit(band.high, unit))
    );
}

/// The corners of the markers after the circle, in tenths of the half
/// size around (0, 0): square, triangle, diamond, triangle pointing down,
/// plus.
const POLYGONS: [&[(i8, i8)]; 5] = [
    &[(-9, -9), (9, -9), (9, 9), (-9, 9)],
    &[(0, -12), (11, 8), (-11, 8)],
    &[(0, -12), (12, 0), (0, 12), (-12, 0)],
    &[(0, 12), (11, -8), (-11, -8)],
    &[
        (-4, -11),
        (4, -11),
        (4, -4),
        (11, -4),
        (11, 4),
        (4, 4),
        (4, 11),
        (-4, 11),
        (-4, 4),
        (-11, 4),
        (-11, -4),
        (-4, -4),
    ],
];

/// The head of a line chart's marker of `shape` centred on (`x`, `y`)
/// (`r` its half size): a circle, then the [`POLYGONS`].
pub(super) fn marker_shape(shape: u8, x: f64, y: f64, r: f64) -> String {
    let Some(corners) = (shape % SHAPES)
        .checked_sub(1)
        .and_then(|i| POLYGONS.get(usize::from(i)))
    else {
        return format!("circle cx=\"{}\" cy=\"{}\" r=\"{}\"", Px(x), Px(y), Px(r));
    };
    let mut d = String::from("path d=\"");
    for (i, (dx, dy)) in corners.iter().enumerate() {
        d.push(if i == 0 { 'M' } else { 'L' });
        d.push_str(&n(x + f64::from(*dx) * r / 10.0));
        d.push(' ');
        d.push_str(&n(y + f64::from(*dy) * r / 10.0));
    }
    d.push_str("Z\"");
    d
}

/// A marker's paint: filled in its hue, with a thin ring of the background
/// so that markers on top of each other stay apart.
pub(super) fn marker_paint(style: Style, pal: &Palette) -> String {
    format!(
        " fill=\"{}\" stroke=\"{}\" stroke-width=\"0.75\"",
        Esc(pal.colour(style.hue)),
        Esc(&pal.bg)
    )
}

/// One line style per kind of marker, named in the legend's key: caches
/// dashed in the axis colour, TLB reaches dotted in the text colour.
/// Caches and TLBs in two hues of their own (the last two series hues,
/// which a translation chart's at most four series never reach), as well
/// as two dash patterns, so the two kinds of line are told apart at a
/// glance and named in the legend.
pub(super) fn marker_style(kind: MarkerKind, pal: &Palette) -> (&'static str, &str) {
    match kind {
        MarkerKind::Cache => ("5 3", pal.colour(crate::render::Hue::Series(4))),
        MarkerKind::Tlb => ("1.5 2.5", pal.colour(crate::render::Hue::Series(5))),
        MarkerKind::Step => ("1 3", &pal.axis),
    }
}

/// A bar's paint for its shape: solid; light with a solid edge (a
/// published reference); an outline; a dashed outline; light with a dashed
/// edge; a dotted outline.
pub(super) fn bar_paint(style: Style, pal: &Palette) -> String {
    const EDGES: [&str; 6] = [
        "",
        " fill-opacity=\"0.45\" stroke-width=\"1.5\"",
        " stroke-width=\"2\"",
        " stroke-width=\"2\" stroke-dasharray=\"3 2\"",
        " fill-opacity=\"0.45\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"",
        " stroke-width=\"2\" stroke-dasharray=\"1 2\"",
    ];
    let shape = usize::from(style.shape % SHAPES);
    let c = esc(pal.colour(style.hue));
    let fill = if matches!(shape, 2 | 3 | 5) {
        esc(&pal.bg)
    } else {
        c.clone()
    };
    let stroke = if shape == 0 {
        String::new()
    } else {
        format!(" stroke=\"{c}\"")
    };
    format!(" fill=\"{fill}\"{stroke}{}", EDGES[shape])
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
        " class=\"pw-mark\" data-series=\"{}\" data-category=\"{}\" data-value=\"{}\" data-role=\"{}\" tabindex=\"0\" role=\"graphics-symbol\" aria-label=\"{}\"",
        Esc(&s.name),
        Esc(where_key),
        Exact(v),
        s.role.name(),
        Esc(&mark_label_named(where_label, &s.name, p, &y.unit, y.whisker_names())
            .unwrap_or_default())
    )
}

/// An axis title centred at (`x`, `y`), wrapped to `room` (rotated for
/// the y axis, where `room` is the plot's height); returns its line count.
pub(super) fn axis_title(
    out: &mut String,
    pal: &Palette,
    (x, y): (f64, f64),
    rotate: bool,
    room: f64,
    text: &str,
) -> usize {
    let lines = wrap(text, room, FONT);
    let transform = if rotate {
        format!(" transform=\"rotate(-90 {} {})\"", Px(x), Px(y))
    } else {
        String::new()
    };
    let attrs = format!(
        " class=\"pw-axis-title\" text-anchor=\"middle\" fill=\"{}\"{transform}",
        Esc(&pal.axis)
    );
    out.push_str(&text_lines(x, y, 14.0, &lines, &attrs));
    lines.len()
}

/// Where an axis title under the plot is centred and how wide it may be:
/// under the plot when it fits there, else under the whole chart.
pub(super) fn title_room(label: &str, left: f64, right: f64, w: f64) -> (f64, f64) {
    if text_width(label, FONT) <= right - left {
        ((left + right) / 2.0, right - left)
    } else {
        (w / 2.0, w - 2.0 * PAD)
    }
}

/// Why nothing is drawn, wrapped inside the plot's edges.
pub(super) fn no_data(
    out: &mut String,
    spec: &ChartSpec,
    pal: &Palette,
    (left, right): (f64, f64),
    top: f64,
) {
    let msg = format!(
        "No data to draw: {}",
        spec.note.as_deref().unwrap_or("no data")
    );
    let attrs = format!(" class=\"pw-no-data\" fill=\"{}\"", Esc(&pal.axis));
    let lines = wrap(&msg, right - left - 16.0, FONT);
    out.push_str(&text_lines(left + 8.0, top + 20.0, 15.0, &lines, &attrs));
}

/// Which way a scale's gridlines run, and the plot edges they span.
#[derive(Clone, Copy)]
pub(super) enum Gridlines {
    /// Ticks of a horizontal scale: lines from `top` to `bottom`, labels below.
    Vertical { top: f64, bottom: f64 },
    /// Ticks of a vertical scale: lines from `left` to `right`, labels left.
    Horizontal { left: f64, right: f64 },
}

/// A gridline at each of `scale`'s ticks, and a label at every k-th one,
/// with k the smallest stride at which no two labels come closer than a
/// gap (so a phone's narrow axis keeps fewer, untouched labels).
pub(super) fn gridlines(out: &mut String, scale: &ValueScale, pal: &Palette, dir: Gridlines) {
    let ticks = scale.ticks();
    let (mut labels, mut at) = (Vec::new(), Vec::new());
    for &t in &ticks {
        labels.push(scale.label(t));
        at.push(scale.map(t));
    }
    // Room a label needs along the axis, from its centre.
    let half = |i: usize| match dir {
        Gridlines::Vertical { .. } => text_width(&labels[i], FONT) / 2.0 + 5.0,
        Gridlines::Horizontal { .. } => 9.0,
    };
    // Every k-th label, from the first, clear of the next one kept.
    let fits = |k: usize| {
        let mut i = 0;
        while i + k < ticks.len() {
            if (at[i + k] - at[i]).abs() >= half(i) + half(i + k) {
                i += k;
            } else {
                return false;
            }
        }
        true
    };
    let mut stride = 1;
    while stride < ticks.len() && !fits(stride) {
        stride += 1;
    }
    for (i, &a) in at.iter().enumerate() {
        let ((x1, y1, x2, y2), (tx, ty), anchor) = match dir {
            Gridlines::Vertical { top, bottom } => {
                ((a, top, a, bottom), (a, bottom + 19.0), "middle")
            }
            Gridlines::Horizontal { left, right } => {
                ((left, a, right, a), (left - 6.0, a + 4.0), "end")
            }
        };
        let _ = write!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>",
            Px(x1),
            Px(y1),
            Px(x2),
            Px(y2),
            Esc(&pal.grid),
        );
        if i % stride == 0 {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" fill=\"{}\">{}</text>",
                Px(tx),
                Px(ty),
                Esc(&pal.axis),
                Esc(&labels[i])
            );
        }
    }
}
