//! `ft` (and `r1.ft`): the first-touch study.

use std::collections::BTreeMap;

use pagewalk_model::judge::counts::{Count, PerPage};
use pagewalk_model::judge::pages::{Backed, HugeBlocks};
use pagewalk_model::judge::{Basis, Order};
use pagewalk_model::{FirstTouchResults, Mode, ModeResult, Phase, PhaseSummary, RunFile, Summary};
use schemars::JsonSchema;
use serde::Serialize;

mod judge;

/// The first-touch view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct FirstTouch {
    /// Why the experiment was skipped or failed (the other keys are then null or empty); null when it ran.
    pub skipped: Option<String>,
    /// Region size, MiB.
    pub size_mib: Option<u64>,
    /// 4 KiB pages written per pass.
    pub pages: Option<u64>,
    /// 2 MiB windows in the region: the most huge pages it could get.
    pub huge_regions: Option<u64>,
    /// Repetitions per mode.
    pub repetitions: Option<u32>,
    /// True when `repetitions` is more than one.
    pub repeated: Option<bool>,
    /// For a run cut short by a signal, what it finished (`cut short after 4 of 27 planned repetitions (3 of 9 modes started)`): say it instead of "every mode N times"; else null.
    pub cut_short: Option<String>,
    /// Why the size was scaled down, if it was.
    pub size_note: Option<String>,
    /// Memory before the experiment.
    pub before: Option<Before>,
    /// Every premise check passed.
    pub all_checks_passed: Option<bool>,
    /// The premise checks that failed.
    pub failed_checks: Vec<ModeCheck>,
    /// When glibc ignored `glibc.malloc.hugetlb` in some of the processes `malloc-hugetlb` started, the collector's finding (`glibc 2.36 applied it in 3 of 7 processes started (...)`); else null.
    pub tunable_ignored: Option<String>,
    /// The Rust forms that ran, in the chapter's order: one table row each with `#each`.
    pub rust_forms: Vec<RustForm>,
    /// One view per mode.
    pub modes: Option<Modes>,
    /// A published source's own wording for a figure the book computes from its numbers (`r1.ft.stated.first_vs_second`: R1's ratio of first to second pass); empty for runs, so use a key under `{{#if}}`.
    pub stated: Option<BTreeMap<String, String>>,
    /// Verdicts on the run's first touch (below).
    pub verdict: Option<FirstTouchVerdict>,
}

/// What the first touch says, each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct FirstTouchVerdict {
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the `hugepage` first pass against the `nohugepage` one, ns per page.
    pub hugepage_first: Option<Order>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): the `default` first pass against the `nohugepage` one.
    pub default_first: Option<Order>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): `populate`'s allocation (where it faults) against the `nohugepage` first pass.
    pub populate: Option<Order>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): `malloc-hugetlb`'s allocation (where its memset faults) against `malloc-memset`'s.
    pub malloc_hugetlb: Option<Order>,
    /// `as-expected`, `more`, `fewer`: the `nohugepage` first pass's faults against `ft.pages` (counts are exact: no noise).
    pub touch_faults: Option<Count>,
    /// `as-expected`, `more`, `fewer`: the `default` first pass's faults against its `faults_predicted`.
    pub default_faults: Option<Count>,
    /// `plenty`, `scarce`: the free 2 MiB blocks before the run (an order-10 block supplies two) against the region's 2 MiB windows (`ft.huge_regions`).
    pub huge_blocks: Option<HugeBlocks>,
    /// `identical`, `floor`, `ranks`, `ranges`, `single` (see `judge::order`): what decided `hugepage_first`: the same median, the A-vs-A floor, the rank test on the repetitions' values, the repetitions' ranges (overlapping or not), or one figure on a side (each mode ran once: nothing to test).
    pub hugepage_first_basis: Option<Basis>,
    /// `exact`, `about-one-per-page`, `more`, `fewer`: the `nohugepage` first pass's faults against `ft.pages`, allowing as many extra as that mode's second pass took over memory already present (the rest of the thread faulting, not the region).
    pub touch_per_page: Option<PerPage>,
    /// The modes (each as the chart labels it, `Mode::code`, in the study's order) whose minor faults land at allocation: more there than in the first pass (counts are exact: no noise).
    pub faults_at_allocation: Vec<String>,
    /// The modes whose minor faults land in the first pass: as many there as at allocation, or more.
    pub faults_at_first_pass: Vec<String>,
}

