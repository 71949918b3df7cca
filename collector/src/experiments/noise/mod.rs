//! # noise
//!
//! Premise: the same fixed work does not take the same time twice. The
//! scheduler migrates an unpinned thread between CPUs (cold caches, a core
//! of another type, a busy sibling), and other load takes the core away. A
//! fixed hash loop is run in batches: pinned to one CPU, unpinned, pinned
//! again (A vs A: the noise floor), and pinned with 10% more work (a
//! difference known to exist). A difference between two batches means
//! something only when it exceeds the A-vs-A difference. Each run's start
//! and end CPU are read, to count migrations.

mod levers;

use std::hint::black_box;
use std::time::Instant;

use pagewalk_model::{
    coefficient_of_variation, relative_difference, Check, Comparison, ComparisonKind, Condition,
    NoiseBatch, NoiseResults, Results, Summary, Verdict,
};

use super::{Env, Outcome};
use crate::{affinity, interrupt, progress};

/// Hash rounds per run: a few milliseconds of pure computation.
const ROUNDS: u64 = 1 << 21;
/// The known difference: 10% more rounds.
const LONGER_ROUNDS: u64 = ROUNDS + ROUNDS / 10;
const FULL_RUNS: u32 = 40;
const QUICK_RUNS: u32 = 8;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let runs = if env.settings.quick {
        QUICK_RUNS
    } else {
        FULL_RUNS
    };
    let allowed = affinity::allowed().map_err(|e| format!("sched_getaffinity: {e}"))?;
    // The last allowed CPU: CPU 0 usually takes more interrupts.
    let pin = *allowed.last().ok_or("no CPU is allowed")?;
    let bar = progress::bar(Condition::ALL.len() as u64 * runs as u64, "noise");
    let mut batches = Vec::new();
    for condition in Condition::ALL {
        if interrupt::requested() {
            break;
        }
        bar.set_message(condition.name());
        let (cpus, rounds) = match condition {
            Condition::Unpinned => (None, ROUNDS),
            Condition::Longer => (Some(vec![pin]), LONGER_ROUNDS),
            _ => (Some(vec![pin]), ROUNDS),
        };
        batches.push(batch(condition, cpus, rounds, runs, &|| bar.inc(1)));
    }
    bar.finish_and_clear();
    let (hybrid_slowdown, hybrid_detail) = hybrid(&allowed, runs.div_ceil(2));

    let comparisons = comparisons(&batches);
    let checks = checks(&batches);
    Ok(Outcome::Done {
        results: Results::Noise(NoiseResults {
            workload: Some(format!(
                "a chain of multiply-xorshift hash rounds ({ROUNDS} per run): pure computation, no memory traffic"
            )),
            rounds: Some(ROUNDS),
            longer_rounds: Some(LONGER_ROUNDS),
            runs_per_batch: Some(runs),
            pinned_cpu: Some(pin as u32),
            batches,
            comparisons,
            frequency: Some(levers::frequency()),
            levers: Some(levers::levers()),
            hybrid_slowdown,
            hybrid_detail: Some(hybrid_detail),
        }),
        checks,
    })
}

/// One batch on its own thread (pinned to `cpus` when given), so pinning
/// never touches the collector's main thread. One warm-up run first.
fn batch(
    condition: Condition,
    cpus: Option<Vec<usize>>,
    rounds: u64,
    runs: u32,
    tick: &(dyn Fn() + Sync),
) -> NoiseBatch {
    let outcome = std::thread::scope(|s| {
        // A thread this process cannot start (its address-space limit
        // has no room for the stack) skips the batch, with the reason.
        let started = std::thread::Builder::new().spawn_scoped(s, || {
            if let Some(cpus) = &cpus {
                affinity::pin_this_thread(cpus).map_err(|e| format!("sched_setaffinity: {e}"))?;
            }
            black_box(work(rounds));
            let mut samples = Vec::new();
            let mut migrated = 0;
            for _ in 0..runs {
                if interrupt::requested() {
                    break;
                }
                let cpu = affinity::current_cpu();
                let start = Instant::now();
                black_box(work(black_box(rounds)));
                samples.push(start.elapsed().as_nanos() as f64);
                migrated += u32::from(affinity::current_cpu() != cpu);
                tick();
            }
            Ok::<_, String>((samples, migrated))
        });
        match started {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|_| Err("the batch's thread panicked".into())),
            Err(e) => Err(format!("cannot start the batch's thread: {e}")),
        }
    });
    match outcome {
        Ok((samples, migrated)) => {
            let summary = Summary::of(&samples);
            NoiseBatch {
                condition,
                skipped: None,
                spread: summary.map(|s| s.spread()),
                cv: coefficient_of_variation(&samples),
                summary,
                samples_ns: samples,
                migrated_runs: Some(migrated),
            }
        }
        Err(reason) => NoiseBatch {
            condition,
            skipped: Some(reason),
            samples_ns: Vec::new(),
            summary: None,
            spread: None,
            cv: None,
            migrated_runs: None,
        },
    }
}

/// The fixed workload: a dependent chain of hash rounds.
#[inline(never)]
fn work(rounds: u64) -> u64 {
    let mut h = rounds;
    for _ in 0..rounds {
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
    }
    h
}

