//! What a run file may hold, whoever wrote it.
//!
//! A run file is input from anyone: a reader drops one on the page, a CI job
//! copies one into `data/runs/`. Its strings reach HTML and Markdown, and its
//! numbers reach chart axes and loop bounds. Serde checks the shape; this
//! module checks that the content is physically possible and small enough
//! to render, and names the field that is not.
//!
//! The rules work on the JSON tree before it becomes typed data, so they
//! cover every experiment kind at once: units live in field names (`_ns`,
//! `_bytes`, `_kib`), and a field inherits the unit of the nearest named
//! ancestor (`wall_ns: {min, median, max}`).

use serde_json::Value;

use crate::decimal::shortest;

/// Largest file the CLI, the book build and the page accept. A full
/// `collector run --all` writes about 0.35 MiB and a 1,024-sample
/// inspection about 0.4 MiB, so 4 MiB leaves ten times the room a real
/// file needs (new experiments included) while bounding what a file can
/// make the build do: the work grows with the file, and a valid 8 MiB file
/// built a 110 MB book at a 585 MB peak (issue 18's probe). The largest
/// file `scripts/report-limits` builds (every curve at its most points and
/// 64 samples each, about 3 MiB) must stay under it.
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// Longest string (a CPU name, a check's description, a reference note).
pub const MAX_STRING_BYTES: usize = 4096;
/// Longest array of any kind; the ones below are tighter.
pub const MAX_ARRAY_LEN: usize = 4096;
/// Points of one latency curve: a chart draws each one.
pub const MAX_CURVE_POINTS: usize = 512;
/// Repetitions kept for one measurement.
pub const MAX_SAMPLES: usize = 1024;

/// No duration the collector measures lasts an hour.
const MAX_NS: f64 = 3.6e12;
/// One load or one operation cannot take less than a tenth of a
/// nanosecond: that would be a 10 GHz machine doing it in one cycle.
const MIN_LATENCY_NS: f64 = 0.1;
/// 1 PiB: more memory than any machine the collector runs on.
const MAX_BYTES: f64 = (1u64 << 50) as f64;
/// No run, experiment or watch the collector makes lasts a week.
pub const MAX_SECONDS: f64 = 7.0 * 86_400.0;
/// 4 KiB pages in [`MAX_BYTES`]: no count of pages can be larger.
const MAX_PAGES: f64 = MAX_BYTES / 4096.0;

/// A field's unit, read from its name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    /// A time per load or per operation: bounded below as well.
    Latency,
    /// A duration or time per page: zero is possible (a pass with no work).
    Duration,
    Bytes,
    Kib,
    /// A wall or CPU time in seconds (`duration_s`, `cpu_s`; not a rate
    /// such as `timer_irq_per_s`).
    Seconds,
    /// A share of a whole, 0 to 1 (`huge_fraction`).
    Fraction,
    /// A number of pages of any size.
    Pages,
    /// A count or a ratio: only non-negativity is known.
    Plain,
}

/// Fields that hold one operation's latency.
const LATENCY_FIELDS: &[&str] = &[
    "min_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p999_ns",
    "max_ns",
    "mean_ns",
    "ns_per_load",
    "samples_ns_per_load",
    "ns_before",
    "ns_after",
];

fn unit_of(key: &str) -> Option<Unit> {
    if LATENCY_FIELDS.contains(&key) {
        Some(Unit::Latency)
    } else if key.split('_').any(|t| t == "ns") {
        Some(Unit::Duration)
    } else if key.ends_with("_bytes") {
        Some(Unit::Bytes)
    } else if key.ends_with("_kib") {
        Some(Unit::Kib)
    } else if key.ends_with("_s") && !key.ends_with("_per_s") {
        Some(Unit::Seconds)
    } else if key == "fraction" || key.ends_with("_fraction") {
        Some(Unit::Fraction)
    } else if key == "pages" || key.ends_with("_pages") {
        Some(Unit::Pages)
    } else if matches!(key, "n" | "count") {
        Some(Unit::Plain)
    } else {
        None
    }
}

fn max_len(key: &str) -> usize {
    if key == "points" {
        MAX_CURVE_POINTS
    } else if key.starts_with("samples") || key == "later_runs" || key == "repetitions" {
        MAX_SAMPLES
    } else {
        MAX_ARRAY_LEN
    }
}

