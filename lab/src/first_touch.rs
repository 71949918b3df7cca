//! First touch in the sandbox: grow memory by a chosen size, write one byte
//! per 4 KiB page, then write them all again, and time the grow and both
//! passes, for a sweep of sizes.
//!
//! In the page the memory is the worker's own WebAssembly memory
//! (`memory.grow`): fresh pages the engine has reserved but, on Linux,
//! the kernel has not yet backed, so the first pass pays for what the
//! engine and the kernel do on a first write. A WebAssembly memory never
//! shrinks, so every repetition of every size is new memory and the whole
//! plan must fit under the memory cap; each run uses a fresh worker.

use pagewalk_model::decimal::shortest;
use pagewalk_model::json::FromJson;
use pagewalk_model::Summary;
use serde::{Deserialize, Serialize};

use crate::{size_label, Clock, Progress, TimerInfo, MIB};

/// The stride: one write per 4 KiB page.
pub const PAGE: u64 = 4096;
/// `memory.grow` counts in 64 KiB WebAssembly pages.
pub const WASM_PAGE: u64 = 65536;
/// The second pass is repeated until it lasts this long (or 20 timer
/// steps, whichever is longer), and reported per pass.
pub const SECOND_PASS_MS: f64 = 2.0;

/// Where fresh memory comes from.
pub trait Grow {
    /// `bytes` of new, writable memory, valid as long as `self` lives; an
    /// `Err` says why the engine refused it.
    fn grow(&mut self, bytes: u64) -> Result<*mut u8, String>;
}

/// [`Grow`] from the heap: fresh `Vec` buffers that are never written by
/// the allocator (large ones come straight from `mmap`), for native runs
/// and tests.
#[derive(Default)]
pub struct HeapGrow {
    blocks: Vec<Vec<u8>>,
}

