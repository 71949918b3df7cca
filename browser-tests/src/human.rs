//! Reads back the numbers the book shows people (`1.52 µs`, `4 MiB`,
//! `262,144`, `99.5%`) so a test can hold them against the data. Written
//! apart from the formatter that made them (`pagewalk_model::units`): a
//! wrong unit, a wrong rounding or a raw float shows up here.

/// A number as shown, with its unit already applied: nanoseconds for a
/// duration, bytes for a size, the number itself otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// The value in the base unit.
    pub value: f64,
    /// Half the last shown digit, in the base unit: how far rounding may
    /// have moved the value.
    pub tolerance: f64,
    /// Significant digits shown (trailing zeros of a whole number count).
    pub digits: usize,
    /// Whether a unit was written after the number.
    pub unit: Option<&'static str>,
}

const UNITS: [(&str, f64); 11] = [
    ("ns", 1.0),
    ("µs", 1e3),
    ("us", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("TiB", 1099511627776.0),
    ("%", 1.0),
];

/// The first number in `text` and the unit right after it (a space between
/// them or not), if `text` holds a number.
pub fn first_reading(text: &str) -> Option<Reading> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let negative = text[..start].ends_with('-');
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(rest.len());
    let number = rest[..end].trim_end_matches([',', '.']);
    let plain: String = number.chars().filter(|&c| c != ',').collect();
    let shown: f64 = plain.parse().ok()?;
    let decimals = plain.split_once('.').map_or(0, |(_, f)| f.len());
    let digits = plain.trim_start_matches(['0', '.']).replace('.', "").len();
    let after = rest[number.len()..].trim_start();
    let word = after
        .split(|c: char| c.is_whitespace() || c == ',' || c == ')' || c == ';')
        .next()
        .unwrap_or("");
    let unit = UNITS.iter().find(|(u, _)| *u == word);
    let factor = unit.map_or(1.0, |(_, f)| *f);
    let sign = if negative { -1.0 } else { 1.0 };
    Some(Reading {
        value: sign * shown * factor,
        tolerance: 0.5 * 10f64.powi(-(decimals as i32)) * factor,
        digits,
        unit: unit.map(|(u, _)| *u),
    })
}

/// Whether `text` starts (at its first number) with `value` as a person
/// should read it: within rounding of the shown digits, in a unit that
/// fits the axis' `unit` (`ns...` in a time unit, `bytes`/`KiB`/`MiB` in a
/// size unit), and no more than three significant digits unless the
/// number is whole (`262,144` faults).
pub fn shows(text: &str, value: f64, unit: &str) -> bool {
    let Some(r) = first_reading(text) else {
        return false;
    };
    let base = match unit.split(' ').next().unwrap_or("") {
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        _ => 1.0,
    };
    let time = unit == "ns" || unit.starts_with("ns ");
    let size = matches!(
        unit.split(' ').next(),
        Some("bytes" | "B" | "KiB" | "MiB" | "GiB")
    );
    let unit_fits = match r.unit {
        Some("ns" | "µs" | "us" | "ms" | "s") => time,
        Some("B" | "KiB" | "MiB" | "GiB" | "TiB") => size,
        Some("%") => unit.starts_with('%'),
        _ => !time && !size,
    };
    let whole = r.tolerance >= 0.5 && r.unit.is_none();
    let close = (r.value - value * base).abs() <= r.tolerance + 1e-9 * (value * base).abs();
    unit_fits && close && (r.digits <= 3 || whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_units_and_rounding() {
        let r = first_reading("tcache, this run: 1.52 µs per op (p50 1.5 µs)").unwrap();
        assert_eq!((r.value, r.unit, r.digits), (1520.0, Some("µs"), 3));
        assert!((r.tolerance - 5.0).abs() < 1e-9);
        assert_eq!(first_reading("262,144").unwrap().value, 262144.0);
        assert_eq!(first_reading("99.5% of loads").unwrap().unit, Some("%"));
        assert_eq!(first_reading("4 MiB").unwrap().value, 4194304.0);
        assert!(first_reading("n/a").is_none());
    }

    #[test]
    fn a_shown_number_matches_its_value_only() {
        assert!(shows("1.52 µs per page", 1519.4, "ns per page"));
        assert!(shows("250 ns", 250.5, "ns"));
        assert!(!shows("1.52 µs", 1530.0, "ns"));
        assert!(!shows("1519.4 ns", 1519.4, "ns"), "a raw float");
        assert!(!shows("1.52 ms", 1519.4, "ns"), "a wrong unit");
        assert!(!shows("1520", 1519.4, "ns"), "no unit");
        assert!(shows("4 MiB", 4194304.0, "bytes"));
        assert!(shows("1.5 MiB", 1.5, "MiB"));
        assert!(shows("262,144", 262144.0, "faults"));
        assert!(shows("12.3", 12.34, ""));
        assert!(shows("99.5%", 99.51, "% of loads"));
    }
}
