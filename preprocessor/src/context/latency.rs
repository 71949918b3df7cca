//! Pieces shared by the OS-on-the-hot-path views: a latency distribution
//! as template keys, the skip reason, failed checks, keyed maps.

use pagewalk_model::{ExperimentRecord, Latency, Stat, Status};
use serde_json::{json, Map, Value};

/// `p50`, `p90`, `p99`, `p999`, `max`, `mean`, `min` (ns) and `n`; every
/// key present, null where the distribution (or the source) lacks it.
pub fn stats(l: Option<&Latency>) -> Map<String, Value> {
    let mut m: Map<String, Value> = Stat::ALL
        .iter()
        .map(|&s| (s.key().to_string(), json!(l.and_then(|l| l.get(s)))))
        .collect();
    m.insert("min".into(), json!(l.and_then(|l| l.min_ns)));
    m.insert("n".into(), json!(l.and_then(|l| l.n)));
    m
}

/// Why the experiment has no results: its reason when skipped or failed.
pub fn skipped(record: &ExperimentRecord) -> Value {
    match record.status {
        Status::Ok | Status::Interrupted => Value::Null,
        _ => json!(record.reason.as_deref().map(str::to_owned)),
    }
}

/// `{name, expected, observed}` per failed check.
pub fn failed_checks(record: &ExperimentRecord) -> Vec<Value> {
    record
        .failed_checks()
        .map(|c| json!({"name": &c.name, "expected": &c.expected, "observed": &c.observed}))
        .collect()
}

/// A map from each kebab-case name (written with `_`) to its view, null
/// where `f` has nothing.
pub fn keyed<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    f: impl Fn(T) -> Option<Value>,
) -> Value {
    Value::Object(
        all.iter()
            .map(|&k| (name(k).replace('-', "_"), f(k).unwrap_or(Value::Null)))
            .collect(),
    )
}

/// `a / b` when both are there and `b` is not zero.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}
