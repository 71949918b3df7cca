//! `thp` (and `r2.thp`): 4 KiB vs huge pages at large sizes, and what the
//! kernel granted.

use pagewalk_model::{RunFile, ThpSize};
use serde_json::{json, Map, Value};

use super::translation::{counters, ns_keys, record_keys, size};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::translation::THP) else {
        return Value::Null;
    };
    let mut m = record_keys(record);
    let t = run.thp();
    let sizes: Vec<Value> = t
        .map_or(&[][..], |t| &t.sizes)
        .iter()
        .map(one_size)
        .collect();
    let collapses: Vec<&pagewalk_model::AdviceOutcome> = t
        .map_or(&[][..], |t| &t.sizes)
        .iter()
        .filter_map(|s| s.huge.as_ref()?.collapse.as_ref())
        .collect();
    let lacking = collapses
        .iter()
        .any(|c| c.errno.as_deref() == Some("EINVAL"));
    let collapse_text = (!collapses.is_empty()).then(|| {
        if collapses.iter().all(|c| c.ok) {
            "MADV_COLLAPSE succeeded at every size".to_string()
        } else if lacking {
            "MADV_COLLAPSE returned EINVAL: this kernel does not have it".to_string()
        } else {
            let errors: Vec<&str> = collapses
                .iter()
                .filter(|c| !c.ok)
                .filter_map(|c| c.errno.as_deref())
                .collect();
            format!(
                "MADV_COLLAPSE failed ({}): the kernel found no free huge pages to collapse into",
                errors.join(", ")
            )
        }
    });
    let before = t.and_then(|t| t.memory_before.as_ref());
    let h = t.and_then(|t| t.hugetlb.as_ref());
    let settings = t.map(|t| &t.settings);
    let knob = |f: fn(&pagewalk_model::ThpSettings) -> &Option<String>| {
        json!(settings.and_then(|s| f(s).as_deref()).map(str::to_owned))
    };
    let keys = [
        ("repetitions", json!(t.and_then(|t| t.repetitions))),
        (
            "settings",
            json!({
                "enabled": knob(|s| &s.enabled),
                "defrag": knob(|s| &s.defrag),
                "khugepaged_defrag": knob(|s| &s.khugepaged_defrag),
            }),
        ),
        ("medium", sizes.first().cloned().unwrap_or(Value::Null)),
        ("large", sizes.get(1).cloned().unwrap_or(Value::Null)),
        ("sizes", Value::Array(sizes)),
        (
            "collapse",
            json!({
                "available": (!collapses.is_empty()).then_some(!lacking),
                "text": collapse_text,
            }),
        ),
        (
            "before",
            json!({
                "mem_available_mib": before.map(|b| b.mem_available_kib / 1024),
                "free_order0": before.map(|b| b.free_blocks_of(0)),
                "free_huge_blocks": before.map(|b| b.free_blocks_at_least(9)),
            }),
        ),
        (
            "hugetlb",
            json!({
                "page": h.map(|h| size(h.page_bytes)),
                "nr_hugepages": h.map(|h| h.nr_hugepages),
                "free_hugepages": h.map(|h| h.free_hugepages),
                "reserved": h.map(|h| h.reserved.is_some()),
                "mapped": h.map(|h| h.mapped),
                "size": h.filter(|h| h.size_bytes > 0).map(|h| size(h.size_bytes)),
                "ns": h.and_then(|h| h.chase.as_ref()).map(|c| c.ns_per_load.median),
                "text": h.map(|h| &h.outcome),
                "errno": h.and_then(|h| h.errno.as_deref()).map(str::to_owned),
            }),
        ),
        ("counters", counters(t.and_then(|t| t.counters.as_ref()))),
    ];
    m.extend(keys.into_iter().map(|(k, v)| (k.to_string(), v)));
    Value::Object(m)
}

fn one_size(s: &ThpSize) -> Value {
    let mut m = Map::new();
    m.insert("bytes".into(), json!(s.size_bytes));
    m.insert("size".into(), json!(size(s.size_bytes)));
    m.insert(
        "size_note".into(),
        json!(s.size_note.as_deref().map(str::to_owned)),
    );
    ns_keys(&mut m, "small", s.small.as_ref());
    ns_keys(&mut m, "huge", s.huge.as_ref());
    let huge = s.huge.as_ref();
    m.insert(
        "huge_fraction".into(),
        json!(huge.and_then(|h| h.huge_fraction)),
    );
    m.insert(
        "huge_mib".into(),
        json!(huge
            .and_then(|h| h.anon_huge_kib)
            .map(|k| k as f64 / 1024.0)),
    );
    let median = |p: Option<&pagewalk_model::ChasePoint>| p.map(|p| p.ns_per_load.median);
    m.insert(
        "gain".into(),
        json!(match (median(s.small.as_ref()), median(huge)) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        }),
    );
    let c = huge.and_then(|h| h.collapse.as_ref());
    m.insert(
        "collapse".into(),
        json!(c.map(|c| if c.ok {
            "ok".to_string()
        } else {
            match (&c.errno, &c.detail) {
                (Some(e), Some(d)) => format!("{e}: {d}"),
                (Some(e), None) => e.clone(),
                (None, d) => d.as_deref().unwrap_or("failed").to_string(),
            }
        })),
    );
    m.insert("collapse_ok".into(), json!(c.map(|c| c.ok)));
    // The error name alone, for prose; `collapse` keeps the whole message.
    m.insert(
        "collapse_errno".into(),
        json!(c.filter(|c| !c.ok).and_then(|c| c.errno.as_deref())),
    );
    let notes: Vec<String> = [&s.small, &s.huge]
        .into_iter()
        .flatten()
        .filter_map(|p| p.note.as_deref().map(str::to_owned))
        .chain(s.skipped.as_deref().map(str::to_owned))
        .collect();
    m.insert(
        "note".into(),
        json!((!notes.is_empty()).then(|| notes.join("; "))),
    );
    Value::Object(m)
}
