//! Latency distributions that keep the tail: percentiles, the mean next to
//! them (to show how little it says), and the histogram they came from.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

/// One distribution of durations, in nanoseconds. Every field is optional
/// because a published source reports only some of them; the collector
/// fills them all.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Latency {
    /// How many values (iterations, operations or batches) it holds.
    pub n: Option<u64>,
    pub min_ns: Option<f64>,
    pub p50_ns: Option<f64>,
    pub p90_ns: Option<f64>,
    pub p99_ns: Option<f64>,
    pub p999_ns: Option<f64>,
    pub max_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    /// Counts per latency bucket, buckets in increasing order; empty when
    /// not recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<Bucket>,
}

/// Values in `(previous upto_ns, upto_ns]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Bucket {
    pub upto_ns: f64,
    pub count: u64,
}

/// The statistics a [`Latency`] holds, in the order the book shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stat {
    P50,
    P90,
    P99,
    P999,
    Max,
    Mean,
}

impl Stat {
    pub const ALL: [Stat; 6] = [
        Stat::P50,
        Stat::P90,
        Stat::P99,
        Stat::P999,
        Stat::Max,
        Stat::Mean,
    ];

    /// The key used in the template context and chart categories.
    pub fn key(self) -> &'static str {
        match self {
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P99 => "p99",
            Stat::P999 => "p999",
            Stat::Max => "max",
            Stat::Mean => "mean",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Stat::P999 => "p99.9",
            s => s.key(),
        }
    }
}

impl Latency {
    pub fn get(&self, stat: Stat) -> Option<f64> {
        match stat {
            Stat::P50 => self.p50_ns,
            Stat::P90 => self.p90_ns,
            Stat::P99 => self.p99_ns,
            Stat::P999 => self.p999_ns,
            Stat::Max => self.max_ns,
            Stat::Mean => self.mean_ns,
        }
    }
}
