//! `alloc` (and `r2.alloc`): malloc + free per allocator path.

use pagewalk_model::{AllocPath, AllocPathResult, CountMethod, RunFile, Stat};
use serde_json::{json, Value};

use super::latency::{keyed, ratio, skipped, stats};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::alloc::EXPERIMENT) else {
        return Value::Null;
    };
    let a = run.alloc();
    let get = |p: AllocPath| a.and_then(|a| a.path(p));
    let p50 = |p| get(p)?.latency.as_ref()?.get(Stat::P50);
    json!({
        "skipped": skipped(record),
        "paths": keyed(&AllocPath::ALL, AllocPath::name, |p| get(p).map(path)),
        "cliff": ratio(p50(AllocPath::MmapForced), p50(AllocPath::MmapTypical)),
        "pinned_cliff": ratio(p50(AllocPath::MmapPinned), p50(AllocPath::MmapTypical)),
    })
}

fn path(r: &AllocPathResult) -> Value {
    // The exact strace count when there is one, else the next best.
    let calls = [
        CountMethod::Strace,
        CountMethod::Published,
        CountMethod::Faults,
    ]
    .iter()
    .find_map(|&m| r.mapping_calls.iter().find(|c| c.method == m));
    let mut m = stats(r.latency.as_ref());
    m.insert(
        "skipped".into(),
        json!(r.skipped.as_deref().map(str::to_owned)),
    );
    m.insert("label".into(), json!(r.path.label()));
    m.insert("size_bytes".into(), json!(r.size_bytes));
    m.insert(
        "pattern".into(),
        json!(r.pattern.as_deref().map(str::to_owned)),
    );
    m.insert("ops".into(), json!(r.ops));
    m.insert("ops_per_batch".into(), json!(r.ops_per_batch));
    m.insert("faults_per_op".into(), json!(r.minor_faults_per_op));
    m.insert("mmap_calls".into(), json!(calls.map(|c| c.total)));
    m.insert(
        "mmap_calls_per_op".into(),
        json!(calls.and_then(|c| Some(c.total as f64 / c.ops?.max(1) as f64))),
    );
    m.insert(
        "calls_method".into(),
        json!(calls.map(|c| match c.method {
            CountMethod::Strace => "strace",
            CountMethod::Faults => "faults",
            CountMethod::Published => "published",
        })),
    );
    m.insert("calls_ops".into(), json!(calls.and_then(|c| c.ops)));
    m.insert("in_child".into(), json!(r.in_child));
    Value::Object(m)
}
