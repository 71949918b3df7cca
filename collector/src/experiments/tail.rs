//! # tail
//!
//! Premise: a hot loop that writes into memory nobody has touched yet pays
//! a page fault each time it crosses into a new page. Each iteration here
//! does a fixed amount of hashing and writes the next few bytes of a fresh
//! mapping, so one iteration in `page / bytes_per_iteration` meets a fault:
//! too few to move the mean or p50, enough to own p99.9. Pre-faulting
//! (`MAP_POPULATE`, touching every page early, `mlockall`) moves that cost
//! to startup and the tail goes with it. Every iteration is timed; the
//! hot-loop faults are counted (`RUSAGE_THREAD`) to prove where the cost
//! went: about one per page as written, about none pre-faulted.

use std::hint::black_box;
use std::io;
use std::ptr;
use std::time::Instant;

use pagewalk_model::{
    Check, Results, Summary, TailRepetition, TailResults, TailVariant, TailVariantResult,
};

use super::{Env, Outcome};
use crate::faults::Faults;
use crate::mapping::SmallPages;
use crate::timing::Recorder;
use crate::{interrupt, progress};

/// Fresh bytes written per iteration: 256 iterations per 4 KiB page, so
/// 0.4% of iterations fault as written (above p99.9, below p99).
const BYTES_PER_ITERATION: usize = 16;
/// Hash rounds per iteration: a few hundred nanoseconds of work, large
/// next to the timer and small next to a fault.
const WORK_ROUNDS: u32 = 128;
const FULL_ITERATIONS: usize = 1 << 18;
const QUICK_ITERATIONS: usize = 1 << 16;
const FULL_REPS: u32 = 3;
/// Faults the harness may add to a pre-faulted hot loop (a stack page).
const SLACK: u64 = 16;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let iterations = if env.settings.quick {
        QUICK_ITERATIONS
    } else {
        FULL_ITERATIONS
    };
    let page = env.machine.base_page_bytes as usize;
    let len = iterations * BYTES_PER_ITERATION;
    let pages = len.div_ceil(page) as u64;
    let reps = env.settings.reps_or(FULL_REPS);

    let mut times = match Timings::new(iterations) {
        Ok(t) => t,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let mut state = Vec::new();
    for variant in TailVariant::MEASURED {
        state.push(VariantState::new(variant));
    }
    let bar = progress::bar(reps as u64 * state.len() as u64, "tail");
    // Repetitions outside, variants inside: drift spreads over all alike.
    'reps: for _ in 0..reps {
        for s in state.iter_mut().filter(|s| s.skipped.is_none()) {
            if interrupt::requested() {
                break 'reps;
            }
            bar.set_message(s.variant.name());
            match repetition(s.variant, len, page, &mut times) {
                Ok((rep, rec, huge_kib)) => {
                    s.recorder.merge(&rec);
                    s.reps.push(rep);
                    s.huge_kib.push(huge_kib);
                }
                Err(Unavailable(why)) => s.skipped = Some(why),
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    let huge_checks: Vec<Check> = state
        .iter()
        .filter_map(VariantState::no_huge_pages)
        .collect();
    let variants: Vec<TailVariantResult> = state.into_iter().map(VariantState::finish).collect();
    let mut checks: Vec<Check> = variants.iter().flat_map(|v| checks(v, pages)).collect();
    checks.extend(huge_checks);
    Ok(Outcome::Done {
        results: Results::Tail(TailResults {
            region_bytes: Some(len as u64),
            pages: Some(pages),
            iterations: Some(iterations as u64),
            bytes_per_iteration: Some(BYTES_PER_ITERATION as u64),
            work: Some(format!(
                "{WORK_ROUNDS} rounds of a multiply-xorshift hash, then {BYTES_PER_ITERATION} bytes written to the next fresh address"
            )),
            repetitions: Some(reps),
            variants,
        }),
        checks,
    })
}

/// A variant's repetitions so far.
struct VariantState {
    variant: TailVariant,
    skipped: Option<String>,
    recorder: Recorder,
    reps: Vec<TailRepetition>,
    /// Each repetition's `AnonHugePages` of the region, in KiB.
    huge_kib: Vec<Option<u64>>,
}

impl VariantState {
    fn new(variant: TailVariant) -> VariantState {
        VariantState {
            variant,
            skipped: None,
            recorder: Recorder::new(),
            reps: Vec::new(),
            huge_kib: Vec::new(),
        }
    }

    /// The premise under every variant: 4 KiB pages only (one fault per
    /// page as written), even where THP is `always` and the variant fills
    /// the mapping inside `mmap`.
    fn no_huge_pages(&self) -> Option<Check> {
        if self.huge_kib.is_empty() {
            return None;
        }
        let seen: Vec<String> = self
            .huge_kib
            .iter()
            .map(|k| k.map_or("unreadable".into(), |k| format!("{k} kB")))
            .collect();
        Some(Check::new(
            format!("{}: AnonHugePages == 0", self.variant.name()),
            self.huge_kib.iter().all(|k| *k == Some(0)),
            "0 kB",
            seen.join(", "),
        ))
    }

    fn finish(self) -> TailVariantResult {
        let over = |f: fn(&TailRepetition) -> f64| {
            Summary::of(&self.reps.iter().map(f).collect::<Vec<_>>())
        };
        TailVariantResult {
            variant: self.variant,
            skipped: self.skipped,
            latency: self.recorder.latency(true),
            hot_minor_faults: over(|r| r.hot_minor_faults as f64),
            prepare_ns: over(|r| r.prepare_ns),
            repetitions: self.reps,
        }
    }
}

/// This machine or process cannot do the variant (e.g. `mlockall` denied).
struct Unavailable(String);

/// Per-iteration durations, written into memory faulted in before any hot
/// loop runs so that recording them costs no faults of its own.
struct Timings(Vec<u32>);

impl Timings {
    fn new(iterations: usize) -> Result<Timings, String> {
        // Non-zero fill: a zeroed allocation would stay unfaulted.
        crate::guard::try_vec(iterations, u32::MAX).map(Timings)
    }
}

fn repetition(
    variant: TailVariant,
    len: usize,
    page: usize,
    times: &mut Timings,
) -> Result<(TailRepetition, Recorder, Option<u64>), Unavailable> {
    let start = Instant::now();
    let locked = variant == TailVariant::Mlockall;
    if locked {
        // SAFETY: no memory-safety preconditions; undone by `munlockall` below.
        if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) } != 0 {
            return Err(Unavailable(mlockall_refused()));
        }
    }
    let populate = if variant == TailVariant::Populate {
        libc::MAP_POPULATE
    } else {
        0
    };
    // Under `mlockall(MCL_FUTURE)` the `mmap` itself fills the mapping.
    let map = if locked {
        SmallPages::map_populated
    } else {
        SmallPages::map
    };
    let region = map(len, populate).map_err(|e| {
        if locked {
            unsafe { libc::munlockall() };
        }
        Unavailable(e)
    })?;
    if variant == TailVariant::TouchEarly {
        for offset in (0..len).step_by(page) {
            // SAFETY: offset < len, inside the mapping.
            unsafe { ptr::write_volatile(region.ptr.add(offset), 0) };
        }
    }
    let prepare_ns = start.elapsed().as_nanos() as f64;

    let before = Faults::of_this_thread();
    black_box(hot_loop(region.ptr, &mut times.0));
    let faults = Faults::of_this_thread() - before;
    let huge_kib = region.anon_huge_kib();
    drop(region);
    if locked {
        // SAFETY: undoes the mlockall above.
        unsafe { libc::munlockall() };
    }

    let mut rec = Recorder::new();
    for &t in &times.0 {
        rec.record_ns(t as f64);
    }
    let rep = TailRepetition {
        prepare_ns,
        hot_minor_faults: faults.minor,
        hot_major_faults: faults.major,
        mean_ns: rec.mean_ns(),
        p999_ns: rec.quantile_ns(0.999),
        max_ns: rec.latency(false).and_then(|l| l.max_ns).unwrap_or(0.0),
    };
    Ok((rep, rec, huge_kib))
}

