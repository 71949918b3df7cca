//! SVG rendering of a [`ChartSpec`], used twice: at build time for the
//! static fallback (no JavaScript, print, screen readers) and in the page by
//! `wasm-viz` with the current theme's palette.
//!
//! Why not `plotters` (measured 2026-11-30 with plotters 0.3.7,
//! `default-features = false, features = ["svg_backend", "line_series"]`;
//! wasm32-unknown-unknown, opt-level z, LTO, panic=abort, then
//! `wasm-bindgen` 0.2.130 and `wasm-opt -Oz`):
//!
//! * size: a probe that parses a JSON array and draws a bar chart and a
//!   log-log line chart is 137,198 bytes (62,951 gzipped) with plotters and
//!   50,836 bytes (25,013 gzipped) drawing its SVG by hand: plotters adds
//!   ~86 KB. This crate's whole `wasm-viz` bundle (spec parsing, renderer,
//!   DOM wiring, tooltips, theme observer) is ~147 KB (~64 KB gzipped;
//!   `scripts/build-wasm` prints the current figure), so with plotters it
//!   would come to roughly 220-230 KB, over the 200 KB budget.
//! * addressable marks: plotters' `SVGBackend` writes fixed elements with no
//!   way to add attributes, so every bar and point would have to be drawn a
//!   second time as an overlay anyway (`data-series`, `data-category`,
//!   `data-value`, `tabindex`, `aria-label`).
//! * on wasm32, plotters measures text through a canvas (`web-sys`), so the
//!   static SVG (native, estimated text widths) and the page's SVG would not
//!   even share a layout.
//!
//! Log axes (the one thing plotters would have given for free) are a few
//! lines here: [`ValueScale`] and [`log_ticks`].

use std::fmt::Write;

use crate::spec::{Axis, ChartKind, ChartSpec, Marker, Point, Role, Scale, Series};

/// Colours a chart is drawn with. In the page they come from the theme's
/// CSS custom properties (`--pw-series-1` .. `--pw-series-6`, `--pw-axis`,
/// `--pw-grid`, `--fg`, `--bg`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub series: Vec<String>,
    pub axis: String,
    pub grid: String,
    pub fg: String,
    pub bg: String,
}

impl Palette {
    /// The static fallback's palette: mdBook's light theme.
    pub fn light() -> Palette {
        Palette {
            series: [
                "#1f5fa8", "#c2410c", "#2f7d32", "#7b3fa0", "#9a6a00", "#0f7b7b",
            ]
            .map(String::from)
            .to_vec(),
            axis: "#5c5c5c".to_string(),
            grid: "#e3e3e3".to_string(),
            fg: "#1a1a1a".to_string(),
            bg: "#ffffff".to_string(),
        }
    }

    pub fn series_colour(&self, i: usize) -> &str {
        if self.series.is_empty() {
            &self.fg
        } else {
            &self.series[i % self.series.len()]
        }
    }
}

const FONT: f64 = 12.0;
const PAD: f64 = 12.0;
const BAR_H: f64 = 14.0;
const GROUP_GAP: f64 = 12.0;

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

/// The exact value as written in `data-value`, labels and the table: the
/// shortest decimal that reads back as the same `f64`.
pub fn exact(v: f64) -> String {
    format!("{v}")
}

/// A value with its unit: `251.5 ns per page`.
pub fn with_unit(v: f64, unit: &str) -> String {
    if unit.is_empty() {
        exact(v)
    } else {
        format!("{} {unit}", exact(v))
    }
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
        extra.push(format!("{low} {}, {high} {}", exact(lo), exact(hi)));
    }
    if let Some(n) = &p.note {
        extra.push(n.clone());
    }
    if !extra.is_empty() {
        let _ = write!(s, " ({})", extra.join(", "));
    }
    Some(s)
}

fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

fn truncate(s: &str, width: f64, size: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let keep = ((width / (size * 0.6)) as usize).saturating_sub(1);
    let mut t: String = s.chars().take(keep).collect();
    t.push('…');
    t
}

