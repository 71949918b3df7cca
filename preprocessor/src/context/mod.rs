//! The template context: the numbers chapters may cite, flattened into the
//! shape documented in `TEMPLATES.md`.
//!
//! Every documented key is present, `null` when the run lacks the value, so
//! the helpers can tell a typo (a missing key: build error) from an honest
//! gap (null: rendered as "n/a"). Each experiment has its own module with a
//! `view(run) -> Value`, chosen per kind in `View::of`.

mod alloc;
mod first_touch;
mod inspect;
mod latency;
mod noise;
mod numa;
mod rows;
mod staircase;
mod syscall;
mod tail;
mod thp;
mod tlb_reach;
mod translation;
pub mod verdict;

use pagewalk_model::{Kind, MachineContext, Provenance, RunFile, UtcTime};
use serde_json::{json, Map, Value};

use crate::DataSet;

/// A view of one experiment: its key in the context, the experiment it
/// reads, and how to build it from a run file.
struct View {
    key: &'static str,
    kind: Kind,
    build: fn(&RunFile) -> Value,
}

impl View {
    /// The chapters' view of `kind`. Exhaustive: a new kind in the model's
    /// list does not compile until its view (or its absence) is decided.
    fn of(kind: Kind) -> Option<View> {
        let view = |key, build| Some(View { key, kind, build });
        match kind {
            Kind::FirstTouch => view("ft", first_touch::view),
            Kind::Staircase => view("stair", staircase::view),
            Kind::TlbReach => view("tlb", tlb_reach::view),
            Kind::Thp => view("thp", thp::view),
            Kind::Tail => view("tail", tail::view),
            Kind::Alloc => view("alloc", alloc::view),
            Kind::Syscall => view("syscall", syscall::view),
            Kind::Noise => view("noise", noise::view),
            Kind::Numa => view("numa", numa::view),
            // An inspection is a file of its own, not part of the shown
            // run: it has its own key (see `build`).
            Kind::Inspect => None,
        }
    }

    fn all() -> impl Iterator<Item = View> {
        Kind::ALL.iter().filter_map(|&k| View::of(k))
    }
}

/// Published sources and the context key each is filed under.
const SOURCES: &[(&str, &str)] = &[("R1", "r1"), ("R2", "r2")];

pub fn build(data: &DataSet) -> Value {
    let run = data.run.as_ref();
    let mut root = Map::new();
    root.insert(
        "run".into(),
        run.map_or(Value::Null, |r| run_info(r, data.own)),
    );
    for view in View::all() {
        root.insert(view.key.into(), run.map_or(Value::Null, view.build));
    }
    verdict::add(&mut root);
    // Not a view of the shown run: the inspection is a file of its own.
    root.insert("inspect".into(), inspect::view(data.inspection.as_ref()));
    // `r1.ft`, `r2.staircase`, ...: each view from the source's file that
    // reports that experiment, null where the source has none.
    for (source, key) in SOURCES {
        let mut views: Map<String, Value> = View::all()
            .map(|v| {
                let file = data.reference_with(source, v.kind.name());
                (v.key.to_string(), file.map_or(Value::Null, v.build))
            })
            .collect();
        verdict::add(&mut views);
        root.insert(key.to_string(), Value::Object(views));
    }
    rows::add(&mut root);
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
