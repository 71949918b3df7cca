//! One file in `data/`: who produced it, on what machine, and what each
//! experiment found.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::alloc::AllocResults;
use crate::experiment_kinds;
use crate::first_touch::FirstTouchResults;
use crate::inspect::InspectResults;
use crate::machine::MachineContext;
use crate::mlp::MlpResults;
use crate::noise::NoiseResults;
use crate::numa::NumaResults;
use crate::shootdown::ShootdownResults;
use crate::syscall::SyscallResults;
use crate::tail::TailResults;
use crate::translation::{StaircaseResults, ThpResults, TlbReachResults};
use crate::walk::WalkResults;

/// A whole JSON file: one collector run, or a set of transcribed published
/// reference figures.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct RunFile {
    pub schema_version: u32,
    pub provenance: Provenance,
    /// Absent for reference figures, whose machine is only described in prose
    /// (see [`Provenance::Reference`]).
    pub machine: Option<MachineContext>,
    pub experiments: Vec<ExperimentRecord>,
}

/// Where the numbers came from. A reader must never mistake a transcribed
/// published figure for something measured here, so the two are different
/// variants, not a flag.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Provenance {
    /// Measured by `collector run` on the machine in [`RunFile::machine`].
    Collector {
        collector_version: String,
        /// Unique per run; also the file name stem.
        run_id: String,
        /// RFC 3339, UTC.
        started_utc: String,
        finished_utc: Option<String>,
        /// `--quick`: smaller sizes and fewer repetitions.
        quick: bool,
        /// The command line that produced the file.
        command: Vec<String>,
        /// True when the run was interrupted (Ctrl-C): the experiments
        /// present finished, the rest never ran.
        #[serde(default)]
        interrupted: bool,
        /// The signal that asked the run to stop, whenever one arrived:
        /// also after the last experiment had finished, when it cut
        /// nothing (`interrupted` false), so whoever sent it can see it
        /// was received. Absent in files from before it was recorded.
        signal: Option<StopSignal>,
    },
    /// Figures transcribed from a published source, not measured here.
    Reference {
        /// Short id used across the book, e.g. `R1`.
        source_id: String,
        /// How the book names it, e.g. "the reference laptop".
        name: String,
        /// The source's own conditions (machine, settings, pinning).
        conditions: String,
        /// What was transcribed and what the source did not report.
        note: String,
    },
}

impl Provenance {
    /// What names the run and when: its id (a reference's name), its start
    /// (none for a reference or an unreadable time) and whether it was
    /// `--quick`.
    pub fn identity(&self) -> (String, Option<crate::UtcTime>, bool) {
        match self {
            Provenance::Collector {
                run_id,
                started_utc,
                quick,
                ..
            } => (
                run_id.clone(),
                crate::UtcTime::parse(started_utc).ok(),
                *quick,
            ),
            Provenance::Reference { name, .. } => (name.clone(), None, false),
        }
    }
}

/// A signal the collector takes as "stop": Ctrl-C, a service manager or a
/// CI timeout, a closed terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub enum StopSignal {
    #[serde(rename = "SIGINT")]
    Sigint,
    #[serde(rename = "SIGTERM")]
    Sigterm,
    #[serde(rename = "SIGHUP")]
    Sighup,
}

impl StopSignal {
    /// As the file and a shell write it: `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Sigint => "SIGINT",
            StopSignal::Sigterm => "SIGTERM",
            StopSignal::Sighup => "SIGHUP",
        }
    }
}

impl RunFile {
    pub fn is_reference(&self) -> bool {
        matches!(self.provenance, Provenance::Reference { .. })
    }

    pub fn experiment(&self, name: &str) -> Option<&ExperimentRecord> {
        self.experiments.iter().find(|e| e.name == name)
    }

    /// The results of experiment `kind`, if the file has them.
    pub fn results_of(&self, kind: Kind) -> Option<&Results> {
        self.experiment(kind.name())?.results.as_ref()
    }

    /// A short human label: the run id or the reference's name.
    pub fn label(&self) -> String {
        match &self.provenance {
            Provenance::Collector { run_id, .. } => run_id.clone(),
            Provenance::Reference { name, .. } => name.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Ran; `results` holds what it found (its checks may still have failed).
    Ok,
    /// Could not run on this machine; `reason` says why. No numbers.
    Skipped,
    /// Started but hit an error; `reason` holds it.
    Failed,
    /// Cut short by Ctrl-C or a signal: `results` (when present) hold only
    /// what finished, and `reason` says how much that was.
    Interrupted,
}

impl Status {
    /// The status as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
            Status::Interrupted => "interrupted",
        }
    }

    /// Ok or interrupted: there are measurements to show (an interrupted
    /// one's are partial, and must be shown as such).
    pub fn measured(self) -> bool {
        matches!(self, Status::Ok | Status::Interrupted)
    }
}

/// One experiment's outcome inside a run.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ExperimentRecord {
    /// The name `collector run NAME` takes, e.g. `first-touch`.
    pub name: String,
    pub status: Status,
    /// Why it was skipped or failed; required for those statuses.
    pub reason: Option<String>,
    /// Wall time the experiment took, in seconds (absent for references).
    pub duration_s: Option<f64>,
    /// The premises the experiment verified about itself.
    #[serde(default)]
    pub checks: Vec<Check>,
    pub results: Option<Results>,
    /// What else the machine was doing meanwhile (schema 4; absent in
    /// older files and for references).
    pub background: Option<crate::background::Background>,
}

