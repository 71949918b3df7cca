//! `tail` (and `r2.tail`): per-iteration tails, as written and pre-faulted.

use pagewalk_model::{RunFile, Stat, TailRepetition, TailVariant, TailVariantResult};
use serde_json::{json, Value};

use super::latency::{failed_checks, keyed, ratio, skipped, stats};

/// The pre-faulted variant a chapter compares with, in order of preference.
const HEADLINE: [TailVariant; 4] = [
    TailVariant::Populate,
    TailVariant::TouchEarly,
    TailVariant::Mlockall,
    TailVariant::Prefaulted,
];

pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::tail::EXPERIMENT) else {
        return Value::Null;
    };
    let t = run.tail();
    let get = |v: TailVariant| t.and_then(|t| t.variant(v));
    let headline = HEADLINE
        .into_iter()
        .find(|&v| get(v).is_some_and(|r| r.latency.is_some()));
    let stat = |v: Option<TailVariant>, s: Stat| get(v?)?.latency.as_ref()?.get(s);
    let written = Some(TailVariant::AsWritten);
    let page = t.and_then(|t| Some(t.region_bytes? / t.pages?.max(1)));
    let per_page = t.and_then(|t| Some(page? / t.bytes_per_iteration?.max(1)));
    let prefault_faults = t.and_then(|t| {
        t.variants
            .iter()
            .filter(|v| v.variant.prefaulted())
            .filter_map(|v| v.hot_minor_faults.map(|f| f.max))
            .reduce(f64::max)
    });
    json!({
        "skipped": skipped(record),
        "iterations": t.and_then(|t| t.iterations),
        "repetitions": t.and_then(|t| t.repetitions),
        "region_mib": t.and_then(|t| t.region_bytes).map(|b| b as f64 / (1 << 20) as f64),
        "pages": t.and_then(|t| t.pages),
        "bytes_per_iteration": t.and_then(|t| t.bytes_per_iteration),
        "iterations_per_page": per_page,
        "fault_share": per_page.map(|n| 1.0 / n as f64),
        "work": t.and_then(|t| t.work.as_deref()).map(str::to_owned),
        "variants": keyed(&TailVariant::ALL, TailVariant::name, |v| get(v).map(variant)),
        "prefaulted": headline.and_then(get).map(variant),
        "prefaulted_key": headline.map(|v| v.name().replace('-', "_")),
        "p999_ratio": ratio(stat(written, Stat::P999), stat(headline, Stat::P999)),
        "p50_ratio": ratio(stat(written, Stat::P50), stat(headline, Stat::P50)),
        "mean_ratio": ratio(stat(written, Stat::Mean), stat(headline, Stat::Mean)),
        "mlockall_permitted": get(TailVariant::Mlockall).map(|v| v.skipped.is_none()),
        "prefault_faults_max": prefault_faults,
        "all_checks_passed": t.map(|_| record.failed_checks().next().is_none()),
        "failed_checks": failed_checks(record),
    })
}

/// One figure of a repetition (its p99.9, mean or maximum).
type RepFigure = fn(&TailRepetition) -> f64;

fn variant(v: &TailVariantResult) -> Value {
    let mut m = stats(v.latency.as_ref());
    m.insert(
        "skipped".into(),
        json!(v.skipped.as_deref().map(str::to_owned)),
    );
    m.insert("label".into(), json!(v.variant.label()));
    m.insert("faults".into(), json!(v.hot_minor_faults.map(|f| f.median)));
    m.insert(
        "faults_max".into(),
        json!(v.hot_minor_faults.map(|f| f.max)),
    );
    m.insert("prepare_ns".into(), json!(v.prepare_ns.map(|p| p.median)));
    // Each repetition's own figure, so a verdict can hold a difference
    // against the spread between repetitions (`p999_rep_min`, ...).
    let per_rep: [(&str, RepFigure); 3] = [
        ("p999", |r| r.p999_ns),
        ("mean", |r| r.mean_ns),
        ("max", |r| r.max_ns),
    ];
    for (key, f) in per_rep {
        let values = v.repetitions.iter().map(f);
        let lo = values.clone().reduce(f64::min);
        m.insert(format!("{key}_rep_min"), json!(lo));
        m.insert(format!("{key}_rep_max"), json!(values.reduce(f64::max)));
    }
    Value::Object(m)
}
