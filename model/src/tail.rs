//! The tail study (R2's `perf/05`): a hot loop that walks into fresh memory,
//! timed per iteration, as written and after pre-faulting. The first-touch
//! faults land on a few iterations, so p99.9 moves and the mean barely does.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::latency::Latency;
use crate::stats::Summary;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Tail.name();

/// How the memory the hot loop walks into was prepared.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum TailVariant {
    /// A plain `mmap`: every new page faults inside the hot loop.
    AsWritten,
    /// `mmap(MAP_POPULATE)`: the kernel faults everything in up front.
    Populate,
    /// One write per page before the hot loop starts.
    TouchEarly,
    /// `mlockall(MCL_CURRENT | MCL_FUTURE)` before the `mmap`, which then
    /// arrives populated and locked; `munlockall` after.
    Mlockall,
    /// Pre-faulted by means a published source does not name (never
    /// written by the collector).
    Prefaulted,
}

impl TailVariant {
    pub const ALL: [TailVariant; 5] = [
        TailVariant::AsWritten,
        TailVariant::Populate,
        TailVariant::TouchEarly,
        TailVariant::Mlockall,
        TailVariant::Prefaulted,
    ];

    /// The variants the collector runs.
    pub const MEASURED: [TailVariant; 4] = [
        TailVariant::AsWritten,
        TailVariant::Populate,
        TailVariant::TouchEarly,
        TailVariant::Mlockall,
    ];

    /// The kebab-case name used in JSON and chart keys.
    pub fn name(self) -> &'static str {
        match self {
            TailVariant::AsWritten => "as-written",
            TailVariant::Populate => "populate",
            TailVariant::TouchEarly => "touch-early",
            TailVariant::Mlockall => "mlockall",
            TailVariant::Prefaulted => "prefaulted",
        }
    }

    /// How the variant is written in code, for labels.
    pub fn label(self) -> &'static str {
        match self {
            TailVariant::AsWritten => "as written",
            TailVariant::Populate => "MAP_POPULATE",
            TailVariant::TouchEarly => "touched early",
            TailVariant::Mlockall => "mlockall",
            TailVariant::Prefaulted => "pre-faulted",
        }
    }

    /// Whether the hot loop should meet no faults.
    pub fn prefaulted(self) -> bool {
        self != TailVariant::AsWritten
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TailResults {
    /// Fresh memory the hot loop walks through, per repetition.
    pub region_bytes: Option<u64>,
    /// `region_bytes` in base pages: the faults expected as written.
    pub pages: Option<u64>,
    /// Timed iterations per repetition.
    pub iterations: Option<u64>,
    /// Fresh bytes each iteration writes (so one iteration in
    /// `page / bytes_per_iteration` meets a new page).
    pub bytes_per_iteration: Option<u64>,
    /// What each iteration computes besides writing.
    pub work: Option<String>,
    pub repetitions: Option<u32>,
    pub variants: Vec<TailVariantResult>,
}

impl TailResults {
    pub fn variant(&self, v: TailVariant) -> Option<&TailVariantResult> {
        self.variants.iter().find(|r| r.variant == v)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TailVariantResult {
    pub variant: TailVariant,
    /// Why this variant could not run (e.g. `mlockall` not permitted).
    pub skipped: Option<String>,
    /// Per-iteration latency, all repetitions merged.
    pub latency: Option<Latency>,
    /// Minor faults of the measuring thread during the hot loop, per
    /// repetition.
    pub hot_minor_faults: Option<Summary>,
    /// Time spent preparing the memory before the hot loop (the `mmap`,
    /// the early touch, `mlockall`), per repetition.
    pub prepare_ns: Option<Summary>,
    /// Every repetition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repetitions: Vec<TailRepetition>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TailRepetition {
    pub prepare_ns: f64,
    pub hot_minor_faults: u64,
    pub hot_major_faults: u64,
    pub mean_ns: f64,
    pub p999_ns: f64,
    pub max_ns: f64,
}
