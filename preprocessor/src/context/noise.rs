//! `noise` (and `r2.noise`): run-to-run noise, A vs A, and the levers.

use pagewalk_model::{ComparisonKind, Condition, NoiseBatch, RunFile, SchedLevers};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::skipped;
use super::rows::{ComparisonRow, NoiseRow};
use super::verdict::hot_path::{LeverRow, NoiseVerdict};

/// The noise view: the same workload in batches, pinned and not.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Noise {
    /// Why the experiment was skipped or failed; else null.
    pub skipped: Option<String>,
    /// What one run computes (text).
    pub workload: Option<String>,
    /// Hash rounds per run.
    pub rounds: Option<u64>,
    /// Runs per batch.
    pub runs: Option<u32>,
    /// How much more work the `longer` batch does (fraction: 0.1 = 10%).
    pub longer_by: Option<f64>,
    /// The CPU the pinned batches ran on.
    pub pinned_cpu: Option<u32>,
    /// One view per batch (KEY); null where it did not run.
    pub batches: Batches,
    /// One per batch in the chapter's order (`pinned`, `unpinned`, `pinned_again`, `longer`), with R2's beside it: one table row each with `#each`.
    pub rows: Vec<NoiseRow>,
    /// One view per comparison (KEY); null where it was not made.
    pub comparisons: Comparisons,
    /// One per comparison in the chapter's order, with its verdict in words: one table row each with `#each`.
    pub comparison_rows: Vec<ComparisonRow>,
    /// Shorthand: the difference of the two pinned batches (A against A).
    pub a_vs_a: Option<f64>,
    /// Shorthand for the noise floor (`comparisons.a_vs_a.noise`).
    pub floor: Option<f64>,
    /// Shorthand: the difference, pinned against unpinned.
    pub a_vs_b: Option<f64>,
    /// Shorthand for `comparisons.pinned_vs_unpinned.inside_noise`.
    pub a_vs_b_inside_noise: Option<bool>,
    /// Slowest / fastest core type, pinned medians (R2: 1.87); null on a uniform part.
    pub hybrid_slowdown: Option<f64>,
    /// What was found about core types (text).
    pub hybrid_detail: Option<String>,
    /// `/sys/devices/system/cpu/cpu0/cpufreq` exists.
    pub cpufreq_visible: Option<bool>,
    /// The frequency governor, where visible.
    pub governor: Option<String>,
    /// Current frequency, MHz.
    pub cur_mhz: Option<f64>,
    /// Maximum frequency, MHz.
    pub max_mhz: Option<f64>,
    /// `/sys/devices/system/cpu/cpufreq/boost` (1 = turbo allowed).
    pub boost: Option<String>,
    /// The scheduling and isolation levers.
    pub levers: Levers,
    /// Verdicts (below).
    pub verdict: Option<NoiseVerdict>,
}

/// One view per batch.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Batches {
    /// Pinned to one CPU.
    pub pinned: Option<Batch>,
    /// Free to migrate over the allowed CPUs.
    pub unpinned: Option<Batch>,
    /// Pinned again, same workload: A against A.
    pub pinned_again: Option<Batch>,
    /// Pinned, with a deliberately longer workload: a known difference.
    pub longer: Option<Batch>,
}

impl Batches {
    pub fn get(&self, c: Condition) -> Option<&Batch> {
        match c {
            Condition::Pinned => self.pinned.as_ref(),
            Condition::Unpinned => self.unpinned.as_ref(),
            Condition::PinnedAgain => self.pinned_again.as_ref(),
            Condition::Longer => self.longer.as_ref(),
        }
    }

    fn slot(&mut self, c: Condition) -> &mut Option<Batch> {
        match c {
            Condition::Pinned => &mut self.pinned,
            Condition::Unpinned => &mut self.unpinned,
            Condition::PinnedAgain => &mut self.pinned_again,
            Condition::Longer => &mut self.longer,
        }
    }
}

