//! # first-touch
//!
//! Premise: `mmap` only records a mapping. The first write to each 4 KiB page
//! faults into the kernel, which finds a free page, zeroes it and installs
//! the PTE; a second write to the same page costs a plain store. How a
//! program asks for memory decides *when* that cost is paid (at allocation
//! for `MAP_POPULATE`, `malloc + memset`, `resize(n, 1)`; at first use for
//! the rest) and *how much* (huge pages cut 512 faults to one, if the kernel
//! can find free 2 MiB blocks). Each mode maps the same size, writes one
//! byte per page twice, and its faults are counted to prove which happened.

mod checks;
mod hugetlb_tunable;
mod measure;
mod modes;

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

use pagewalk_model::{Check, FirstTouchResults, Mode, ModeResult, Results, Sample, ThpSettings};

use super::{Env, Outcome};
use crate::{alloc_count, guard, interrupt, procfs, progress};
use measure::measure;
use modes::{allocate, is_rust, touch};

const FULL_SIZE: u64 = 1 << 30;
const QUICK_SIZE: u64 = 64 << 20;
const FULL_REPS: u32 = 3;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let requested = env.settings.size_or(FULL_SIZE, QUICK_SIZE);
    let allowance = match guard::allow_now(requested)? {
        Ok(allowance) => allowance,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let plan = Plan {
        size: allowance.bytes,
        stride: env.machine.base_page_bytes,
        pages: allowance.bytes / env.machine.base_page_bytes,
        repetitions: env.settings.reps_or(FULL_REPS),
    };
    // The largest mapping a mode makes (the huge-page mode's alignment
    // included): within the guard's allowance, unless a limit the guard
    // cannot see (the commit limit) is in the way.
    if let Err(why) = guard::fits(plan.size + modes::HUGE_PAGE as u64) {
        return Ok(Outcome::Skipped(why));
    }
    // Before any mode runs: the fragmentation the huge-page modes will meet.
    let memory_before = procfs::memory_snapshot().ok();

    let selected = &env.settings.modes;
    let unavailable: BTreeMap<Mode, String> = selected
        .iter()
        .filter_map(|&m| Some((m, unavailable(m, &env.machine.thp)?)))
        .collect();
    let runnable: Vec<Mode> = selected
        .iter()
        .copied()
        .filter(|m| !unavailable.contains_key(m))
        .collect();
    let (mut samples, mut errors) = run_modes(&runnable, &plan);

    let mut modes = Vec::new();
    let mut checks = Vec::new();
    for &mode in selected {
        let result = if let Some(reason) = unavailable.get(&mode) {
            ModeResult::skipped(mode, reason.clone())
        } else if let Some(error) = errors.remove(&mode) {
            let name = format!("{}: every repetition ran", mode.name());
            checks.push(Check::new(name, false, "no errors", error.clone()));
            ModeResult::skipped(mode, format!("failed: {error}"))
        } else if let Some(s) = samples.remove(&mode) {
            let result = ModeResult::from_samples(mode, s);
            checks.extend(checks::for_mode(&result, plan.pages, plan.stride));
            result
        } else {
            // Interrupted before its first repetition: it never ran.
            continue;
        };
        modes.push(result);
    }
    checks.extend(hugetlb_tunable::finding(hugetlb_tunable::glibc()));

    Ok(Outcome::Done {
        results: Results::FirstTouch(FirstTouchResults {
            requested_bytes: requested,
            size_bytes: plan.size,
            size_note: allowance.note,
            stride_bytes: plan.stride,
            pages: plan.pages,
            repetitions: plan.repetitions,
            memory_before,
            modes,
            stated: Default::default(),
        }),
        checks,
    })
}

/// The size and repetitions every mode runs with.
struct Plan {
    size: u64,
    stride: u64,
    pages: u64,
    repetitions: u32,
}

type Samples = BTreeMap<Mode, Vec<Sample>>;
type Errors = BTreeMap<Mode, String>;