fn n(v: f64) -> String {
    // Two decimals are plenty for pixels.
    trimmed(v, 2)
}

/// `v` to `decimals` places without trailing zeros, and never `-0`.
fn trimmed(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Maps data values to pixels along one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueScale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    /// A log axis in bytes: powers of two and KiB/MiB/GiB ticks, because
    /// memory sizes are read that way (`1,000` and `10k` are not sizes).
    pub bytes: bool,
    pub px0: f64,
    pub px1: f64,
}

impl ValueScale {
    /// A scale covering `values` (and the axis' fixed ends), widened to
    /// round tick values; `zero` forces 0 into a linear domain (bars).
    pub fn fit(axis: &Axis, values: &[f64], zero: bool, px0: f64, px1: f64) -> ValueScale {
        let log = axis.scale == Scale::Log;
        let usable: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && (!log || *v > 0.0))
            .collect();
        let dmin = usable.iter().copied().fold(f64::INFINITY, f64::min);
        let dmax = usable.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (mut lo, mut hi) = if usable.is_empty() {
            if log {
                (1.0, 10.0)
            } else {
                (0.0, 1.0)
            }
        } else {
            (dmin, dmax)
        };
        if let Some(m) = axis.min.filter(|m| !log || *m > 0.0) {
            lo = m;
        }
        if let Some(m) = axis.max {
            hi = m;
        }
        // A fixed end from the spec is data too: keep the domain finite and,
        // on a log axis, positive, whatever it says.
        if !(lo.is_finite() && hi.is_finite()) || (log && lo <= 0.0) {
            (lo, hi) = if log { (1.0, 10.0) } else { (0.0, 1.0) };
        }
        // Far beyond any measurement, but every step below stays finite.
        let (floor, ceil) = if log {
            (1e-300, 1e300)
        } else {
            (-1e300, 1e300)
        };
        (lo, hi) = (lo.clamp(floor, ceil), hi.clamp(floor, ceil));
        let bytes = log && axis.unit == "bytes";
        if bytes {
            lo = 2f64.powf(lo.log2().floor());
            hi = 2f64.powf(hi.log2().ceil());
            if hi <= lo {
                hi = lo * 2.0;
            }
        } else if log {
            lo = 10f64.powf(lo.log10().floor());
            hi = 10f64.powf(hi.log10().ceil());
            if hi <= lo {
                hi = lo * 10.0;
            }
        } else {
            if zero {
                lo = lo.min(0.0);
                hi = hi.max(0.0);
            }
            if hi <= lo {
                hi = lo + 1.0;
            }
            let step = nice_step(hi - lo, 5.0);
            if axis.min.is_none() {
                lo = (lo / step).floor() * step;
            }
            if axis.max.is_none() {
                hi = (hi / step).ceil() * step;
            }
        }
        ValueScale {
            lo,
            hi,
            log,
            bytes,
            px0,
            px1,
        }
    }

    pub fn map(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(f64::MIN_POSITIVE).log10() - self.lo.log10())
                / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        let t = if t.is_nan() {
            0.0
        } else {
            t.clamp(-0.02, 1.02)
        };
        self.px0 + t * (self.px1 - self.px0)
    }

    /// Whether `v` can be placed on this scale.
    pub fn places(&self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    pub fn ticks(&self) -> Vec<f64> {
        if self.bytes {
            byte_ticks(self.lo, self.hi)
        } else if self.log {
            log_ticks(self.lo, self.hi)
        } else {
            linear_ticks(self.lo, self.hi, 5.0)
        }
    }

    /// The label of tick `v` on this scale.
    pub fn label(&self, v: f64) -> String {
        if self.bytes {
            byte_label(v)
        } else {
            tick_label(v, self.log)
        }
    }

    /// Where bars start: 0 on a linear scale (or the nearer end), the low
    /// end on a log scale.
    pub fn baseline(&self) -> f64 {
        if self.log {
            self.lo
        } else {
            0f64.clamp(self.lo, self.hi)
        }
    }
}