/// One batch of runs.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Batch {
    /// Why the batch did not run.
    pub skipped: Option<String>,
    /// Median run, ms.
    pub ms: Option<f64>,
    /// Fastest run, ms.
    pub min_ms: Option<f64>,
    /// Slowest run, ms.
    pub max_ms: Option<f64>,
    /// Slowest / fastest run (R2 unpinned: 2.4).
    pub spread: Option<f64>,
    /// `spread - 1`, a fraction for `{{pct}}` (R2 pinned: ~0.01).
    pub spread_excess: Option<f64>,
    /// Coefficient of variation (fraction).
    pub cv: Option<f64>,
    /// Runs that ended on another CPU than they began.
    pub migrated: Option<u32>,
}

/// One view per comparison.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Comparisons {
    /// Pinned against pinned again.
    pub a_vs_a: Option<ComparisonView>,
    /// Pinned against unpinned.
    pub pinned_vs_unpinned: Option<ComparisonView>,
    /// Pinned against the longer workload.
    pub a_vs_longer: Option<ComparisonView>,
}

impl Comparisons {
    pub fn get(&self, k: ComparisonKind) -> Option<&ComparisonView> {
        match k {
            ComparisonKind::AVsA => self.a_vs_a.as_ref(),
            ComparisonKind::PinnedVsUnpinned => self.pinned_vs_unpinned.as_ref(),
            ComparisonKind::AVsLonger => self.a_vs_longer.as_ref(),
        }
    }
}

/// A difference of medians held against the noise floor.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ComparisonView {
    /// Relative difference of the medians (fraction).
    pub difference: f64,
    /// The A-vs-A noise floor it is held against: the largest difference of medians between the two pinned batches and between the halves of each (fraction).
    pub noise: f64,
    /// True when `difference <= noise`: nothing was measured.
    pub inside_noise: bool,
}

/// The scheduling and isolation levers; every key null when the source did not record them.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Levers {
    /// CPUs this process may run on (taskset).
    pub allowed_cpus: Option<String>,
    /// `isolcpus=` from `/proc/cmdline`; null when absent.
    pub isolcpus: Option<String>,
    /// `nohz_full=`; null when absent.
    pub nohz_full: Option<String>,
    /// `rcu_nocbs=`; null when absent.
    pub rcu_nocbs: Option<String>,
    /// `irqaffinity=`; null when absent.
    pub irqaffinity: Option<String>,
    /// True when any of `isolcpus`, `nohz_full`, `rcu_nocbs` is set.
    pub boot_isolation: Option<bool>,
    /// RT throttling budget, µs (950000 of 1000000 by default; -1: off).
    pub rt_runtime_us: Option<i64>,
    /// RT throttling period, µs.
    pub rt_period_us: Option<i64>,
    /// `rt_runtime_us / rt_period_us` (fraction; null when off).
    pub rt_share: Option<f64>,
    /// A thread could switch itself to SCHED_FIFO (tried and undone).
    pub sched_fifo_permitted: Option<bool>,
    /// `/proc/irq/default_smp_affinity` (hex mask).
    pub irq_default_affinity: Option<String>,
    /// cgroup v2 cpuset partitions available.
    pub cpuset_partitions: Option<bool>,
    /// Why or why not.
    pub cpuset_detail: Option<String>,
    /// One per lever in the isolation chapter's order (`taskset`, `SCHED_FIFO`, `isolcpus=`, `nohz_full=`, `rcu_nocbs=`, `/proc/irq/default_smp_affinity`, `irqaffinity=`, `cpuset partitions`): one table row each with `#each`.
    pub rows: Vec<LeverRow>,
}