/// Memory before the experiment, from `/proc/meminfo` and `/proc/buddyinfo`.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Before {
    /// `MemFree`, MiB.
    pub mem_free_mib: u64,
    /// `MemAvailable`, MiB.
    pub mem_available_mib: u64,
    /// `SwapFree`, MiB.
    pub swap_free_mib: Option<u64>,
    /// `MemFree` in kB, as `/proc/meminfo` prints it (for quoting a source exactly).
    pub mem_free_kib: u64,
    /// `MemAvailable` in kB.
    pub mem_available_kib: u64,
    /// `SwapFree` in kB.
    pub swap_free_kib: Option<u64>,
    /// Free 4 KiB blocks (order 0).
    pub free_order0: u64,
    /// Free 2 MiB blocks the free lists could supply: every free block of
    /// order 9 and up, an order-10 block counted as two.
    pub free_huge_blocks: u64,
}

/// A premise check that failed, with the mode it was about.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ModeCheck {
    /// The mode (`hugepage`), empty when the check is about the whole experiment.
    pub mode: String,
    /// What was checked.
    pub name: String,
    /// What the premise needs.
    pub expected: String,
    /// What the counter said.
    pub observed: String,
}

/// A Rust form of a zeroed buffer, and how it ran.
#[derive(Clone, Serialize, JsonSchema)]
pub struct RustForm {
    /// The source text (`vec![0u8; n]`); print it with `{{code}}`.
    pub form: &'static str,
    /// That form's mode, as under `ft.modes`.
    pub mode: ModeView,
}

/// One view per mode (KEY is the mode's name with `-` written as `_`); null where the mode did not run.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Modes {
    /// `mmap` + `MADV_NOHUGEPAGE`: plain 4 KiB pages.
    pub nohugepage: Option<ModeView>,
    /// `mmap` with whatever THP gives by default.
    pub default: Option<ModeView>,
    /// `mmap` + `MADV_HUGEPAGE`.
    pub hugepage: Option<ModeView>,
    /// `mmap(MAP_POPULATE)`: faulted in by `mmap` itself.
    pub populate: Option<ModeView>,
    /// `malloc` then `memset` to zero.
    pub malloc_memset: Option<ModeView>,
    /// The same in a process started with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`.
    pub malloc_hugetlb: Option<ModeView>,
    /// `calloc`.
    pub calloc: Option<ModeView>,
    /// Rust `vec![0u8; n]`.
    pub vec_macro: Option<ModeView>,
    /// Rust `Vec::resize(n, 0)`.
    pub resize_zero: Option<ModeView>,
    /// Rust `Vec::resize(n, 1)`.
    pub resize_one: Option<ModeView>,
}

impl Modes {
    pub fn get(&self, mode: Mode) -> Option<&ModeView> {
        self.slot(mode).as_ref()
    }

    pub fn get_mut(&mut self, mode: Mode) -> Option<&mut ModeView> {
        self.slot_mut(mode).as_mut()
    }

    fn slot(&self, mode: Mode) -> &Option<ModeView> {
        match mode {
            Mode::Nohugepage => &self.nohugepage,
            Mode::Default => &self.default,
            Mode::Hugepage => &self.hugepage,
            Mode::Populate => &self.populate,
            Mode::MallocMemset => &self.malloc_memset,
            Mode::MallocHugetlb => &self.malloc_hugetlb,
            Mode::Calloc => &self.calloc,
            Mode::VecMacro => &self.vec_macro,
            Mode::ResizeZero => &self.resize_zero,
            Mode::ResizeOne => &self.resize_one,
        }
    }

