//! The first-touch study: what it costs to touch fresh anonymous memory for
//! the first time, in each way a program can ask for it.
//! The free memory and buddy allocator state before it are
//! [`crate::memory::MemorySnapshot`], shared with THP.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;

pub use crate::memory::{BuddyZone, MemorySnapshot};

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::FirstTouch.name();

/// Every way of getting memory the study compares.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `mmap` + `madvise(MADV_NOHUGEPAGE)`: plain 4 KiB pages.
    Nohugepage,
    /// `mmap` with whatever the THP setting gives by default.
    Default,
    /// `mmap` + `madvise(MADV_HUGEPAGE)`.
    Hugepage,
    /// `mmap(MAP_POPULATE)`: the kernel faults everything in up front.
    Populate,
    /// libc `malloc` then `memset` to zero.
    MallocMemset,
    /// The same, in a process started with
    /// `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (glibc 2.35+): malloc asks
    /// for huge pages itself (`MADV_HUGEPAGE` on its large blocks) where
    /// THP is in `madvise` mode.
    MallocHugetlb,
    /// libc `calloc`.
    Calloc,
    /// Rust `vec![0u8; n]`.
    VecMacro,
    /// Rust `Vec::with_capacity(n)` + `resize(n, 0)`.
    ResizeZero,
    /// Rust `Vec::with_capacity(n)` + `resize(n, 1)`.
    ResizeOne,
}

impl Mode {
    pub const ALL: [Mode; 10] = [
        Mode::Nohugepage,
        Mode::Default,
        Mode::Hugepage,
        Mode::Populate,
        Mode::MallocMemset,
        Mode::MallocHugetlb,
        Mode::Calloc,
        Mode::VecMacro,
        Mode::ResizeZero,
        Mode::ResizeOne,
    ];

    /// The kebab-case name used in JSON, on the command line and in the book.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Nohugepage => "nohugepage",
            Mode::Default => "default",
            Mode::Hugepage => "hugepage",
            Mode::Populate => "populate",
            Mode::MallocMemset => "malloc-memset",
            Mode::MallocHugetlb => "malloc-hugetlb",
            Mode::Calloc => "calloc",
            Mode::VecMacro => "vec-macro",
            Mode::ResizeZero => "resize-zero",
            Mode::ResizeOne => "resize-one",
        }
    }

    /// How the allocation is written in code, for labels and tables.
    pub fn code(self) -> &'static str {
        match self {
            Mode::Nohugepage => "MADV_NOHUGEPAGE",
            Mode::Default => "mmap (THP default)",
            Mode::Hugepage => "MADV_HUGEPAGE",
            Mode::Populate => "MAP_POPULATE",
            Mode::MallocMemset => "malloc + memset",
            Mode::MallocHugetlb => "malloc + memset, hugetlb=1",
            Mode::Calloc => "calloc",
            Mode::VecMacro => "vec![0u8; n]",
            Mode::ResizeZero => "resize(n, 0)",
            Mode::ResizeOne => "resize(n, 1)",
        }
    }

    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Modes that map memory directly, where the study controls 4 KiB vs
    /// huge pages.
    pub fn is_mmap(self) -> bool {
        matches!(
            self,
            Mode::Nohugepage | Mode::Default | Mode::Hugepage | Mode::Populate
        )
    }

    /// Modes whose allocation phase is expected to take the faults.
    pub fn faults_at_allocation(self) -> bool {
        matches!(
            self,
            Mode::Populate | Mode::MallocMemset | Mode::MallocHugetlb | Mode::ResizeOne
        )
    }
}

/// The three timed phases of one repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Allocation,
    FirstPass,
    SecondPass,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Allocation, Phase::FirstPass, Phase::SecondPass];

    pub fn label(self) -> &'static str {
        match self {
            Phase::Allocation => "allocation",
            Phase::FirstPass => "first pass",
            Phase::SecondPass => "second pass",
        }
    }

    /// The phase's field name in a [`Sample`].
    pub fn field(self) -> &'static str {
        match self {
            Phase::Allocation => "allocation",
            Phase::FirstPass => "first_pass",
            Phase::SecondPass => "second_pass",
        }
    }
}

