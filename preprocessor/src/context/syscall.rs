//! `syscall` (and `r2.syscall`): the syscall floor.

use pagewalk_model::judge::measured::batches;
use pagewalk_model::judge::{self, Order, Repeated};
use pagewalk_model::{RunFile, SyscallOp, SyscallOpResult};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::{ratio, skipped, Stats};

/// The syscall view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Syscall {
    /// Why the experiment was skipped or failed; else null.
    pub skipped: Option<String>,
    /// One view per operation (KEY); null where it did not run.
    pub ops: Ops,
    /// `getpid_strace.ns / getpid.ns`; null when not measured.
    pub strace_multiplier: Option<f64>,
    /// Why there is no strace figure (null when there is).
    pub strace_skipped: Option<String>,
    /// `getpid.ns / clock_gettime.ns`.
    pub vdso_ratio: Option<f64>,
    /// `wakeup.ns / getpid.ns`: waiting against entering.
    pub wakeup_ratio: Option<f64>,
    /// The entry-relevant vulnerabilities (spectre_v1/v2, meltdown, retbleed, spec_rstack_overflow, mds, ...).
    pub mitigations: Vec<MitigationView>,
    /// Names of those with a mitigation in force, comma-separated (`""` when none; null when the source reports no list, e.g. R2).
    pub mitigations_active: Option<String>,
    /// How many are in force (null likewise).
    pub mitigations_count: Option<usize>,
    /// Verdicts (below).
    pub verdict: Option<SyscallVerdict>,
}

/// One operation per KEY.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Ops {
    /// `clock_gettime` through the vDSO: no kernel entry.
    pub clock_gettime: Option<Op>,
    /// `getpid`: the cheapest real system call.
    pub getpid: Option<Op>,
    /// `open` + `close` of a file.
    pub open_close: Option<Op>,
    /// The same `getpid` loop under `strace`.
    pub getpid_strace: Option<Op>,
    /// One thread waking another through a pipe: half a round trip.
    pub wakeup: Option<Op>,
}

impl Ops {
    pub fn get(&self, o: SyscallOp) -> Option<&Op> {
        match o {
            SyscallOp::ClockGettime => self.clock_gettime.as_ref(),
            SyscallOp::Getpid => self.getpid.as_ref(),
            SyscallOp::OpenClose => self.open_close.as_ref(),
            SyscallOp::GetpidStrace => self.getpid_strace.as_ref(),
            SyscallOp::Wakeup => self.wakeup.as_ref(),
        }
    }

    fn slot(&mut self, o: SyscallOp) -> &mut Option<Op> {
        match o {
            SyscallOp::ClockGettime => &mut self.clock_gettime,
            SyscallOp::Getpid => &mut self.getpid,
            SyscallOp::OpenClose => &mut self.open_close,
            SyscallOp::GetpidStrace => &mut self.getpid_strace,
            SyscallOp::Wakeup => &mut self.wakeup,
        }
    }
}

/// One operation: ns per call over timed batches (`wakeup`: over single wake-ups).
#[derive(Clone, Serialize, JsonSchema)]
pub struct Op {
    /// The distribution, ns.
    #[serde(flatten)]
    pub stats: Stats,
    /// The median, ns per call: the figure prose cites.
    pub ns: Option<f64>,
    /// Why the operation did not run (e.g. strace not installed).
    pub skipped: Option<String>,
    /// How it is written (`clock_gettime (vDSO)`).
    pub label: &'static str,
    /// Calls per timed batch.
    pub calls_per_batch: Option<u64>,
    /// Batches (the same as `n`).
    pub batches: Option<u64>,
    /// What exactly was called (the file, the strace command).
    pub detail: Option<String>,
}

/// A vulnerability the kernel reports.
#[derive(Clone, Serialize, JsonSchema)]
pub struct MitigationView {
    /// Its name (`spectre_v2`).
    pub name: String,
    /// The kernel's status line.
    pub status: String,
    /// True when a mitigation is in force.
    pub active: bool,
}

/// What the syscall floor says.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct SyscallVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): `getpid` against `clock_gettime`, over the min..max of their batches, min..p90 from 10 batches up (`slower`: the vDSO kept the clock in user space).
    pub getpid_vs_clock: Option<Order>,
}

impl Op {
    /// The call's cost as the judge reads it, over its batches
    /// ([`judge::measured::batches`]: min..p90 from ten batches up).
    fn repeated(&self) -> Option<Repeated> {
        let s = &self.stats;
        Some(batches(self.ns?, s.min, s.max, s.p90, s.n))
    }
}

impl Syscall {
    /// Files `verdict.getpid_vs_clock`: a real syscall against the vDSO
    /// clock, over the spread of their batches, with the run's A-vs-A
    /// `floor`.
    pub fn judge(&mut self, floor: Option<f64>) {
        let cost = |op: &Option<Op>| op.as_ref().and_then(Op::repeated);
        let v = cost(&self.ops.getpid)
            .zip(cost(&self.ops.clock_gettime))
            .map(|(a, b)| judge::order(&a, &b, floor).order);
        self.verdict = Some(SyscallVerdict { getpid_vs_clock: v });
    }
}