/// Each batch held against the pinned one, and against the A-vs-A noise
/// floor: the largest difference of medians between runs that should not
/// differ at all (the two pinned batches, and the halves of each). One
/// lucky pair of identical batches must not make every difference "real".
fn comparisons(batches: &[NoiseBatch]) -> Vec<Comparison> {
    let get = |c: Condition| batches.iter().find(|b| b.condition == c);
    let (Some(a), Some(a_again)) = (
        get(Condition::Pinned).and_then(|b| b.summary),
        get(Condition::PinnedAgain).and_then(|b| b.summary),
    ) else {
        return Vec::new();
    };
    let halves = [Condition::Pinned, Condition::PinnedAgain]
        .into_iter()
        .filter_map(|c| halves_difference(&get(c)?.samples_ns));
    let floor = halves
        .chain(relative_difference(&a, &a_again))
        .fold(0.0, f64::max);
    [
        (ComparisonKind::AVsA, Condition::PinnedAgain),
        (ComparisonKind::PinnedVsUnpinned, Condition::Unpinned),
        (ComparisonKind::AVsLonger, Condition::Longer),
    ]
    .into_iter()
    .filter_map(|(kind, b)| {
        let b_summary = get(b)?.summary?;
        Some(Comparison {
            kind,
            a: Condition::Pinned,
            b,
            verdict: Verdict::new(relative_difference(&a, &b_summary)?, floor),
        })
    })
    .collect()
}

/// Relative difference of the medians of a batch's first and second half.
fn halves_difference(samples: &[f64]) -> Option<f64> {
    let (first, second) = samples.split_at(samples.len() / 2);
    relative_difference(&Summary::of(first)?, &Summary::of(second)?)
}

/// Premise: a pinned batch stayed on its CPU.
fn checks(batches: &[NoiseBatch]) -> Vec<Check> {
    batches
        .iter()
        .filter(|b| b.condition != Condition::Unpinned)
        .filter_map(|b| {
            let m = b.migrated_runs?;
            Some(Check::new(
                format!("{}: no run migrated", b.condition.name()),
                m == 0,
                "0 runs ended on another CPU",
                format!("{m} of {}", b.samples_ns.len()),
            ))
        })
        .collect()
}

/// On a hybrid part (CPUs of different `cpu_capacity`), the pinned median
/// on the slowest type over the fastest; otherwise why there is no ratio.
fn hybrid(allowed: &[usize], runs: u32) -> (Option<f64>, String) {
    let capacity = |cpu: usize| {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/cpu_capacity"))
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    };
    let caps: Vec<(usize, u64)> = allowed
        .iter()
        .filter_map(|&c| Some((c, capacity(c)?)))
        .collect();
    let (Some(&(slow, lo)), Some(&(fast, hi))) = (
        caps.iter().min_by_key(|c| c.1),
        caps.iter().max_by_key(|c| c.1),
    ) else {
        return (
            None,
            "cpu_capacity is not exposed: core types unknown".into(),
        );
    };
    if lo == hi {
        return (
            None,
            format!(
                "all {} allowed CPUs report the same cpu_capacity ({hi}): one core type",
                caps.len()
            ),
        );
    }
    let median = |cpu| {
        batch(Condition::Pinned, Some(vec![cpu]), ROUNDS, runs, &|| {})
            .summary
            .map(|s| s.median)
    };
    let ratio = match (median(slow), median(fast)) {
        (Some(s), Some(f)) if f > 0.0 => Some(s / f),
        _ => None,
    };
    (
        ratio,
        format!("CPU {slow} (capacity {lo}) vs CPU {fast} (capacity {hi}), pinned medians"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_batch_stays_put_and_has_a_spread() {
        let cpu = *affinity::allowed().unwrap().last().unwrap();
        let b = batch(Condition::Pinned, Some(vec![cpu]), 10_000, 5, &|| {});
        assert_eq!(b.samples_ns.len(), 5);
        assert_eq!(b.migrated_runs, Some(0));
        assert!(b.spread.unwrap() >= 1.0);
        assert!(checks(&[b]).iter().all(|c| c.passed));
    }

    #[test]
    fn comparisons_hold_each_batch_against_a_vs_a() {
        let b = |condition, ms: &[f64]| NoiseBatch {
            condition,
            skipped: None,
            samples_ns: ms.to_vec(),
            summary: Summary::of(ms),
            spread: None,
            cv: None,
            migrated_runs: Some(0),
        };
        let c = comparisons(&[
            b(Condition::Pinned, &[100.0]),
            b(Condition::Unpinned, &[103.0]),
            b(Condition::PinnedAgain, &[105.0]),
            b(Condition::Longer, &[110.0]),
        ]);
        assert_eq!(c.len(), 3);
        assert!(c[0].verdict.inside_noise, "A vs A is the floor itself");
        assert!(c[1].verdict.inside_noise, "3% is inside 5%");
        assert!(!c[2].verdict.inside_noise, "10% is outside 5%");
        // Halves of one batch that disagree by 8% raise the floor.
        let c = comparisons(&[
            b(Condition::Pinned, &[100.0, 100.0, 108.0, 108.0]),
            b(Condition::PinnedAgain, &[104.0, 104.0]),
            b(Condition::Longer, &[110.0]),
        ]);
        assert!((c[0].verdict.noise - 0.08).abs() < 1e-9, "{:?}", c[0]);
    }
}