    fn slot_mut(&mut self, mode: Mode) -> &mut Option<ModeView> {
        match mode {
            Mode::Nohugepage => &mut self.nohugepage,
            Mode::Default => &mut self.default,
            Mode::Hugepage => &mut self.hugepage,
            Mode::Populate => &mut self.populate,
            Mode::MallocMemset => &mut self.malloc_memset,
            Mode::MallocHugetlb => &mut self.malloc_hugetlb,
            Mode::Calloc => &mut self.calloc,
            Mode::VecMacro => &mut self.vec_macro,
            Mode::ResizeZero => &mut self.resize_zero,
            Mode::ResizeOne => &mut self.resize_one,
        }
    }
}

/// One mode's figures.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ModeView {
    /// Why the mode could not run; else null.
    pub skipped: Option<String>,
    /// The allocation phase (null when the mode or the source lacks it).
    pub alloc: Option<PhaseView>,
    /// The first write pass.
    pub first: Option<PhaseView>,
    /// The second write pass.
    pub second: Option<PhaseView>,
    /// `AnonHugePages` after the passes (median), KiB.
    pub anon_huge_kib: Option<f64>,
    /// The same in MiB.
    pub anon_huge_mib: Option<f64>,
    /// That as a fraction (0..1) of the region.
    pub huge_fraction: Option<f64>,
    /// That in 2 MiB pages.
    pub huge_pages: Option<f64>,
    /// `pages - 511 × huge_pages`: the faults expected if every huge page saved 511.
    pub faults_predicted: Option<f64>,
    /// R1's later `MADV_HUGEPAGE` run (null elsewhere).
    pub rerun: Option<Rerun>,
    /// `thp_fault_alloc` in `/proc/vmstat` over the first pass (plus allocation for `populate`), median.
    pub thp_alloc: Option<f64>,
    /// `thp_fault_fallback` likewise.
    pub thp_fallback: Option<f64>,
    /// Rust allocator calls at allocation (Rust forms only).
    pub calls: Option<Calls>,
    /// How much of the region came in huge pages: `all` (at most the one window an unaligned mapping loses is missing), `some`, `none`; from `huge_fraction` against `ft.huge_regions`.
    pub granted: Option<Backed>,
}

/// One phase's medians over the repetitions.
#[derive(Clone, Serialize, JsonSchema)]
pub struct PhaseView {
    /// Wall time, milliseconds.
    pub ms: f64,
    /// Wall time, nanoseconds (for `dur`).
    pub wall_ns: f64,
    /// Nanoseconds per 4 KiB page.
    pub ns: f64,
    /// The fastest repetition's ns per page.
    pub ns_min: f64,
    /// The slowest repetition's ns per page.
    pub ns_max: f64,
    /// Minor faults.
    pub faults: Option<f64>,
}

/// A later run of the same mode (R1's `MADV_HUGEPAGE` rerun).
#[derive(Clone, Serialize, JsonSchema)]
pub struct Rerun {
    /// Its first pass.
    pub first: Option<RerunPass>,
    /// `AnonHugePages` after it, KiB.
    pub anon_huge_kib: Option<u64>,
}

/// A rerun's first pass.
#[derive(Clone, Serialize, JsonSchema)]
pub struct RerunPass {
    /// Wall time, milliseconds.
    pub ms: f64,
    /// Nanoseconds per 4 KiB page.
    pub ns: f64,
}

/// Calls into Rust's global allocator while the buffer was created.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Calls {
    /// `alloc` calls.
    pub alloc: u64,
    /// `alloc_zeroed` calls.
    pub alloc_zeroed: u64,
    /// `realloc` calls.
    pub realloc: u64,
}

