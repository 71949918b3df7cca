//! Numbers for people: one way to write bytes, durations and counts, used by
//! the collector's terminal, the charts' tooltips, tables and marker labels,
//! and the book's prose.
//!
//! About three significant digits (`12.3 ns`, `1.52 µs`, `4 MiB`,
//! `1.25 MiB`): more digits than that are noise on a shared machine and
//! fewer lose the difference between two runs. Trailing zeros are dropped
//! (`4 MiB`, not `4.00 MiB`). Exact values stay where they are data
//! (`data-value`, the data table's CSV, the JSON).

/// Byte units, binary: sizes in memory are powers of two, so `4 KiB` and
/// `2 MiB`, never `4.1 kB`.
const BYTE_UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

/// Duration units from nanoseconds, each 1000 times the previous.
const TIME_UNITS: [&str; 4] = ["ns", "µs", "ms", "s"];

/// `v` with about three significant digits: no decimals from 100 up, one
/// from 10, two below; trailing zeros dropped, never `-0`.
pub fn significant(v: f64) -> String {
    trimmed(v, decimals(v.abs()))
}

/// `v` rounded to `decimals` places, trailing zeros dropped, never `-0`
/// (`1.50` is `1.5`, `-0.001` to two places is `0`).
pub fn trimmed(v: f64, decimals: usize) -> String {
    let s = crate::decimal::fixed(v, decimals);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Decimals that give `a` (not negative) about three significant digits.
fn decimals(a: f64) -> usize {
    if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 || a == 0.0 {
        2
    } else {
        // Below 1: three digits after the leading zeros (0.0123), at most 6.
        (2 - a.log10().floor() as i32).clamp(2, 6) as usize
    }
}

/// `v` scaled by `base` until it is under `base` (or units run out), with
/// three significant digits; rounding up to `base` moves to the next unit
/// (`999.7 ns` is `1 µs`, not `1000 ns`).
fn scaled(v: f64, base: f64, units: &[&str]) -> String {
    let mut value = v;
    let mut unit = 0;
    while unit + 1 < units.len() && value.abs() >= base {
        value /= base;
        unit += 1;
    }
    // Rounded as `significant` will round it (no parsing back: that would
    // pull a float parser into the page's wasm).
    let scale = 10f64.powi(decimals(value.abs()) as i32);
    if unit + 1 < units.len() && (value.abs() * scale).round() / scale >= base {
        value /= base;
        unit += 1;
    }
    format!("{} {}", significant(value), units[unit])
}

/// A size in bytes: `512 B`, `4 KiB`, `1.25 MiB`, `1 GiB`. Never rounded
/// onto a whole number of units it is not: 4,095 bytes is `3.999 KiB`,
/// not `4 KiB` (which would read as a page), with up to three decimals,
/// and the exact bytes where even those would round.
pub fn bytes(v: f64) -> String {
    if !v.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    let mut value = v;
    let mut unit = 0;
    while unit + 1 < BYTE_UNITS.len() && value.abs() >= 1024.0 {
        value /= 1024.0;
        unit += 1;
    }
    let mut d = decimals(value.abs());
    loop {
        let text = trimmed(value, d);
        let whole = !text.contains('.');
        // Scaling by 1024 is exact in binary, so a whole number of units
        // has no fraction left.
        if !whole || value.fract() == 0.0 {
            return format!("{text} {}", BYTE_UNITS[unit]);
        }
        if d >= MAX_SIZE_DECIMALS {
            return format!("{} B", count(v.round()));
        }
        d += 1;
    }
}

/// Decimals a size may take to stay off a unit boundary it is not on.
const MAX_SIZE_DECIMALS: usize = 3;

/// What a formatter writes for a value that is not a finite number: it
/// never prints `inf` or `NaN` as if measured.
pub const NOT_A_NUMBER: &str = "n/a";

/// A duration given in nanoseconds: `12.3 ns`, `1.52 µs`, `293 ms`, `1.72 s`.
pub fn duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    scaled(ns, 1000.0, &TIME_UNITS)
}

/// The unit [`duration_ns`] writes `ns` in, and `ns` in that unit: for
/// prose that keeps its own decimals per unit.
pub fn duration_unit(ns: f64) -> (f64, &'static str) {
    let mut value = ns;
    let mut unit = 0;
    while unit + 1 < TIME_UNITS.len() && value.abs() >= 1000.0 {
        value /= 1000.0;
        unit += 1;
    }
    (value, TIME_UNITS[unit])
}

/// A count or a plain quantity: thousands separators from 1,000 up
/// (`262,144`, `1,234,568`), three significant digits below 100 (`12.3`,
/// `0.25`).
pub fn count(v: f64) -> String {
    if !v.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    group_thousands(&significant(v))
}

