//! A JSON number's text as an `f64`: exactly natively, and in the page
//! with a reader that needs no tables (see [`compact_float`]).

/// Natively, the exact nearest `f64` (as serde_json's `float_roundtrip`).
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn float(text: &str) -> Option<f64> {
    text.parse().ok().filter(|f: &f64| f.is_finite())
}

/// In the page, [`compact_float`]: core's exact reader carries about 10 KB
/// of tables, more than the rest of this parser.
#[cfg(target_arch = "wasm32")]
pub(super) fn float(text: &str) -> Option<f64> {
    compact_float(text)
}

// The compact reader is the page's; natively only its tests call it.

/// Powers of ten that are exact in an `f64`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// 10^(2^i), correctly rounded (exact up to 1e16).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const BINARY_POW10: [f64; 9] = [1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256];

/// A JSON number (already checked against the grammar) as an `f64`
/// without tables: exact when the digits fit 53 bits and the power of ten
/// is exact (one rounding, Clinger's fast path: every number with up to 15
/// significant digits and most with 16), otherwise within a few units in
/// the last place (the digits rounded once, then scaled by exact powers of
/// ten). serde_json's compact reader, which the page used before, is off
/// by one unit at times too; a chart or a four-digit table never shows it.
/// `None` when the number is too large for an `f64`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn compact_float(text: &str) -> Option<f64> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (digits, exp) = match text.split_once(['e', 'E']) {
        Some((digits, exp)) => (digits, exp.parse::<i64>().ok()?),
        None => (text, 0),
    };
    // Up to 19 significant digits in a u64; the rest only move the point.
    let mut mantissa: u64 = 0;
    let mut kept = 0;
    let mut exp10 = exp;
    let mut after_point = false;
    for b in digits.bytes() {
        match b {
            b'.' => after_point = true,
            b'0'..=b'9' => {
                if mantissa == 0 && b == b'0' {
                    exp10 -= i64::from(after_point);
                } else if kept < 19 {
                    mantissa = mantissa * 10 + u64::from(b - b'0');
                    kept += 1;
                    exp10 -= i64::from(after_point);
                } else {
                    exp10 += i64::from(!after_point);
                }
            }
            _ => return None,
        }
    }
    let sign = if negative { -1.0 } else { 1.0 };
    if mantissa == 0 {
        return Some(sign * 0.0);
    }
    let mut value = mantissa as f64;
    if mantissa < 1 << 53 && (-22..=22).contains(&exp10) {
        value = if exp10 >= 0 {
            value * EXACT_POW10[exp10 as usize]
        } else {
            value / EXACT_POW10[(-exp10) as usize]
        };
    } else {
        // 10^|exp10| by its binary digits, the largest factor first: each
        // constant is the correctly rounded power, each step one rounding.
        // Factors are at least 1, so no step overflows (or, dividing,
        // underflows) before the answer does.
        // Past 10^±511 a 19-digit mantissa is infinite or zero anyway.
        let power = exp10.unsigned_abs();
        if power > 511 {
            value = if exp10 > 0 { f64::INFINITY } else { 0.0 };
        }
        for (bit, pow) in BINARY_POW10.iter().enumerate().rev() {
            if power <= 511 && power >> bit & 1 == 1 {
                value = if exp10 > 0 { value * pow } else { value / pow };
            }
        }
    }
    value.is_finite().then_some(sign * value)
}

#[cfg(test)]
mod tests {
    use super::compact_float;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// Within 4 units in the last place of the exact value for numbers as
    /// serde_json writes them (shortest digits) and as people write them,
    /// and exact on the fast path.
    #[test]
    fn compact_floats_are_near_the_exact_value() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut worst = 0;
        for i in 0..200_000 {
            let f = match i % 3 {
                0 => f64::from_bits(rng.u64(..)),
                1 => rng.f64() * 1e4,
                _ => (rng.u32(..) as f64) / 1000.0,
            };
            if !f.is_finite() {
                continue;
            }
            let text = serde_json::to_string(&f).unwrap();
            let exact: f64 = text.parse().unwrap();
            let got = compact_float(&text).unwrap_or(f64::NAN);
            worst = worst.max(ulps(got, exact));
            assert!(ulps(got, exact) <= 4, "{text}: {got} vs {exact}");
        }
        for text in [
            "0",
            "-0",
            "1",
            "0.1",
            "123.456",
            "1e22",
            "8.940123456789012",
            "100.0",
        ] {
            assert_eq!(compact_float(text), text.parse().ok(), "{text}");
        }
        assert_eq!(compact_float("1e309"), None);
        assert_eq!(compact_float("1e-400"), Some(0.0));
        assert!(worst <= 4, "{worst}");
    }
}
