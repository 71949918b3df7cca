//! `sd`: what taking pages away costs when another thread of the process
//! runs on another CPU (the TLB shootdown), against no other thread and a
//! sleeping one.

use pagewalk_model::judge::counts::{interrupts, Interrupts};
use pagewalk_model::judge::measured::order;
use pagewalk_model::judge::{Measured, Noise, Order};
use pagewalk_model::{RunFile, ShootdownCell, ShootdownOp, ShootdownResults, Sibling};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::skipped;

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

/// What one call's three cases say, each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct ShootdownVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the call with another thread running against the call alone (repetition ranges, else the A-vs-A floor).
    pub running: Option<Order>,
    /// The same for another thread asleep.
    pub asleep: Option<Order>,
    /// `every-call`, `some-calls`, `none`: how often the other CPU was interrupted while its thread ran (at least one call in two; more than one in ten; fewer).
    pub running_interrupts: Option<Interrupts>,
    /// The same with the other thread asleep.
    pub asleep_interrupts: Option<Interrupts>,
    /// True when the running case was slower AND its CPU was interrupted on every call: the only case in which a chapter may say the extra time is the shootdown.
    pub shootdown_cost: Option<bool>,
}

impl Shootdown {
    /// Files each call's verdict.
    pub fn judge(&mut self, noise: Noise) {
        for o in self.ops.all_mut().into_iter().flatten() {
            o.judge(noise);
        }
    }
}

impl Case {
    fn measured(&self) -> Measured {
        Measured::range(self.ns, self.ns_min, self.ns_max)
    }
}

impl Op {
    /// `verdict`: each case against the call alone, and the interrupts.
    fn judge(&mut self, noise: Noise) {
        let Some(alone) = self.alone.as_ref().map(Case::measured) else {
            return;
        };
        let against = |c: &Option<Case>| c.as_ref().map(|c| order(c.measured(), alone, noise));
        let per_call =
            |c: &Option<Case>| c.as_ref().and_then(|c| c.remote_per_call).map(interrupts);
        let running = against(&self.running);
        let running_interrupts = per_call(&self.running);
        self.verdict = Some(ShootdownVerdict {
            running,
            asleep: against(&self.asleep),
            running_interrupts,
            asleep_interrupts: per_call(&self.asleep),
            shootdown_cost: running
                .zip(running_interrupts)
                .map(|(r, i)| r == Order::Slower && i == Interrupts::EveryCall),
        });
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn case(ns: f64, spread: f64, per_call: Option<f64>) -> Option<Case> {
        Some(Case {
            ns,
            ns_min: ns - spread,
            ns_max: ns + spread,
            p99_ns: None,
            remote_per_call: per_call,
        })
    }

    fn call(running: Option<Case>) -> Op {
        Op {
            label: "munmap",
            alone: case(8000.0, 200.0, Some(0.0)),
            asleep: case(8100.0, 200.0, Some(0.14)),
            running,
            extra_ns: None,
            ratio: None,
            verdict: None,
        }
    }

    /// Three repetitions a side, as the collector's default runs have.
    fn n(floor: Option<f64>) -> Noise {
        Noise {
            floor,
            repetitions: 3,
        }
    }

    #[test]
    fn slower_and_interrupted_is_the_shootdowns_cost() {
        let mut o = call(case(11800.0, 300.0, Some(0.82)));
        // A 2% floor: asleep is 1.25% above alone.
        o.judge(n(Some(0.02)));
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some(Order::Slower));
        assert_eq!(v.asleep, Some(Order::WithinNoise));
        assert_eq!(v.running_interrupts, Some(Interrupts::EveryCall));
        assert_eq!(v.asleep_interrupts, Some(Interrupts::SomeCalls));
        assert_eq!(v.shootdown_cost, Some(true));
    }

    #[test]
    fn slower_without_interrupts_names_no_cause() {
        // A machine whose hypervisor took the flush off the IPI path, or
        // a thread descheduled all along: slower, but not by shootdowns.
        let mut o = call(case(11800.0, 300.0, Some(0.02)));
        o.judge(n(None));
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some(Order::Slower));
        assert_eq!(v.running_interrupts, Some(Interrupts::None));
        assert_eq!(v.shootdown_cost, Some(false));
    }

    #[test]
    fn interrupted_but_not_slower_names_no_cost() {
        // 1.9% above alone, the ranges overlapping: within a 2% floor.
        let mut o = call(case(8150.0, 300.0, Some(0.9)));
        o.judge(n(Some(0.02)));
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some(Order::WithinNoise));
        assert_eq!(v.shootdown_cost, Some(false));
        // With no floor the overlap is unstable: still no cost.
        let mut o = call(case(8150.0, 300.0, Some(0.9)));
        o.judge(n(None));
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some(Order::Unstable));
        assert_eq!(v.shootdown_cost, Some(false));
    }

    #[test]
    fn one_repetition_names_no_cost() {
        let single = |ns: f64, per| {
            Some(Case {
                ns,
                ns_min: ns,
                ns_max: ns,
                p99_ns: None,
                remote_per_call: per,
            })
        };
        let once = Noise {
            floor: Some(0.05),
            repetitions: 1,
        };
        // 2.5% above alone: within the floor.
        let mut o = call(single(8200.0, Some(0.9)));
        o.alone = single(8000.0, Some(0.0));
        o.judge(once);
        assert_eq!(o.verdict.unwrap().running, Some(Order::WithinNoise));
        // 50% above alone and interrupted on every call, but one figure a
        // side has no scatter to judge it by: unrepeated, and no cost named.
        let mut o = call(single(12000.0, Some(0.9)));
        o.alone = single(8000.0, Some(0.0));
        o.judge(once);
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some(Order::Unrepeated));
        assert_eq!(v.shootdown_cost, Some(false));
    }
}
