//! `collector inspect PID`: a live process watched through `/proc` for a
//! while, and for each row of the book's symptom table (`book/symptoms.md`)
//! that one process's `/proc` can show, a verdict with the counters behind
//! it. Stored as the `inspect`
//! experiment of a run file, so it is read and validated like every run.

use std::collections::BTreeMap;

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

pub mod thresholds;

/// The experiment's name in a run file.
pub const EXPERIMENT: &str = crate::Kind::Inspect.name();

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct InspectResults {
    pub pid: u32,
    /// `comm` of the process, control characters removed.
    pub command: String,
    /// The window asked for and the one observed (shorter when the
    /// process exited).
    pub requested_s: f64,
    pub observed_s: f64,
    pub interval_ms: f64,
    /// Why sampling stopped before the window ended, if it did.
    pub ended_early: Option<String>,
    /// The timeline, one entry per interval (the first is the baseline).
    pub samples: Vec<ProcessSample>,
    /// System-wide `/proc/vmstat` counters, end minus start: whatever ran on
    /// the machine, not only this process.
    pub vmstat_deltas: BTreeMap<String, i64>,
    /// `/proc/pressure/*` "some" stall time over the window, microseconds;
    /// absent where the kernel has no PSI.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pressure_some_us: BTreeMap<String, u64>,
    /// Local timer interrupts (`LOC` in `/proc/interrupts`) per second on
    /// each CPU the process was seen on, by CPU number.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timer_irq_per_s: BTreeMap<u32, f64>,
    /// TLB shootdown interrupts (`TLB` in `/proc/interrupts`) per second
    /// on each CPU the process was seen on: what other threads' unmapping
    /// cost these CPUs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tlb_shootdowns_per_s: BTreeMap<u32, f64>,
    /// Resident KiB per NUMA node at the end (`/proc/PID/numa_maps`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kib_per_node: BTreeMap<u32, u64>,
    pub settings: SettingsInForce,
    /// Sources that could not be read, with the error: what "cannot tell"
    /// verdicts point at.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unreadable: BTreeMap<String, String>,
    /// One per row of the symptom table, in its order.
    pub verdicts: Vec<SymptomVerdict>,
}

/// The process's counters at one instant. A field is `None` when its file
/// could not be read (see [`InspectResults::unreadable`]).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ProcessSample {
    /// Seconds since the first sample.
    pub t_s: f64,
    pub minor_faults: u64,
    pub major_faults: u64,
    /// User + system CPU time, seconds.
    pub cpu_s: f64,
    /// The CPU it last ran on.
    pub cpu: u32,
    /// That CPU's `scaling_cur_freq`, kHz; absent without cpufreq.
    pub cpu_khz: Option<u64>,
    pub threads: u32,
    /// Context switches since the first sample, summed over threads.
    pub voluntary_switches: Option<u64>,
    pub involuntary_switches: Option<u64>,
    pub rss_kib: Option<u64>,
    /// Time its threads spent runnable but waiting for a CPU since the
    /// first sample, summed over threads (`task/*/schedstat`), ns.
    pub run_queue_wait_ns: Option<u64>,
    /// Time its threads spent on a CPU, by the same accounting, ns.
    pub on_cpu_ns: Option<u64>,
    /// `Anonymous` and `AnonHugePages` of `smaps_rollup`.
    pub anon_kib: Option<u64>,
    pub anon_huge_kib: Option<u64>,
}

/// Settings that decide which symptoms can happen at all.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SettingsInForce {
    pub thp_enabled: Option<String>,
    pub thp_defrag: Option<String>,
    /// CPU lists as the kernel prints them; empty when none.
    pub nohz_full: Option<String>,
    pub isolated: Option<String>,
    /// `-1`: real-time tasks are never throttled.
    pub sched_rt_runtime_us: Option<i64>,
    pub sched_rt_period_us: Option<i64>,
    /// `Cpus_allowed_list` and `Mems_allowed_list` of the process.
    pub cpus_allowed: Option<String>,
    pub mems_allowed: Option<String>,
    /// Scheduling policy number from `/proc/PID/stat` (1 FIFO, 2 RR).
    pub policy: Option<u32>,
}

/// The rows of `book/symptoms.md` a process's `/proc` can show, in its
/// order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Symptom {
    FirstTouchFaults,
    PeriodicSpike,
    Preemption,
    RareStall,
    WideSpread,
    TlbReach,
    HugePagesDenied,
    Shootdowns,
    RemoteNuma,
}

