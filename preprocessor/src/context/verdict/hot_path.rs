//! The OS-on-the-hot-path verdicts: the tail, pinning, the vDSO, NUMA
//! placement, and the isolation levers' states in words.

use schemars::JsonSchema;
use serde::Serialize;

use super::{count_against, order, percentile_band, placement, Measured};
use crate::context::noise::{Levers, Noise};
use crate::context::numa::Numa;
use crate::context::syscall::Syscall;
use crate::context::tail::{Tail, Variant};

/// What the tail says: as written against the pre-faulted headline.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct TailVerdict {
    /// `slower`, `faster`, `within-noise`: as written against `tail.prefaulted`, p50 (single figures: the A-vs-A floor decides).
    pub p50: Option<&'static str>,
    /// The same for p99.9, held against the spread of the repetitions' own figures (`.p999_rep_min`/`_max` of each variant).
    pub p999: Option<&'static str>,
    /// The same for the mean (`.mean_rep_min`/`_max`).
    pub mean: Option<&'static str>,
    /// The pre-faulted maximum against the as-written p99.9 (`slower`: outliers beyond it survived pre-faulting).
    pub outliers: Option<&'static str>,
    /// `above-p99`, `between-p99-and-p999`, `below-p999`: `tail.fault_share` against the shares p99 and p99.9 stand for.
    pub fault_share: Option<&'static str>,
    /// `as-expected`, `more`, `fewer`: as-written hot-loop faults against `tail.pages`.
    pub faults: Option<&'static str>,
}

/// What pinning did.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct NoiseVerdict {
    /// `slower`, `faster`, `within-noise`: the unpinned batch's median against the pinned one's, held against the pinned-vs-unpinned comparison's A-vs-A floor.
    pub unpinned: Option<&'static str>,
    /// The same for their spreads (slowest / fastest run).
    pub unpinned_spread: Option<&'static str>,
}

/// What the syscall floor says.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct SyscallVerdict {
    /// `slower`, `faster`, `within-noise`: `getpid` against `clock_gettime`, over the min..max of their batches (`slower`: the vDSO kept the clock in user space).
    pub getpid_vs_clock: Option<&'static str>,
}

/// Where one thread's first touch put the pages.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct NumaVerdict {
    /// `one-node` when every page the one-thread placement put is on its fullest node, else `spread`.
    pub one_thread: Option<&'static str>,
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

/// `tail.verdict`: as written against the pre-faulted headline, each
/// statistic against the spread of its repetitions where they were kept.
pub fn tail(tail: &mut Tail, floor: Option<f64>) {
    let (Some(written), Some(pre)) = (tail.variants.as_written.as_ref(), tail.prefaulted.as_ref())
    else {
        return;
    };
    // Each figure with the spread of the repetitions' own figures.
    let p999 = |v: &Variant| Measured::ranged(v.stats.p999, v.p999_rep_min, v.p999_rep_max);
    let mean = |v: &Variant| Measured::ranged(v.stats.mean, v.mean_rep_min, v.mean_rep_max);
    let max = |v: &Variant| Measured::ranged(v.stats.max, v.max_rep_min, v.max_rep_max);
    let compare =
        |a: Option<Measured>, b: Option<Measured>| a.zip(b).map(|(a, b)| order(a, b, floor));
    let verdict = TailVerdict {
        p50: compare(
            written.stats.p50.map(Measured::single),
            pre.stats.p50.map(Measured::single),
        ),
        p999: compare(p999(written), p999(pre)),
        mean: compare(mean(written), mean(pre)),
        outliers: compare(max(pre), p999(written)),
        fault_share: tail.fault_share.map(percentile_band),
        faults: written
            .faults
            .zip(tail.pages)
            .map(|(f, p)| count_against(f, p as f64)),
    };
    tail.verdict = Some(verdict);
}

/// `noise.verdict`: unpinned against pinned, medians and spreads, held
/// against the A-vs-A floor of the comparison itself; and the levers' rows.
pub fn noise(noise: &mut Noise) {
    let floor = noise
        .comparisons
        .pinned_vs_unpinned
        .as_ref()
        .map(|c| c.noise);
    let (pinned, unpinned) = (
        noise.batches.pinned.as_ref(),
        noise.batches.unpinned.as_ref(),
    );
    let compare = |key: fn(&crate::context::noise::Batch) -> Option<f64>| {
        let a = unpinned.and_then(key).map(Measured::single);
        let b = pinned.and_then(key).map(Measured::single);
        a.zip(b).map(|(a, b)| order(a, b, floor))
    };
    noise.verdict = Some(NoiseVerdict {
        unpinned: compare(|b| b.ms),
        unpinned_spread: compare(|b| b.spread),
    });
    noise.levers.rows = lever_rows(&noise.levers);
}

/// `noise.levers.rows`, one per lever in the chapter's order: the value
/// read, or else the lever's state in words; both null when the source
/// recorded no levers (no cgroup detail).
pub fn lever_rows(levers: &Levers) -> Vec<LeverRow> {
    let recorded = levers
        .cpuset_detail
        .as_deref()
        .is_some_and(|d| !d.is_empty());
    let text = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    let flag = |on: Option<bool>, yes: &'static str, no: &'static str| {
        recorded.then_some(if on == Some(true) { yes } else { no })
    };
    let param = |v: &Option<String>| {
        let state = if text(v).is_some() { "set" } else { "not set" };
        (text(v), recorded.then_some(state))
    };
    let row =
        |lever: &'static str, (value, state): (Option<String>, Option<&'static str>)| LeverRow {
            lever,
            value,
            state,
        };
    let fifo = flag(levers.sched_fifo_permitted, "permitted", "not permitted");
    let partitions = flag(levers.cpuset_partitions, "available", "not available");
    let mask = text(&levers.irq_default_affinity).filter(|_| recorded);
    vec![
        row("taskset", (text(&levers.allowed_cpus), None)),
        row("SCHED_FIFO", (None, fifo)),
        row("isolcpus=", param(&levers.isolcpus)),
        row("nohz_full=", param(&levers.nohz_full)),
        row("rcu_nocbs=", param(&levers.rcu_nocbs)),
        row("/proc/irq/default_smp_affinity", (mask, None)),
        row("irqaffinity=", param(&levers.irqaffinity)),
        row("cpuset partitions", (None, partitions)),
    ]
}

/// `syscall.verdict.getpid_vs_clock`: a real syscall against the vDSO
/// clock, over the spread of their batches.
pub fn syscall(syscall: &mut Syscall, floor: Option<f64>) {
    let pick = |op: Option<&crate::context::syscall::Op>| {
        let op = op?;
        let median = op.ns?;
        // The batches' range when both ends are there, else the median alone.
        Some(match (op.stats.min, op.stats.max) {
            (Some(min), Some(max)) => Measured { median, min, max },
            _ => Measured::single(median),
        })
    };
    let v = pick(syscall.ops.getpid.as_ref())
        .zip(pick(syscall.ops.clock_gettime.as_ref()))
        .map(|(a, b)| order(a, b, floor));
    syscall.verdict = Some(SyscallVerdict { getpid_vs_clock: v });
}

/// `numa.verdict.one_thread`.
pub fn numa(numa: &mut Numa) {
    let one = numa
        .placements
        .one_thread
        .as_ref()
        .and_then(|p| p.max_node_share)
        .map(placement);
    numa.verdict = Some(NumaVerdict { one_thread: one });
}
