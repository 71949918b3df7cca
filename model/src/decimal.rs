//! `f64` as decimal text, exactly as `format!("{v:.N}")` and
//! `format!("{v}")` write it, without core's float formatting (Grisu and
//! Dragon4 with their tables, about 17 KB of each wasm module that formats
//! a float). Every float the page's modules write goes through here.
//!
//! [`fixed`] rounds the binary value itself, exactly, halves to even, as
//! `format!` does; [`shortest`] takes the shortest digits that read back as
//! the same `f64` from serde_json's writer (the `zmij` algorithm, already in
//! every module that writes JSON) and lays them out without an exponent.

/// `v` with `decimals` digits after the point: `format!("{v:.decimals$}")`
/// for `decimals` up to [`MAX_DECIMALS`] (more are written as that many).
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return non_finite(v).to_string();
    }
    let decimals = decimals.min(MAX_DECIMALS);
    let (mantissa, exp) = parts(v);
    // v * 10^d = mantissa * 5^d * 2^(exp + d): an integer times a power of
    // two, rounded to an integer once.
    let scaled = u128::from(mantissa) * 5u128.pow(decimals as u32);
    let shift = exp + decimals as i32;
    let digits = if shift >= 0 {
        Digits::shifted(scaled, shift as u32)
    } else {
        Digits::of(round_shift(scaled, shift.unsigned_abs()))
    };
    let mut out = String::from(if v.is_sign_negative() { "-" } else { "" });
    let text = digits.text();
    if decimals == 0 {
        out.push_str(&text);
    } else {
        let padded = format!("{text:0>width$}", width = decimals + 1);
        // `checked`: a slice that could panic would link core's panic text
        // for it, with its Unicode tables, into the page.
        let (int, frac) = padded
            .split_at_checked(padded.len() - decimals)
            .unwrap_or((&padded, ""));
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// The most decimals [`fixed`] writes: `mantissa * 5^d` must fit in 128
/// bits (53 + 2.33 d < 127).
pub const MAX_DECIMALS: usize = 30;

/// `v` as `format!("{v}")` writes it: the shortest digits that read back
/// as `v`, never with an exponent (`1e21` is `1000000000000000000000`).
pub fn shortest(v: f64) -> String {
    if !v.is_finite() {
        return non_finite(v).to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // serde_json writes `1.5`, `100.0`, `1e21`, `1.5e-7`.
    let written = serde_json::Number::from_f64(v).map_or_else(String::new, |n| n.to_string());
    let (sign, rest) = match written.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", written.as_str()),
    };
    let (mantissa, exp) = rest.split_once(['e', 'E']).unwrap_or((rest, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The digits, and how many of them come before the point.
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let mut digits = all
        .trim_start_matches('0')
        .trim_end_matches('0')
        .to_string();
    let mut point = int.len() as i32 + exp - lead as i32;
    // Exactly halfway between two shortest candidates, serde_json takes the
    // even one and `format!` the one above.
    let next = digits.len() as i32 + 1 - point;
    if exact_scaled(v, next).is_some_and(|x| x.text() == format!("{digits}5")) {
        point += round_up(&mut digits);
    }
    let digits = digits.as_str();
    let mut out = String::from(sign);
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(digits);
    } else if (point as usize) < digits.len() {
        let (i, f) = digits
            .split_at_checked(point as usize)
            .unwrap_or((digits, ""));
        out.push_str(i);
        out.push('.');
        out.push_str(f);
    } else {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    }
    out
}

/// Adds one in the last place of a digit string; 1 when that adds a digit
/// in front (`99` -> `1`, with the point one further right).
fn round_up(digits: &mut String) -> i32 {
    let mut bytes = std::mem::take(digits).into_bytes();
    let mut carried = 1;
    while let Some(last) = bytes.pop() {
        if last < b'9' {
            bytes.push(last + 1);
            carried = 0;
            break;
        }
    }
    if carried == 1 {
        bytes.push(b'1');
    }
    *digits = String::from_utf8(bytes).unwrap_or_default();
    carried
}

/// `|v| * 10^power` when that is a whole number.
fn exact_scaled(v: f64, power: i32) -> Option<Digits> {
    let (mantissa, exp) = parts(v);
    let shift = exp + power;
    let n = if power >= 0 {
        u128::from(mantissa).checked_mul(5u128.checked_pow(power.unsigned_abs())?)?
    } else {
        let five = 5u64.checked_pow(power.unsigned_abs())?;
        if mantissa % five != 0 {
            return None;
        }
        u128::from(mantissa / five)
    };
    if shift >= 0 {
        return Some(Digits::shifted(n, shift as u32));
    }
    let down = shift.unsigned_abs();
    (down < 128 && n.trailing_zeros() >= down).then(|| Digits::of(n >> down))
}

fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// `v`'s magnitude as `mantissa * 2^exp`.
fn parts(v: f64) -> (u64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    }
}

/// `n / 2^shift` rounded to the nearest integer, halves to even.
fn round_shift(n: u128, shift: u32) -> u128 {
    // n < 2^127 (see MAX_DECIMALS), so from 128 on it is under a half.
    if shift >= 128 {
        return 0;
    }
    let q = n >> shift;
    let rest = n - (q << shift);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// A non-negative integer as base-10^9 limbs, least significant first: a
/// float's integer part can have 309 digits.
struct Digits(Vec<u32>);

const LIMB: u64 = 1_000_000_000;

impl Digits {
    fn of(mut n: u128) -> Digits {
        let mut limbs = Vec::new();
        while n > 0 {
            limbs.push((n % u128::from(LIMB)) as u32);
            n /= u128::from(LIMB);
        }
        Digits(limbs)
    }

    /// `n * 2^shift`.
    fn shifted(n: u128, shift: u32) -> Digits {
        let mut d = Digits::of(n);
        // Doubling 29 bits at a time keeps each limb's carry in a u64.
        let mut left = shift;
        while left > 0 {
            let step = left.min(29);
            let mut carry = 0u64;
            for limb in &mut d.0 {
                let x = (u64::from(*limb) << step) + carry;
                *limb = (x % LIMB) as u32;
                carry = x / LIMB;
            }
            while carry > 0 {
                d.0.push((carry % LIMB) as u32);
                carry /= LIMB;
            }
            left -= step;
        }
        d
    }

    fn text(&self) -> String {
        let Some((top, rest)) = self.0.split_last() else {
            return "0".to_string();
        };
        let mut out = top.to_string();
        for limb in rest.iter().rev() {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from every scale: random bit patterns, and random decimals
    /// that sit on or next to a rounding tie.
    fn samples() -> Vec<f64> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.125,
            0.375,
            -0.001,
            999.5,
            1e21,
            1e-7,
            1e300,
            -1.5e300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            123456789.0,
            0.1 + 0.2,
        ];
        for _ in 0..20_000 {
            let bits = next();
            v.push(f64::from_bits(bits));
            let n = (bits >> 40) as f64;
            v.push(n / [1.0, 2.0, 8.0, 1000.0, 1024.0, 1e6][(bits % 6) as usize]);
        }
        v.retain(|f| f.is_finite());
        v
    }

    #[test]
    fn fixed_is_formats_fixed_point() {
        for v in samples() {
            for d in [0, 1, 2, 3, 6] {
                assert_eq!(fixed(v, d), format!("{v:.d$}"), "{v:e} to {d} decimals");
            }
        }
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(f64::NEG_INFINITY, 0), "-inf");
    }

    #[test]
    fn shortest_is_formats_display() {
        for v in samples() {
            assert_eq!(shortest(v), format!("{v}"), "{v:e}");
        }
        assert_eq!(shortest(f64::NAN), "NaN");
        assert_eq!(shortest(f64::INFINITY), "inf");
    }
}
