//! Horizontal grouped bars (and histograms: one category per bin).

use std::fmt::Write;

use super::frame::{
    axis_title, gridlines, mark_attrs, no_data, reference_style, text_lines, title_room, Gridlines,
};
use super::scale::ValueScale;
use super::text::{esc, n, text_width, wrap};
use super::{Palette, FONT, PAD};
use crate::spec::{ChartSpec, Scale};

const BAR_H: f64 = 14.0;
const GROUP_GAP: f64 = 12.0;
/// Line height of a wrapped category label.
const LINE_H: f64 = 13.0;

/// Horizontal grouped bars; returns the SVG height.
pub(super) fn bars(
    out: &mut String,
    spec: &ChartSpec,
    pal: &Palette,
    w: f64,
    height: f64,
    top: f64,
) -> f64 {
    let ncat = spec.categories.len();
    let nser = spec.series.len().max(1);
    let longest = spec
        .categories
        .iter()
        .map(|c| text_width(&c.label, FONT))
        .fold(0.0, f64::max);
    let label_w = (longest + 10.0).min(w * 0.4);
    let left = PAD + label_w;
    let right = w - PAD - 16.0;
    // Long category labels wrap (never cut); a band is tall enough for them.
    let cat_lines: Vec<Vec<String>> = spec
        .categories
        .iter()
        .map(|c| wrap(&c.label, label_w - 8.0, FONT))
        .collect();
    let most_lines = cat_lines.iter().map(Vec::len).max().unwrap_or(1);
    let mut band = (nser as f64 * BAR_H + GROUP_GAP).max(most_lines as f64 * LINE_H + 6.0);
    let (title_at, title_room) = title_room(&spec.y.label, left, right, w);
    let title_lines = wrap(&spec.y.label, title_room, FONT).len();
    let below = 32.0 + 14.0 * title_lines as f64;
    if height > 0.0 && ncat > 0 {
        band = band.max((height - top - below - PAD) / ncat as f64);
    }
    let bar_h = (band - GROUP_GAP) / nser as f64;
    let bottom = top + band * ncat.max(1) as f64;
    let h = if height > 0.0 {
        height.max(bottom + below + PAD)
    } else {
        bottom + below + PAD
    };

    let values: Vec<f64> = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .flat_map(|p| [p.value, p.min, p.max])
        .flatten()
        .collect();
    let scale = ValueScale::fit(&spec.y, &values, true, left, right);
    let dots = spec.y.scale == Scale::Log;

    // Grid and value axis.
    out.push_str("<g class=\"pw-grid\">");
    gridlines(out, &scale, pal, Gridlines::Vertical { top, bottom });
    let base = scale.map(scale.baseline());
    let _ = write!(
        out,
        "<line x1=\"{b}\" y1=\"{}\" x2=\"{b}\" y2=\"{}\" stroke=\"{a}\"/><line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{a}\"/></g>",
        n(top),
        n(bottom),
        n(left),
        n(right),
        b = n(base),
        y = n(bottom),
        a = esc(&pal.axis)
    );
    axis_title(
        out,
        pal,
        (title_at, bottom + 36.0),
        false,
        title_room,
        &spec.y.label,
    );

    if ncat == 0 || values.is_empty() {
        no_data(out, spec, pal, (left, right), top);
    }

    // Category labels, centred on their band.
    out.push_str("<g class=\"pw-categories\">");
    for (ci, lines) in cat_lines.iter().enumerate() {
        let mid = top + band * ci as f64 + band / 2.0 + 4.0;
        let y = mid - LINE_H * (lines.len() - 1) as f64 / 2.0;
        let attrs = format!(" text-anchor=\"end\" fill=\"{}\"", esc(&pal.fg));
        out.push_str(&text_lines(left - 6.0, y, LINE_H, lines, &attrs));
    }
    out.push_str("</g>");

    // Marks, whiskers and gaps.
    let mut marks = String::new();
    let mut whiskers = String::new();
    for (ci, c) in spec.categories.iter().enumerate() {
        for (si, s) in spec.series.iter().enumerate() {
            let y0 = top + band * ci as f64 + GROUP_GAP / 2.0 + bar_h * si as f64;
            let colour = pal.series_colour(si);
            let p = s.at(&c.key);
            // A gap draws nothing: it is said once, in the series' legend entry.
            if let Some((p, v)) =
                p.and_then(|p| p.value.filter(|v| scale.places(*v)).map(|v| (p, v)))
            {
                let (a, b) = (scale.map(scale.baseline()), scale.map(v));
                let attrs = mark_attrs(&spec.y, s, &c.key, &c.label, p);
                let style = reference_style(s.role, colour);
                let yc = y0 + bar_h / 2.0;
                // On a log axis a bar's length would be measured from
                // an arbitrary floor: a dot says the value.
                let shape = if dots {
                    let r = n((bar_h / 2.0 - 1.0).clamp(2.5, 5.0));
                    format!("circle cx=\"{}\" cy=\"{}\" r=\"{r}\"", n(b), n(yc))
                } else {
                    let (x, bw) = (a.min(b), (a - b).abs().max(1.0));
                    format!(
                        "rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"",
                        n(x),
                        n(y0 + 1.0),
                        n(bw),
                        n(bar_h - 2.0)
                    )
                };
                let _ = write!(marks, "<{shape} fill=\"{}\"{style}{attrs}/>", esc(colour));
                // A zero is a measured value, not a missing one.
                if v == 0.0 {
                    let _ = write!(
                            marks,
                            "<text class=\"pw-zero\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\" aria-hidden=\"true\">0</text>",
                            n(a + 4.0),
                            n(yc + 3.5),
                            esc(&pal.fg)
                        );
                }
                if let (Some(lo), Some(hi)) = (p.min, p.max) {
                    if lo != hi && scale.places(lo) && scale.places(hi) {
                        let (x1, x2, yc) = (scale.map(lo), scale.map(hi), y0 + bar_h / 2.0);
                        let cap = (bar_h / 2.0 - 2.0).max(2.0);
                        let _ = write!(
                            whiskers,
                            "<path d=\"M{x1} {yc}H{x2}M{x1} {a}V{b}M{x2} {a}V{b}\"/>",
                            x1 = n(x1),
                            x2 = n(x2),
                            yc = n(yc),
                            a = n(yc - cap),
                            b = n(yc + cap)
                        );
                    }
                }
            }
        }
    }
    out.push_str("<g class=\"pw-marks\">");
    out.push_str(&marks);
    out.push_str("</g>");
    // A background-coloured halo keeps whiskers visible across bars.
    let _ = write!(
        out,
        "<g class=\"pw-whiskers\" fill=\"none\" aria-hidden=\"true\"><g stroke=\"{}\" stroke-width=\"3.2\" stroke-opacity=\"0.8\">{whiskers}</g>\
         <g stroke=\"{}\" stroke-width=\"1.2\">{whiskers}</g></g>",
        esc(&pal.bg),
        esc(&pal.fg)
    );
    h
}