impl Symptom {
    pub const ALL: [Symptom; 9] = [
        Symptom::FirstTouchFaults,
        Symptom::PeriodicSpike,
        Symptom::Preemption,
        Symptom::RareStall,
        Symptom::WideSpread,
        Symptom::TlbReach,
        Symptom::HugePagesDenied,
        Symptom::Shootdowns,
        Symptom::RemoteNuma,
    ];

    /// The "usual cause" column, shortened.
    pub fn label(self) -> &'static str {
        match self {
            Symptom::FirstTouchFaults => "minor faults on fresh memory",
            Symptom::PeriodicSpike => "RT throttling or the fair server",
            Symptom::Preemption => "preemption (waiting for a CPU)",
            Symptom::RareStall => "major faults or direct compaction",
            Symptom::WideSpread => "frequency scaling or core types",
            Symptom::TlbReach => "working set beyond TLB reach",
            Symptom::HugePagesDenied => "huge pages not granted",
            Symptom::Shootdowns => "TLB shootdowns from other threads",
            Symptom::RemoteNuma => "memory on a remote NUMA node",
        }
    }

    /// The chapter (and section) the symptom table links to.
    pub fn chapter(self) -> &'static str {
        match self {
            Symptom::FirstTouchFaults => "hot-path-faults.md",
            Symptom::PeriodicSpike => "isolation.md#the-spinning-sched_fifo-thread",
            Symptom::Preemption => "isolation.md",
            Symptom::RareStall => "hot-path-faults.md#what-still-faults",
            Symptom::WideSpread => "noise.md",
            Symptom::TlbReach => "staircases.md",
            Symptom::HugePagesDenied => "huge-pages.md#why-you-cannot-count-on-thp",
            Symptom::Shootdowns => "shootdowns.md",
            Symptom::RemoteNuma => "numa.md",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    Present,
    Absent,
    /// A counter it needs could not be read; `reason` says which.
    CannotTell,
}

impl Presence {
    pub fn label(self) -> &'static str {
        match self {
            Presence::Present => "present",
            Presence::Absent => "absent",
            Presence::CannotTell => "cannot tell",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SymptomVerdict {
    pub symptom: Symptom,
    pub verdict: Presence,
    /// Why, in one sentence: the rule that decided, or what could not be read.
    pub reason: String,
    pub evidence: Vec<Evidence>,
}

/// One measured number behind a verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Evidence {
    pub what: String,
    pub value: f64,
    /// `/s`, `fraction`, `count`, `KiB`...
    pub unit: String,
}

impl Evidence {
    /// `minor faults: 1234 /s`, `0 major faults`, `huge-page share: 0.98`:
    /// the same words in the terminal and on the book's page.
    pub fn text(&self) -> String {
        let v = self.value;
        let number = if self.unit == "fraction" || (v.fract() != 0.0 && v.abs() < 10.0) {
            crate::decimal::fixed(v, 2)
        } else {
            crate::decimal::fixed(v, 0)
        };
        match self.unit.as_str() {
            "count" => format!("{number} {}", self.what),
            "fraction" => format!("{}: {number}", self.what),
            unit => format!("{}: {number} {unit}", self.what),
        }
    }
}

impl InspectResults {
    pub fn verdict(&self, s: Symptom) -> Option<&SymptomVerdict> {
        self.verdicts.iter().find(|v| v.symptom == s)
    }

    /// Rules serde cannot express; `(field, message)` like `load::validate`.
    pub fn check(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: &str| Err((f.to_string(), m.to_string()));
        if self.command.chars().any(char::is_control) || self.command.len() > 64 {
            return bad(
                "command",
                "must be at most 64 characters, none a control character",
            );
        }
        if !(self.observed_s.is_finite() && self.observed_s >= 0.0) {
            return bad("observed_s", "must be a non-negative number of seconds");
        }
        if self.samples.windows(2).any(|w| w[1].t_s < w[0].t_s) {
            return bad("samples", "times must not go backwards");
        }
        let symptoms: Vec<Symptom> = self.verdicts.iter().map(|v| v.symptom).collect();
        if symptoms != Symptom::ALL {
            return bad(
                "verdicts",
                "must hold one verdict per symptom, in table order",
            );
        }
        for (i, v) in self.verdicts.iter().enumerate() {
            if v.reason.trim().is_empty() {
                return Err((format!("verdicts[{i}].reason"), "must say why".into()));
            }
        }
        Ok(())
    }
}
