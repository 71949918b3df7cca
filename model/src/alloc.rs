//! The allocator study (R2's `systems/01`): what one `malloc` + `free` costs
//! on each of glibc's paths, and how many `mmap`/`munmap` calls a path
//! really makes, counted rather than assumed.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::latency::Latency;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Alloc.name();

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum AllocPath {
    /// A small size served from the thread's cache (tcache).
    Tcache,
    /// A size beyond the tcache, reused from the unsorted and small bins.
    Bins,
    /// 1 MiB after glibc raised its mmap threshold: served from the heap.
    MmapTypical,
    /// A size above the largest dynamic threshold: a fresh mapping each time.
    MmapForced,
    /// 1 MiB with the threshold pinned at 128 KiB (`mallopt`), in a child
    /// process: a fresh mapping each time.
    MmapPinned,
    /// A free list of fixed blocks: no allocator at all on the hot path.
    Pool,
}

impl AllocPath {
    pub const ALL: [AllocPath; 6] = [
        AllocPath::Tcache,
        AllocPath::Bins,
        AllocPath::MmapTypical,
        AllocPath::MmapForced,
        AllocPath::MmapPinned,
        AllocPath::Pool,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AllocPath::Tcache => "tcache",
            AllocPath::Bins => "bins",
            AllocPath::MmapTypical => "mmap-typical",
            AllocPath::MmapForced => "mmap-forced",
            AllocPath::MmapPinned => "mmap-pinned",
            AllocPath::Pool => "pool",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            AllocPath::Tcache => "tcache",
            AllocPath::Bins => "bins",
            AllocPath::MmapTypical => "1 MiB, threshold raised",
            AllocPath::MmapForced => "forced mmap",
            AllocPath::MmapPinned => "1 MiB, threshold pinned",
            AllocPath::Pool => "custom pool",
        }
    }

    pub fn from_name(name: &str) -> Option<AllocPath> {
        AllocPath::ALL.into_iter().find(|p| p.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct AllocResults {
    pub paths: Vec<AllocPathResult>,
}

impl AllocResults {
    pub fn path(&self, p: AllocPath) -> Option<&AllocPathResult> {
        self.paths.iter().find(|r| r.path == p)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct AllocPathResult {
    pub path: AllocPath,
    pub skipped: Option<String>,
    /// Bytes asked of `malloc` (or the pool's block size).
    pub size_bytes: Option<u64>,
    /// What one operation does, e.g. `malloc(64) then free`.
    pub pattern: Option<String>,
    /// Operations timed in all, and per timed batch.
    pub ops: Option<u64>,
    pub ops_per_batch: Option<u64>,
    /// Nanoseconds per operation (one allocation and one free), one value
    /// per batch.
    pub latency: Option<Latency>,
    /// Minor faults of the measuring thread per operation: a fresh mapping
    /// faults once (malloc writes its chunk header), a reused chunk not at all.
    pub minor_faults_per_op: Option<f64>,
    /// `mmap` and `munmap` calls, as measured (by each method available).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mapping_calls: Vec<MappingCalls>,
    /// Measured in a child process (so its `mallopt` stays there).
    #[serde(default)]
    pub in_child: bool,
}

/// `mmap` + `munmap` calls over `ops` operations, and how they were counted.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MappingCalls {
    pub method: CountMethod,
    pub ops: Option<u64>,
    pub mmap: Option<u64>,
    pub munmap: Option<u64>,
    /// `mmap + munmap`.
    pub total: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum CountMethod {
    /// `strace -c -e trace=mmap,munmap` on a fresh process doing the same
    /// operations: exact.
    Strace,
    /// One minor fault per fresh mapping (each `munmap`ed on free): a
    /// lower bound from `RUSAGE_THREAD`, no tracing needed.
    Faults,
    /// As published by a reference source.
    Published,
}
