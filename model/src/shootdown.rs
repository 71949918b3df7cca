//! TLB shootdowns: what taking memory away (`munmap`), write-protecting it
//! (`mprotect`) or discarding it (`madvise(MADV_DONTNEED)`) costs when
//! another thread of the process is running on another CPU, whose TLB may
//! hold the old translations, so the kernel must interrupt it and wait;
//! against the same call with no other thread, and with it asleep.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::latency::Latency;
use crate::stats::Summary;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Shootdown.name();

/// The call that changes the mapping.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum ShootdownOp {
    /// `munmap` of the pages just written.
    Munmap,
    /// `mprotect(PROT_READ)` of them: a permission taken away.
    Mprotect,
    /// `madvise(MADV_DONTNEED)`: the pages freed, the mapping kept.
    MadvDontneed,
}

impl ShootdownOp {
    pub const ALL: [ShootdownOp; 3] = [
        ShootdownOp::Munmap,
        ShootdownOp::Mprotect,
        ShootdownOp::MadvDontneed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ShootdownOp::Munmap => "munmap",
            ShootdownOp::Mprotect => "mprotect",
            ShootdownOp::MadvDontneed => "madv-dontneed",
        }
    }

    /// The call's name alone, where a narrow chart has room for no more.
    pub fn short(self) -> &'static str {
        match self {
            ShootdownOp::Munmap => "munmap",
            ShootdownOp::Mprotect => "mprotect",
            ShootdownOp::MadvDontneed => "MADV_DONTNEED",
        }
    }

    /// How the call is written in C, for labels.
    pub fn label(self) -> &'static str {
        match self {
            ShootdownOp::Munmap => "munmap",
            ShootdownOp::Mprotect => "mprotect(PROT_READ)",
            ShootdownOp::MadvDontneed => "madvise(MADV_DONTNEED)",
        }
    }
}

/// What the process's second thread is doing during the calls.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Sibling {
    /// There is no second thread.
    Alone,
    /// It exists, pinned to the other CPU, blocked on a condition variable.
    Asleep,
    /// It runs on the other CPU, spinning in user space.
    Running,
}

impl Sibling {
    pub const ALL: [Sibling; 3] = [Sibling::Alone, Sibling::Asleep, Sibling::Running];

    pub fn name(self) -> &'static str {
        match self {
            Sibling::Alone => "alone",
            Sibling::Asleep => "asleep",
            Sibling::Running => "running",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Sibling::Alone => "no other thread",
            Sibling::Asleep => "other thread asleep",
            Sibling::Running => "other thread running",
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ShootdownResults {
    /// 4 KiB pages mapped, written and then taken away by each call.
    pub pages_per_call: u64,
    /// Calls timed per cell in each repetition.
    pub calls: u64,
    pub repetitions: u32,
    /// The CPU the calls ran on, and the one the second thread was pinned to.
    pub cpu: u32,
    pub remote_cpu: u32,
    /// KVM's paravirtual TLB flush (CPUID 0x4000_0001, EAX bit 9): a flush
    /// aimed at a vCPU the host has preempted is left for it to do when it
    /// next runs, instead of an interrupt. `None` outside KVM.
    pub pv_tlb_flush: Option<bool>,
    pub cells: Vec<ShootdownCell>,
}

impl ShootdownResults {
    pub fn cell(&self, op: ShootdownOp, sibling: Sibling) -> Option<&ShootdownCell> {
        self.cells
            .iter()
            .find(|c| c.op == op && c.sibling == sibling)
    }
}

/// One call with one kind of second thread.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ShootdownCell {
    pub op: ShootdownOp,
    pub sibling: Sibling,
    pub skipped: Option<String>,
    /// ns per call, every call of every repetition.
    pub latency: Option<Latency>,
    /// Each repetition's median ns per call: the range the verdicts use.
    pub median_ns: Option<Summary>,
    /// How far the other CPU's "TLB shootdowns" count in
    /// `/proc/interrupts` rose across the timed calls (read just before and
    /// just after each one), all repetitions together.
    pub remote_shootdowns: Option<u64>,
    /// The same count on the calling CPU.
    pub local_shootdowns: Option<u64>,
    /// Steal time of the other CPU across the repetitions, in clock ticks
    /// (`/proc/stat`): how long the host kept that vCPU off a physical CPU
    /// while the cell ran. Absent in files from before it was counted.
    #[serde(default)]
    pub remote_steal_ticks: Option<u64>,
}