/// A decimal number as written by `format!`, with a comma between each
/// group of three digits of its integer part: `-1234.5` -> `-1,234.5`.
/// Anything else (`NaN`, `inf`) comes back unchanged.
pub fn group_thousands(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return s.to_string();
    }
    let mut out = String::from(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `v` read in `unit` the way a person would: bytes and durations scaled
/// (`bytes`, `KiB`, `MiB`, and `ns` with anything after it: `ns per page`
/// gives `1.52 µs per page`), anything else a [`count`] followed by the
/// unit (`3.5 faults`, `12.3 %`... `%` is written without a space).
pub fn value(v: f64, unit: &str) -> String {
    let scale = |factor: f64| bytes(v * factor);
    match unit {
        "bytes" | "B" => scale(1.0),
        "KiB" => scale(1024.0),
        "MiB" => scale(1024.0 * 1024.0),
        "GiB" => scale(1024.0 * 1024.0 * 1024.0),
        "" => count(v),
        u if u == "%" || u.starts_with("% ") => format!("{}{u}", count(v)),
        u => match u.strip_prefix("ns") {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                format!("{}{rest}", duration_ns(v))
            }
            _ => format!("{} {u}", count(v)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(significant(12.34), "12.3");
        assert_eq!(significant(1.519), "1.52");
        assert_eq!(significant(251.5), "252");
        assert_eq!(significant(4.0), "4");
        assert_eq!(significant(0.01234), "0.0123");
        assert_eq!(significant(0.5), "0.5");
        assert_eq!(significant(-0.001), "-0.001");
        assert_eq!(significant(-0.0), "0");
        assert_eq!(significant(0.0), "0");
    }

    #[test]
    fn sizes_in_binary_units() {
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(4096.0), "4 KiB");
        assert_eq!(bytes(1280.0 * 1024.0), "1.25 MiB");
        assert_eq!(bytes(1536.0 * 1024.0), "1.5 MiB");
        assert_eq!(bytes(f64::from(1u32 << 30)), "1 GiB");
        assert_eq!(bytes(64.0 * 1024.0 * 1024.0), "64 MiB");
        assert_eq!(bytes(0.0), "0 B");
        // Never onto a boundary it is not on: not `4 KiB`, not `1 MiB`.
        assert_eq!(bytes(4095.0), "3.999 KiB");
        assert_eq!(bytes(4097.0), "4.001 KiB");
        assert_eq!(bytes(1024.0 * 1024.0 - 1.0), "1023.999 KiB");
        assert_eq!(bytes(2.0 * 1024.0 * 1024.0 - 4096.0), "1.996 MiB");
        assert_eq!(bytes(2.0 * 1024.0 * 1024.0 - 1.0), "2,097,151 B");
        assert_eq!(bytes(1023.0), "1023 B");
        // Where three decimals still round to a whole unit: the bytes.
        assert_eq!(bytes(f64::from(1u32 << 30) + 1.0), "1,073,741,825 B");
        assert_eq!(bytes(3.74 * 1024.0 * 1024.0), "3.74 MiB");
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration_ns(12.34), "12.3 ns");
        assert_eq!(duration_ns(440.0), "440 ns");
        assert_eq!(duration_ns(1519.0), "1.52 µs");
        assert_eq!(duration_ns(999.7), "1 µs");
        assert_eq!(duration_ns(293.4e6), "293 ms");
        assert_eq!(duration_ns(1.7159e9), "1.72 s");
        assert_eq!(duration_ns(7200e9), "7200 s");
        assert_eq!(duration_unit(1119.2), (1.1192, "µs"));
    }

    #[test]
    fn counts_group_thousands() {
        assert_eq!(count(262144.0), "262,144");
        assert_eq!(count(1234567.89), "1,234,568");
        assert_eq!(count(-1500.0), "-1,500");
        assert_eq!(count(12.34), "12.3");
        assert_eq!(count(0.25), "0.25");
        assert_eq!(count(f64::NAN), "n/a");
        assert_eq!(count(f64::INFINITY), "n/a");
        assert_eq!(bytes(f64::INFINITY), "n/a");
        assert_eq!(duration_ns(f64::NEG_INFINITY), "n/a");
    }

    #[test]
    fn values_in_an_axis_unit() {
        assert_eq!(value(1519.0, "ns per page"), "1.52 µs per page");
        assert_eq!(value(12.34, "ns"), "12.3 ns");
        assert_eq!(value(4096.0, "bytes"), "4 KiB");
        assert_eq!(value(1.5, "MiB"), "1.5 MiB");
        assert_eq!(value(0.9, "faults"), "0.9 faults");
        assert_eq!(value(99.51, "% of loads"), "99.5% of loads");
        assert_eq!(value(262144.0, ""), "262,144");
        // `ns` only as a word: `nsec` is some other unit.
        assert_eq!(value(3.0, "nsec"), "3 nsec");
    }
}
