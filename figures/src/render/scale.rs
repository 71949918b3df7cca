//! Value to pixel along an axis, the ticks drawn on it and their labels.

use pagewalk_model::units::{self, group_thousands};

use crate::spec::{Axis, Band, ChartSpec, Scale, Series};

/// Maps data values to pixels along one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueScale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    /// A log axis in bytes: powers of two and KiB/MiB/GiB ticks, because
    /// memory sizes are read that way (`1,000` and `10k` are not sizes).
    pub bytes: bool,
    /// Bytes in one unit of the axis (1 for `bytes`, 1024 for `KiB`,
    /// 1048576 for `MiB`), so a size axis in MiB ticks `1 GiB`, not `1,024`.
    pub unit_bytes: f64,
    pub px0: f64,
    pub px1: f64,
}

impl ValueScale {
    /// A scale covering `values` (and the axis' fixed ends), widened to
    /// round tick values; `zero` forces 0 into a linear domain (bars).
    pub fn fit(axis: &Axis, values: &[f64], zero: bool, px0: f64, px1: f64) -> ValueScale {
        let log = axis.scale == Scale::Log;
        // One loop, no copy: the usable values' ends.
        let (mut dmin, mut dmax) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in values {
            if v.is_finite() && (!log || v > 0.0) {
                dmin = dmin.min(v);
                dmax = dmax.max(v);
            }
        }
        let (mut lo, mut hi) = if dmin > dmax {
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
        (lo, hi) = (clamp(lo, floor, ceil), clamp(hi, floor, ceil));
        let unit_bytes = match axis.unit.as_str() {
            "KiB" => 1024.0,
            "MiB" => 1048576.0,
            "GiB" => 1073741824.0,
            _ => 1.0,
        };
        let bytes = log && (axis.unit == "bytes" || unit_bytes > 1.0);
        if bytes {
            lo = pow(2.0, lo.log2().floor());
            hi = pow(2.0, hi.log2().ceil());
            if hi <= lo {
                hi = lo * 2.0;
            }
        } else if log {
            lo = pow(10.0, lo.log10().floor());
            hi = pow(10.0, hi.log10().ceil());
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
            // Rounded out to the step the ticks will take, fixed ends
            // too (two charts sharing an axis fix it at their data's
            // ends), so the highest value is never above the top tick.
            // Widening can make that step coarser (0.2 to 0.5; never
            // finer), and a coarser step's top tick would fall below the
            // highest value: rounded again then, to a few rounds. The
            // slack keeps an end already on a step (100) where it is.
            let mut step = nice_step(hi - lo, 5.0);
            for round in 0..4 {
                let slack = |fixed: bool| if round == 0 && !fixed { 0.0 } else { 1e-9 };
                lo = (lo / step + slack(axis.min.is_some())).floor() * step;
                hi = (hi / step - slack(axis.max.is_some())).ceil() * step;
                let next = nice_step(hi - lo, 5.0);
                if next <= step {
                    break;
                }
                step = next;
            }
        }
        ValueScale {
            lo,
            hi,
            log,
            bytes,
            unit_bytes,
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
            clamp(t, -0.02, 1.02)
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
            byte_label(v * self.unit_bytes)
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
            clamp(0.0, self.lo, self.hi)
        }
    }
}

/// What a value scale must cover: each point's value and whisker ends, in
/// the series `keep` takes, then the ends of `band`. Loops, not a chain
/// of `flat_map`s: each adapter's code was its own in the page's wasm.
pub(super) fn values_of(
    spec: &ChartSpec,
    keep: &dyn Fn(&Series) -> bool,
    band: Option<&Band>,
) -> Vec<f64> {
    let mut out = Vec::new();
    for s in spec.series.iter().filter(|s| keep(s)) {
        for p in &s.points {
            for v in [p.value, p.min, p.max].into_iter().flatten() {
                out.push(v);
            }
        }
    }
    if let Some(b) = band {
        out.push(b.low);
        out.push(b.high);
    }
    out
}

/// Every point's x, in series order (lines: what the x scale covers and
/// the data table's rows).
pub(crate) fn xs_of(spec: &ChartSpec) -> Vec<f64> {
    let mut out = Vec::new();
    for s in &spec.series {
        for p in &s.points {
            if let Some(x) = p.x {
                out.push(x);
            }
        }
    }
    out
}

/// `v` within `lo..=hi`, as `f64::clamp` for `lo <= hi`, but with no
/// panic (whose message formats floats) in the page's wasm.
pub(super) fn clamp(v: f64, lo: f64, hi: f64) -> f64 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// `base` to the whole power `exp` (the floor or ceiling of a logarithm),
/// as the tick functions compute their powers (`powi`): exact for powers
/// of two and of ten up to 10^22, their reciprocals correctly rounded, as
/// the build's `powf` gives them (the page's libm `pow` was an ulp off for
/// some, 10^-5 among them), and without libm's `pow` and `exp2` and their
/// tables, about 6 KB of the page's wasm.
fn pow(base: f64, exp: f64) -> f64 {
    base.powi(exp as i32)
}

/// A round step (1, 2 or 5 times a power of ten) giving about `target`
/// intervals over `range`.
pub fn nice_step(range: f64, target: f64) -> f64 {
    let raw = (range / target).max(f64::MIN_POSITIVE);
    let mag = pow(10.0, raw.log10().floor());
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
    // Loops rather than iterator adapters here and below: each adapter's
    // code was its own in the page's wasm.
    let mut ticks = Vec::new();
    for i in first..=last {
        if ticks.len() == MAX_TICKS {
            break;
        }
        ticks.push(i as f64 * step);
    }
    ticks
}

/// `power` of the integer exponents from `a` to `b`, every
/// `every(span)`-th one counted from `a` (or from multiples of it when
/// `aligned`), at most [`MAX_TICKS`] of them.
fn exponents(
    a: f64,
    b: f64,
    aligned: bool,
    every: fn(i32) -> i32,
    power: fn(i32) -> f64,
) -> Vec<f64> {
    // Exponents beyond ±1100 (even of two) mean a broken axis end.
    let exponent = |x: f64| {
        if x.is_nan() {
            0
        } else {
            clamp(x, -1100.0, 1100.0) as i32
        }
    };
    let (a, b) = (exponent(a), exponent(b));
    let mut ticks = Vec::new();
    if b < a {
        return ticks;
    }
    let every = every(b - a).max((b - a) / MAX_TICKS as i32 + 1);
    let base = if aligned { 0 } else { a };
    for k in a..=b {
        if ticks.len() == MAX_TICKS {
            break;
        }
        if (k - base).rem_euclid(every) == 0 {
            ticks.push(power(k));
        }
    }
    ticks
}

/// Powers of ten from `lo` to `hi` (both taken as powers of ten); when
/// that is more than ten decades, every other one.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let every = |span| if span > 10 { 2 } else { 1 };
    exponents(lo.log10().round(), hi.log10().round(), false, every, |k| {
        10f64.powi(k)
    })
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
    exponents(lo.log2().ceil(), hi.log2().floor(), true, every, |k| {
        2f64.powi(k)
    })
}

/// `4096` -> `4 KiB`, `1073741824` -> `1 GiB`.
pub fn byte_label(v: f64) -> String {
    units::bytes(v)
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
    group_thousands(&trim_num(v))
}

fn trim_num(v: f64) -> String {
    // Tick values are multiples of round steps; six decimals hide float noise.
    units::trimmed(v, 6)
}
