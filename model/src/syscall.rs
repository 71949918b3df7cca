//! The syscall floor (R2's `systems/02`): what entering the kernel costs,
//! next to what the vDSO avoids, what a file round trip adds, what tracing
//! multiplies, and what waiting for another thread costs.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::latency::Latency;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Syscall.name();

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum SyscallOp {
    /// `clock_gettime(CLOCK_MONOTONIC)` through the vDSO: no kernel entry.
    ClockGettime,
    /// `syscall(SYS_getpid)`: the cheapest real kernel entry and exit.
    Getpid,
    /// `open` + `close` of a file.
    OpenClose,
    /// The same `getpid` loop in a child process traced by `strace`.
    GetpidStrace,
    /// One thread waking another through a pipe: half a ping-pong round trip.
    Wakeup,
}

impl SyscallOp {
    pub const ALL: [SyscallOp; 5] = [
        SyscallOp::ClockGettime,
        SyscallOp::Getpid,
        SyscallOp::OpenClose,
        SyscallOp::GetpidStrace,
        SyscallOp::Wakeup,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SyscallOp::ClockGettime => "clock-gettime",
            SyscallOp::Getpid => "getpid",
            SyscallOp::OpenClose => "open-close",
            SyscallOp::GetpidStrace => "getpid-strace",
            SyscallOp::Wakeup => "wakeup",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SyscallOp::ClockGettime => "clock_gettime (vDSO)",
            SyscallOp::Getpid => "getpid (syscall)",
            SyscallOp::OpenClose => "open + close",
            SyscallOp::GetpidStrace => "getpid under strace",
            SyscallOp::Wakeup => "wake-up (pipe)",
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SyscallResults {
    pub ops: Vec<SyscallOpResult>,
    /// The speculative-execution mitigations that bear on kernel entry and
    /// exit, as the kernel reports them; empty when not visible.
    #[serde(default)]
    pub mitigations: Vec<Mitigation>,
    /// `strace -V`'s first line, when strace was found.
    pub strace_version: Option<String>,
}

impl SyscallResults {
    pub fn op(&self, op: SyscallOp) -> Option<&SyscallOpResult> {
        self.ops.iter().find(|r| r.op == op)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SyscallOpResult {
    pub op: SyscallOp,
    pub skipped: Option<String>,
    /// Calls timed together per batch (1: each timed on its own).
    pub calls_per_batch: Option<u64>,
    /// Nanoseconds per call, one value per batch.
    pub latency: Option<Latency>,
    /// What exactly was called (the file opened, the strace command).
    pub detail: Option<String>,
}

/// One file of `/sys/devices/system/cpu/vulnerabilities/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct Mitigation {
    pub name: String,
    /// The kernel's verdict, e.g. `Mitigation: Retpolines` or `Not affected`.
    pub status: String,
}

impl Mitigation {
    /// A mitigation is in force: "Mitigation: ...", or a "Vulnerable"
    /// status that still applies a software fix and only lacks microcode
    /// (`spec_rstack_overflow`: `Vulnerable: Safe RET, no microcode` runs
    /// the Safe RET thunk on every kernel return).
    pub fn active(&self) -> bool {
        self.status.starts_with("Mitigation") || self.status.contains("Safe RET")
    }
}

#[cfg(test)]
mod tests {
    use super::Mitigation;

    fn m(status: &str) -> Mitigation {
        Mitigation {
            name: "x".into(),
            status: status.into(),
        }
    }

    #[test]
    fn safe_ret_without_microcode_is_in_force() {
        assert!(m("Mitigation: Retpolines").active());
        assert!(m("Vulnerable: Safe RET, no microcode").active());
        assert!(!m("Vulnerable").active());
        assert!(!m("Vulnerable: No microcode").active());
        assert!(!m("Not affected").active());
    }
}
