//! Memory-level parallelism under page walks: `k` independent random
//! pointer chains advanced together in one thread, so up to `k` misses can
//! be in flight at once, over a region beyond the L2 TLB's reach and the
//! last-level cache (4 KiB pages, then huge pages), and over a control
//! region inside the L2 TLB's reach. ns per load and how many loads
//! overlapped, `t(1) / t(k)`, per region.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::stats::Summary;
use crate::translation::TlbReachUsed;

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Mlp.name();

/// The region the chains run over.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum MlpRegion {
    /// The large region on 4 KiB pages (`MADV_NOHUGEPAGE`): nearly every
    /// load also needs a page walk.
    Small,
    /// The same size on transparent huge pages (`MADV_HUGEPAGE`): its
    /// translations fit the TLB.
    Huge,
    /// A region inside the L2 TLB's reach on 4 KiB pages: no walks, and
    /// (where the caches allow) still beyond L2.
    Control,
}

impl MlpRegion {
    pub const ALL: [MlpRegion; 3] = [MlpRegion::Small, MlpRegion::Huge, MlpRegion::Control];

    pub fn name(self) -> &'static str {
        match self {
            MlpRegion::Small => "small",
            MlpRegion::Huge => "huge",
            MlpRegion::Control => "control",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            MlpRegion::Small => "4 KiB pages, beyond TLB reach",
            MlpRegion::Huge => "huge pages (THP)",
            MlpRegion::Control => "4 KiB pages, inside TLB reach",
        }
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MlpResults {
    /// The chain counts measured, in order (1 first).
    pub chains: Vec<u32>,
    /// Bytes between slots: one pointer per cache line.
    pub stride_bytes: u64,
    pub repetitions: u32,
    /// Mappings the repetitions were timed in: 1, every repetition in the
    /// same one (unlike the chase sweeps, which map each point afresh).
    /// Absent before schema 5.
    pub mappings: Option<u32>,
    pub seed: u64,
    /// The L2 TLB's reach for 4 KiB pages the large region was sized past:
    /// from schema 6 the measured bound past which every page misses (see
    /// `l2_tlb`), before it CPUID's. Absent when unknown.
    pub l2_tlb_reach_bytes: Option<u64>,
    /// Where it came from, with the bounds: the control region stays
    /// below `entries_low`. Absent before schema 6.
    pub l2_tlb: Option<TlbReachUsed>,
    /// L2 and last-level cache sizes (sysfs), when known.
    pub l2_bytes: Option<u64>,
    pub llc_bytes: Option<u64>,
    /// Why the large region is smaller than asked (the memory guard).
    pub size_note: Option<String>,
    pub regions: Vec<MlpRegionResult>,
}

impl MlpResults {
    pub fn region(&self, region: MlpRegion) -> Option<&MlpRegionResult> {
        self.regions.iter().find(|r| r.region == region)
    }
}

/// One region, every chain count.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MlpRegionResult {
    pub region: MlpRegion,
    /// Why it could not run (no THP...); then no points.
    pub skipped: Option<String>,
    pub bytes: u64,
    /// `AnonHugePages` of the mapping after timing (`/proc/self/smaps`).
    pub anon_huge_kib: Option<u64>,
    /// Fraction (0..1) of the region on huge pages, from `anon_huge_kib`.
    pub huge_fraction: Option<f64>,
    /// What the region is, in words (for the control: inside which levels).
    pub note: Option<String>,
    #[serde(default)]
    pub points: Vec<MlpPoint>,
}

impl MlpRegionResult {
    pub fn point(&self, chains: u32) -> Option<&MlpPoint> {
        self.points.iter().find(|p| p.chains == chains)
    }
}

/// `chains` chains over one region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MlpPoint {
    pub chains: u32,
    /// Steps of each chain per timed sample (one load per chain per step).
    pub steps_per_sample: u64,
    /// ns per load of each timed sample: elapsed / (steps x chains).
    #[serde(default)]
    pub samples_ns_per_load: Vec<f64>,
    pub ns_per_load: Summary,
}
