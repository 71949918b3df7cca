//! The template context: the numbers chapters may cite, flattened into the
//! shape documented in `TEMPLATES.md`.
//!
//! Every documented key is present, `null` when the run lacks the value, so
//! the helpers can tell a typo (a missing key: build error) from an honest
//! gap (null: rendered as "n/a"). Each experiment has its own module with a
//! `view(run) -> Value`, listed once in [`VIEWS`].

mod alloc;
mod first_touch;
mod latency;
mod noise;
mod numa;
mod staircase;
mod syscall;
mod tail;
mod thp;
mod tlb_reach;
mod translation;
pub mod verdict;

use pagewalk_model::{MachineContext, Provenance, RunFile, UtcTime};
use serde_json::{json, Map, Value};

use crate::DataSet;

/// A view of one experiment: its key in the context, the experiment it
/// reads, and how to build it from a run file.
struct View {
    key: &'static str,
    experiment: &'static str,
    build: fn(&RunFile) -> Value,
}

const VIEWS: &[View] = &[
    View {
        key: "ft",
        experiment: pagewalk_model::first_touch::EXPERIMENT,
        build: first_touch::view,
    },
    View {
        key: "stair",
        experiment: pagewalk_model::translation::STAIRCASE,
        build: staircase::view,
    },
    View {
        key: "tlb",
        experiment: pagewalk_model::translation::TLB_REACH,
        build: tlb_reach::view,
    },
    View {
        key: "thp",
        experiment: pagewalk_model::translation::THP,
        build: thp::view,
    },
    View {
        key: "tail",
        experiment: pagewalk_model::tail::EXPERIMENT,
        build: tail::view,
    },
    View {
        key: "alloc",
        experiment: pagewalk_model::alloc::EXPERIMENT,
        build: alloc::view,
    },
    View {
        key: "syscall",
        experiment: pagewalk_model::syscall::EXPERIMENT,
        build: syscall::view,
    },
    View {
        key: "noise",
        experiment: pagewalk_model::noise::EXPERIMENT,
        build: noise::view,
    },
    View {
        key: "numa",
        experiment: pagewalk_model::numa::EXPERIMENT,
        build: numa::view,
    },
];

/// Published sources and the context key each is filed under.
const SOURCES: &[(&str, &str)] = &[("R1", "r1"), ("R2", "r2")];

pub fn build(data: &DataSet) -> Value {
    let run = data.run.as_ref();
    let mut root = Map::new();
    root.insert(
        "run".into(),
        run.map_or(Value::Null, |r| run_info(r, data.own)),
    );
    for view in VIEWS {
        root.insert(view.key.into(), run.map_or(Value::Null, view.build));
    }
    verdict::add(&mut root);
    // `r1.ft`, `r2.staircase`, ...: each view from the source's file that
    // reports that experiment, null where the source has none.
    for (source, key) in SOURCES {
        let mut views: Map<String, Value> = VIEWS
            .iter()
            .map(|v| {
                let file = data.reference_with(source, v.experiment);
                (v.key.to_string(), file.map_or(Value::Null, v.build))
            })
            .collect();
        verdict::add(&mut views);
        root.insert(key.to_string(), Value::Object(views));
    }
    Value::Object(root)
}

fn run_info(run: &RunFile, own: bool) -> Value {
    let (id, date, quick) = match &run.provenance {
        Provenance::Collector {
            run_id,
            started_utc,
            quick,
            ..
        } => (
            run_id.clone(),
            // The model has already refused a started_utc that is not a
            // timestamp; a date is only ever printed from a parsed one.
            UtcTime::parse(started_utc)
                .map(|t| t.date())
                .unwrap_or_default(),
            *quick,
        ),
        Provenance::Reference { name, .. } => (name.clone(), String::new(), false),
    };
    json!({
        "kind": if own { "your machine" } else { "the example machine" },
        "own": own,
        "id": &id,
        "date": date,
        "quick": quick,
        "machine": run.machine.as_ref().map(machine),
    })
}

fn machine(m: &MachineContext) -> Value {
    json!({
        "cpu": &m.cpu.model_name,
        "logical_cpus": m.cpu.logical_cpus,
        "kernel": &m.kernel_release,
        "vm": m.virtualization.hypervisor_bit,
        "hypervisor": m.virtualization.hypervisor_vendor.as_deref().map(str::to_owned),
        "thp_enabled": m.thp.enabled.as_deref().map(str::to_owned),
        "thp_defrag": m.thp.defrag.as_deref().map(str::to_owned),
        "pmu": m.pmu.hardware_counters,
        "mem_total_mib": m.memory.mem_total_kib / 1024,
    })
}
