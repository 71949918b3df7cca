//! The in-page experiments of the chapter "Measuring in your browser", as
//! plain Rust: what `wasm-lab` runs inside a Web Worker, and what the build
//! and the page need to chart it.
//!
//! * [`first_touch`]: grow memory by a chosen size, write one byte per
//!   4 KiB page twice, time the grow and both passes;
//! * [`chase`]: the collector's dependent pointer chase
//!   ([`pagewalk_analysis::chase::cycle`]) over region sizes up to a bound,
//!   with enough loads per sample that a coarse timer still resolves well
//!   under a nanosecond per load;
//! * [`tlb`]: the LRU TLB model ([`pagewalk_analysis::tlb_model`]) over the
//!   same sizes, for the sliders;
//! * [`charts`]: the series the browser's results add to the lab charts
//!   (whose specs, like every chart's, `pagewalk-figures` builds);
//! * [`compare`]: two or more run files a reader dropped, held against the
//!   first as `collector compare` holds them. (A dropped file laid over the
//!   charts is `pagewalk_figures::overlay`'s.)
//!
//! Nothing here touches the platform: time comes through [`Clock`], memory
//! for first touch through [`first_touch::Grow`], progress through a
//! callback, so all of it is tested natively (and the report runs the same
//! chase natively next to the browser's).

pub mod charts;
pub mod chase;
pub mod compare;
pub mod first_touch;
pub mod tlb;

use pagewalk_model::json::FromJson;
use serde::{Deserialize, Serialize};

/// A monotonic clock in milliseconds: `performance.now()` in the page,
/// [`std::time::Instant`] natively.
pub trait Clock {
    fn now_ms(&self) -> f64;
}

/// [`Clock`] over [`std::time::Instant`], for native runs and tests.
pub struct InstantClock(std::time::Instant);

impl InstantClock {
    pub fn new() -> InstantClock {
        InstantClock(std::time::Instant::now())
    }
}

impl Default for InstantClock {
    fn default() -> Self {
        InstantClock::new()
    }
}

impl Clock for InstantClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
}

/// How far an experiment has come, for the page's progress bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Progress {
    pub done: u32,
    pub total: u32,
    pub text: String,
}

/// What the timer can resolve where the experiment ran.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TimerInfo {
    /// The smallest nonzero difference between two successive readings, in
    /// nanoseconds: browsers coarsen `performance.now()` (100 µs, or 5 µs
    /// in a cross-origin-isolated page, in Chromium).
    pub resolution_ns: f64,
    /// Readings taken to find it.
    pub readings: u64,
    /// `self.crossOriginIsolated` where the experiment ran (false natively).
    pub cross_origin_isolated: bool,
}

/// Reads `clock` back to back (for up to `budget_ms`, until 2,000 changes
/// were seen, or at most [`MAX_READINGS`] times) and keeps the smallest
/// nonzero step. A clock that never moved reports the whole budget as its
/// step.
pub fn timer_resolution(
    clock: &dyn Clock,
    budget_ms: f64,
    cross_origin_isolated: bool,
) -> TimerInfo {
    let start = clock.now_ms();
    let mut last = start;
    let mut best = f64::INFINITY;
    let (mut readings, mut changes) = (0u64, 0u32);
    loop {
        let t = clock.now_ms();
        readings += 1;
        if t > last {
            best = best.min(t - last);
            changes += 1;
            last = t;
        }
        if changes >= 2000 || t - start >= budget_ms || readings >= MAX_READINGS {
            break;
        }
    }
    let step_ms = if best.is_finite() { best } else { budget_ms };
    TimerInfo {
        resolution_ns: step_ms * 1e6,
        readings,
        cross_origin_isolated,
    }
}

/// The most readings [`timer_resolution`] takes (a clock that is stuck
/// must not hang it).
pub const MAX_READINGS: u64 = 20_000_000;

/// `bytes` as `16 KiB`, `1.5 MiB`, `2 GiB` (the model's
/// [`pagewalk_model::units::bytes`]).
pub fn size_label(bytes: u64) -> String {
    pagewalk_model::units::bytes(bytes as f64)
}

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;

/// The committed example run, for tests that need a real collector file.
#[cfg(test)]
pub(crate) fn example_run_path() -> std::path::PathBuf {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/example");
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("an example run in data/example")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A clock that advances by `step` ms every `every` readings.
    pub(crate) struct Stepping {
        pub reads: Cell<u64>,
        pub every: u64,
        pub step: f64,
    }

    impl Clock for Stepping {
        fn now_ms(&self) -> f64 {
            let n = self.reads.get();
            self.reads.set(n + 1);
            (n / self.every) as f64 * self.step
        }
    }

    #[test]
    fn resolution_is_the_smallest_step() {
        let clock = Stepping {
            reads: Cell::new(0),
            every: 7,
            step: 0.1,
        };
        let t = timer_resolution(&clock, 50.0, false);
        assert!((t.resolution_ns - 100_000.0).abs() < 1.0, "{t:?}");
        assert!(t.readings > 7);
    }

    #[test]
    fn a_clock_that_never_moves_reports_the_budget() {
        struct Stuck;
        impl Clock for Stuck {
            fn now_ms(&self) -> f64 {
                0.0
            }
        }
        let t = timer_resolution(&Stuck, 5.0, true);
        assert_eq!(t.resolution_ns, 5.0 * 1e6);
        assert_eq!(t.readings, MAX_READINGS);
        assert!(t.cross_origin_isolated);
    }

    #[test]
    fn size_labels() {
        assert_eq!(size_label(16 * KIB), "16 KiB");
        assert_eq!(size_label(3 * MIB / 2), "1.5 MiB");
        assert_eq!(size_label(512 * MIB), "512 MiB");
        assert_eq!(size_label(4096 * MIB), "4 GiB");
    }
}
