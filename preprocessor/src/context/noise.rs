//! `noise` (and `r2.noise`): run-to-run noise, A vs A, and the levers.

use pagewalk_model::{ComparisonKind, Condition, NoiseBatch, RunFile, SchedLevers};
use serde_json::{json, Value};

use super::latency::{keyed, skipped};

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::noise::EXPERIMENT) else {
        return Value::Null;
    };
    let n = run.noise();
    let comparison = |k| n.and_then(|n| n.comparison(k)).map(|c| c.verdict);
    let f = n.and_then(|n| n.frequency.as_ref());
    json!({
        "skipped": skipped(record),
        "workload": n.and_then(|n| n.workload.as_deref()).map(str::to_owned),
        "rounds": n.and_then(|n| n.rounds),
        "runs": n.and_then(|n| n.runs_per_batch),
        "longer_by": n.and_then(|n| Some(n.longer_rounds? as f64 / n.rounds? as f64 - 1.0)),
        "pinned_cpu": n.and_then(|n| n.pinned_cpu),
        "batches": keyed(&Condition::ALL, Condition::name, |c| n?.batch(c).map(batch)),
        "comparisons": keyed(
            &[ComparisonKind::AVsA, ComparisonKind::PinnedVsUnpinned, ComparisonKind::AVsLonger],
            ComparisonKind::name,
            |k| comparison(k).map(|v| json!({
                "difference": v.difference,
                "noise": v.noise,
                "inside_noise": v.inside_noise,
            })),
        ),
        "a_vs_a": comparison(ComparisonKind::AVsA).map(|v| v.difference),
        "floor": comparison(ComparisonKind::AVsA).map(|v| v.noise),
        "a_vs_b": comparison(ComparisonKind::PinnedVsUnpinned).map(|v| v.difference),
        "a_vs_b_inside_noise": comparison(ComparisonKind::PinnedVsUnpinned).map(|v| v.inside_noise),
        "hybrid_slowdown": n.and_then(|n| n.hybrid_slowdown),
        "hybrid_detail": n.and_then(|n| n.hybrid_detail.as_deref()).map(str::to_owned),
        "cpufreq_visible": f.map(|f| f.cpufreq_visible),
        "governor": f.and_then(|f| f.governor.as_deref()).map(str::to_owned),
        "cur_mhz": f.and_then(|f| f.cur_khz).map(|k| k as f64 / 1000.0),
        "max_mhz": f.and_then(|f| f.max_khz).map(|k| k as f64 / 1000.0),
        "boost": f.and_then(|f| f.boost.as_deref()).map(str::to_owned),
        "levers": levers(n.and_then(|n| n.levers.as_ref())),
    })
}

fn batch(b: &NoiseBatch) -> Value {
    let ms = |v: f64| v / 1e6;
    json!({
        "skipped": b.skipped.as_deref().map(str::to_owned),
        "ms": b.summary.map(|s| ms(s.median)),
        "min_ms": b.summary.map(|s| ms(s.min)),
        "max_ms": b.summary.map(|s| ms(s.max)),
        "spread": b.spread,
        "spread_excess": b.spread.map(|s| s - 1.0),
        "cv": b.cv,
        "migrated": b.migrated_runs,
    })
}

/// Every lever key, null throughout when the source did not record them.
fn levers(l: Option<&SchedLevers>) -> Value {
    let s =
        |f: fn(&SchedLevers) -> &Option<String>| l.and_then(|l| f(l).as_deref()).map(str::to_owned);
    let boot = l.map(|l| l.isolcpus.is_some() || l.nohz_full.is_some() || l.rcu_nocbs.is_some());
    let runtime = l.and_then(|l| l.sched_rt_runtime_us);
    let period = l.and_then(|l| l.sched_rt_period_us);
    json!({
        "allowed_cpus": s(|l| &l.allowed_cpus),
        "isolcpus": s(|l| &l.isolcpus),
        "nohz_full": s(|l| &l.nohz_full),
        "rcu_nocbs": s(|l| &l.rcu_nocbs),
        "irqaffinity": s(|l| &l.irqaffinity),
        "boot_isolation": boot,
        "rt_runtime_us": runtime,
        "rt_period_us": period,
        "rt_share": match (runtime, period) {
            (Some(r), Some(p)) if r >= 0 && p > 0 => Some(r as f64 / p as f64),
            _ => None,
        },
        "sched_fifo_permitted": l.and_then(|l| l.sched_fifo_permitted),
        "irq_default_affinity": s(|l| &l.irq_default_affinity),
        "cpuset_partitions": l.and_then(|l| l.cpuset_partitions),
        "cpuset_detail": s(|l| &l.cpuset_detail),
    })
}