/// A round step (1, 2 or 5 times a power of ten) giving about `target`
/// intervals over `range`.
pub fn nice_step(range: f64, target: f64) -> f64 {
    let raw = (range / target).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let f = if norm < 1.5 {
        1.0
    } else if norm < 3.0 {
        2.0
    } else if norm < 7.0 {
        5.0
    } else {
        10.0
    };
    f * mag
}

/// Most ticks any axis draws. The tick functions never loop further than
/// this, whatever values they are given: a hostile or broken file can make
/// an axis span 600 decades, and the work must still follow the number of
/// ticks drawn, not the values.
const MAX_TICKS: usize = 24;

pub fn linear_ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
    let step = nice_step(hi - lo, target);
    if !(step.is_finite() && step > 0.0 && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last)
        .take(MAX_TICKS)
        .map(|i| i as f64 * step)
        .collect()
}

/// Integer exponents from `a` to `b`, every `every(span)`-th one counted
/// from `a` (or from multiples of it when `aligned`), at most
/// [`MAX_TICKS`] of them.
fn exponents(a: f64, b: f64, aligned: bool, every: impl Fn(i32) -> i32) -> Vec<i32> {
    // Exponents beyond ±1100 (even of two) mean a broken axis end.
    let clamp = |x: f64| {
        if x.is_nan() {
            0
        } else {
            x.clamp(-1100.0, 1100.0) as i32
        }
    };
    let (a, b) = (clamp(a), clamp(b));
    if b < a {
        return Vec::new();
    }
    let every = every(b - a).max((b - a) / MAX_TICKS as i32 + 1);
    let base = if aligned { 0 } else { a };
    (a..=b)
        .filter(|k| (k - base).rem_euclid(every) == 0)
        .take(MAX_TICKS)
        .collect()
}

/// Powers of ten from `lo` to `hi` (both taken as powers of ten); when
/// that is more than ten decades, every other one.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let every = |span| if span > 10 { 2 } else { 1 };
    exponents(lo.log10().round(), hi.log10().round(), false, every)
        .into_iter()
        .map(|k| 10f64.powi(k))
        .collect()
}

/// Powers of two from `lo` to `hi`, spaced so that at most eight are drawn
/// (every ×2, ×4, ×16 or ×1024).
pub fn byte_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let every = |span| {
        [1, 2, 4, 10]
            .into_iter()
            .find(|e| span / e < 8)
            .unwrap_or(10)
    };
    exponents(lo.log2().ceil(), hi.log2().floor(), true, every)
        .into_iter()
        .map(|k| 2f64.powi(k))
        .collect()
}