pub fn view(run: &RunFile) -> Option<Noise> {
    let record = run.experiment(pagewalk_model::noise::EXPERIMENT)?;
    let n = run.noise();
    let comparison = |k| n.and_then(|n| n.comparison(k)).map(|c| c.verdict);
    let f = n.and_then(|n| n.frequency.as_ref());
    let mut batches = Batches::default();
    for &c in Condition::ALL.iter() {
        *batches.slot(c) = n.and_then(|n| n.batch(c)).map(batch);
    }
    let view = |k| {
        comparison(k).map(|v| ComparisonView {
            difference: v.difference,
            noise: v.noise,
            inside_noise: v.inside_noise,
        })
    };
    Some(Noise {
        skipped: skipped(record),
        workload: n.and_then(|n| n.workload.clone()),
        rounds: n.and_then(|n| n.rounds),
        runs: n.and_then(|n| n.runs_per_batch),
        longer_by: n.and_then(|n| Some(n.longer_rounds? as f64 / n.rounds? as f64 - 1.0)),
        pinned_cpu: n.and_then(|n| n.pinned_cpu),
        batches,
        rows: Vec::new(),
        comparisons: Comparisons {
            a_vs_a: view(ComparisonKind::AVsA),
            pinned_vs_unpinned: view(ComparisonKind::PinnedVsUnpinned),
            a_vs_longer: view(ComparisonKind::AVsLonger),
        },
        comparison_rows: Vec::new(),
        a_vs_a: comparison(ComparisonKind::AVsA).map(|v| v.difference),
        floor: comparison(ComparisonKind::AVsA).map(|v| v.noise),
        a_vs_b: comparison(ComparisonKind::PinnedVsUnpinned).map(|v| v.difference),
        a_vs_b_inside_noise: comparison(ComparisonKind::PinnedVsUnpinned).map(|v| v.inside_noise),
        hybrid_slowdown: n.and_then(|n| n.hybrid_slowdown),
        hybrid_detail: n.and_then(|n| n.hybrid_detail.clone()),
        cpufreq_visible: f.map(|f| f.cpufreq_visible),
        governor: f.and_then(|f| f.governor.clone()),
        cur_mhz: f.and_then(|f| f.cur_khz).map(|k| k as f64 / 1000.0),
        max_mhz: f.and_then(|f| f.max_khz).map(|k| k as f64 / 1000.0),
        boost: f.and_then(|f| f.boost.clone()),
        levers: levers(n.and_then(|n| n.levers.as_ref())),
        verdict: None,
    })
}

fn batch(b: &NoiseBatch) -> Batch {
    let ms = |v: f64| v / 1e6;
    Batch {
        skipped: b.skipped.clone(),
        ms: b.summary.map(|s| ms(s.median)),
        min_ms: b.summary.map(|s| ms(s.min)),
        max_ms: b.summary.map(|s| ms(s.max)),
        spread: b.spread,
        spread_excess: b.spread.map(|s| s - 1.0),
        cv: b.cv,
        migrated: b.migrated_runs,
    }
}

/// Every lever key, null throughout when the source did not record them.
fn levers(l: Option<&SchedLevers>) -> Levers {
    let s = |f: fn(&SchedLevers) -> &Option<String>| l.and_then(|l| f(l).clone());
    let runtime = l.and_then(|l| l.sched_rt_runtime_us);
    let period = l.and_then(|l| l.sched_rt_period_us);
    Levers {
        allowed_cpus: s(|l| &l.allowed_cpus),
        isolcpus: s(|l| &l.isolcpus),
        nohz_full: s(|l| &l.nohz_full),
        rcu_nocbs: s(|l| &l.rcu_nocbs),
        irqaffinity: s(|l| &l.irqaffinity),
        boot_isolation: l
            .map(|l| l.isolcpus.is_some() || l.nohz_full.is_some() || l.rcu_nocbs.is_some()),
        rt_runtime_us: runtime,
        rt_period_us: period,
        rt_share: match (runtime, period) {
            (Some(r), Some(p)) if r >= 0 && p > 0 => Some(r as f64 / p as f64),
            _ => None,
        },
        sched_fifo_permitted: l.and_then(|l| l.sched_fifo_permitted),
        irq_default_affinity: s(|l| &l.irq_default_affinity),
        cpuset_partitions: l.and_then(|l| l.cpuset_partitions),
        cpuset_detail: s(|l| &l.cpuset_detail),
        rows: Vec::new(),
    }
}
