//! The symptom table as rules: for each row, which counters decide and
//! where "present" starts. Every threshold says why it is where it is (they
//! are all here, in one table); a counter that could not be read makes the
//! verdict "cannot tell", never a guess. The rules, by topic: `faults`
//! (first touch, rare stalls), `cpu` (the periodic spike, preemption,
//! frequency and core types), `translation` (TLB reach, huge pages,
//! shootdowns) and
//! `numa` (memory on a remote node).

mod cpu;
mod faults;
mod numa;
#[cfg(test)]
mod tests;
mod translation;

use std::collections::{BTreeMap, BTreeSet};

use pagewalk_model::inspect::{
    Evidence, InspectResults, Presence, ProcessSample, Symptom, SymptomVerdict,
};

use super::system::Eligible;

/// A minor fault on fresh memory costs the process about 1-2 µs of kernel
/// time (the first-touch chapter measures 1.7 µs per 4 KiB page on the
/// example machine). At 100 per second one lands every 10 ms: enough to
/// show in the p99 of anything that takes milliseconds, and two orders of
/// magnitude above the handful a settled process takes (stack, timers).
const MINOR_FAULTS_PER_S: f64 = 100.0;

/// A major fault waits for storage: ~0.1 ms on an SSD, milliseconds on a
/// disk or a network volume. The symptom is a *rare* stall, so one in the
/// window is already the evidence.
const MAJOR_FAULTS: u64 = 1;

/// Run-queue wait per second of wall time (summed over threads) from which
/// waiting for a CPU is a symptom: 50 ms/s is a twentieth of every second
/// lost, each wait at least a scheduler slice (milliseconds). A sleeping
/// process only collects wake-up latency, microseconds per wake-up.
const WAIT_MS_PER_S: f64 = 50.0;

/// ...and the share of its runnable time spent waiting: below a tenth, a
/// many-threaded process summing small waits over threads is not being
/// starved.
const WAIT_SHARE: f64 = 0.10;

/// A thread is RT-throttled only if it wants more than `rt_runtime / rt_period`
/// of a CPU (95% by default); from 90% of a CPU the process runs close to
/// that limit and the sampled share cannot tell the two apart.
const NEVER_SLEEPS_CPU_SHARE: f64 = 0.9;

/// With THP, less than half of the eligible anonymous memory in huge pages
/// means most of what could be huge came in 4 KiB pages. Above half, the
/// rest is mapping ends not aligned to 2 MiB and pages khugepaged has not
/// collapsed yet.
const HUGE_SHARE: f64 = 0.5;

/// Less eligible memory than two huge pages: nothing to judge.
const ELIGIBLE_KIB: u64 = 4096;

/// A frequency swing of 10% moves every operation by up to 10%: far above
/// the sub-1% A-vs-A floor of a pinned CPU-bound loop (noise chapter) and
/// above the rounding of `scaling_cur_freq`.
const FREQUENCY_SWING: f64 = 1.10;

/// Resident memory within half the reach of the largest data TLB (4 KiB
/// pages) cannot outgrow it: set-associative second-level TLBs conflict
/// before they are full, and code and kernel pages share them, hence the
/// margin of two.
const TLB_MARGIN: u64 = 2;

/// A quarter of the memory on a node that is not the CPU's: remote
/// accesses cost ~1.5-2x a local one, so the average rises by 12-25%.
const REMOTE_SHARE: f64 = 0.25;

/// TLB shootdowns a second on one of the process's CPUs from which they
/// are a symptom: each costs the interrupted thread a few microseconds
/// (the shootdown chapter measures 2-4 µs per call on the example
/// machine), so 1,000 a second take about half a percent of that CPU and
/// put a few-µs spike into one in every thousand microseconds of work;
/// an idle desktop's CPUs see tens.
const SHOOTDOWNS_PER_S: f64 = 1000.0;

/// What verdicts need beyond the stored results.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub cpus_seen: BTreeSet<u32>,
    /// NUMA node of each CPU; one node (or none visible) means all local.
    pub cpu_nodes: BTreeMap<u32, u32>,
    pub cpu_capacity: BTreeMap<u32, u64>,
    /// From the end-of-window `smaps`, or why it could not be read.
    pub thp_eligible: Option<Result<Eligible, String>>,
    /// `THP_enabled: 0` in status: `prctl(PR_SET_THP_DISABLE)`.
    pub thp_disabled_by_process: bool,
    /// Entries x 4 KiB of the largest data or unified TLB CPUID describes.
    pub tlb_reach_kib: Option<u64>,
}

fn ev(what: &str, value: f64, unit: &str) -> Evidence {
    Evidence {
        what: what.into(),
        value,
        unit: unit.into(),
    }
}

fn verdict(
    symptom: Symptom,
    verdict: Presence,
    reason: String,
    evidence: Vec<Evidence>,
) -> SymptomVerdict {
    SymptomVerdict {
        symptom,
        verdict,
        reason,
        evidence,
    }
}

fn present_if(rule_holds: bool) -> Presence {
    if rule_holds {
        Presence::Present
    } else {
        Presence::Absent
    }
}

fn cannot_tell(
    symptom: Symptom,
    reason: impl Into<String>,
    evidence: Vec<Evidence>,
) -> SymptomVerdict {
    verdict(symptom, Presence::CannotTell, reason.into(), evidence)
}

/// First and last sample and the seconds between them.
struct Window<'a> {
    first: &'a ProcessSample,
    last: &'a ProcessSample,
    seconds: f64,
}

impl Window<'_> {
    fn delta(&self, f: impl Fn(&ProcessSample) -> Option<u64>) -> Option<u64> {
        Some(f(self.last)?.saturating_sub(f(self.first)?))
    }

    fn rate(&self, delta: u64) -> f64 {
        delta as f64 / self.seconds
    }
}

/// Each row of the symptom table decided over the watched window, in the
/// order of [`Symptom::ALL`].
pub fn decide(r: &InspectResults, extra: &Extra) -> Vec<SymptomVerdict> {
    let window = match (r.samples.first(), r.samples.last()) {
        (Some(first), Some(last)) if last.t_s > first.t_s => Window {
            first,
            last,
            seconds: last.t_s - first.t_s,
        },
        _ => {
            let why = "fewer than two samples: the process exited before a second look";
            return Symptom::ALL
                .iter()
                .map(|&s| cannot_tell(s, why, vec![]))
                .collect();
        }
    };
    let w = &window;
    vec![
        faults::first_touch(w),
        cpu::periodic_spike(r, w, extra),
        cpu::preemption(r, w, extra),
        faults::rare_stall(r, w),
        cpu::wide_spread(r, extra),
        translation::tlb_reach(w, extra),
        translation::huge_pages(r, w, extra),
        translation::shootdowns(r),
        numa::remote_numa(r, extra),
    ]
}

fn vmstat(r: &InspectResults, name: &str) -> Option<i64> {
    r.vmstat_deltas.get(name).copied()
}
