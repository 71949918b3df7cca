//! `stair` (and `r2.stair`): the latency staircase.

use pagewalk_model::{ChasePoint, Regime, RunFile};
use serde_json::{json, Map, Value};

use super::translation::{
    agreement, caches, counters, cpuid, in_vm, joined, nearest, record_keys, size, steps,
};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::translation::STAIRCASE) else {
        return Value::Null;
    };
    let mut m = record_keys(record);
    let s = run.staircase();
    let curves = s.map_or(&[][..], |s| &s.curves);
    let points = joined(
        curves,
        |p| Some(p.region_bytes),
        |bytes, _| {
            let mut m = Map::new();
            m.insert("bytes".into(), json!(bytes));
            m.insert("size".into(), json!(size(bytes)));
            m
        },
    );
    let bytes_of = |v: &Value| v["bytes"].as_f64().unwrap_or(0.0);
    let cache = |level| {
        s.and_then(|s| s.geometry.data_cache(level))
            .map(|c| c.size_bytes as f64)
    };
    let at = |target: Option<f64>| {
        target
            .and_then(|t| nearest(&points, bytes_of, t))
            .map_or(Value::Null, summary)
    };
    let huge: Vec<&ChasePoint> = s
        .and_then(|s| s.curve(Regime::Huge))
        .map_or(Vec::new(), |c| c.points.iter().collect());
    let (step_list, step_counts) = steps(s.map_or(&[][..], |s| &s.steps), |x| size(x as u64));
    let first = points.first().map(bytes_of);
    let last = points.last().map(bytes_of);
    let published: Vec<Value> = s
        .map_or(&[][..], |s| &s.published)
        .iter()
        .map(|l| {
            json!({
                "from_bytes": l.from_bytes,
                "from": l.from_bytes.map(size),
                "to_bytes": l.to_bytes,
                "to": l.to_bytes.map(size),
                "ns_min": l.ns.map(|r| r.min),
                "ns_max": l.ns.map(|r| r.max),
                "added_ns_min": l.added_ns.map(|r| r.min),
                "added_ns_max": l.added_ns.map(|r| r.max),
                "naive": &l.naive,
                "actual": &l.actual,
            })
        })
        .collect();
    let entries = [
        ("repetitions", json!(s.and_then(|s| s.repetitions))),
        ("stride_bytes", json!(s.and_then(|s| s.stride_bytes))),
        ("sizes", json!(s.map(|_| points.len()))),
        ("min_bytes", json!(first)),
        ("min_size", json!(first.map(|b| size(b as u64)))),
        ("max_bytes", json!(last)),
        ("max_size", json!(last.map(|b| size(b as u64)))),
        (
            "size_note",
            json!(s.and_then(|s| s.size_note.as_deref()).map(str::to_owned)),
        ),
        (
            "at",
            json!({
                "l1": at(cache(1).map(|c| c / 2.0)),
                "l2": at(cache(2).map(|c| c / 2.0)),
                "l3": at(cache(3).map(|c| c / 2.0)),
                "largest": points.last().map_or(Value::Null, summary),
            }),
        ),
        (
            "huge_fraction_min",
            json!(huge
                .iter()
                .filter(|p| p.region_bytes >= 2 << 20)
                .filter_map(|p| p.huge_fraction)
                .reduce(f64::min)),
        ),
        ("collapse", collapse(&huge)),
        (
            "timed_faults_max",
            json!(curves
                .iter()
                .flat_map(|c| &c.points)
                .filter_map(|p| p.timed_minor_faults)
                .max()),
        ),
        ("points", Value::Array(points.clone())),
        ("published", Value::Array(published)),
        ("steps", step_list),
        ("step_counts", step_counts),
        (
            "agreement",
            agreement(
                s.map_or(&[][..], |s| &s.agreement),
                |x| size(x as u64),
                in_vm(run),
            ),
        ),
        ("cpuid", cpuid(s.map(|s| &s.geometry))),
        ("caches", caches(s.map(|s| &s.geometry))),
        ("counters", counters(s.and_then(|s| s.counters.as_ref()))),
    ];
    m.extend(entries.into_iter().map(|(k, v)| (k.to_string(), v)));
    Value::Object(m)
}

/// `{bytes, size, small_ns, huge_ns, huge_fraction}` of one joined point.
fn summary(p: &Value) -> Value {
    json!({
        "bytes": p["bytes"],
        "size": p["size"],
        "small_ns": p["small_ns"],
        "huge_ns": p["huge_ns"],
        "huge_fraction": p["huge_fraction"],
    })
}

/// What `MADV_COLLAPSE` returned over the huge regions: `text` and `ok`.
fn collapse(huge: &[&ChasePoint]) -> Value {
    let tried: Vec<(&ChasePoint, &pagewalk_model::AdviceOutcome)> = huge
        .iter()
        .filter_map(|p| Some((*p, p.collapse.as_ref()?)))
        .collect();
    if tried.is_empty() {
        return json!({"text": null, "ok": null});
    }
    let failed: Vec<String> = tried
        .iter()
        .filter(|(_, c)| !c.ok)
        .map(|(p, c)| {
            format!(
                "{} at {}",
                c.errno.as_deref().unwrap_or("failed"),
                size(p.region_bytes)
            )
        })
        .collect();
    let text = if failed.is_empty() {
        "ok at every size".to_string()
    } else if tried
        .iter()
        .all(|(_, c)| c.errno.as_deref() == Some("EINVAL"))
    {
        "EINVAL at every size: this kernel has no MADV_COLLAPSE".to_string()
    } else if failed.len() == tried.len() {
        format!("failed: {}", failed.join(", "))
    } else {
        format!("{}; ok at the other sizes", failed.join(", "))
    };
    json!({"text": text, "ok": failed.is_empty()})
}
