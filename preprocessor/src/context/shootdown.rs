//! `sd`: what taking pages away costs when another thread of the process
//! runs on another CPU (the TLB shootdown), against no other thread and a
//! sleeping one.

use pagewalk_model::{RunFile, ShootdownCell, ShootdownOp, ShootdownResults, Sibling};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::skipped;
use super::verdict::shootdown::ShootdownVerdict;

/// The shootdown view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Shootdown {
    /// Why the experiment was skipped or failed (one CPU, ...); else null.
    pub skipped: Option<String>,
    /// 4 KiB pages each call took away.
    pub pages_per_call: Option<u64>,
    /// Calls timed per case, all repetitions together.
    pub calls: Option<u64>,
    /// Repetitions.
    pub repetitions: Option<u32>,
    /// True when there was more than one repetition (so each case has a range).
    pub repeated: Option<bool>,
    /// The CPU the calls ran on.
    pub cpu: Option<u32>,
    /// The CPU the other thread was pinned to.
    pub remote_cpu: Option<u32>,
    /// True when KVM offers paravirtual TLB flushes (a preempted vCPU flushes when it next runs, no interrupt); false when KVM does not; null outside KVM.
    pub pv_tlb_flush: Option<bool>,
    /// True when the run recorded, as a finding, that the paravirtual flush skipped interrupts: with the other thread running, fewer than one interrupt in two calls while the other vCPU's steal counter rose.
    pub pv_skipped: Option<bool>,
    /// One view per call (KEY: `munmap`, `mprotect`, `madv_dontneed`).
    pub ops: Ops,
}

/// The three calls.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Ops {
    /// `munmap` of the written pages.
    pub munmap: Option<Op>,
    /// `mprotect(PROT_READ)` of them.
    pub mprotect: Option<Op>,
    /// `madvise(MADV_DONTNEED)` of them.
    pub madv_dontneed: Option<Op>,
}

impl Ops {
    pub fn all_mut(&mut self) -> [&mut Option<Op>; 3] {
        [
            &mut self.munmap,
            &mut self.mprotect,
            &mut self.madv_dontneed,
        ]
    }
}

/// One call, in the three cases.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Op {
    /// How the call is written (`munmap`).
    pub label: &'static str,
    /// With no other thread.
    pub alone: Option<Case>,
    /// With another thread asleep on the other CPU.
    pub asleep: Option<Case>,
    /// With another thread running on the other CPU.
    pub running: Option<Case>,
    /// `running.ns - alone.ns`: what the running thread added per call, ns.
    pub extra_ns: Option<f64>,
    /// `running.ns / alone.ns`.
    pub ratio: Option<f64>,
    /// Verdicts (below).
    pub verdict: Option<ShootdownVerdict>,
}

/// One call with one kind of other thread.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Case {
    /// Median ns per call: the median of the repetitions' medians.
    pub ns: f64,
    /// The lowest repetition's median.
    pub ns_min: f64,
    /// The highest repetition's median.
    pub ns_max: f64,
    /// p99 over every call, ns.
    pub p99_ns: Option<f64>,
    /// The other CPU's "TLB shootdowns" interrupts per timed call; null when `/proc/interrupts` has no such row.
    pub remote_per_call: Option<f64>,
}

pub fn view(file: &RunFile) -> Option<Shootdown> {
    let record = file.experiment(pagewalk_model::shootdown::EXPERIMENT)?;
    if let Some(why) = skipped(record) {
        return Some(Shootdown {
            skipped: Some(why),
            ..Shootdown::default()
        });
    }
    let r = file.shootdown()?;
    let op = |op: ShootdownOp| {
        let case = |s: Sibling| r.cell(op, s).and_then(|c| case(r, c));
        let (alone, running) = (case(Sibling::Alone), case(Sibling::Running));
        let both = alone.as_ref().zip(running.as_ref());
        Some(Op {
            label: op.label(),
            extra_ns: both.map(|(a, b)| b.ns - a.ns),
            ratio: both.filter(|(a, _)| a.ns > 0.0).map(|(a, b)| b.ns / a.ns),
            asleep: case(Sibling::Asleep),
            alone,
            running,
            verdict: None,
        })
    };
    Some(Shootdown {
        skipped: None,
        pages_per_call: Some(r.pages_per_call),
        calls: Some(timed(r)),
        repetitions: Some(r.repetitions),
        repeated: Some(r.repetitions > 1),
        cpu: Some(r.cpu),
        remote_cpu: Some(r.remote_cpu),
        pv_tlb_flush: r.pv_tlb_flush,
        // The collector's finding, not a second reading of the counters.
        pv_skipped: Some(
            record
                .checks
                .iter()
                .any(|c| c.finding && c.name.contains("remote TLB shootdowns")),
        ),
        ops: Ops {
            munmap: op(ShootdownOp::Munmap),
            mprotect: op(ShootdownOp::Mprotect),
            madv_dontneed: op(ShootdownOp::MadvDontneed),
        },
    })
}

fn timed(r: &ShootdownResults) -> u64 {
    r.calls.saturating_mul(u64::from(r.repetitions))
}

fn case(r: &ShootdownResults, c: &ShootdownCell) -> Option<Case> {
    let m = c.median_ns.as_ref()?;
    let calls = timed(r);
    Some(Case {
        ns: m.median,
        ns_min: m.min,
        ns_max: m.max,
        p99_ns: c.latency.as_ref().and_then(|l| l.p99_ns),
        remote_per_call: c
            .remote_shootdowns
            .filter(|_| calls > 0)
            .map(|n| n as f64 / calls as f64),
    })
}