/// Every repetition of every runnable mode, until done or Ctrl-C. A mode
/// that fails once is not retried: its error is its result.
fn run_modes(runnable: &[Mode], plan: &Plan) -> (Samples, Errors) {
    let mut samples = Samples::new();
    let mut errors = Errors::new();
    let reps = plan.repetitions;
    let bar = progress::bar(runnable.len() as u64 * reps as u64, "first-touch");
    // Repetitions are the outer loop so that drift in the machine's state
    // (fragmentation, background load) spreads over all modes alike.
    'reps: for rep in 1..=reps {
        for &mode in runnable {
            if interrupt::requested() {
                break 'reps;
            }
            bar.set_message(format!("{} ({rep}/{reps})", mode.name()));
            if let Entry::Vacant(failure) = errors.entry(mode) {
                match repetition(mode, plan) {
                    Ok(s) => samples.entry(mode).or_default().push(s),
                    Err(e) => {
                        failure.insert(format!("repetition {rep}: {e}"));
                    }
                }
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    (samples, errors)
}

/// Why `mode` cannot run under these THP settings, if it cannot.
fn unavailable(mode: Mode, thp: &ThpSettings) -> Option<String> {
    if mode == Mode::MallocHugetlb {
        return hugetlb_tunable::unavailable(thp.enabled.as_deref(), hugetlb_tunable::glibc());
    }
    match (mode, thp.enabled.as_deref()) {
        (Mode::Hugepage | Mode::Nohugepage, None) => Some(format!(
            "this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage/enabled): {} does not exist; `default` measures plain 4 KiB pages",
            mode.code()
        )),
        (Mode::Hugepage, Some("never")) => {
            Some("THP enabled=never: MADV_HUGEPAGE cannot obtain huge pages (needs madvise or always)".into())
        }
        _ => None,
    }
}

/// One repetition: allocate, first pass, second pass, then read what the
/// process ended up with before freeing it. A mode that needs a process of
/// its own runs it there.
fn repetition(mode: Mode, plan: &Plan) -> Result<Sample, String> {
    match mode {
        Mode::MallocHugetlb => hugetlb_tunable::in_child(mode, plan.size, plan.stride),
        _ => in_this_process(mode, plan),
    }
}

/// `collector probe first-touch`: one repetition in this (fresh) process,
/// as JSON for the parent.
pub fn report(mode: Mode, size: u64, stride: u64) -> Result<serde_json::Value, String> {
    if !size.is_multiple_of(stride) {
        return Err(format!(
            "--size {size} is not a multiple of --stride {stride}"
        ));
    }
    let plan = Plan {
        size,
        stride,
        pages: size / stride,
        repetitions: 1,
    };
    guard::fits(plan.size)?;
    let sample = in_this_process(mode, &plan)?;
    serde_json::to_value(sample).map_err(|e| e.to_string())
}

fn in_this_process(mode: Mode, plan: &Plan) -> Result<Sample, String> {
    let (len, stride, pages) = (plan.size as usize, plan.stride as usize, plan.pages);
    // A Rust form that cannot get its memory aborts the process; the same
    // size is tried first, outside the timed allocation.
    if is_rust(mode) {
        guard::fits(plan.size + stride as u64)?;
    }
    let ((region, calls), allocation) =
        measure(pages, || alloc_count::counting(|| allocate(mode, len)));
    let mut region = region?;
    let start = region.start();
    let ((), first_pass) = measure(pages, || touch(start, len, stride));
    let ((), second_pass) = measure(pages, || touch(start, len, stride));
    let rollup = procfs::read_smaps_rollup().ok();
    drop(region);
    Ok(Sample {
        allocation: Some(allocation),
        first_pass: Some(first_pass),
        second_pass: Some(second_pass),
        rss_kib: rollup.as_ref().and_then(|r| r.get("Rss").copied()),
        anon_huge_pages_kib: rollup
            .as_ref()
            .and_then(|r| r.get("AnonHugePages").copied()),
        allocator_calls: is_rust(mode).then_some(calls),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thp(enabled: Option<&str>) -> ThpSettings {
        ThpSettings {
            enabled: enabled.map(Into::into),
            defrag: None,
            khugepaged_defrag: None,
            max_ptes_none: None,
            shrink_underused: None,
            sizes: None,
        }
    }

    #[test]
    fn huge_page_modes_need_thp() {
        assert!(unavailable(Mode::Hugepage, &thp(Some("never"))).is_some());
        assert!(unavailable(Mode::Hugepage, &thp(None)).is_some());
        assert!(unavailable(Mode::Nohugepage, &thp(None)).is_some());
        assert!(unavailable(Mode::Hugepage, &thp(Some("madvise"))).is_none());
        assert!(unavailable(Mode::Default, &thp(None)).is_none());
        assert!(unavailable(Mode::Nohugepage, &thp(Some("never"))).is_none());
    }

    #[test]
    fn a_quick_repetition_faults_every_page() {
        let plan = Plan {
            size: 8 << 20,
            stride: 4096,
            pages: 2048,
            repetitions: 1,
        };
        let pages = plan.pages;
        let s = repetition(Mode::Nohugepage, &plan).unwrap();
        let first = s.first_pass.unwrap().minor_faults.unwrap();
        assert!((pages..=pages + checks::SLACK).contains(&first), "{first}");
        assert!(s.second_pass.unwrap().minor_faults.unwrap() <= checks::SLACK);
    }
}