impl Grow for HeapGrow {
    fn grow(&mut self, bytes: u64) -> Result<*mut u8, String> {
        let len = usize::try_from(bytes).map_err(|_| "too large".to_string())?;
        let mut v: Vec<u8> = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| format!("out of memory growing by {}", size_label(bytes)))?;
        let p = v.as_mut_ptr();
        self.blocks.push(v);
        Ok(p)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct FirstTouchParams {
    /// Sizes to measure, in MiB (multiples of 1 MiB).
    pub sizes_mib: Vec<u64>,
    pub repetitions: u32,
    /// The most memory the whole plan may grow by, in MiB.
    pub memory_cap_mib: u64,
    pub time_cap_s: f64,
}

/// One repetition at one size: nanoseconds per 4 KiB page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, FromJson)]
pub struct FirstTouchSample {
    pub grow_ns: f64,
    pub first_ns: f64,
    /// Per pass, over `second_passes` repeated passes.
    pub second_ns: f64,
    pub second_passes: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct FirstTouchSize {
    pub size_bytes: u64,
    pub pages: u64,
    pub samples: Vec<FirstTouchSample>,
    pub grow: Summary,
    pub first: Summary,
    pub second: Summary,
    /// What one timer step is worth per page for a single pass at this size.
    pub quantum_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct FirstTouchReport {
    pub params: FirstTouchParams,
    pub timer: TimerInfo,
    pub sizes: Vec<FirstTouchSize>,
    /// Sizes dropped to stay under the memory cap, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_note: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// A grow the engine refused, or a plan that cannot fit at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The sizes (bytes, ascending) that fit `repetitions` times under the
/// cap, dropping the largest first; the note says what was dropped.
pub fn plan(params: &FirstTouchParams) -> Result<(Vec<u64>, Option<String>), String> {
    let mut sizes: Vec<u64> = params
        .sizes_mib
        .iter()
        .filter(|&&m| m > 0)
        .map(|&m| m.saturating_mul(MIB))
        .collect();
    pagewalk_model::sort::heap_sort_by(&mut sizes, |a, b| a < b);
    sizes.dedup();
    if sizes.is_empty() {
        return Err("no size to measure".to_string());
    }
    let reps = u64::from(params.repetitions.max(1));
    let cap = params.memory_cap_mib.saturating_mul(MIB);
    let mut dropped = Vec::new();
    while sizes.iter().sum::<u64>().saturating_mul(reps) > cap {
        match sizes.pop() {
            Some(s) if !sizes.is_empty() => dropped.push(s),
            Some(s) => {
                return Err(format!(
                "even the smallest size, {} × {reps} repetition(s), is over the memory cap of {}",
                size_label(s),
                size_label(cap)
            ))
            }
            None => unreachable!("sizes is not empty"),
        }
    }
    let note = (!dropped.is_empty()).then(|| {
        dropped.reverse();
        format!(
            "left out {} to stay under the memory cap of {} ({} repetition(s) of every size are new memory)",
            dropped
                .iter()
                .map(|&s| size_label(s))
                .collect::<Vec<_>>()
                .join(", "),
            size_label(cap),
            reps
        )
    });
    Ok((sizes, note))
}

/// Writes one byte per page.
///
/// # Safety
/// `base` must point at `pages * PAGE` writable bytes.
unsafe fn pass(base: *mut u8, pages: u64, value: u8) {
    for i in 0..pages {
        // SAFETY: i * PAGE < pages * PAGE, inside the caller's block.
        unsafe { base.add((i * PAGE) as usize).write_volatile(value) };
    }
}

/// Runs the plan: for each repetition, every size from small to large.
pub fn run(
    params: &FirstTouchParams,
    timer: TimerInfo,
    clock: &dyn Clock,
    memory: &mut dyn Grow,
    progress: &mut dyn FnMut(Progress),
) -> FirstTouchReport {
    let mut report = FirstTouchReport {
        params: params.clone(),
        timer,
        sizes: Vec::new(),
        plan_note: None,
        stopped: None,
        error: None,
    };
    let (sizes, note) = match plan(params) {
        Ok(p) => p,
        Err(e) => {
            report.error = Some(e);
            return report;
        }
    };
    report.plan_note = note;
    let reps = params.repetitions.max(1);
    let total = sizes.len() as u32 * reps;
    let mut samples: Vec<Vec<FirstTouchSample>> = vec![Vec::new(); sizes.len()];
    let start = clock.now_ms();
    let second_ms = SECOND_PASS_MS.max(timer.resolution_ns * 20.0 / 1e6);
    'reps: for r in 0..reps {
        for (k, &size) in sizes.iter().enumerate() {
            if clock.now_ms() - start > params.time_cap_s * 1e3 {
                report.stopped = Some(format!(
                    "stopped at the time cap of {} s, in repetition {} of {reps}",
                    shortest(params.time_cap_s),
                    r + 1
                ));
                break 'reps;
            }
            let pages = size / PAGE;
            let t0 = clock.now_ms();
            let base = match memory.grow(size) {
                Ok(b) => b,
                Err(e) => {
                    report.error = Some(e);
                    break 'reps;
                }
            };
            let t1 = clock.now_ms();
            // SAFETY: `grow` returned `size` = pages * PAGE writable bytes.
            unsafe { pass(base, pages, 1) };
            let t2 = clock.now_ms();
            let mut passes = 0u32;
            let mut t3 = t2;
            while passes == 0 || (t3 - t2 < second_ms && passes < 10_000) {
                // SAFETY: as above.
                unsafe { pass(base, pages, 2) };
                passes += 1;
                t3 = clock.now_ms();
            }
            let per_page = |ms: f64| ms * 1e6 / pages as f64;
            samples[k].push(FirstTouchSample {
                grow_ns: per_page(t1 - t0),
                first_ns: per_page(t2 - t1),
                second_ns: per_page(t3 - t2) / f64::from(passes),
                second_passes: passes,
            });
            progress(Progress {
                done: r * sizes.len() as u32 + k as u32 + 1,
                total,
                text: format!("{}: repetition {} of {reps}", size_label(size), r + 1),
            });
        }
    }
    for (k, s) in samples.into_iter().enumerate() {
        let of =
            |f: fn(&FirstTouchSample) -> f64| Summary::of(&s.iter().map(f).collect::<Vec<_>>());
        if let (Some(grow), Some(first), Some(second)) =
            (of(|x| x.grow_ns), of(|x| x.first_ns), of(|x| x.second_ns))
        {
            let pages = sizes[k] / PAGE;
            report.sizes.push(FirstTouchSize {
                size_bytes: sizes[k],
                pages,
                samples: s,
                grow,
                first,
                second,
                quantum_ns: timer.resolution_ns / pages as f64,
            });
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InstantClock;

    fn params(sizes: &[u64], reps: u32, cap: u64) -> FirstTouchParams {
        FirstTouchParams {
            sizes_mib: sizes.to_vec(),
            repetitions: reps,
            memory_cap_mib: cap,
            time_cap_s: 60.0,
        }
    }

    #[test]
    fn plan_drops_the_largest_sizes_to_fit_the_cap() {
        let (sizes, note) = plan(&params(&[64, 16, 32, 16], 2, 1024)).unwrap();
        assert_eq!(sizes, vec![16 * MIB, 32 * MIB, 64 * MIB]);
        assert!(note.is_none());
        let (sizes, note) = plan(&params(&[16, 32, 64, 128], 2, 200)).unwrap();
        assert_eq!(sizes, vec![16 * MIB, 32 * MIB]);
        let note = note.unwrap();
        assert!(
            note.contains("64 MiB, 128 MiB") && note.contains("200 MiB"),
            "{note}"
        );
        let e = plan(&params(&[64], 3, 100)).unwrap_err();
        assert!(e.contains("over the memory cap"), "{e}");
        assert!(plan(&params(&[], 1, 100)).is_err());
    }

    #[test]
    fn measures_every_size_and_repetition() {
        let clock = InstantClock::new();
        let timer = crate::timer_resolution(&clock, 1.0, false);
        let mut heap = HeapGrow::default();
        let mut steps = 0;
        let r = run(
            &params(&[1, 2], 2, 64),
            timer,
            &clock,
            &mut heap,
            &mut |_| steps += 1,
        );
        assert!(r.error.is_none() && r.stopped.is_none(), "{r:?}");
        assert_eq!(steps, 4);
        assert_eq!(r.sizes.len(), 2);
        assert_eq!(r.sizes[1].pages, 512);
        for s in &r.sizes {
            assert_eq!(s.samples.len(), 2);
            assert!(s.first.median > 0.0, "{s:?}");
            assert!(s.samples.iter().all(|x| x.second_passes >= 1));
        }
    }

    struct Refuses;
    impl Grow for Refuses {
        fn grow(&mut self, bytes: u64) -> Result<*mut u8, String> {
            Err(format!("memory.grow by {} failed", size_label(bytes)))
        }
    }

    #[test]
    fn a_refused_grow_is_reported_not_fatal() {
        let clock = InstantClock::new();
        let timer = crate::timer_resolution(&clock, 1.0, false);
        let r = run(
            &params(&[16], 1, 64),
            timer,
            &clock,
            &mut Refuses,
            &mut |_| {},
        );
        assert_eq!(r.error.as_deref(), Some("memory.grow by 16 MiB failed"));
        assert!(r.sizes.is_empty());
    }
}
