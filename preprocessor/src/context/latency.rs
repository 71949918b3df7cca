//! Pieces shared by the OS-on-the-hot-path views: a latency distribution
//! as template keys, the skip reason, failed checks.

use pagewalk_model::{ExperimentRecord, Latency, Stat, Status};
use schemars::JsonSchema;
use serde::Serialize;

/// A latency distribution, ns; every key present, null where the
/// distribution (or the source) lacks it.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Stats {
    /// Median, ns.
    pub p50: Option<f64>,
    /// 90th percentile, ns.
    pub p90: Option<f64>,
    /// 99th percentile, ns.
    pub p99: Option<f64>,
    /// 99.9th percentile, ns.
    pub p999: Option<f64>,
    /// Slowest, ns.
    pub max: Option<f64>,
    /// Mean, ns.
    pub mean: Option<f64>,
    /// Fastest, ns.
    pub min: Option<f64>,
    /// How many figures the distribution holds (iterations, operations or batches).
    pub n: Option<u64>,
}

impl Stats {
    pub fn of(l: Option<&Latency>) -> Stats {
        let get = |s: Stat| l.and_then(|l| l.get(s));
        Stats {
            p50: get(Stat::P50),
            p90: get(Stat::P90),
            p99: get(Stat::P99),
            p999: get(Stat::P999),
            max: get(Stat::Max),
            mean: get(Stat::Mean),
            min: l.and_then(|l| l.min_ns),
            n: l.and_then(|l| l.n),
        }
    }
}

/// A premise check that failed.
#[derive(Clone, Serialize, JsonSchema)]
pub struct FailedCheck {
    /// What was checked.
    pub name: String,
    /// What the premise needs.
    pub expected: String,
    /// What the counter said.
    pub observed: String,
}

/// Why the experiment has no results: its reason when skipped or failed,
/// in a reader's words (`reason::in_words`: the run file keeps the raw text).
pub fn skipped(record: &ExperimentRecord) -> Option<String> {
    match record.status {
        Status::Ok | Status::Interrupted => None,
        _ => record
            .reason
            .as_deref()
            .map(pagewalk_model::reason::in_words),
    }
}

/// Each failed check.
pub fn failed_checks(record: &ExperimentRecord) -> Vec<FailedCheck> {
    record
        .failed_checks()
        .map(|c| FailedCheck {
            name: c.name.clone(),
            expected: c.expected.clone(),
            observed: c.observed.clone(),
        })
        .collect()
}

/// `a / b` when both are there and `b` is not zero.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    }
}

/// A KEY: the model's kebab-case name with `-` written as `_`.
pub fn key(name: &str) -> String {
    name.replace('-', "_")
}
