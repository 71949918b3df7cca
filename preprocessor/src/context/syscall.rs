//! `syscall` (and `r2.syscall`): the syscall floor.

use pagewalk_model::{RunFile, SyscallOp, SyscallOpResult};
use serde_json::{json, Value};

use super::latency::{keyed, ratio, skipped, stats};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::syscall::EXPERIMENT) else {
        return Value::Null;
    };
    let s = run.syscall();
    let get = |o: SyscallOp| s.and_then(|s| s.op(o));
    let median = |o| get(o)?.latency.as_ref()?.p50_ns;
    let mitigations: Vec<Value> = s
        .map(|s| &s.mitigations[..])
        .unwrap_or_default()
        .iter()
        .map(|m| json!({"name": &m.name, "status": &m.status, "active": m.active()}))
        .collect();
    // An empty list means "not visible" (or not reported), not "none".
    let active: Option<Vec<&str>> = s.filter(|s| !s.mitigations.is_empty()).map(|s| {
        s.mitigations
            .iter()
            .filter(|m| m.active())
            .map(|m| m.name.as_str())
            .collect()
    });
    json!({
        "skipped": skipped(record),
        "ops": keyed(&SyscallOp::ALL, SyscallOp::name, |o| get(o).map(op)),
        "strace_multiplier": ratio(median(SyscallOp::GetpidStrace), median(SyscallOp::Getpid)),
        "strace_skipped": get(SyscallOp::GetpidStrace).and_then(|o| o.skipped.as_deref()).map(str::to_owned),
        "vdso_ratio": ratio(median(SyscallOp::Getpid), median(SyscallOp::ClockGettime)),
        "wakeup_ratio": ratio(median(SyscallOp::Wakeup), median(SyscallOp::Getpid)),
        "mitigations": mitigations,
        "mitigations_active": active.as_ref().map(|a| a.join(", ")),
        "mitigations_count": active.as_ref().map(Vec::len),
    })
}

fn op(r: &SyscallOpResult) -> Value {
    let mut m = stats(r.latency.as_ref());
    // `.ns` is the median: the figure prose cites.
    m.insert("ns".into(), m["p50"].clone());
    m.insert(
        "skipped".into(),
        json!(r.skipped.as_deref().map(str::to_owned)),
    );
    m.insert("label".into(), json!(r.op.label()));
    m.insert("calls_per_batch".into(), json!(r.calls_per_batch));
    m.insert("batches".into(), m["n"].clone());
    m.insert(
        "detail".into(),
        json!(r.detail.as_deref().map(str::to_owned)),
    );
    Value::Object(m)
}
