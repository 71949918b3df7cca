//! The OS-on-the-hot-path verdicts: the tail, pinning, the vDSO, NUMA
//! placement, and the isolation levers' states in words.

use schemars::JsonSchema;
use serde::Serialize;

use super::{count_against, none_or_some, order, per_page, percentile_band, placement, split};
use super::{Measured, SLOWER};
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
    /// `exact`, `about-one-per-page`, `more`, `fewer`: the same count, allowing as many extra as the most any pre-faulted repetition's loop took over memory already present (`tail.prefault_faults_max`).
    pub per_page: Option<&'static str>,
    /// `none`, `some`: did any pre-faulted repetition's hot loop take a minor fault (`tail.prefault_faults_max`)? `none` rules faults out of the pre-faulted variants' slow iterations.
    pub prefaulted_faults: Option<&'static str>,
    /// `faults`, `not-faults`, `unproved`: what the fault counter says about the as-written p99.9. `faults` when pre-faulting took faults out of the loop, one iteration in a thousand or more meets a fresh page (`fault_share`), and the p99.9 fell beyond the spread (`p999` is `slower`); `not-faults` when the faults went and the p99.9 did not fall; `unproved` when the counter did not fall or faulting iterations are too rare to be the p99.9.
    pub p999_cause: Option<&'static str>,
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
    /// `slower`, `faster`, `within-noise`: `getpid` against `clock_gettime`, over the min..max of their batches, min..p90 from 10 batches up (`slower`: the vDSO kept the clock in user space).
    pub getpid_vs_clock: Option<&'static str>,
}

/// Where one thread's first touch put the pages.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct NumaVerdict {
    /// `one-node` when every page the one-thread placement put is on its fullest node, else `spread`.
    pub one_thread: Option<&'static str>,
    /// `even` when, with one thread per node each writing its own share, no node holds more than one share (`numa.pages / numa.nodes`, rounded up), else `uneven`: some thread's pages went to another node.
    pub parallel: Option<&'static str>,
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
    let mut verdict = TailVerdict {
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
        per_page: written
            .faults
            .zip(tail.pages)
            .map(|(f, p)| per_page(f, p as f64, tail.prefault_faults_max.unwrap_or(0.0))),
        prefaulted_faults: tail.prefault_faults_max.map(none_or_some),
        p999_cause: None,
    };
    verdict.p999_cause = match (verdict.p999, verdict.fault_share) {
        (Some(order), Some(band)) => written
            .faults
            .zip(tail.prefault_faults_max)
            .map(|(w, pre)| p999_cause(order, band, w, pre)),
        _ => None,
    };
    tail.verdict = Some(verdict);
}

/// What the fault counter says about the as-written p99.9, from `p999`
/// (its [`order`] against the pre-faulted p99.9), the fault share's
/// `band` ([`percentile_band`]) and the hot loop's faults as written and
/// at most pre-faulted: `faults` when pre-faulting took faults out of the
/// loop, faulting iterations are common enough to be the p99.9 and it fell
/// beyond the spread; `not-faults` when the faults went but the p99.9 did
/// not fall; `unproved` when the counter did not fall, or faulting
/// iterations are rarer than one in a thousand.
pub fn p999_cause(p999: &str, band: &str, written: f64, prefaulted_max: f64) -> &'static str {
    if prefaulted_max >= written || band == "below-p999" {
        "unproved"
    } else if p999 == SLOWER {
        "faults"
    } else {
        "not-faults"
    }
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

/// Batches from which the range of a syscall's cost leaves out the
/// slowest tenth (its 90th percentile instead of its maximum).
const MANY_BATCHES: u64 = 10;

/// `syscall.verdict.getpid_vs_clock`: a real syscall against the vDSO
/// clock, over the spread of their batches.
pub fn syscall(syscall: &mut Syscall, floor: Option<f64>) {
    let pick = |op: Option<&crate::context::syscall::Op>| {
        let op = op?;
        let median = op.ns?;
        // The batches' range when both ends are there, else the median
        // alone. From ten batches up the slowest tenth is left out (the
        // range runs to the 90th percentile): on a shared or virtual
        // machine a batch the host preempted lands there, and a min-max
        // range only widens as batches are added (a 27 ns clock with one
        // batch preempted at 433 ns was "within noise" of a 105 ns getpid
        // whose batches ran 104-114 ns up to their 90th percentile).
        let top = match op.stats.n {
            Some(n) if n >= MANY_BATCHES => op.stats.p90,
            _ => op.stats.max,
        };
        Some(match (op.stats.min, top) {
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
    let parallel = numa.placements.parallel.as_ref().and_then(|p| {
        let nodes = numa.nodes? as u64;
        Some(split(p.max_node_share?, numa.pages?, nodes))
    });
    numa.verdict = Some(NumaVerdict {
        one_thread: one,
        parallel,
    });
}
