//! Memory on a NUMA node other than the one the process runs on.

use std::collections::BTreeSet;

use pagewalk_model::inspect::{Evidence, InspectResults, Presence, Symptom, SymptomVerdict};

use super::rule::{cannot_tell, ev, present_if, verdict, vmstat, Extra};
use pagewalk_model::inspect::thresholds::REMOTE_SHARE;

pub(super) fn remote_numa(r: &InspectResults, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::RemoteNuma;
    let nodes: BTreeSet<u32> = extra.cpu_nodes.values().copied().collect();
    if nodes.len() <= 1 {
        return verdict(
            s,
            Presence::Absent,
            "one NUMA node: all memory is local".into(),
            vec![],
        );
    }
    if r.kib_per_node.is_empty() {
        let why = r
            .unreadable
            .get("numa_maps")
            .cloned()
            .unwrap_or("no pages".into());
        return cannot_tell(s, format!("numa_maps: {why}"), vec![]);
    }
    let local: BTreeSet<u32> = extra
        .cpus_seen
        .iter()
        .filter_map(|c| extra.cpu_nodes.get(c).copied())
        .collect();
    let total: u64 = r.kib_per_node.values().sum();
    let remote: u64 = r
        .kib_per_node
        .iter()
        .filter(|(n, _)| !local.contains(n))
        .map(|(_, k)| k)
        .sum();
    let share = remote as f64 / total.max(1) as f64;
    let mut evidence: Vec<Evidence> = r
        .kib_per_node
        .iter()
        .map(|(n, k)| ev(&format!("resident on node {n}"), *k as f64, "KiB"))
        .collect();
    evidence.push(ev("share on nodes it did not run on", share, "fraction"));
    for name in ["numa_hint_faults", "numa_pages_migrated"] {
        if let Some(d) = vmstat(r, name) {
            evidence.push(ev(&format!("{name} (system-wide)"), d as f64, "count"));
        }
    }
    let presence = present_if(share >= REMOTE_SHARE);
    let reason = format!(
        "{:.0}% of its memory is on nodes other than its CPUs' {local:?} (present from {:.0}%)",
        share * 100.0,
        REMOTE_SHARE * 100.0
    );
    verdict(s, presence, reason, evidence)
}