/// Characters that would let a string change how the text around it reads:
/// control characters (line breaks end a Markdown block) and bidirectional
/// overrides (they reorder what a reader sees).
fn forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Checks the whole tree; the error is `(field path, message)`. Sizes of
/// regions measured may not exceed `memory_bytes`, the machine's memory,
/// when the file says what that is.
pub fn check_tree(root: &Value, memory_bytes: Option<f64>) -> Result<(), (String, String)> {
    let mut path = String::new();
    walk(root, &mut path, "", Unit::Plain, memory_bytes)
}

fn walk(
    v: &Value,
    path: &mut String,
    key: &str,
    unit: Unit,
    memory: Option<f64>,
) -> Result<(), (String, String)> {
    let fail = |path: &str, msg: String| Err((path.to_string(), msg));
    match v {
        Value::String(s) => {
            if s.len() > MAX_STRING_BYTES {
                return fail(
                    path,
                    format!(
                        "is {} bytes long; strings may be at most {MAX_STRING_BYTES}",
                        s.len()
                    ),
                );
            }
            if let Some(c) = s.chars().find(|&c| forbidden(c)) {
                return fail(
                    path,
                    format!("contains the control character U+{:04X}", c as u32),
                );
            }
        }
        Value::Number(n) => {
            let Some(x) = n.as_f64() else { return Ok(()) };
            check_number(x, key, unit, memory).or_else(|m| fail(path, m))?;
        }
        Value::Array(items) => {
            let limit = max_len(key);
            if items.len() > limit {
                return fail(
                    path,
                    format!(
                        "has {} entries; at most {limit} are accepted here",
                        items.len()
                    ),
                );
            }
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(item, path, key, unit, memory)?;
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            summary_in_order(map).or_else(|m| fail(path, m))?;
            for (k, item) in map {
                // Refused before it joins the path: the error names the
                // object that holds it, never a path ending in a bad key.
                if k.is_empty() || k.len() > 128 || k.chars().any(forbidden) {
                    let shown: String = k.chars().take(32).collect();
                    return fail(
                        path,
                        format!(
                            "has a field name that is not a plain word: {}{}",
                            crate::json::quoted(&shown),
                            if shown.len() < k.len() {
                                " (cut short)"
                            } else {
                                ""
                            }
                        ),
                    );
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                walk(item, path, k, unit_of(k).unwrap_or(unit), memory)?;
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}

/// A summary of repetitions (`{n, min, median, max, mean}`, the shape of
/// [`crate::Summary`], in any experiment) summarises at least one, in order.
fn summary_in_order(map: &serde_json::Map<String, Value>) -> Result<(), String> {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    let (Some(n), Some(min), Some(median), Some(max)) =
        (get("n"), get("min"), get("median"), get("max"))
    else {
        return Ok(());
    };
    if n < 1.0 {
        return Err(format!(
            "summarises {} values; a summary has at least one",
            shortest(n)
        ));
    }
    // The page reads floats to within a few ulp, so equal values written
    // differently may differ in the last digits.
    let le = |a: f64, b: f64| a <= b + b.abs() * 1e-12;
    if !(le(min, median) && le(median, max)) {
        return Err(format!(
            "has min {}, median {}, max {}: not in order",
            shortest(min),
            shortest(median),
            shortest(max)
        ));
    }
    match get("mean") {
        Some(mean) if !(le(min, mean) && le(mean, max)) => Err(format!(
            "has mean {} outside min {} to max {}",
            shortest(mean),
            shortest(min),
            shortest(max)
        )),
        _ => Ok(()),
    }
}

fn check_number(x: f64, key: &str, unit: Unit, memory: Option<f64>) -> Result<(), String> {
    if !x.is_finite() {
        return Err("is not a finite number".into());
    }
    // Every repetition is kept, so a count of them is bounded as the lists
    // are (by key only: the fields of a `repetitions` list's entries count
    // other things).
    if key == "repetitions" && x > MAX_SAMPLES as f64 {
        return Err(format!(
            "is {}; at most {MAX_SAMPLES} repetitions are kept",
            shortest(x)
        ));
    }
    if x < 0.0 && unit != Unit::Plain {
        return Err(format!(
            "is {}; a {} cannot be negative",
            shortest(x),
            unit_word(unit)
        ));
    }
    match unit {
        Unit::Latency if x < MIN_LATENCY_NS => Err(format!(
            "is {} ns; no load or operation takes less than {} ns",
            shortest(x),
            shortest(MIN_LATENCY_NS)
        )),
        Unit::Latency | Unit::Duration if x > MAX_NS => Err(format!(
            "is {} ns, more than an hour; not a measured time",
            shortest(x)
        )),
        Unit::Bytes | Unit::Kib => {
            let bytes = if unit == Unit::Kib { x * 1024.0 } else { x };
            if bytes > MAX_BYTES {
                return Err(format!(
                    "is {}, more than 1 PiB; not a size on any machine",
                    shortest(x)
                ));
            }
            match memory {
                Some(mem) if matches!(key, "region_bytes" | "size_bytes") && bytes > mem => {
                    Err(format!(
                        "is {} bytes, more than this machine's memory ({} bytes)",
                        shortest(x),
                        shortest(mem)
                    ))
                }
                _ => Ok(()),
            }
        }
        Unit::Seconds if x > MAX_SECONDS => Err(format!(
            "is {} s, more than a week; nothing the collector measures lasts that long",
            shortest(x)
        )),
        Unit::Fraction if x > 1.0 => Err(format!(
            "is {}; a fraction of a whole is at most 1",
            shortest(x)
        )),
        Unit::Pages if x > MAX_PAGES => Err(format!(
            "is {} pages, more than 1 PiB of 4 KiB pages",
            shortest(x)
        )),
        _ => Ok(()),
    }
}

fn unit_word(unit: Unit) -> &'static str {
    match unit {
        Unit::Latency | Unit::Duration | Unit::Seconds => "time",
        Unit::Bytes | Unit::Kib => "size",
        Unit::Fraction => "fraction",
        Unit::Pages | Unit::Plain => "count",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: Value) -> Result<(), (String, String)> {
        check_tree(&v, Some(1e9))
    }

    #[test]
    fn plausible_values_pass() {
        let v = json!({"wall_ns": {"n": 3, "min": 0.0, "median": 5.0, "max": 9.0},
                        "p50_ns": 2.2, "region_bytes": 4096, "thp_fault_alloc": -1,
                        "name": "AMD EPYC 7B13 64-Core Processor"});
        assert_eq!(check(v), Ok(()));
    }

    #[test]
    fn extreme_latencies_are_named() {
        let (field, msg) = check(json!({"a": [{"p999_ns": 5e-324}]})).unwrap_err();
        assert_eq!(field, "a[0].p999_ns");
        assert!(msg.contains("0.1 ns"), "{msg}");
        let (field, _) = check(json!({"ns_per_load": {"median": 1.7e308}})).unwrap_err();
        assert_eq!(field, "ns_per_load.median");
        let (field, _) = check(json!({"samples_ns": [1.0, -3.0]})).unwrap_err();
        assert_eq!(field, "samples_ns[1]");
    }

    #[test]
    fn sizes_beyond_the_machine_are_refused() {
        let (field, msg) = check(json!({"points": [{"region_bytes": 2e9}]})).unwrap_err();
        assert_eq!(field, "points[0].region_bytes");
        assert!(msg.contains("memory"), "{msg}");
        assert!(check(json!({"anon_huge_kib": 1e15})).is_err());
        // A cache size or a request is not checked against memory.
        assert_eq!(check(json!({"requested_bytes": 2e9})), Ok(()));
    }

    #[test]
    fn strings_are_text_of_bounded_length() {
        let (field, msg) = check(json!({"cpu": {"model_name": "a\nb"}})).unwrap_err();
        assert_eq!(field, "cpu.model_name");
        assert!(msg.contains("U+000A"), "{msg}");
        assert!(check(json!({"s": "x\u{202e}y"})).is_err());
        assert!(check(json!({"s": "\0"})).is_err());
        assert!(check(json!({"s": "é".repeat(3000)})).is_err());
        assert_eq!(check(json!({"s": "é <b>[x](y)</b>"})), Ok(()));
    }

    #[test]
    fn arrays_are_bounded() {
        let points: Vec<Value> = (0..513).map(|_| json!({})).collect();
        let (field, msg) = check(json!({"c": {"points": points}})).unwrap_err();
        assert_eq!(field, "c.points");
        assert!(msg.contains("513"), "{msg}");
        let many: Vec<u8> = vec![0; MAX_ARRAY_LEN + 1];
        assert!(check(json!({ "x": many })).is_err());
    }
}
