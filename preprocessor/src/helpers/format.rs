//! How the book prints numbers: thousands grouped, durations in the
//! model's units, ratios with a `×`.

/// What a gap (`null`) prints as.
pub const MISSING: &str = "n/a";

/// `1234567.8` -> `1,234,568` (or `1,234,567.8` with one decimal).
pub fn format_num(x: f64, decimals: usize) -> String {
    // Never `inf` or `NaN` as if measured (the helpers refuse one first).
    if !x.is_finite() {
        return MISSING.to_string();
    }
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let grouped = pagewalk_model::units::group_thousands(int);
    let sign = if x < 0.0 && s.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A duration in nanoseconds in the unit the model's formatter picks
/// (`pagewalk_model::units::duration_unit`); the prose keeps its own
/// decimals per unit so the book's numbers read as they always have.
pub fn format_dur(ns: f64) -> String {
    let (v, unit) = pagewalk_model::units::duration_unit(ns);
    let decimals = match unit {
        "ns" => 0,
        "ms" => 1,
        _ => 2,
    };
    format!("{} {unit}", format_num(v, decimals))
}

/// `5.84` -> `5.8×`, `69.6` -> `70×`, `0.91` -> `0.91×`.
pub fn format_ratio(r: f64) -> String {
    let s = if r >= 10.0 {
        format_num(r, 0)
    } else if r >= 1.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.2}")
    };
    format!("{s}×")
}