/// What a Rust form's allocator calls are expected to be, as the names of
/// the first-touch check that records them (`resize-zero: ...`). Which call
/// a form reaches is the compiler's choice: a finding, not a premise.
pub const ZEROED_PATH: &str = "one alloc_zeroed, no alloc (a zeroed allocation, no memset)";
pub const PLAIN_PATH: &str = "one alloc, no alloc_zeroed (alloc + memset(1))";

/// True for the check recording which allocator call a Rust form reached.
pub fn is_allocator_path_check(name: &str) -> bool {
    name.split_once(": ")
        .is_some_and(|(_, what)| what == ZEROED_PATH || what == PLAIN_PATH)
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct FirstTouchResults {
    /// The size asked for (`--size` or the default).
    pub requested_bytes: u64,
    /// The size used: smaller when the memory guard scaled it down.
    pub size_bytes: u64,
    /// Why the size was scaled down, if it was.
    pub size_note: Option<String>,
    /// The touch stride: one byte is written per this many bytes.
    pub stride_bytes: u64,
    /// `size_bytes / stride_bytes`: the pages each pass touches.
    pub pages: u64,
    /// Repetitions per mode.
    pub repetitions: u32,
    /// Free memory and fragmentation before the experiment.
    pub memory_before: Option<MemorySnapshot>,
    pub modes: Vec<ModeResult>,
    /// A published source's own words for a figure the book derives from
    /// its numbers (`first_vs_second`: "about 70x"), quoted beside the
    /// book's arithmetic; empty for collector runs.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub stated: std::collections::BTreeMap<String, String>,
}

impl FirstTouchResults {
    pub fn mode(&self, mode: Mode) -> Option<&ModeResult> {
        self.modes.iter().find(|m| m.mode == mode)
    }
}

/// All repetitions of one mode, with their summary.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ModeResult {
    pub mode: Mode,
    /// Set when this mode could not run here; then `samples` is empty.
    pub skipped: Option<String>,
    /// Every repetition, in the order run.
    pub samples: Vec<Sample>,
    /// Per phase, over the samples; absent for a phase the mode lacks.
    pub summary: ModeSummary,
    /// Samples from a separate, later session, kept out of `summary`: a
    /// published source may report a rerun under different conditions (R1's
    /// second `MADV_HUGEPAGE` run got no huge pages at all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later_runs: Vec<Sample>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ModeSummary {
    pub allocation: Option<PhaseSummary>,
    pub first_pass: Option<PhaseSummary>,
    pub second_pass: Option<PhaseSummary>,
    pub anon_huge_pages_kib: Option<Summary>,
}