/// Why `mlockall` was refused, with the limit that usually explains it.
fn mlockall_refused() -> String {
    let err = io::Error::last_os_error();
    let mut limit: libc::rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    let memlock = if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut limit) } == 0 {
        if limit.rlim_cur == libc::RLIM_INFINITY {
            ", RLIMIT_MEMLOCK unlimited".to_string()
        } else {
            format!(", RLIMIT_MEMLOCK {}", crate::guard::human(limit.rlim_cur))
        }
    } else {
        String::new()
    };
    // The error's kind in words ("out of memory"), not its raw "(os error
    // 12)": the book prints this reason in a sentence.
    let why = err.kind();
    format!("mlockall(MCL_CURRENT | MCL_FUTURE) not permitted: {why}{memlock} (needs CAP_IPC_LOCK or a limit above this process's size)")
}

/// The timed loop: hash, write the next fresh bytes, take a timestamp.
/// One clock read per iteration: each duration runs from the previous
/// timestamp to this one.
#[inline(never)]
fn hot_loop(region: *mut u8, times: &mut [u32]) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut prev = Instant::now();
    for (i, slot) in times.iter_mut().enumerate() {
        for _ in 0..WORK_ROUNDS {
            h = mix(h);
        }
        // SAFETY: i * 16 + 16 <= len: the region holds 16 bytes per iteration.
        unsafe {
            let p = region.add(i * BYTES_PER_ITERATION).cast::<u64>();
            ptr::write_volatile(p, h);
            ptr::write_volatile(p.add(1), h >> 7);
        }
        let now = Instant::now();
        *slot = u32::try_from((now - prev).as_nanos()).unwrap_or(u32::MAX);
        prev = now;
    }
    h
}

