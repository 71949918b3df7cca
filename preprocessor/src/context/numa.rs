//! `numa`: first-touch placement over NUMA nodes (R2 has no figures).

use pagewalk_model::{NumaResults, Placement, PlacementResult, RunFile};
use serde_json::{json, Value};

use super::latency::{keyed, skipped};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::numa::EXPERIMENT) else {
        return Value::Null;
    };
    // Kept when skipped too: the topology says why.
    let n: Option<&NumaResults> = run.numa();
    let ran = n.filter(|n| n.pages > 0);
    json!({
        "skipped": skipped(record),
        "nodes": n.map(|n| n.nodes.len()),
        "node_list": n.map(|n| n.nodes.iter().map(|node| json!({
            "id": node.id,
            "cpus": &node.cpus,
            "mem_mib": node.mem_total_kib.map(|k| k / 1024),
        })).collect::<Vec<_>>()),
        "balancing": n.and_then(|n| n.balancing.as_deref()).map(str::to_owned),
        "region_mib": ran.map(|n| n.region_bytes as f64 / (1 << 20) as f64),
        "pages": ran.map(|n| n.pages),
        "placements": keyed(&Placement::ALL, Placement::name, |p| {
            Some(placement(n?.placement(p)?, n?.pages))
        }),
    })
}

fn placement(p: &PlacementResult, pages: u64) -> Value {
    let most = p.pages_per_node.values().copied().max().unwrap_or(0);
    json!({
        "threads": p.threads,
        "ms": p.touch_ns / 1e6,
        "pages_per_node": p.pages_per_node.iter().map(|(node, pages)| json!({"node": node, "pages": pages})).collect::<Vec<_>>(),
        "max_node_share": (pages > 0).then(|| most as f64 / pages as f64),
        "unknown": p.pages_unknown,
    })
}