pub fn view(run: &RunFile) -> Option<Syscall> {
    let record = run.experiment(pagewalk_model::syscall::EXPERIMENT)?;
    let s = run.syscall();
    let get = |o: SyscallOp| s.and_then(|s| s.op(o));
    let median = |o| get(o)?.latency.as_ref()?.p50_ns;
    let mitigations = s
        .map(|s| &s.mitigations[..])
        .unwrap_or_default()
        .iter()
        .map(|m| MitigationView {
            name: m.name.clone(),
            status: m.status.clone(),
            active: m.active(),
        })
        .collect();
    // An empty list means "not visible" (or not reported), not "none".
    let active: Option<Vec<&str>> = s.filter(|s| !s.mitigations.is_empty()).map(|s| {
        s.mitigations
            .iter()
            .filter(|m| m.active())
            .map(|m| m.name.as_str())
            .collect()
    });
    let mut ops = Ops::default();
    for &o in SyscallOp::ALL.iter() {
        *ops.slot(o) = get(o).map(op);
    }
    Some(Syscall {
        skipped: skipped(record),
        ops,
        strace_multiplier: ratio(median(SyscallOp::GetpidStrace), median(SyscallOp::Getpid)),
        strace_skipped: get(SyscallOp::GetpidStrace)
            .and_then(|o| o.skipped.as_deref().map(pagewalk_model::reason::in_words)),
        vdso_ratio: ratio(median(SyscallOp::Getpid), median(SyscallOp::ClockGettime)),
        wakeup_ratio: ratio(median(SyscallOp::Wakeup), median(SyscallOp::Getpid)),
        mitigations,
        mitigations_active: active.as_ref().map(|a| a.join(", ")),
        mitigations_count: active.as_ref().map(Vec::len),
        verdict: None,
    })
}

fn op(r: &SyscallOpResult) -> Op {
    let stats = Stats::of(r.latency.as_ref());
    Op {
        ns: stats.p50,
        batches: stats.n,
        stats,
        skipped: r.skipped.as_deref().map(pagewalk_model::reason::in_words),
        label: r.op.label(),
        calls_per_batch: r.calls_per_batch,
        detail: r.detail.clone(),
    }
}

#[cfg(test)]
impl Op {
    /// A call's cost over `n` batches: median, fastest and slowest batch.
    pub(crate) fn of_batches(n: u64, ns: f64, min: f64, max: f64) -> Op {
        Op {
            stats: Stats {
                n: Some(n),
                min: Some(min),
                max: Some(max),
                ..Stats::default()
            },
            ns: Some(ns),
            skipped: None,
            label: "",
            calls_per_batch: None,
            batches: None,
            detail: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_preempted_clock_batch_does_not_hide_a_3x_gap() {
        // Quick runs on an Intel guest: getpid 105 ns (batches 104-114 up to
        // p90), clock_gettime 27 ns with one batch the host preempted at 433 ns.
        let batches = |n: u64, ns: f64, min: f64, p90: f64, max: f64| {
            let mut o = Op::of_batches(n, ns, min, max);
            o.stats.p90 = Some(p90);
            o
        };
        let judge = |getpid: Op, clock: Op| {
            let mut s = Syscall {
                ops: Ops {
                    getpid: Some(getpid),
                    clock_gettime: Some(clock),
                    ..Ops::default()
                },
                ..Syscall::default()
            };
            s.judge(None);
            s.verdict.unwrap().getpid_vs_clock
        };
        let getpid = || batches(30, 105.2, 104.2, 113.5, 2114.7);
        assert_eq!(
            judge(getpid(), batches(30, 27.2, 26.7, 28.5, 433.1)),
            Some(Order::Slower)
        );
        // Its 90th percentile inside getpid's range: the ranges overlap, so
        // with only the ranges kept the rank test cannot confirm the 4x gap
        // between the medians (no floor here): unstable, not a difference.
        assert_eq!(
            judge(getpid(), batches(30, 27.2, 26.7, 110.0, 433.1)),
            Some(Order::Unstable)
        );
        // Five batches: every one counts, the slowest included, so the one
        // preempted batch makes the ranges overlap: unstable.
        assert_eq!(
            judge(
                batches(5, 105.2, 104.2, 113.5, 2114.7),
                batches(5, 27.2, 26.7, 28.5, 433.1)
            ),
            Some(Order::Unstable)
        );
        // Without that batch the five are apart: slower.
        assert_eq!(
            judge(
                batches(5, 105.2, 104.2, 113.5, 113.5),
                batches(5, 27.2, 26.7, 28.5, 28.5)
            ),
            Some(Order::Slower)
        );
    }
}