/// The first-touch view of a run; `None` when it has no such experiment.
pub fn view(run: &RunFile) -> Option<FirstTouch> {
    let record = run.experiment(pagewalk_model::first_touch::EXPERIMENT)?;
    let Some(ft) = run.first_touch().filter(|_| record.status.measured()) else {
        // Every key present, so a chapter's table prints "n/a" for it.
        return Some(FirstTouch {
            skipped: Some(pagewalk_model::reason::in_words(
                record.reason.as_deref().unwrap_or_default(),
            )),
            ..FirstTouch::default()
        });
    };
    let mut modes = Modes::default();
    for &m in Mode::ALL.iter() {
        *modes.slot_mut(m) = ft.mode(m).map(|r| mode(ft, r));
    }
    let failed: Vec<ModeCheck> = record
        .failed_checks()
        .map(|c| {
            let (mode, name) = c.name.split_once(": ").unwrap_or(("", &c.name));
            ModeCheck {
                mode: mode.into(),
                name: name.into(),
                expected: c.expected.clone(),
                observed: c.observed.clone(),
            }
        })
        .collect();
    let before = ft.memory_before.as_ref().map(|b| Before {
        mem_free_mib: b.mem_free_kib / 1024,
        mem_available_mib: b.mem_available_kib / 1024,
        swap_free_mib: b.swap_free_kib.map(|k| k / 1024),
        // As /proc/meminfo prints them, for a source quoted exactly.
        mem_free_kib: b.mem_free_kib,
        mem_available_kib: b.mem_available_kib,
        swap_free_kib: b.swap_free_kib,
        free_order0: b.free_blocks_of(0),
        free_huge_blocks: b.blocks_available(9),
    });
    Some(FirstTouch {
        skipped: None,
        size_mib: Some(ft.size_bytes >> 20),
        pages: Some(ft.pages),
        huge_regions: Some(ft.size_bytes / HUGE_BYTES),
        repetitions: Some(ft.repetitions),
        repeated: None,
        cut_short: cut_short(record, ft),
        size_note: ft.size_note.clone(),
        before,
        all_checks_passed: Some(failed.is_empty()),
        failed_checks: failed,
        tunable_ignored: record
            .checks
            .iter()
            .find(|c| c.finding && !c.passed && c.name.starts_with("malloc-hugetlb: glibc applied"))
            .map(|c| c.observed.clone()),
        rust_forms: rust_forms(ft),
        modes: Some(modes),
        stated: Some(ft.stated.clone()),
        verdict: None,
    })
}

/// The Rust forms that ran, in the chapter's order, each as its source
/// text and its mode's view: the rows of the chapter's table.
fn rust_forms(ft: &FirstTouchResults) -> Vec<RustForm> {
    const FORMS: [(Mode, &str); 3] = [
        (Mode::VecMacro, "vec![0u8; n]"),
        (Mode::ResizeZero, "resize(n, 0)"),
        (Mode::ResizeOne, "resize(n, 1)"),
    ];
    FORMS
        .iter()
        .filter_map(|&(m, form)| {
            let r = ft.mode(m)?;
            let ran = r.summary.allocation.is_some() || r.summary.first_pass.is_some();
            ran.then(|| RustForm {
                form,
                mode: mode(ft, r),
            })
        })
        .collect()
}

/// For an interrupted run, what it finished instead of "every mode N
/// times": `cut short after 4 of 27 planned repetitions (3 modes of 9)`.
fn cut_short(record: &pagewalk_model::ExperimentRecord, ft: &FirstTouchResults) -> Option<String> {
    if record.status != pagewalk_model::Status::Interrupted {
        return None;
    }
    let planned: Vec<_> = ft.modes.iter().filter(|m| m.skipped.is_none()).collect();
    let done: usize = planned.iter().map(|m| m.samples.len()).sum();
    let started = planned.iter().filter(|m| !m.samples.is_empty()).count();
    Some(format!(
        "cut short after {done} of {} planned repetitions ({started} of {} modes started)",
        planned.len() * ft.repetitions as usize,
        planned.len()
    ))
}

