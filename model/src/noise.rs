//! Run-to-run noise (R2's `perf/01`): the same fixed CPU-bound workload
//! repeated pinned and unpinned, two identical batches held against each
//! other (A vs A) next to a real difference (A vs B), and the scheduling and
//! isolation levers this machine has.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::compare::Verdict;
use crate::stats::Summary;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Noise.name();

/// One batch of runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Condition {
    /// Pinned to one CPU (`sched_setaffinity`).
    Pinned,
    /// Free to migrate over the allowed CPUs.
    Unpinned,
    /// Pinned again, same workload: the A-vs-A batch.
    PinnedAgain,
    /// Pinned, with a deliberately longer workload: a known difference.
    Longer,
}

impl Condition {
    pub const ALL: [Condition; 4] = [
        Condition::Pinned,
        Condition::Unpinned,
        Condition::PinnedAgain,
        Condition::Longer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Condition::Pinned => "pinned",
            Condition::Unpinned => "unpinned",
            Condition::PinnedAgain => "pinned-again",
            Condition::Longer => "longer",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Condition::Pinned => "pinned",
            Condition::Unpinned => "unpinned",
            Condition::PinnedAgain => "pinned, again",
            Condition::Longer => "pinned, longer workload",
        }
    }
}

/// What a comparison holds against what.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum ComparisonKind {
    /// pinned vs pinned-again: the noise floor.
    AVsA,
    /// pinned vs unpinned.
    PinnedVsUnpinned,
    /// pinned vs the longer workload: a difference known to be there.
    AVsLonger,
}

impl ComparisonKind {
    pub fn name(self) -> &'static str {
        match self {
            ComparisonKind::AVsA => "a-vs-a",
            ComparisonKind::PinnedVsUnpinned => "pinned-vs-unpinned",
            ComparisonKind::AVsLonger => "a-vs-longer",
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct NoiseResults {
    /// What one run computes.
    pub workload: Option<String>,
    /// Hash rounds per run, and per run of the longer workload.
    pub rounds: Option<u64>,
    pub longer_rounds: Option<u64>,
    pub runs_per_batch: Option<u32>,
    /// The CPU the pinned batches ran on.
    pub pinned_cpu: Option<u32>,
    pub batches: Vec<NoiseBatch>,
    #[serde(default)]
    pub comparisons: Vec<Comparison>,
    /// Absent for a published source that did not describe it.
    pub frequency: Option<Frequency>,
    pub levers: Option<SchedLevers>,
    /// On a hybrid part: median time pinned to the slowest core type over
    /// the fastest (from `cpu_capacity`).
    pub hybrid_slowdown: Option<f64>,
    /// What was found about core types (or why no ratio was measured).
    pub hybrid_detail: Option<String>,
}

impl NoiseResults {
    pub fn batch(&self, c: Condition) -> Option<&NoiseBatch> {
        self.batches.iter().find(|b| b.condition == c)
    }

    pub fn comparison(&self, k: ComparisonKind) -> Option<&Comparison> {
        self.comparisons.iter().find(|c| c.kind == k)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct NoiseBatch {
    pub condition: Condition,
    pub skipped: Option<String>,
    /// Wall nanoseconds of each run, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ns: Vec<f64>,
    pub summary: Option<Summary>,
    /// max/min of the runs (a published source may give only this).
    pub spread: Option<f64>,
    /// Standard deviation over mean.
    pub cv: Option<f64>,
    /// Runs that ended on another CPU than they started on.
    pub migrated_runs: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Comparison {
    pub kind: ComparisonKind,
    pub a: Condition,
    pub b: Condition,
    pub verdict: Verdict,
}

/// What the machine says about CPU frequency.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Frequency {
    /// `/sys/devices/system/cpu/cpu0/cpufreq` exists.
    pub cpufreq_visible: bool,
    pub governor: Option<String>,
    pub cur_khz: Option<u64>,
    pub max_khz: Option<u64>,
    /// `/sys/devices/system/cpu/cpufreq/boost` (1 = turbo allowed).
    pub boost: Option<String>,
}

/// The scheduling and isolation levers, and which of them this machine has
/// in force or available. `None` where it could not be read.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SchedLevers {
    /// CPUs this process may run on (`taskset -p`), as a CPU list.
    pub allowed_cpus: Option<String>,
    /// Boot parameters from `/proc/cmdline`; `None` when absent.
    pub isolcpus: Option<String>,
    pub nohz_full: Option<String>,
    pub rcu_nocbs: Option<String>,
    pub irqaffinity: Option<String>,
    /// RT throttling: an RT task may run `runtime` of every `period` µs
    /// (-1 runtime: no throttling).
    pub sched_rt_runtime_us: Option<i64>,
    pub sched_rt_period_us: Option<i64>,
    /// Whether a thread of this process could switch itself to SCHED_FIFO
    /// (tried, then switched back).
    pub sched_fifo_permitted: Option<bool>,
    /// `/proc/irq/default_smp_affinity`, when readable.
    pub irq_default_affinity: Option<String>,
    /// cgroup v2 with the cpuset controller (`cpuset.cpus.partition`
    /// needs it).
    pub cpuset_partitions: Option<bool>,
    /// Why partitions are or are not available.
    pub cpuset_detail: Option<String>,
}
