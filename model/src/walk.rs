//! The walk's levels: one load per page over more pages than the L2 TLB
//! holds, visited in a random order, at virtual strides that decide which
//! page-table entries neighbouring pages share (a cache line at 4 KiB, none
//! at 32 KiB, no page-table page at 2 MiB, no page-directory page at
//! 1 GiB); on 4 KiB pages and on huge pages, where the lowest level of the
//! walk is gone. What each access costs as the walk's entries spread out.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;
use crate::translation::{Regime, TlbReachUsed};

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Walk.name();

/// Pages visited on 4 KiB pages: this many times the L2 TLB's entries.
pub const TIMES_L2_TLB: u64 = 4;

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct WalkResults {
    /// Pages visited at each 4 KiB-page stride.
    pub pages: u64,
    /// Pages visited at each huge-page stride (each costs 2 MiB of memory,
    /// so usually fewer).
    pub huge_pages: u64,
    pub repetitions: u32,
    /// Mappings the repetitions were timed in: 1, every repetition in the
    /// same one (unlike the chase sweeps, which map each point afresh).
    /// Absent before schema 5.
    pub mappings: Option<u32>,
    pub seed: u64,
    /// The L2 TLB's entries for 4 KiB pages the pages were sized from
    /// ([`TIMES_L2_TLB`] times this): from schema 6 the measured bound
    /// past which every page misses (see `l2_tlb`), before it CPUID's.
    pub l2_tlb_entries: Option<u32>,
    /// Its entries for 2 MiB pages (CPUID).
    pub l2_tlb_entries_2m: Option<u32>,
    /// Where `l2_tlb_entries` came from: tlb-reach earlier in the run,
    /// the experiment's own probe, or CPUID or an assumption, said so.
    /// Absent before schema 6.
    pub l2_tlb: Option<TlbReachUsed>,
    /// `vm.overcommit_memory` as the run started: under 2 `MAP_NORESERVE`
    /// is ignored and the widest strides cannot be mapped.
    pub overcommit_memory: Option<u32>,
    /// Why fewer pages were visited than asked (the memory guard).
    pub size_note: Option<String>,
    /// The walk counters opened, or why none could be.
    pub counters: WalkCounters,
    pub points: Vec<WalkPoint>,
}

impl WalkResults {
    pub fn point(&self, regime: Regime, stride_bytes: u64) -> Option<&WalkPoint> {
        self.points
            .iter()
            .find(|p| p.regime == regime && p.stride_bytes == stride_bytes)
    }
}

/// Which hardware counters the points carry.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct WalkCounters {
    /// `skipped: ...` with the reason, or what was opened.
    pub detail: String,
    /// The generic dTLB read-miss event (`PERF_TYPE_HW_CACHE`) opened.
    pub dtlb_misses: bool,
    /// The CPU's own walk events, by name, where pagewalk knows them
    /// (`DTLB_LOAD_MISSES.WALK_ACTIVE`...); empty where it does not.
    #[serde(default)]
    pub walk_events: Vec<String>,
}

/// One stride in one page regime.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct WalkPoint {
    pub regime: Regime,
    /// Virtual distance between consecutive pages.
    pub stride_bytes: u64,
    /// Pages visited, one load each per lap.
    pub pages: u64,
    /// Why it could not run (address space, overcommit, no THP...).
    pub skipped: Option<String>,
    /// Virtual address space the range reserved.
    pub reserved_bytes: Option<u64>,
    /// Dependent loads per timed sample.
    pub loads_per_sample: Option<u64>,
    /// ns per load of each timed sample.
    #[serde(default)]
    pub samples_ns_per_load: Vec<f64>,
    pub ns_per_load: Option<Summary>,
    /// `AnonHugePages` of the range after timing.
    pub anon_huge_kib: Option<u64>,
    /// How far `VmPTE` (`/proc/self/status`: every level of this process's
    /// page tables) rose when the pages were touched, and how much the
    /// layout predicts (one 4 KiB table per distinct table of each level).
    pub page_table_kib: Option<u64>,
    pub predicted_page_table_kib: Option<u64>,
    /// Minor faults of the measuring thread over the timed samples.
    pub timed_minor_faults: Option<u64>,
    /// Over all timed samples, where the counters opened.
    pub dtlb_misses: Option<u64>,
    pub walks_completed: Option<u64>,
    /// Cycles with at least one walk in progress.
    pub walk_active_cycles: Option<u64>,
    /// Walks in progress summed over cycles (active x average in flight).
    pub walk_pending_cycles: Option<u64>,
}

impl WalkPoint {
    /// Loads timed over all samples.
    pub fn timed_loads(&self) -> Option<u64> {
        Some(self.loads_per_sample? * self.samples_ns_per_load.len() as u64)
    }

    /// A counter per timed load.
    pub fn per_load(&self, count: Option<u64>) -> Option<f64> {
        let loads = self.timed_loads().filter(|&n| n > 0)?;
        Some(count? as f64 / loads as f64)
    }
}