const HUGE_BYTES: u64 = 2 << 20;
/// 4 KiB pages one 2 MiB huge page stands for.
const SMALL_PER_HUGE: f64 = 512.0;

fn mode(ft: &FirstTouchResults, r: &ModeResult) -> ModeView {
    let phase = |p: Phase| r.summary.phase(p).map(phase);
    let huge_kib = r.summary.anon_huge_pages_kib.map(|s| s.median);
    let huge_pages = huge_kib.map(|k| k * 1024.0 / HUGE_BYTES as f64);
    // THP fault counters are per sample; the allocation phase counts too
    // (MAP_POPULATE faults everything in there).
    let thp = |f: fn(&pagewalk_model::ThpFaultCounters) -> i64| -> Option<f64> {
        let per_sample: Option<Vec<f64>> = r
            .samples
            .iter()
            .map(|s| {
                let counts: Vec<i64> = [&s.allocation, &s.first_pass]
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.thp.as_ref().map(f))
                    .collect();
                (!counts.is_empty()).then(|| counts.iter().sum::<i64>() as f64)
            })
            .collect();
        Summary::of(&per_sample?).map(|s| s.median)
    };
    let calls = r.samples.first().and_then(|s| s.allocator_calls);
    ModeView {
        skipped: r.skipped.as_deref().map(pagewalk_model::reason::in_words),
        alloc: phase(Phase::Allocation),
        first: phase(Phase::FirstPass),
        second: phase(Phase::SecondPass),
        anon_huge_kib: huge_kib,
        anon_huge_mib: huge_kib.map(|k| k / 1024.0),
        huge_fraction: huge_kib.map(|k| k * 1024.0 / ft.size_bytes as f64),
        huge_pages,
        // One fault maps a whole huge page, so each saves 511 faults.
        faults_predicted: huge_pages.map(|h| ft.pages as f64 - (SMALL_PER_HUGE - 1.0) * h),
        rerun: r.later_runs.first().map(|s| Rerun {
            first: s.first_pass.as_ref().map(|p| RerunPass {
                ms: p.wall_ns / 1e6,
                ns: p.ns_per_page,
            }),
            anon_huge_kib: s.anon_huge_pages_kib,
        }),
        thp_alloc: thp(|c| c.thp_fault_alloc),
        thp_fallback: thp(|c| c.thp_fault_fallback),
        calls: calls.map(|c| Calls {
            alloc: c.alloc,
            alloc_zeroed: c.alloc_zeroed,
            realloc: c.realloc,
        }),
        granted: None,
    }
}

fn phase(p: &PhaseSummary) -> PhaseView {
    PhaseView {
        ms: p.wall_ns.median / 1e6,
        wall_ns: p.wall_ns.median,
        ns: p.ns_per_page.median,
        ns_min: p.ns_per_page.min,
        ns_max: p.ns_per_page.max,
        faults: p.minor_faults.map(|f| f.median),
    }
}

#[cfg(test)]
impl ModeView {
    /// A mode whose first pass took `ns` per page, give or take `spread`,
    /// with `huge_fraction` of its region in huge pages.
    pub(crate) fn of_first_pass(ns: f64, spread: f64, huge_fraction: f64) -> ModeView {
        ModeView {
            skipped: None,
            alloc: None,
            first: Some(PhaseView {
                ms: 0.0,
                wall_ns: 0.0,
                ns,
                ns_min: ns - spread,
                ns_max: ns + spread,
                faults: None,
            }),
            second: None,
            anon_huge_kib: None,
            anon_huge_mib: None,
            huge_fraction: Some(huge_fraction),
            huge_pages: None,
            faults_predicted: None,
            rerun: None,
            thp_alloc: None,
            thp_fallback: None,
            calls: None,
            granted: None,
        }
    }
}
