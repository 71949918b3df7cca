//! The pointer chase in the sandbox: the collector's dependent random chase
//! ([`pagewalk_analysis::chase::cycle`]) laid out one slot per 64-byte
//! cache line in one buffer, walked over a sweep of region sizes.
//!
//! Each load's address is the value the previous load returned, so the
//! loads cannot overlap and a sample's time divided by its loads is the
//! latency of one. A browser's timer is coarse (see
//! [`crate::TimerInfo`]), so a sample runs at least ten times the timer's
//! step in loads (one step then moves the result by at most a tenth of a
//! nanosecond per load) and lasts at least [`SAMPLE_MS`].

use pagewalk_analysis::chase::cycle;
use pagewalk_model::decimal::shortest;
use pagewalk_model::json::FromJson;
use pagewalk_model::Summary;
use serde::{Deserialize, Serialize};

use crate::{size_label, Clock, Progress, TimerInfo, KIB};

/// Bytes per slot: one cache line, so every load is a different line.
pub const SLOT_BYTES: u64 = 64;
const WORDS_PER_SLOT: usize = (SLOT_BYTES / 4) as usize;
/// The smallest region of the sweep.
pub const MIN_REGION: u64 = 16 * KIB;
/// The shortest a sample may last, in milliseconds.
pub const SAMPLE_MS: f64 = 10.0;
/// The most loads one sample takes (about 4 s at 2 ns per load).
pub const MAX_LOADS: u64 = 1 << 31;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ChaseParams {
    /// The largest region, in KiB (rounded down to a power of two).
    pub max_kib: u64,
    /// Samples per region size.
    pub samples: u32,
    /// Stop (keeping what was measured) after this many seconds.
    pub time_cap_s: f64,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

/// The seed the page uses (it sends none), so a native run can chase the
/// very same cycle.
pub const DEFAULT_SEED: u64 = 0x7061_6765_7761_6c6b; // "pagewalk"

fn default_seed() -> u64 {
    DEFAULT_SEED
}

/// One region size's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ChasePoint {
    pub region_bytes: u64,
    /// Slots in the cycle (`region_bytes / 64`).
    pub slots: u64,
    pub loads_per_sample: u64,
    /// Every sample's nanoseconds per load, in the order taken.
    pub ns_per_load: Vec<f64>,
    pub summary: Summary,
    /// What one timer step is worth per load in this sample size.
    pub quantum_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ChaseReport {
    pub params: ChaseParams,
    pub timer: TimerInfo,
    pub points: Vec<ChasePoint>,
    /// Why the sweep ended early (time cap), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Why nothing (more) could be measured: the buffer could not be had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The sweep's region sizes: powers of two from [`MIN_REGION`] to `max_kib`.
pub fn sizes(max_kib: u64) -> Vec<u64> {
    let max = max_kib.saturating_mul(KIB);
    std::iter::successors(Some(MIN_REGION), |s| s.checked_mul(2))
        .take_while(|&s| s <= max)
        .collect()
}

/// Loads per sample: enough that one timer step is at most 0.1 ns per
/// load, and that a sample lasts [`SAMPLE_MS`] at `est_ns_per_load`.
pub fn loads_per_sample(resolution_ns: f64, est_ns_per_load: f64) -> u64 {
    let for_timer = (resolution_ns * 10.0).ceil();
    let for_length = (SAMPLE_MS * 1e6 / est_ns_per_load.max(0.05)).ceil();
    (for_timer.max(for_length).max(1.0) as u64).min(MAX_LOADS)
}

/// The chase buffer: `u32` words, one slot per [`SLOT_BYTES`], each slot's
/// first word holding the word index of the next slot.
pub struct Region {
    words: Vec<u32>,
}

impl Region {
    /// Reserves and zeroes `bytes` (the pages are touched here, so the
    /// first sample does not pay for first touch). An allocation the
    /// engine refuses is an error, not an abort.
    pub fn try_new(bytes: u64) -> Result<Region, String> {
        let words = usize::try_from(bytes / 4)
            .map_err(|_| format!("{} does not fit in this address space", size_label(bytes)))?;
        let mut v: Vec<u32> = Vec::new();
        v.try_reserve_exact(words).map_err(|_| {
            format!(
                "could not allocate {} for the chase (out of memory: choose a smaller bound)",
                size_label(bytes)
            )
        })?;
        v.resize(words, 0);
        Ok(Region { words: v })
    }

    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 4
    }

    /// Lays the chase over the first `region_bytes` of the buffer: slot `i`
    /// points at slot `cycle(n, seed)[i]`. Returns the number of slots.
    pub fn arrange(&mut self, region_bytes: u64, seed: u64) -> u64 {
        let n = (region_bytes.min(self.bytes()) / SLOT_BYTES).max(1) as usize;
        let next = cycle(n, seed);
        for (i, &j) in next.iter().enumerate() {
            self.words[i * WORDS_PER_SLOT] = (j * WORDS_PER_SLOT) as u32;
        }
        n as u64
    }

    /// Follows the chase for `loads` dependent loads from word `start`;
    /// returns where it stopped (use it, or the loop is dead code).
    pub fn walk(&self, start: u32, loads: u64) -> u32 {
        let w = self.words.as_slice();
        let mut p = start as usize;
        for _ in 0..loads {
            // SAFETY: `arrange` writes only word indices of slots inside
            // `words`, and `start` is one (0 or a value `walk` returned),
            // so every `p` is in bounds. Unchecked because a bounds check
            // per load would be part of what is timed.
            p = unsafe { *w.get_unchecked(p) } as usize;
        }
        std::hint::black_box(p as u32)
    }
}

/// Runs the sweep. Progress is reported after every sample; the time cap is
/// checked before each one (what was measured is kept).
pub fn run(
    params: &ChaseParams,
    timer: TimerInfo,
    clock: &dyn Clock,
    progress: &mut dyn FnMut(Progress),
) -> ChaseReport {
    let mut report = ChaseReport {
        params: params.clone(),
        timer,
        points: Vec::new(),
        stopped: None,
        error: None,
    };
    let sizes = sizes(params.max_kib);
    let Some(&largest) = sizes.last() else {
        report.error = Some(format!(
            "the bound must be at least {}",
            size_label(MIN_REGION)
        ));
        return report;
    };
    let samples = params.samples.max(1);
    let total = sizes.len() as u32 * samples;
    let start = clock.now_ms();
    let cap_ms = params.time_cap_s * 1e3;
    progress(Progress {
        done: 0,
        total,
        text: format!("allocating {}", size_label(largest)),
    });
    let mut region = match Region::try_new(largest) {
        Ok(r) => r,
        Err(e) => {
            report.error = Some(e);
            return report;
        }
    };
    let resolution = timer.resolution_ns.max(1.0);
    let mut at = 0u32;
    'sizes: for (k, &size) in sizes.iter().enumerate() {
        let slots = region.arrange(size, params.seed);
        at = 0;
        // Warm caches and TLB with a full turn (bounded), then calibrate.
        at = region.walk(at, slots.min(1 << 23));
        let est = calibrate(&region, &mut at, clock, resolution);
        let loads = loads_per_sample(resolution, est);
        let mut ns = Vec::with_capacity(samples as usize);
        for s in 0..samples {
            if clock.now_ms() - start > cap_ms {
                report.stopped = Some(format!(
                    "stopped at the time cap of {} s, before {} was done",
                    shortest(params.time_cap_s),
                    size_label(size)
                ));
                if !ns.is_empty() {
                    push_point(&mut report, size, slots, loads, ns, resolution);
                }
                break 'sizes;
            }
            let t0 = clock.now_ms();
            at = region.walk(at, loads);
            let t1 = clock.now_ms();
            ns.push((t1 - t0) * 1e6 / loads as f64);
            progress(Progress {
                done: k as u32 * samples + s + 1,
                total,
                text: format!("{}: sample {} of {samples}", size_label(size), s + 1),
            });
        }
        push_point(&mut report, size, slots, loads, ns, resolution);
    }
    std::hint::black_box(at);
    report
}

