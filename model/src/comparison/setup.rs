//! What differs between the runs before any number does: another machine,
//! kernel or THP setting changes what a figure means, so these are listed
//! first.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::run::{Provenance, RunFile};

/// One setting that is not the same in every run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct SetupDifference {
    pub what: String,
    /// One value per run, in the order the runs were given.
    pub values: Vec<String>,
}

type Field = (&'static str, fn(&RunFile) -> Option<String>);

/// The settings that change what a figure measures, as text. `None` is shown
/// as `unknown` (reference files describe their machine only in prose).
const FIELDS: [Field; 13] = [
    ("CPU", |r| Some(r.machine.as_ref()?.cpu.model_name.clone())),
    ("logical CPUs", |r| {
        Some(r.machine.as_ref()?.cpu.logical_cpus.to_string())
    }),
    ("kernel", |r| {
        Some(r.machine.as_ref()?.kernel_release.clone())
    }),
    ("THP enabled", |r| r.machine.as_ref()?.thp.enabled.clone()),
    ("THP defrag", |r| r.machine.as_ref()?.thp.defrag.clone()),
    ("hypervisor", |r| {
        let v = &r.machine.as_ref()?.virtualization;
        Some(match (&v.hypervisor_vendor, v.hypervisor_bit) {
            (Some(vendor), _) => vendor.clone(),
            (None, true) => "yes (vendor unknown)".into(),
            (None, false) => "none".into(),
        })
    }),
    ("PMU counters", |r| {
        Some(yes_no(r.machine.as_ref()?.pmu.hardware_counters))
    }),
    ("memory", |r| {
        Some(format!("{} KiB", r.machine.as_ref()?.memory.mem_total_kib))
    }),
    ("CPU governor", |r| r.machine.as_ref()?.cpu_governor.clone()),
    ("quick run", |r| match &r.provenance {
        Provenance::Collector { quick, .. } => Some(yes_no(*quick)),
        Provenance::Reference { .. } => None,
    }),
    ("interrupted", |r| match &r.provenance {
        Provenance::Collector { interrupted, .. } => Some(yes_no(*interrupted)),
        Provenance::Reference { .. } => None,
    }),
    // What else ran while it measured, over all its experiments: a run
    // on a shared host can be several times slower for this alone.
    ("machine busy while measuring", |r| {
        let all = r.experiments.iter().filter_map(|e| e.background.as_ref());
        Some(crate::background::Background::combined(all)?.summary())
    }),
    ("collector", |r| match &r.provenance {
        Provenance::Collector {
            collector_version, ..
        } => Some(collector_version.clone()),
        Provenance::Reference { source_id, .. } => Some(format!("reference {source_id}")),
    }),
];

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

/// Every setting whose value is not the same in all `runs`.
pub fn differences(runs: &[&RunFile]) -> Vec<SetupDifference> {
    FIELDS
        .iter()
        .filter_map(|(what, get)| {
            let values: Vec<String> = runs
                .iter()
                .map(|r| get(r).unwrap_or_else(|| "unknown".into()))
                .collect();
            values
                .iter()
                .any(|v| *v != values[0])
                .then(|| SetupDifference {
                    what: what.to_string(),
                    values,
                })
        })
        .collect()
}
