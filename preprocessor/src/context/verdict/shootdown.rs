//! `sd.ops.KEY.verdict`: whether a running thread elsewhere made the call
//! slower, and whether its CPU was interrupted, so a chapter names the
//! shootdown as the cause only where both say so.

use schemars::JsonSchema;
use serde::Serialize;

use super::{order, Measured};
use crate::context::shootdown::{Case, Op, Shootdown};

/// What one call's three cases say, each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct ShootdownVerdict {
    /// `slower`, `faster`, `within-noise`: the call with another thread running against the call alone (repetition ranges, else the A-vs-A floor).
    pub running: Option<&'static str>,
    /// The same for another thread asleep.
    pub asleep: Option<&'static str>,
    /// `every-call`, `some-calls`, `none`: how often the other CPU was interrupted while its thread ran (at least one call in two; more than one in ten; fewer).
    pub running_interrupts: Option<&'static str>,
    /// The same with the other thread asleep.
    pub asleep_interrupts: Option<&'static str>,
    /// True when the running case was slower AND its CPU was interrupted on every call: the only case in which a chapter may say the extra time is the shootdown.
    pub shootdown_cost: Option<bool>,
}

/// How often the other CPU was interrupted, per timed call.
pub fn interrupts(per_call: f64) -> &'static str {
    if per_call >= 0.5 {
        "every-call"
    } else if per_call > 0.1 {
        "some-calls"
    } else {
        "none"
    }
}

fn measured(c: &Case) -> Measured {
    Measured {
        median: c.ns,
        min: c.ns_min,
        max: c.ns_max,
    }
}

fn op(o: &mut Op, floor: Option<f64>) {
    let Some(alone) = o.alone.as_ref().map(measured) else {
        return;
    };
    let against = |c: &Option<Case>| c.as_ref().map(|c| order(measured(c), alone, floor));
    let running = against(&o.running);
    let running_interrupts = o
        .running
        .as_ref()
        .and_then(|c| c.remote_per_call)
        .map(interrupts);
    o.verdict = Some(ShootdownVerdict {
        running,
        asleep: against(&o.asleep),
        running_interrupts,
        asleep_interrupts: o
            .asleep
            .as_ref()
            .and_then(|c| c.remote_per_call)
            .map(interrupts),
        shootdown_cost: running
            .zip(running_interrupts)
            .map(|(r, i)| r == super::SLOWER && i == "every-call"),
    });
}

/// Files each call's verdict.
pub fn add(sd: &mut Shootdown, floor: Option<f64>) {
    for o in sd.ops.all_mut().into_iter().flatten() {
        op(o, floor);
    }
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

    #[test]
    fn slower_and_interrupted_is_the_shootdowns_cost() {
        let mut o = call(case(11800.0, 300.0, Some(0.82)));
        op(&mut o, None);
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some("slower"));
        assert_eq!(v.asleep, Some("within-noise"));
        assert_eq!(v.running_interrupts, Some("every-call"));
        assert_eq!(v.asleep_interrupts, Some("some-calls"));
        assert_eq!(v.shootdown_cost, Some(true));
    }

    #[test]
    fn slower_without_interrupts_names_no_cause() {
        // A machine whose hypervisor took the flush off the IPI path, or
        // a thread descheduled all along: slower, but not by shootdowns.
        let mut o = call(case(11800.0, 300.0, Some(0.02)));
        op(&mut o, None);
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some("slower"));
        assert_eq!(v.running_interrupts, Some("none"));
        assert_eq!(v.shootdown_cost, Some(false));
    }

    #[test]
    fn interrupted_but_within_noise_names_no_cost() {
        let mut o = call(case(8150.0, 300.0, Some(0.9)));
        op(&mut o, None);
        let v = o.verdict.unwrap();
        assert_eq!(v.running, Some("within-noise"));
        assert_eq!(v.shootdown_cost, Some(false));
    }

    #[test]
    fn one_repetition_falls_back_on_the_floor() {
        let single = |ns: f64, per| {
            Some(Case {
                ns,
                ns_min: ns,
                ns_max: ns,
                p99_ns: None,
                remote_per_call: per,
            })
        };
        let mut o = call(single(8200.0, Some(0.9)));
        o.alone = single(8000.0, Some(0.0));
        op(&mut o, Some(0.05));
        assert_eq!(o.verdict.unwrap().running, Some("within-noise"));
        let mut o = call(single(12000.0, Some(0.9)));
        o.alone = single(8000.0, Some(0.0));
        op(&mut o, Some(0.05));
        assert_eq!(o.verdict.unwrap().shootdown_cost, Some(true));
    }
}
