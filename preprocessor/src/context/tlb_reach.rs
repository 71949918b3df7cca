//! `tlb` (experiment `tlb-reach`): one line per page, translation alone.

use pagewalk_model::RunFile;
use serde_json::{json, Map, Value};

use super::translation::{
    agreement, caches, counters, cpuid, in_vm, joined, record_keys, size, steps,
};

const LINE: u64 = 64;
const PAGE: u64 = 4096;

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::translation::TLB_REACH) else {
        return Value::Null;
    };
    let mut m = record_keys(record);
    let t = run.tlb_reach();
    let curves = t.map_or(&[][..], |t| &t.curves);
    let points = joined(
        curves,
        |p| p.pages,
        |pages, _| {
            let mut m = Map::new();
            m.insert("pages".into(), json!(pages));
            m.insert("span_bytes".into(), json!(pages * PAGE));
            m.insert("span".into(), json!(size(pages * PAGE)));
            m.insert("data_bytes".into(), json!(pages * LINE));
            m
        },
    );
    let pages_of = |v: &Value| v["pages"].as_u64().unwrap_or(0);
    let entries = |level| {
        t.and_then(|t| t.geometry.data_tlb(level, PAGE))
            .map(|l| u64::from(l.entries))
    };
    // The largest count within `limit` pages (and above `floor`).
    let within = |floor: u64, limit: Option<u64>| {
        limit
            .and_then(|limit| {
                points
                    .iter()
                    .rfind(|p| (floor + 1..=limit).contains(&pages_of(p)))
            })
            .map_or(Value::Null, summary)
    };
    let (step_list, step_counts) =
        steps(t.map_or(&[][..], |t| &t.steps), |x| format!("{x:.0} pages"));
    let first = points.first().map(pages_of);
    let last = points.last().map(pages_of);
    let l1 = entries(1);
    let keys = [
        ("repetitions", json!(t.map(|t| t.repetitions))),
        ("line_step", json!(t.map(|t| t.line_step))),
        ("min_pages", json!(first)),
        ("max_pages", json!(last)),
        ("data_limit_bytes", json!(t.map(|t| t.data_limit_bytes))),
        ("data_limit", json!(t.map(|t| size(t.data_limit_bytes)))),
        (
            "at",
            json!({
                "few": points.first().map_or(Value::Null, summary),
                "l1": within(0, l1),
                "l2": within(l1.unwrap_or(0), entries(2)),
                "beyond": points.last().map_or(Value::Null, summary),
            }),
        ),
        ("points", Value::Array(points.clone())),
        ("steps", step_list),
        ("step_counts", step_counts),
        (
            "agreement",
            agreement(
                t.map_or(&[][..], |t| &t.agreement),
                |x| format!("{x:.0} pages"),
                in_vm(run),
            ),
        ),
        ("cpuid", cpuid(t.map(|t| &t.geometry))),
        ("caches", caches(t.map(|t| &t.geometry))),
        ("counters", counters(t.and_then(|t| t.counters.as_ref()))),
    ];
    m.extend(keys.into_iter().map(|(k, v)| (k.to_string(), v)));
    Value::Object(m)
}

/// `{pages, small_ns, huge_ns}` of one joined point.
fn summary(p: &Value) -> Value {
    json!({"pages": p["pages"], "small_ns": p["small_ns"], "huge_ns": p["huge_ns"]})
}