/// `4096` -> `4 KiB`, `1073741824` -> `1 GiB`.
pub fn byte_label(v: f64) -> String {
    let units = [
        (1u64 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (size, unit) in units {
        if v >= size as f64 {
            return format!("{} {unit}", trimmed(v / size as f64, 2));
        }
    }
    format!("{} B", trimmed(v, 0))
}

/// A tick label: thousands separators, SI suffixes from 10 000 up on log
/// axes, and no more decimals than the step needs.
pub fn tick_label(v: f64, log: bool) -> String {
    if log && v.abs() >= 1e4 {
        for (div, suffix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
            if v.abs() >= div {
                return format!("{}{suffix}", trim_num(v / div));
            }
        }
    }
    group(&trim_num(v))
}

fn trim_num(v: f64) -> String {
    // Tick values are multiples of round steps; six decimals hide float noise.
    trimmed(v, 6)
}

fn group(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

/// Draws `spec` as a standalone SVG string. `height` 0 picks a height that
/// fits the data (bars: one band per category); the SVG scales to its
/// container through its `viewBox`.
///
/// Every present value becomes one element with class `pw-mark` carrying
/// `data-series`, `data-category`, `data-value` (exact), `data-role`,
/// `tabindex="0"` and an `aria-label` with the value and unit; gaps get no
/// mark.
pub fn render_svg(spec: &ChartSpec, palette: &Palette, width: u32, height: u32) -> String {
    let w = f64::from(width.max(280));
    let mut body = String::new();
    let top = header(&mut body, spec, palette, w);
    let h = match spec.kind {
        ChartKind::Bars => bars(&mut body, spec, palette, w, f64::from(height), top),
        ChartKind::Lines => lines(&mut body, spec, palette, w, f64::from(height), top),
    };
    let mut svg = String::with_capacity(body.len() + 400);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pw-svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
         font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"{FONT}\">\
         <title>{t}</title><rect class=\"pw-bg\" width=\"{w}\" height=\"{h}\" fill=\"{bg}\"/>",
        w = n(w),
        h = n(h),
        t = esc(&spec.title),
        bg = esc(&palette.bg),
    );
    svg.push_str(&body);
    svg.push_str("</svg>");
    svg
}

/// Title and legend; returns the y where the plot may start.
fn header(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64) -> f64 {
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
fn reference_style(role: Role, colour: &str) -> String {
    match role {
        Role::Reference => format!(
            " fill-opacity=\"0.45\" stroke=\"{}\" stroke-width=\"1.5\"",
            esc(colour)
        ),
        _ => String::new(),
    }
}

fn mark_attrs(y: &Axis, s: &Series, where_key: &str, where_label: &str, p: &Point) -> String {
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

fn axis_title(
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

fn no_data(out: &mut String, spec: &ChartSpec, pal: &Palette, x: f64, y: f64) {
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
enum Gridlines {
    /// Ticks of a horizontal scale: lines from `top` to `bottom`, labels below.
    Vertical { top: f64, bottom: f64 },
    /// Ticks of a vertical scale: lines from `left` to `right`, labels left.
    Horizontal { left: f64, right: f64 },
}

/// A gridline and a tick label at each of `scale`'s ticks.
fn gridlines(out: &mut String, scale: &ValueScale, pal: &Palette, dir: Gridlines) {
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

/// Horizontal grouped bars; returns the SVG height.
fn bars(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64, height: f64, top: f64) -> f64 {
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
    let mut band = nser as f64 * BAR_H + GROUP_GAP;
    let below = 46.0;
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
        (left + right) / 2.0,
        bottom + 36.0,
        "middle",
        false,
        &spec.y.label,
    );

    if ncat == 0 || values.is_empty() {
        no_data(out, spec, pal, left + 8.0, top + 20.0);
    }

    // Category labels.
    out.push_str("<g class=\"pw-categories\">");
    for (ci, c) in spec.categories.iter().enumerate() {
        let y = top + band * ci as f64 + band / 2.0 + 4.0;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{}\">{}</text>",
            n(left - 6.0),
            n(y),
            esc(&pal.fg),
            esc(&truncate(&c.label, label_w - 8.0, FONT))
        );
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
            match p.and_then(|p| p.value.filter(|v| scale.places(*v)).map(|v| (p, v))) {
                Some((p, v)) => {
                    let (a, b) = (scale.map(scale.baseline()), scale.map(v));
                    let (x, bw) = (a.min(b), (a - b).abs().max(1.0));
                    let _ = write!(
                        marks,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}{}/>",
                        n(x),
                        n(y0 + 1.0),
                        n(bw),
                        n(bar_h - 2.0),
                        esc(colour),
                        reference_style(s.role, colour),
                        mark_attrs(&spec.y, s, &c.key, &c.label, p)
                    );
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
                None => {
                    let _ = write!(
                        marks,
                        "<text class=\"pw-gap\" x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"{}\" aria-hidden=\"true\">n/a</text>",
                        n(base + 4.0),
                        n(y0 + bar_h / 2.0 + 3.5),
                        esc(&pal.axis)
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
        esc(&pal.bg),
        esc(&pal.fg)
    );
    h
}

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
fn lines(out: &mut String, spec: &ChartSpec, pal: &Palette, w: f64, height: f64, top: f64) -> f64 {
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
