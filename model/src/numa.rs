//! NUMA first touch: a page comes from the node of the thread that first
//! writes it. One thread initialising everything puts it all on one node;
//! touching in parallel, each thread its share, spreads it. Verified page
//! by page with `move_pages(2)`.

use std::collections::BTreeMap;

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

/// The experiment's name in `collector run` and in [`crate::ExperimentRecord`].
pub const EXPERIMENT: &str = crate::Kind::Numa.name();

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, FromJson,
)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// One thread, on the first node, writes every page.
    OneThread,
    /// One thread per node, each on its node, writes its share.
    Parallel,
}

impl Placement {
    pub const ALL: [Placement; 2] = [Placement::OneThread, Placement::Parallel];

    pub fn name(self) -> &'static str {
        match self {
            Placement::OneThread => "one-thread",
            Placement::Parallel => "parallel",
        }
    }
}

/// Also stored when the experiment is skipped (one node): the topology is
/// what the chapter needs to say why.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct NumaResults {
    pub nodes: Vec<NumaNode>,
    /// `/proc/sys/kernel/numa_balancing` (1: pages migrate under you).
    pub balancing: Option<String>,
    /// Bytes touched per placement (0 when none ran).
    pub region_bytes: u64,
    pub pages: u64,
    pub placements: Vec<PlacementResult>,
}

impl NumaResults {
    pub fn placement(&self, p: Placement) -> Option<&PlacementResult> {
        self.placements.iter().find(|r| r.placement == p)
    }
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct NumaNode {
    pub id: u32,
    /// CPU list, as the kernel writes it (`0-3,8-11`).
    pub cpus: String,
    pub mem_total_kib: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct PlacementResult {
    pub placement: Placement,
    pub threads: u32,
    /// Wall time of the touching.
    pub touch_ns: f64,
    /// Pages found on each node (`move_pages` query mode), by node id.
    pub pages_per_node: BTreeMap<u32, u64>,
    /// Pages `move_pages` could not place (negative status).
    pub pages_unknown: u64,
}