/// Nanoseconds per load from walks that last long enough to read: from 2^16
/// loads up, four times more each try, until one lasts twenty timer steps
/// (or a millisecond, if the timer is finer than that).
fn calibrate(region: &Region, at: &mut u32, clock: &dyn Clock, resolution_ns: f64) -> f64 {
    let need_ms = (resolution_ns * 20.0 / 1e6).max(1.0);
    let mut loads: u64 = 1 << 16;
    loop {
        let t0 = clock.now_ms();
        *at = region.walk(*at, loads);
        let dt = clock.now_ms() - t0;
        if dt >= need_ms || loads >= MAX_LOADS / 4 {
            return dt.max(resolution_ns / 1e6) * 1e6 / loads as f64;
        }
        loads *= 4;
    }
}

fn push_point(
    report: &mut ChaseReport,
    size: u64,
    slots: u64,
    loads: u64,
    ns: Vec<f64>,
    resolution_ns: f64,
) {
    if let Some(summary) = Summary::of(&ns) {
        report.points.push(ChasePoint {
            region_bytes: size,
            slots,
            loads_per_sample: loads,
            ns_per_load: ns,
            summary,
            quantum_ns: resolution_ns / loads as f64,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{InstantClock, MIB};

    #[test]
    fn sizes_are_powers_of_two_up_to_the_bound() {
        assert_eq!(sizes(64), vec![16 * KIB, 32 * KIB, 64 * KIB]);
        assert_eq!(sizes(100), vec![16 * KIB, 32 * KIB, 64 * KIB]);
        assert!(sizes(8).is_empty());
        assert_eq!(sizes(1024 * 1024).len(), 17);
    }

    #[test]
    fn loads_keep_a_timer_step_under_a_tenth_of_a_nanosecond() {
        // Chromium without isolation: 100 us steps.
        let l = loads_per_sample(100_000.0, 1.0);
        assert!(100_000.0 / l as f64 <= 0.1, "{l}");
        // ... and a sample lasts SAMPLE_MS even for a fast chase.
        assert!(l as f64 * 1.0 >= SAMPLE_MS * 1e6);
        // A slow chase on a fine timer: the length rule decides.
        assert_eq!(loads_per_sample(1.0, 100.0), 100_000);
        assert_eq!(loads_per_sample(1e12, 1.0), MAX_LOADS);
    }

    #[test]
    fn arranged_region_is_the_shared_cycle() {
        let mut r = Region::try_new(64 * KIB).unwrap();
        let n = r.arrange(16 * KIB, 9) as usize;
        assert_eq!(n, 256);
        let next = cycle(n, 9);
        for (i, &j) in next.iter().enumerate() {
            assert_eq!(
                r.walk((i * WORDS_PER_SLOT) as u32, 1) as usize,
                j * WORDS_PER_SLOT
            );
        }
        // A full turn comes back to the start.
        assert_eq!(r.walk(0, n as u64), 0);
        assert_ne!(r.walk(0, n as u64 - 1), 0);
    }

    #[test]
    fn an_impossible_buffer_is_an_error() {
        let e = Region::try_new(u64::MAX / 2).err().unwrap();
        assert!(
            e.contains("choose a smaller bound") || e.contains("does not fit"),
            "{e}"
        );
    }

    #[test]
    fn sweep_measures_every_size() {
        let params = ChaseParams {
            max_kib: 64,
            samples: 2,
            time_cap_s: 60.0,
            seed: 1,
        };
        let clock = InstantClock::new();
        let timer = crate::timer_resolution(&clock, 1.0, false);
        let mut seen = Vec::new();
        let report = run(&params, timer, &clock, &mut |p| seen.push(p));
        assert_eq!(report.points.len(), 3, "{report:?}");
        assert!(report.stopped.is_none() && report.error.is_none());
        for p in &report.points {
            assert_eq!(p.ns_per_load.len(), 2);
            assert!(
                p.summary.median > 0.0 && p.summary.median.is_finite(),
                "{p:?}"
            );
            assert!(p.quantum_ns <= 0.1);
        }
        let last = seen.last().unwrap();
        assert_eq!((last.done, last.total), (6, 6));
    }

    #[test]
    fn time_cap_keeps_what_was_measured() {
        let params = ChaseParams {
            max_kib: 4 * MIB / KIB,
            samples: 3,
            time_cap_s: 0.0,
            seed: 1,
        };
        let clock = InstantClock::new();
        let timer = crate::timer_resolution(&clock, 1.0, false);
        let report = run(&params, timer, &clock, &mut |_| {});
        assert!(report.points.is_empty());
        assert!(
            report.stopped.as_deref().unwrap().contains("time cap"),
            "{report:?}"
        );
    }

    #[test]
    fn a_bound_below_the_smallest_region_is_reported() {
        let params = ChaseParams {
            max_kib: 4,
            samples: 1,
            time_cap_s: 1.0,
            seed: 1,
        };
        let clock = InstantClock::new();
        let timer = crate::timer_resolution(&clock, 1.0, false);
        let report = run(&params, timer, &clock, &mut |_| {});
        assert!(report.error.unwrap().contains("at least 16 KiB"));
    }
}
