//! Horizontal grouped bars (and histograms: one category per bin).

use std::fmt::Write;

use super::frame::{
    axis_title, band as shade, bar_paint, gridlines, mark_attrs, marker_paint, marker_shape,
    no_data, text_lines, title_room, Gridlines,
};
use super::layout::{FONT, NARROW, PAD};
use super::palette::{entries, styles, Palette};
use super::scale::{values_of, ValueScale};
use super::text::{text_width, wrap, Esc, Px};
use crate::spec::{ChartSpec, Scale, Series};

const BAR_H: f64 = 14.0;
const GROUP_GAP: f64 = 12.0;
/// Line height of a wrapped category label.
const LINE_H: f64 = 13.0;

/// Gap between two panels of small multiples.
const PANEL_GAP: f64 = 26.0;

/// Horizontal grouped bars; returns the SVG height. With panels
/// ([`crate::Axis::panels`]) the value axis is drawn once per panel, side
/// by side on one scale, each legend entry's bar in the same place of its
/// group in every panel.
pub(super) fn bars(
    out: &mut String,
    spec: &ChartSpec,
    pal: &Palette,
    w: f64,
    height: f64,
    top: f64,
) -> f64 {
    let ncat = spec.categories.len();
    // One bar per legend entry in each group: a source's place.
    let (slot, entries) = entries(spec);
    let nser = entries.len().max(1);
    let npanel = spec.x.panels.len().max(1);
    let longest = spec
        .categories
        .iter()
        .map(|c| text_width(&c.label, FONT))
        .fold(0.0, f64::max);
    // A phone has no room for labels beside small multiples: each group's
    // label goes on a line of its own above its bars.
    let above = npanel > 1 && w < NARROW;
    let label_row = if above { LINE_H + 2.0 } else { 0.0 };
    let label_w = if above {
        w - 2.0 * PAD
    } else {
        (longest + 10.0).min(w * 0.4)
    };
    let left = if above { PAD + 2.0 } else { PAD + label_w };
    // Room for the value written after the longest bar.
    let right = w - PAD - if spec.y.value_labels { 64.0 } else { 16.0 };
    let panel_w = (right - left - PANEL_GAP * (npanel - 1) as f64) / npanel as f64;
    let panel_x = |p: usize| left + (panel_w + PANEL_GAP) * p as f64;
    // Each panel's name above it, wrapped to its width.
    let heads: Vec<Vec<String>> = spec
        .x
        .panels
        .iter()
        .map(|p| wrap(&p.label, panel_w, FONT))
        .collect();
    let head_lines = heads.iter().map(Vec::len).max().unwrap_or(0);
    let heads_at = top + 10.0;
    let top = top
        + if head_lines > 0 {
            14.0 * head_lines as f64 + 6.0
        } else {
            0.0
        };
    // Long category labels wrap (never cut); a band is tall enough for them.
    let cat_lines: Vec<Vec<String>> = spec
        .categories
        .iter()
        .map(|c| wrap(&c.label, label_w - 8.0, FONT))
        .collect();
    let most_lines = cat_lines.iter().map(Vec::len).max().unwrap_or(1);
    let mut band = if above {
        nser as f64 * BAR_H + GROUP_GAP + label_row * most_lines as f64
    } else {
        (nser as f64 * BAR_H + GROUP_GAP).max(most_lines as f64 * LINE_H + 6.0)
    };
    let label_row = label_row * most_lines as f64;
    let (title_at, title_room) = title_room(&spec.y.label, left, right, w);
    let title_lines = wrap(&spec.y.label, title_room, FONT).len();
    let below = 32.0 + 14.0 * title_lines as f64;
    if height > 0.0 && ncat > 0 {
        band = band.max((height - top - below - PAD) / ncat as f64);
    }
    let bar_h = (band - GROUP_GAP - label_row) / nser as f64;
    let bottom = top + band * ncat.max(1) as f64;
    let h = if height > 0.0 {
        height.max(bottom + below + PAD)
    } else {
        bottom + below + PAD
    };

    let values = values_of(spec, &|_| true, spec.y.band.as_ref());
    // With the last panel alone, it and the others are fitted apart.
    let alone = spec.x.last_panel_alone && npanel > 1;
    let in_last = |s: &Series| spec.panel_of(s).map(|p| p == npanel - 1);
    let (rest, last) = if alone {
        (
            values_of(spec, &|s| in_last(s) == Some(false), None),
            values_of(spec, &|s| in_last(s) == Some(true), None),
        )
    } else {
        (values.clone(), Vec::new())
    };
    let scales: Vec<ValueScale> = (0..npanel)
        .map(|p| {
            let own = if alone && p == npanel - 1 {
                &last
            } else {
                &rest
            };
            ValueScale::fit(&spec.y, own, true, panel_x(p), panel_x(p) + panel_w)
        })
        .collect();
    let dots = spec.y.scale == Scale::Log;

    // Grid and value axis, once per panel.
    out.push_str("<g class=\"pw-grid\">");
    for scale in &scales {
        gridlines(out, scale, pal, Gridlines::Vertical { top, bottom });
        let base = scale.map(scale.baseline());
        let _ = write!(
            out,
            "<line x1=\"{b}\" y1=\"{}\" x2=\"{b}\" y2=\"{}\" stroke=\"{a}\"/><line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{a}\"/>",
            Px(top),
            Px(bottom),
            Px(scale.px0),
            Px(scale.px1),
            b = Px(base),
            y = Px(bottom),
            a = Esc(&pal.axis)
        );
    }
    out.push_str("</g>");
    if let Some(b) = &spec.y.band {
        // Named in the legend.
        for scale in &scales {
            if scale.places(b.low) && scale.places(b.high) {
                let at = (scale.map(b.low), scale.map(b.high));
                shade(out, pal, b, &spec.y.unit, at, (top, bottom), true);
            }
        }
    }
    // Rows of a dot chart apart, so that a dot low in its row is not read
    // as the next row's; on a phone's small multiples each row's label
    // on a strip of its own across the panels, no axis or gridline
    // through it.
    for ci in 0..ncat {
        let y = top + band * ci as f64;
        if above {
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                Px(PAD),
                Px(y),
                Px(w - 2.0 * PAD),
                Px(GROUP_GAP / 2.0 + label_row),
                Esc(&pal.bg)
            );
        } else if dots && ci > 0 {
            let _ = write!(
                out,
                "<path d=\"M{} {}H{}\" stroke=\"{}\"/>",
                Px(PAD),
                Px(y),
                Px(right),
                Esc(&pal.grid)
            );
        }
    }
    if head_lines > 0 {
        out.push_str("<g class=\"pw-panels\">");
        let attrs = format!(
            " text-anchor=\"middle\" font-weight=\"600\" fill=\"{}\"",
            Esc(&pal.fg)
        );
        for (p, lines) in heads.iter().enumerate() {
            let x = panel_x(p) + panel_w / 2.0;
            out.push_str(&text_lines(x, heads_at + 4.0, 14.0, lines, &attrs));
        }
        out.push_str("</g>");
    }
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
        let (x, y, anchor) = if above {
            (
                left + 3.0,
                top + band * ci as f64 + GROUP_GAP / 2.0 + 9.0,
                "start",
            )
        } else {
            let mid = top + band * ci as f64 + band / 2.0 + 4.0;
            (
                left - 6.0,
                mid - LINE_H * (lines.len() - 1) as f64 / 2.0,
                "end",
            )
        };
        let attrs = format!(" text-anchor=\"{anchor}\" fill=\"{}\"", Esc(&pal.fg));
        out.push_str(&text_lines(x, y, LINE_H, lines, &attrs));
    }
    out.push_str("</g>");

    // Marks, whiskers and gaps: panel by panel, group by group. A range
    // runs beside its bar, in the lower part of the bar's slot, never
    // through it (a whisker across a bar reads as a second bar).
    let ranged = spec
        .series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| p.min.is_some_and(|lo| p.max != Some(lo)));
    let mark_h = if ranged && !dots {
        ((bar_h - 3.0) * 0.62).max(4.0)
    } else {
        bar_h - 3.0
    };
    let styles = styles(spec);
    let mut marks = String::new();
    let mut whiskers = String::new();
    let mut labels = String::new();
    for (pi, scale) in scales.iter().enumerate() {
        for (ci, c) in spec.categories.iter().enumerate() {
            for (si, s) in spec.series.iter().enumerate() {
                if spec.panel_of(s) != Some(pi) {
                    continue;
                }
                let y0 =
                    top + band * ci as f64 + GROUP_GAP / 2.0 + label_row + bar_h * slot[si] as f64;
                // A gap draws nothing: it is said once, in the legend.
                let Some((p, v)) = s
                    .at(&c.key)
                    .and_then(|p| p.value.filter(|v| scale.places(*v)).map(|v| (p, v)))
                else {
                    continue;
                };
                let (a, b) = (scale.map(scale.baseline()), scale.map(v));
                let attrs = mark_attrs(&spec.y, s, &c.key, &c.label, p);
                let yc = y0 + 1.5 + mark_h / 2.0;
                // The whisker's line: the bar's own centre for a dot, the
                // room under the bar otherwise.
                let yw = if dots || !ranged {
                    yc
                } else {
                    (y0 + 1.5 + mark_h + y0 + bar_h - 1.0) / 2.0
                };
                // On a log axis a bar's length would be measured from
                // an arbitrary floor: a dot says the value.
                if dots {
                    let r = (bar_h / 2.0 - 1.0).clamp(2.5, 5.0);
                    let _ = write!(
                        marks,
                        "<{}{}{attrs}/>",
                        marker_shape(styles[si].shape, b, yc, r),
                        marker_paint(styles[si], pal)
                    );
                } else {
                    let (x, bw) = (a.min(b), (a - b).abs().max(1.0));
                    let _ = write!(
                        marks,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}{attrs}/>",
                        Px(x),
                        Px(y0 + 1.5),
                        Px(bw),
                        Px(mark_h),
                        bar_paint(styles[si], pal)
                    );
                }
                // A zero is a measured value, not a missing one.
                if v == 0.0 {
                    let _ = write!(
                        marks,
                        "<text class=\"pw-zero\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\" aria-hidden=\"true\">0</text>",
                        Px(a + 4.0),
                        Px(yc + 3.5),
                        Esc(&pal.fg)
                    );
                }
                // The value goes right after its bar, or after its range
                // where that reaches further: no whisker runs through it.
                let mut end = a.max(b);
                if let (Some(lo), Some(hi)) = (p.min, p.max) {
                    if lo != hi && scale.places(lo) && scale.places(hi) {
                        let (x1, x2) = (scale.map(lo), scale.map(hi));
                        end = end.max(x1).max(x2);
                        let cap = if dots || !ranged {
                            (bar_h / 2.0 - 2.0).max(2.0)
                        } else {
                            ((bar_h - 3.0 - mark_h) / 2.0).max(1.5)
                        };
                        let yc = yw;
                        let _ = write!(
                            whiskers,
                            "<path d=\"M{x1} {yc}H{x2}M{x1} {a}V{b}M{x2} {a}V{b}\"/>",
                            x1 = Px(x1),
                            x2 = Px(x2),
                            yc = Px(yc),
                            a = Px(yc - cap),
                            b = Px(yc + cap)
                        );
                    }
                }
                if spec.y.value_labels && v != 0.0 {
                    let _ = write!(
                        labels,
                        "<text class=\"pw-value\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\" stroke=\"{}\" stroke-width=\"3\" paint-order=\"stroke\" aria-hidden=\"true\">{}</text>",
                        Px(end + 4.0),
                        Px(yc + 3.5),
                        Esc(&pal.fg),
                        Esc(&pal.bg),
                        Esc(&super::text::with_unit(v, &spec.y.unit))
                    );
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
        Esc(&pal.bg),
        Esc(&pal.fg)
    );
    out.push_str(&labels);
    h
}