impl ModeSummary {
    pub fn phase(&self, phase: Phase) -> Option<&PhaseSummary> {
        match phase {
            Phase::Allocation => self.allocation.as_ref(),
            Phase::FirstPass => self.first_pass.as_ref(),
            Phase::SecondPass => self.second_pass.as_ref(),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct PhaseSummary {
    pub wall_ns: Summary,
    pub ns_per_page: Summary,
    pub minor_faults: Option<Summary>,
}

/// One repetition of one mode.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Sample {
    pub allocation: Option<PhaseSample>,
    pub first_pass: Option<PhaseSample>,
    pub second_pass: Option<PhaseSample>,
    /// `Rss` from `/proc/self/smaps_rollup` after the passes.
    pub rss_kib: Option<u64>,
    /// `AnonHugePages` from `/proc/self/smaps_rollup` after the passes.
    pub anon_huge_pages_kib: Option<u64>,
    /// Calls into the Rust global allocator during the allocation phase
    /// (Rust forms only): proves which path a form took.
    pub allocator_calls: Option<AllocatorCalls>,
}

impl Sample {
    pub fn phase(&self, phase: Phase) -> Option<&PhaseSample> {
        match phase {
            Phase::Allocation => self.allocation.as_ref(),
            Phase::FirstPass => self.first_pass.as_ref(),
            Phase::SecondPass => self.second_pass.as_ref(),
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct PhaseSample {
    pub wall_ns: f64,
    /// `wall_ns / pages`, the study's headline unit.
    pub ns_per_page: f64,
    /// `ru_minflt` delta of the measuring thread (`RUSAGE_THREAD`, so no
    /// helper thread pollutes it). `None` where a source did not report it.
    pub minor_faults: Option<u64>,
    pub major_faults: Option<u64>,
    /// `/proc/vmstat` deltas (system-wide) over the phase.
    pub thp: Option<ThpFaultCounters>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct ThpFaultCounters {
    pub thp_fault_alloc: i64,
    pub thp_fault_fallback: i64,
    /// Only on kernels that have the counter.
    pub thp_fault_fallback_charge: Option<i64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct AllocatorCalls {
    pub alloc: u64,
    pub alloc_zeroed: u64,
    pub realloc: u64,
    pub dealloc: u64,
}

impl ModeResult {
    /// Builds a mode's result from its samples, computing the summary, so
    /// the stored summary can never disagree with the samples.
    pub fn from_samples(mode: Mode, samples: Vec<Sample>) -> ModeResult {
        let summary = ModeSummary {
            allocation: summarize_phase(&samples, Phase::Allocation),
            first_pass: summarize_phase(&samples, Phase::FirstPass),
            second_pass: summarize_phase(&samples, Phase::SecondPass),
            anon_huge_pages_kib: Summary::of(
                &samples
                    .iter()
                    .filter_map(|s| s.anon_huge_pages_kib.map(|k| k as f64))
                    .collect::<Vec<_>>(),
            ),
        };
        ModeResult {
            mode,
            skipped: None,
            samples,
            summary,
            later_runs: Vec::new(),
        }
    }

    pub fn skipped(mode: Mode, reason: impl Into<String>) -> ModeResult {
        ModeResult {
            mode,
            skipped: Some(reason.into()),
            samples: Vec::new(),
            summary: ModeSummary::default(),
            later_runs: Vec::new(),
        }
    }
}

fn summarize_phase(samples: &[Sample], phase: Phase) -> Option<PhaseSummary> {
    let phases: Vec<&PhaseSample> = samples.iter().filter_map(|s| s.phase(phase)).collect();
    let pick = |f: &dyn Fn(&PhaseSample) -> f64| {
        Summary::of(&phases.iter().map(|p| f(p)).collect::<Vec<_>>())
    };
    let faults: Option<Vec<f64>> = phases
        .iter()
        .map(|p| p.minor_faults.map(|f| f as f64))
        .collect();
    Some(PhaseSummary {
        wall_ns: pick(&|p| p.wall_ns)?,
        ns_per_page: pick(&|p| p.ns_per_page)?,
        minor_faults: faults.and_then(|f| Summary::of(&f)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(wall_ns: f64, faults: Option<u64>) -> PhaseSample {
        PhaseSample {
            wall_ns,
            ns_per_page: wall_ns / 4.0,
            minor_faults: faults,
            major_faults: None,
            thp: None,
        }
    }

    #[test]
    fn mode_names_round_trip() {
        for m in Mode::ALL {
            assert_eq!(Mode::from_name(m.name()), Some(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.name()));
        }
        assert_eq!(Mode::from_name("huge"), None);
    }

    #[test]
    fn summary_follows_samples() {
        let s = |w, f| Sample {
            allocation: Some(phase(1.0, Some(0))),
            first_pass: Some(phase(w, f)),
            second_pass: None,
            rss_kib: None,
            anon_huge_pages_kib: Some(2048),
            allocator_calls: None,
        };
        let r = ModeResult::from_samples(
            Mode::Default,
            vec![s(40.0, Some(4)), s(80.0, Some(4)), s(60.0, Some(5))],
        );
        let fp = r.summary.first_pass.as_ref().unwrap();
        assert_eq!(fp.wall_ns.median, 60.0);
        assert_eq!(fp.ns_per_page.max, 20.0);
        assert_eq!(fp.minor_faults.unwrap().max, 5.0);
        assert!(r.summary.second_pass.is_none());
        assert_eq!(r.summary.anon_huge_pages_kib.unwrap().min, 2048.0);
    }

    #[test]
    fn fault_summary_absent_when_any_sample_lacks_it() {
        let s = |f| Sample {
            allocation: Some(phase(1.0, f)),
            first_pass: None,
            second_pass: None,
            rss_kib: None,
            anon_huge_pages_kib: None,
            allocator_calls: None,
        };
        let r = ModeResult::from_samples(Mode::Calloc, vec![s(Some(3)), s(None)]);
        assert!(r.summary.allocation.unwrap().minor_faults.is_none());
    }
}
