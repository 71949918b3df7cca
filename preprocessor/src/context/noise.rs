//! `noise` (and `r2.noise`): run-to-run noise, A vs A, and the levers.

use pagewalk_model::judge::Order;
use pagewalk_model::{ComparisonKind, Condition, NoiseBatch, RunFile, SchedLevers};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::{key, skipped};

mod judge;

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
    /// Every run's time, ns, where the file kept them: what the judge
    /// tests (not a template key).
    #[serde(skip)]
    #[schemars(skip)]
    pub samples_ns: Vec<f64>,
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

/// What pinning did.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct NoiseVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the unpinned batch's median against the pinned one's, held against the pinned-vs-unpinned comparison's A-vs-A floor.
    pub unpinned: Option<Order>,
    /// The same for their scatter: each run's distance from its batch's median (a single spread each, slowest / fastest run, where the runs were not kept).
    pub unpinned_spread: Option<Order>,
}

/// One lever as the isolation chapter's table shows it.
#[derive(Clone, Serialize, JsonSchema)]
pub struct LeverRow {
    /// The lever, as code (`isolcpus=`).
    pub lever: &'static str,
    /// What was read (a CPU list, a mask); else null.
    pub value: Option<String>,
    /// Else the lever's state in words to print as they are (`permitted`, `not permitted`, `set`, `not set`, `available`, `not available`); null, like `value`, when the source recorded no levers.
    pub state: Option<&'static str>,
}

/// A row of the noise chapter's batch table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct NoiseRow {
    /// The batch's KEY under `noise.batches`.
    pub key: String,
    /// Its name in the table (`pinned again`).
    pub label: &'static str,
    /// The batch on this source.
    pub run: Option<Batch>,
    /// The batch on R2 (null on `r2.noise` itself).
    pub r2: Option<Batch>,
}

/// A row of the noise chapter's comparison table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ComparisonRow {
    /// The comparison's KEY under `noise.comparisons`.
    pub key: String,
    /// Its name in the table (`pinned, pinned again (A against A)`).
    pub label: &'static str,
    /// The comparison on this source.
    pub run: Option<ComparisonView>,
    /// The comparison on R2 (null on `r2.noise` itself).
    pub r2: Option<ComparisonView>,
    /// What the run's difference is against its noise floor, in words to print: `inside the noise: nothing measured`, `outside the noise`, and `part of the floor` for A against A; null without the comparison.
    pub verdict: Option<&'static str>,
}

impl Noise {
    /// `rows` and `comparison_rows`, with R2's beside them (`r2`: null on
    /// R2's own view).
    pub fn fill_rows(&mut self, r2: Option<&Noise>) {
        self.rows = [
            (Condition::Pinned, "pinned"),
            (Condition::Unpinned, "unpinned"),
            (Condition::PinnedAgain, "pinned again"),
            (Condition::Longer, "longer"),
        ]
        .iter()
        .map(|&(c, label)| NoiseRow {
            key: key(c.name()),
            label,
            run: self.batches.get(c).cloned(),
            r2: r2.and_then(|n| n.batches.get(c)).cloned(),
        })
        .collect();
        self.comparison_rows = [
            (ComparisonKind::AVsA, "pinned, pinned again (A against A)"),
            (ComparisonKind::PinnedVsUnpinned, "pinned, unpinned"),
            (ComparisonKind::AVsLonger, "pinned, longer"),
        ]
        .iter()
        .map(|&(k, label)| {
            let run = self.comparisons.get(k).cloned();
            let verdict = match run.as_ref().map(|c| c.inside_noise) {
                _ if k == ComparisonKind::AVsA => Some("part of the floor"),
                Some(true) => Some("inside the noise: nothing measured"),
                Some(false) => Some("outside the noise"),
                None => None,
            };
            ComparisonRow {
                key: key(k.name()),
                label,
                run,
                r2: r2.and_then(|n| n.comparisons.get(k)).cloned(),
                verdict,
            }
        })
        .collect();
    }
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
        skipped: b.skipped.as_deref().map(pagewalk_model::reason::in_words),
        ms: b.summary.map(|s| ms(s.median)),
        min_ms: b.summary.map(|s| ms(s.min)),
        max_ms: b.summary.map(|s| ms(s.max)),
        spread: b.spread,
        samples_ns: b.samples_ns.clone(),
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

#[cfg(test)]
impl Batch {
    /// A batch of runs: its median and spread, and each run's time (ns)
    /// where the file kept them.
    pub(crate) fn of_runs(ms: f64, spread: f64, samples_ns: &[f64]) -> Batch {
        Batch {
            skipped: None,
            ms: Some(ms),
            min_ms: None,
            max_ms: None,
            spread: Some(spread),
            samples_ns: samples_ns.to_vec(),
            spread_excess: None,
            cv: None,
            migrated: None,
        }
    }
}