/// One round of a multiply-xorshift hash (SplitMix64's finaliser): a
/// dependent chain the compiler cannot shorten.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The premise, per variant: as written, one hot-loop fault per page;
/// pre-faulted, about none.
fn checks(v: &TailVariantResult, pages: u64) -> Vec<Check> {
    if v.repetitions.is_empty() {
        return Vec::new();
    }
    let seen: Vec<String> = v
        .repetitions
        .iter()
        .map(|r| r.hot_minor_faults.to_string())
        .collect();
    let faults = v.repetitions.iter().map(|r| r.hot_minor_faults);
    let name = v.variant.name();
    if v.variant.prefaulted() {
        vec![Check::new(
            format!("{name}: hot-loop faults ~ 0"),
            faults.clone().all(|f| f <= SLACK),
            format!("<= {SLACK}"),
            seen.join(", "),
        )]
    } else {
        vec![Check::new(
            format!("{name}: hot-loop faults == pages"),
            faults.clone().all(|f| (pages..=pages + SLACK).contains(&f)),
            format!("{pages}, up to +{SLACK}"),
            seen.join(", "),
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_written_faults_once_per_page_and_populate_not_at_all() {
        let iterations = 4096;
        let len = iterations * BYTES_PER_ITERATION;
        let pages = (len / 4096) as u64;
        let mut times = Timings::new(iterations).unwrap();
        let Ok((written, rec, huge)) = repetition(TailVariant::AsWritten, len, 4096, &mut times)
        else {
            panic!("as-written cannot be unavailable")
        };
        assert!(
            (pages..=pages + SLACK).contains(&written.hot_minor_faults),
            "{}",
            written.hot_minor_faults
        );
        assert_eq!(rec.len(), iterations as u64);
        assert_eq!(huge, Some(0));
        let Ok((populated, _, huge)) = repetition(TailVariant::Populate, len, 4096, &mut times)
        else {
            panic!("populate cannot be unavailable")
        };
        assert!(populated.hot_minor_faults <= SLACK);
        assert_eq!(huge, Some(0));
    }

    #[test]
    fn checks_follow_the_faults() {
        let rep = |f| TailRepetition {
            prepare_ns: 1.0,
            hot_minor_faults: f,
            hot_major_faults: 0,
            mean_ns: 1.0,
            p999_ns: 1.0,
            max_ns: 1.0,
        };
        let result = |variant, faults: &[u64]| TailVariantResult {
            variant,
            skipped: None,
            latency: None,
            hot_minor_faults: None,
            prepare_ns: None,
            repetitions: faults.iter().map(|&f| rep(f)).collect(),
        };
        let c = checks(&result(TailVariant::AsWritten, &[1024, 1030]), 1024);
        assert!(c[0].passed, "{c:?}");
        let c = checks(&result(TailVariant::Populate, &[0, 900]), 1024);
        assert!(!c[0].passed);
        assert_eq!(c[0].observed, "0, 900");
    }
}
