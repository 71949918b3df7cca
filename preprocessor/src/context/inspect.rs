//! `inspect`: the `collector inspect` file the "your process" page shows
//! (see `TEMPLATES.md`). Null when there is none, so the page can say how
//! to make one instead of showing anything invented.

use pagewalk_model::inspect::{InspectResults, Presence};
use pagewalk_model::{Provenance, UtcTime};
use serde_json::{json, Value};

use crate::data::Inspection;

pub fn view(inspection: Option<&Inspection>) -> Value {
    let Some(insp) = inspection else {
        return Value::Null;
    };
    let Some(i) = insp.run.inspect() else {
        return Value::Null;
    };
    let (run_id, date) = match &insp.run.provenance {
        Provenance::Collector {
            run_id,
            started_utc,
            ..
        } => (
            run_id.clone(),
            UtcTime::parse(started_utc)
                .map(|t| t.date())
                .unwrap_or_default(),
        ),
        Provenance::Reference { name, .. } => (name.clone(), String::new()),
    };
    let count = |p: Presence| i.verdicts.iter().filter(|v| v.verdict == p).count();
    let m = insp.run.machine.as_ref();
    json!({
        "own": insp.own,
        "kind": if insp.own { "your process" } else { "the example process" },
        "file": &insp.file,
        "run_id": run_id,
        "date": date,
        "pid": i.pid,
        "command": &i.command,
        "requested_s": i.requested_s,
        "observed_s": i.observed_s,
        "interval_ms": i.interval_ms,
        "samples": i.samples.len(),
        "ended_early": &i.ended_early,
        "machine": {
            "cpu": m.map(|m| m.cpu.model_name.clone()),
            "logical_cpus": m.map(|m| m.cpu.logical_cpus),
            "kernel": m.map(|m| m.kernel_release.clone()),
            "vm": m.map(|m| m.virtualization.hypervisor_bit),
        },
        "settings": settings(i),
        "verdicts": verdicts(i),
        "present": count(Presence::Present),
        "absent": count(Presence::Absent),
        "cannot_tell": count(Presence::CannotTell),
        "unreadable": i.unreadable.iter().map(|(what, why)| json!({ "what": what, "why": why })).collect::<Vec<_>>(),
    })
}

fn settings(i: &InspectResults) -> Value {
    let s = &i.settings;
    json!({
        "thp_enabled": &s.thp_enabled,
        "thp_defrag": &s.thp_defrag,
        "nohz_full": &s.nohz_full,
        "isolated": &s.isolated,
        "rt_runtime_us": s.sched_rt_runtime_us,
        "rt_period_us": s.sched_rt_period_us,
        "cpus_allowed": &s.cpus_allowed,
        "mems_allowed": &s.mems_allowed,
    })
}

/// One per symptom-table row, in its order. `verdict` is the key a chapter
/// branches on (`present`, `absent`, `cannot-tell`); `chapter` is the
/// model's link for the symptom, never text from the file.
fn verdicts(i: &InspectResults) -> Vec<Value> {
    i.verdicts
        .iter()
        .map(|v| {
            let evidence: Vec<String> = v.evidence.iter().map(|e| e.text()).collect();
            json!({
                "symptom": serde_json::to_value(v.symptom).unwrap_or(Value::Null),
                "label": v.symptom.label(),
                "verdict": serde_json::to_value(v.verdict).unwrap_or(Value::Null),
                "verdict_text": v.verdict.label(),
                "reason": &v.reason,
                "evidence": &evidence,
                "chapter": v.symptom.chapter(),
                // For a link written in HTML, where mdBook does not turn
                // `.md` into `.html` itself.
                "chapter_href": v.symptom.chapter().replacen(".md", ".html", 1),
            })
        })
        .collect()
}
