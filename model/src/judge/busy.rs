//! The machine around an experiment: whether what else it did while the
//! experiment ran (its [`Background`]) was enough to matter to the
//! experiment's figures. A chapter says so only then; the method page
//! (`noise.md`, "How busy the machine was") keeps every experiment's
//! figures either way.

use serde::Serialize;

use crate::background::Background;

/// How busy the machine was while an experiment ran, as far as its
/// figures are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Busy {
    /// Nothing the collector records was high enough to move the figures.
    Quiet,
    /// At least one [`Load`] was.
    Busy,
}

/// What made the machine busy enough to matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Load {
    /// The hypervisor ran something else for [`STEAL`] of the CPU time
    /// or more.
    Steal,
    /// More tasks wanted to run besides the collector than there were
    /// CPUs besides the one it measures on.
    Runnable,
    /// Other processes kept [`OTHERS`] of those CPUs busy or more.
    Others,
}

/// Steal from this share of the CPU time on. Steal stretches a CPU-bound
/// timing by about its own share, and in slices of milliseconds, so
/// unevenly (noise.md). The full runs recorded on quiet guests have an
/// A-against-A floor of 0.1% to 1.4% (reading-measurements.md: a
/// difference must clear it), so 5% of stretch is several floors: enough
/// to make, or hide, a difference the chapter reads. The quiet runs show
/// none (a tick of it at most).
pub const STEAL: f64 = 0.05;

/// Steal is a count of 10 ms clock ticks: under two of them (a short
/// experiment's window on few CPUs), one tick would pass [`STEAL`] alone.
const STOLEN_S: f64 = 0.02;

/// Other processes' CPU time from this share of the CPUs the collector
/// leaves free: on the two-CPU guests the book's runs come from, another
/// process running half the time. A neighbour that busy is often on the
/// measured thread's CPU or its sibling, and shares the caches and memory
/// bandwidth every figure here depends on; the quiet recorded runs stay
/// under a tenth of a CPU.
pub const OTHERS: f64 = 0.5;

/// Other processes' CPU time is counted in clock ticks too: under a
/// second, a few ticks of a kernel thread read as a large share (quiet
/// recorded runs show 0.6 CPUs over a tenth of a second), so a shorter
/// window does not count (as [`Background::summary`] leaves it out).
const OTHERS_WINDOW_S: f64 = 1.0;

/// The CPUs the collector leaves free while it measures on one of
/// `logical_cpus`: at least one, and one when the run does not say.
pub fn spare_cpus(logical_cpus: Option<usize>) -> usize {
    logical_cpus.map_or(1, |n| n.saturating_sub(1).max(1))
}

/// What about the machine, while `b` was recorded on a machine of
/// `logical_cpus`, was high enough to matter to the figures; empty when it
/// was quiet:
///
/// - `steal`: at least [`STEAL`] of the CPU time, over at least two ticks;
/// - `runnable`: more other runnable tasks, on average, than
///   [`spare_cpus`] (noise.md: "on a machine with few CPUs, one other busy
///   task can take the measured thread's CPU"; with every spare CPU taken,
///   the next one waits for the collector's or takes it);
/// - `others`: other processes kept at least [`OTHERS`] of the spare CPUs
///   busy, over a window of a second or more.
///
/// Memory and CPU pressure are left out: the collector's own threads
/// stall in them (quiet runs show CPU pressure of several percent over a
/// short window), so they cannot tell a neighbour from the experiment.
pub fn loads(b: &Background, logical_cpus: Option<usize>) -> Vec<Load> {
    let spare = spare_cpus(logical_cpus) as f64;
    let cpus = logical_cpus.unwrap_or(1).max(1) as f64;
    let mut loads = Vec::new();
    if b.steal_fraction >= STEAL && b.steal_fraction * b.window_s * cpus >= STOLEN_S {
        loads.push(Load::Steal);
    }
    if b.other_runnable.is_some_and(|r| r > spare) {
        loads.push(Load::Runnable);
    }
    let others = b.others_cpus().filter(|_| b.window_s >= OTHERS_WINDOW_S);
    if others.is_some_and(|c| c >= OTHERS * spare) {
        loads.push(Load::Others);
    }
    loads
}

/// `busy` when any of `loads` was high, else `quiet`.
pub fn busy(loads: &[Load]) -> Busy {
    if loads.is_empty() {
        Busy::Quiet
    } else {
        Busy::Busy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::word;

    fn bg(window_s: f64, steal: f64, runnable: f64, others_cpu_s: f64) -> Background {
        Background {
            window_s,
            user_fraction: 0.5,
            system_fraction: 0.1,
            idle_fraction: 0.4 - steal,
            iowait_fraction: 0.0,
            irq_fraction: 0.0,
            steal_fraction: steal,
            other_runnable: Some(runnable),
            load_1m: Some(1.0),
            others_cpu_s: Some(others_cpu_s),
            busiest: Vec::new(),
            memory_some_us: None,
            memory_full_us: None,
            cpu_some_us: None,
        }
    }

    #[test]
    fn each_load_counts_from_its_threshold() {
        let two = Some(2);
        // The quiet recorded runs: a kernel thread caught runnable once,
        // a few ticks of others over a tenth of a second.
        assert_eq!(loads(&bg(19.6, 0.0, 0.5, 0.2), two), []);
        assert_eq!(loads(&bg(0.1, 0.0, 0.0, 0.07), two), []);
        assert_eq!(busy(&[]), Busy::Quiet);
        // Steal: from 5%, over two ticks or more.
        assert_eq!(loads(&bg(2.0, 0.05, 0.0, 0.0), two), [Load::Steal]);
        assert_eq!(loads(&bg(2.0, 0.049, 0.0, 0.0), two), []);
        assert_eq!(loads(&bg(0.1, 0.05, 0.0, 0.0), two), []);
        // Runnable: more than the spare CPUs (one of two, fifteen of 16).
        assert_eq!(loads(&bg(0.2, 0.0, 1.5, 0.0), two), [Load::Runnable]);
        assert_eq!(loads(&bg(0.2, 0.0, 1.0, 0.0), two), []);
        assert_eq!(loads(&bg(0.2, 0.0, 2.5, 0.0), Some(16)), []);
        assert_eq!(loads(&bg(0.2, 0.0, 15.5, 0.0), Some(16)), [Load::Runnable]);
        // Others: half the spare CPUs, over a second or more.
        assert_eq!(loads(&bg(2.0, 0.0, 0.0, 1.0), two), [Load::Others]);
        assert_eq!(loads(&bg(2.0, 0.0, 0.0, 0.9), two), []);
        assert_eq!(loads(&bg(0.5, 0.0, 0.0, 0.5), two), []);
        assert_eq!(loads(&bg(2.0, 0.0, 0.0, 2.0), Some(16)), []);
        assert_eq!(loads(&bg(2.0, 0.0, 0.0, 15.0), Some(16)), [Load::Others]);
        // Unknown CPUs: one spare, so the smallest machine's rule.
        assert_eq!(loads(&bg(2.0, 0.1, 1.5, 1.0), None).len(), 3);
        assert_eq!(busy(&[Load::Others]), Busy::Busy);
    }

    #[test]
    fn the_words_a_template_compares_with() {
        assert_eq!(word(Busy::Quiet), "quiet");
        assert_eq!(word(Load::Others), "others");
        assert_eq!(spare_cpus(Some(1)), 1);
        assert_eq!(spare_cpus(Some(8)), 7);
    }
}
