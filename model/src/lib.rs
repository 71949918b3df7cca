//! The one data model of pagewalk.
//!
//! The collector writes [`RunFile`]s as JSON into `data/`; the mdBook
//! preprocessor and the `wasm-viz` chart component read them back. Keeping
//! the types in one crate means a field renamed here is renamed everywhere,
//! and a file that does not fit is rejected with the file and field named
//! (see [`load`]).
//!
//! Units live in the field names (`_ns`, `_kib`, `_bytes`) so the JSON reads
//! on its own.

// The derived readers name this crate by its path, here too.
extern crate self as pagewalk_model;

pub mod alloc;
pub mod background;
#[doc(hidden)]
pub mod committed;
pub mod compare;
pub mod comparison;
pub mod decimal;
pub mod display;
pub mod first_touch;
pub mod inspect;
pub mod json;
pub mod judge;
pub mod kind;
pub mod latency;
pub mod limits;
pub mod load;
pub mod machine;
pub mod memory;
pub mod mlp;
pub mod noise;
pub mod numa;
pub mod reason;
mod rules;
pub mod run;
pub mod shootdown;
pub mod sort;
pub mod stats;
pub mod syscall;
pub mod tail;
pub mod time;
pub mod translation;
pub mod units;
pub mod walk;

pub use background::{Background, BusyProcess};
pub use first_touch::*;
pub use load::{parse_run, parse_run_bytes, read_run, read_run_bytes, ModelError};
pub use machine::*;
pub use run::*;
pub use stats::Summary;
pub use time::UtcTime;
// The experiments of `Group::HotPath`, by name (each module also has an
// `EXPERIMENT` const, so no glob).
pub use alloc::{AllocPath, AllocPathResult, AllocResults, CountMethod, MappingCalls};
pub use compare::{coefficient_of_variation, relative_difference, Verdict};
pub use latency::{Bucket, Latency, Stat};
pub use noise::{
    Comparison, ComparisonKind, Condition, Frequency, NoiseBatch, NoiseResults, SchedLevers,
};
pub use numa::{NumaNode, NumaResults, Placement, PlacementResult};
pub use shootdown::{ShootdownCell, ShootdownOp, ShootdownResults, Sibling};
pub use syscall::{Mitigation, SyscallOp, SyscallOpResult, SyscallResults};
pub use tail::{TailRepetition, TailResults, TailVariant, TailVariantResult};
pub use translation::*;
// The experiments measuring the walk itself.
pub use mlp::{MlpPoint, MlpRegion, MlpRegionResult, MlpResults};
pub use walk::{WalkCounters, WalkPoint, WalkResults};

/// The schema version this build writes and the newest it can read.
///
/// Bump it when a change would make an older reader misread a file (a new
/// experiment kind, a renamed or retyped field). Additions that older readers
/// may ignore do not need a bump.
///
/// - 1: first-touch.
/// - 2: adds staircase, tlb-reach, thp, tail, alloc, syscall, noise and numa.
///   Version 1 files still read: they only hold first-touch.
/// - 3: an experiment cut short by a signal has status `interrupted` (with
///   what it completed); older readers would refuse that status.
///   Also the `inspect` kind (`collector inspect PID`), which older readers
///   would refuse as an unknown variant.
/// - 4: the `shootdown` kind, which older readers would refuse as an
///   unknown variant. (The machine's multi-size THP sizes came with it;
///   older readers may ignore them.) Also the `walk` and `mlp` kinds,
///   refused by older readers the same way. Version 3 files still read.
/// - 5: the `gigantic` page regime (1 GiB hugetlbfs pages) in staircase and
///   tlb-reach curves, which older readers would refuse as an unknown
///   variant. (Chase points timed in several fresh mappings came with it:
///   `mappings`, `frames_moved_fraction` and `kernel_page_kib`, and checks
///   a machine cannot make, `cannot_tell`, which older readers may ignore.)
///   Version 4 files still read.
/// - 6: tlb-reach places each page's line by the folded page number
///   (`line_layout: folded`), so the same `line_step` no longer means the
///   same offsets, and an older reader would describe the new layout as
///   the old. With it, each TLB level's reach as the run measured it
///   against CPUID (`measured` on tlb-reach, with the raw CPUID leaves),
///   and the L2 TLB reach walk and mlp sized themselves from (`l2_tlb`;
///   their `l2_tlb_entries` and `l2_tlb_reach_bytes` now that figure
///   rather than CPUID's), all optional. Also optional: the stop signal
///   that arrived (`provenance.signal`, even when it cut nothing) and the
///   shootdown cells' `remote_steal_ticks`. Version 5 files still read; their
///   mlp premises that leaned on an L2 TLB reach the run never had read as
///   `cannot_tell`.
pub const SCHEMA_VERSION: u32 = 6;