impl ExperimentRecord {
    /// Premises that did not hold (findings, and premises this machine
    /// cannot check, are never failures).
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks
            .iter()
            .filter(|c| !c.passed && !c.finding && c.cannot_tell.is_none())
    }

    /// Premises this machine could not check, each with why.
    pub fn unchecked(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.cannot_tell.is_some())
    }

    /// What the compiler or a library chose, as recorded.
    pub fn findings(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.finding)
    }
}

experiment_kinds! {
    /// First touch by allocation mode.
    FirstTouch(FirstTouchResults) = "first-touch", first_touch;
    /// Per-iteration latency of a loop walking into fresh memory.
    Tail(TailResults) = "tail", tail;
    /// malloc + free per glibc path.
    Alloc(AllocResults) = "alloc", alloc;
    /// The syscall floor.
    Syscall(SyscallResults) = "syscall", syscall;
    /// munmap, mprotect and MADV_DONTNEED with another thread running elsewhere.
    Shootdown(ShootdownResults) = "shootdown", shootdown;
    /// Run-to-run noise and the scheduling levers in force.
    Noise(NoiseResults) = "noise", noise;
    /// NUMA first-touch placement (the topology also when skipped).
    Numa(NumaResults) = "numa", numa;
    /// Latency against region size, 4 KiB and huge pages.
    Staircase(StaircaseResults) = "staircase", staircase;
    /// Latency against pages touched, data kept small.
    TlbReach(TlbReachResults) = "tlb-reach", tlb_reach;
    /// 4 KiB vs huge pages at two sizes, MADV_COLLAPSE, MAP_HUGETLB.
    Thp(ThpResults) = "thp", thp;
    /// One load per page at strides that spread the walk's entries out.
    Walk(WalkResults) = "walk", walk;
    /// k independent chains in one thread: how many misses overlap.
    Mlp(MlpResults) = "mlp", mlp;
    /// `collector inspect PID`: a live process, not a benchmark.
    Inspect(InspectResults) = "inspect", inspect;
}

/// The book's parts, each a group of experiments: the one place the groups
/// are named (`book/SUMMARY.md`'s part titles are tested against
/// [`Group::title`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// Demand paging and first touch.
    MemoryOnDemand,
    /// Page tables, the TLB, the staircases and huge pages.
    Translation,
    /// What the kernel does to a running program: faults in the loop,
    /// the allocator, system calls, scheduling noise, NUMA placement.
    HotPath,
    /// Not a benchmark: `collector inspect` on a live process.
    Inspection,
}

impl Group {
    pub const ALL: &'static [Group] = &[
        Group::MemoryOnDemand,
        Group::Translation,
        Group::HotPath,
        Group::Inspection,
    ];

    /// The part's title in the book.
    pub const fn title(self) -> &'static str {
        match self {
            Group::MemoryOnDemand => "Memory on demand",
            Group::Translation => "Address translation",
            Group::HotPath => "The OS on the hot path",
            Group::Inspection => "On your own machine",
        }
    }

    /// The kinds in this group, in the order of the list.
    pub fn kinds(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.iter().copied().filter(move |k| k.group() == self)
    }
}

impl Kind {
    /// The book part this kind belongs to. Exhaustive, like every other
    /// per-kind decision.
    pub const fn group(self) -> Group {
        match self {
            Kind::FirstTouch => Group::MemoryOnDemand,
            Kind::Staircase | Kind::TlbReach | Kind::Thp | Kind::Walk | Kind::Mlp => {
                Group::Translation
            }
            Kind::Tail
            | Kind::Alloc
            | Kind::Syscall
            | Kind::Shootdown
            | Kind::Noise
            | Kind::Numa => Group::HotPath,
            Kind::Inspect => Group::Inspection,
        }
    }
}

/// A premise an experiment checked with a counter, kept as data so a failed
/// one is reported rather than hidden.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct Check {
    /// What was checked, e.g. `first pass faults == pages`.
    pub name: String,
    pub passed: bool,
    pub expected: String,
    pub observed: String,
    /// A finding, not a premise: what the compiler or a library chose
    /// (which allocator call a `Vec` form reaches), recorded and explained
    /// but never a failure of the run. `passed` then says whether it matched
    /// what a reference source saw.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub finding: bool,
    /// Why this premise could not be checked on this machine (pagemap
    /// shows frames only to root); `passed` is then false, and the check is
    /// neither a failure nor a finding. Absent for checks that were made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cannot_tell: Option<String>,
}

impl Check {
    pub fn new(
        name: impl Into<String>,
        passed: bool,
        expected: impl Into<String>,
        observed: impl Into<String>,
    ) -> Check {
        Check {
            name: name.into(),
            passed,
            expected: expected.into(),
            observed: observed.into(),
            finding: false,
            cannot_tell: None,
        }
    }

    /// A premise this machine cannot check, and `why`.
    pub fn cannot_tell(
        name: impl Into<String>,
        expected: impl Into<String>,
        why: impl Into<String>,
    ) -> Check {
        let why = why.into();
        Check {
            cannot_tell: Some(why.clone()),
            ..Check::new(name, false, expected, format!("cannot tell: {why}"))
        }
    }

    /// The same check recorded as a finding (see [`Check::finding`]).
    pub fn as_finding(self) -> Check {
        Check {
            finding: true,
            ..self
        }
    }
}
