//! `numa`: first-touch placement over NUMA nodes (R2 has no figures).

use pagewalk_model::judge::pages::{node_share, split, NodeShare, Split};
use pagewalk_model::{NumaResults, Placement, PlacementResult, RunFile};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::skipped;

/// The NUMA view.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Numa {
    /// Why it was skipped (one node: says so and lists it), else null.
    pub skipped: Option<String>,
    /// Number of NUMA nodes.
    pub nodes: Option<usize>,
    /// The nodes.
    pub node_list: Option<Vec<Node>>,
    /// `/proc/sys/kernel/numa_balancing` (text), null when absent.
    pub balancing: Option<String>,
    /// Memory touched per placement, MiB.
    pub region_mib: Option<f64>,
    /// The same in 4 KiB pages.
    pub pages: Option<u64>,
    /// One view per placement (KEY); null when not run.
    pub placements: Placements,
    /// One per placement in the chapter's order (`one_thread`, `parallel`): one table row each with `#each`.
    pub rows: Vec<NumaRow>,
    /// Verdicts (below).
    pub verdict: Option<NumaVerdict>,
}

/// A NUMA node.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Node {
    /// Node id.
    pub id: u32,
    /// Its CPUs (`0-1`).
    pub cpus: String,
    /// Its memory, MiB.
    pub mem_mib: Option<u64>,
}

/// One view per placement.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Placements {
    /// One thread, on the first node, writes every page.
    pub one_thread: Option<PlacementView>,
    /// One thread per node, each on its node, writes its share.
    pub parallel: Option<PlacementView>,
}

impl Placements {
    fn slot(&mut self, p: Placement) -> &mut Option<PlacementView> {
        match p {
            Placement::OneThread => &mut self.one_thread,
            Placement::Parallel => &mut self.parallel,
        }
    }
}

/// Where one placement's pages went.
#[derive(Clone, Serialize, JsonSchema)]
pub struct PlacementView {
    /// Touching threads.
    pub threads: u32,
    /// Wall time of the touch, ms.
    pub ms: f64,
    /// Pages per node, from `move_pages(2)`.
    pub pages_per_node: Vec<NodePages>,
    /// Fraction of pages on the fullest node (1 = all on one node).
    pub max_node_share: Option<f64>,
    /// Pages `move_pages` could not place.
    pub unknown: u64,
}

/// Pages on one node.
#[derive(Clone, Serialize, JsonSchema)]
pub struct NodePages {
    /// The node.
    pub node: u32,
    /// Its pages.
    pub pages: u64,
}

/// Where one thread's first touch put the pages.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct NumaVerdict {
    /// `one-node` when every page the one-thread placement put is on its fullest node, else `spread`.
    pub one_thread: Option<NodeShare>,
    /// `even` when, with one thread per node each writing its own share, no node holds more than one share (`numa.pages / numa.nodes`, rounded up), else `uneven`: some thread's pages went to another node.
    pub parallel: Option<Split>,
}

/// A row of the NUMA placement table (no published source has NUMA figures).
#[derive(Clone, Serialize, JsonSchema)]
pub struct NumaRow {
    /// The placement's KEY under `numa.placements`.
    pub key: &'static str,
    /// Its name in the table (`parallel, one per node`).
    pub label: &'static str,
    /// The placement.
    pub run: Option<PlacementView>,
}

impl Numa {
    /// Files `verdict`: where the one thread's pages went, and whether one
    /// thread per node kept to its own.
    pub fn judge(&mut self) {
        let one = self
            .placements
            .one_thread
            .as_ref()
            .and_then(|p| p.max_node_share)
            .map(node_share);
        let parallel = self.placements.parallel.as_ref().and_then(|p| {
            let nodes = self.nodes? as u64;
            Some(split(p.max_node_share?, self.pages?, nodes))
        });
        self.verdict = Some(NumaVerdict {
            one_thread: one,
            parallel,
        });
    }

    /// `rows`: the placements in the chapter's order.
    pub fn fill_rows(&mut self) {
        self.rows = vec![
            NumaRow {
                key: "one_thread",
                label: "one thread",
                run: self.placements.one_thread.clone(),
            },
            NumaRow {
                key: "parallel",
                label: "parallel, one per node",
                run: self.placements.parallel.clone(),
            },
        ];
    }
}

pub fn view(run: &RunFile) -> Option<Numa> {
    let record = run.experiment(pagewalk_model::numa::EXPERIMENT)?;
    // Kept when skipped too: the topology says why.
    let n: Option<&NumaResults> = run.numa();
    let ran = n.filter(|n| n.pages > 0);
    let mut placements = Placements::default();
    for &p in Placement::ALL.iter() {
        *placements.slot(p) = n.and_then(|n| Some(placement(n.placement(p)?, n.pages)));
    }
    Some(Numa {
        skipped: skipped(record),
        nodes: n.map(|n| n.nodes.len()),
        node_list: n.map(|n| {
            n.nodes
                .iter()
                .map(|node| Node {
                    id: node.id,
                    cpus: node.cpus.clone(),
                    mem_mib: node.mem_total_kib.map(|k| k / 1024),
                })
                .collect()
        }),
        balancing: n.and_then(|n| n.balancing.clone()),
        region_mib: ran.map(|n| n.region_bytes as f64 / (1 << 20) as f64),
        pages: ran.map(|n| n.pages),
        placements,
        rows: Vec::new(),
        verdict: None,
    })
}

fn placement(p: &PlacementResult, pages: u64) -> PlacementView {
    let most = p.pages_per_node.values().copied().max().unwrap_or(0);
    PlacementView {
        threads: p.threads,
        ms: p.touch_ns / 1e6,
        pages_per_node: p
            .pages_per_node
            .iter()
            .map(|(&node, &pages)| NodePages { node, pages })
            .collect(),
        max_node_share: (pages > 0).then(|| most as f64 / pages as f64),
        unknown: p.pages_unknown,
    }
}
