//! `thp`: 4 KiB against huge pages at large sizes, what the kernel granted,
//! `MADV_COLLAPSE` and a `MAP_HUGETLB` attempt.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use super::{ChasePoint, CounterStatus};
use crate::machine::ThpSettings;
use crate::memory::MemorySnapshot;

/// `thp` results.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ThpResults {
    pub settings: ThpSettings,
    pub repetitions: Option<u32>,
    /// Free memory and `/proc/buddyinfo` before the experiment.
    pub memory_before: Option<MemorySnapshot>,
    pub sizes: Vec<ThpSize>,
    /// Absent where a published source did not try it.
    pub hugetlb: Option<HugetlbAttempt>,
    pub counters: Option<CounterStatus>,
}

/// One region size, chased with 4 KiB and with huge pages.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ThpSize {
    pub requested_bytes: u64,
    pub size_bytes: u64,
    pub size_note: Option<String>,
    /// Absent when the regime could not run (`skipped` says why).
    pub small: Option<ChasePoint>,
    pub huge: Option<ChasePoint>,
    pub skipped: Option<String>,
}

/// `mmap(MAP_HUGETLB)` from the hugetlbfs pool. With no pages reserved the
/// attempt fails by design: that is the result, not an error.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct HugetlbAttempt {
    pub page_bytes: u64,
    /// The pool when the attempt was made.
    pub nr_hugepages: u64,
    pub free_hugepages: u64,
    /// `--reserve-hugepages N`: what the collector set and restored.
    pub reserved: Option<HugetlbReservation>,
    /// The size tried (0 when nothing was tried).
    pub size_bytes: u64,
    pub mapped: bool,
    /// The chase on the hugetlb region, when it mapped.
    pub chase: Option<ChasePoint>,
    /// In plain words: what happened and why.
    pub outcome: String,
    pub errno: Option<String>,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct HugetlbReservation {
    /// `--reserve-hugepages N` as given.
    pub requested: u64,
    /// Why fewer than `requested` were asked of the kernel: no more than the
    /// attempt maps, nor more than the memory guard allows.
    pub capped: Option<String>,
    /// What the kernel actually reserved (it may give fewer).
    pub obtained: u64,
    /// `nr_hugepages` before, written back afterwards.
    pub previous: u64,
    pub restored: bool,
}
