//! Pieces shared by the address-translation views (`stair`, `tlb`, `thp`):
//! a chase point as keys, CPUID and cache geometry, steps, agreement,
//! counters and checks. Every key is always present, null when absent.

use pagewalk_model::{
    Agreement, ChasePoint, CounterState, CounterStatus, Curve, ExperimentRecord, Geometry, Regime,
    RunFile, Step, StepKind,
};
use serde_json::{json, Map, Value};

pub use pagewalk_figures::size_label as size;

/// The skip reason, the duration and the checks: the keys every view has.
pub fn record_keys(record: &ExperimentRecord) -> Map<String, Value> {
    let failed: Vec<Value> = record
        .failed_checks()
        .map(|c| json!({"name": &c.name, "expected": &c.expected, "observed": &c.observed}))
        .collect();
    let ok = record.status.measured() && record.results.is_some();
    let mut m = Map::new();
    m.insert(
        "skipped".into(),
        json!((!ok)
            .then(|| record.reason.as_deref().map(str::to_owned))
            .flatten()),
    );
    m.insert("duration_s".into(), json!(record.duration_s));
    m.insert(
        "all_checks_passed".into(),
        json!(ok.then_some(failed.is_empty())),
    );
    m.insert("failed_checks".into(), Value::Array(failed));
    m
}

/// The median and spread of a point under `prefix` (`small_ns`,
/// `small_ns_min`, `small_ns_max`, `small_dtlb_per_load`).
pub fn ns_keys(m: &mut Map<String, Value>, prefix: &str, p: Option<&ChasePoint>) {
    let s = p.map(|p| p.ns_per_load);
    m.insert(format!("{prefix}_ns"), json!(s.map(|s| s.median)));
    m.insert(format!("{prefix}_ns_min"), json!(s.map(|s| s.min)));
    m.insert(format!("{prefix}_ns_max"), json!(s.map(|s| s.max)));
    m.insert(
        format!("{prefix}_dtlb_per_load"),
        json!(p.and_then(ChasePoint::dtlb_misses_per_load)),
    );
}

/// The points of both regimes joined on `x`, ascending, with the keys
/// `extra` adds for each x (the small point, else the huge one).
pub fn joined(
    curves: &[Curve],
    x: fn(&ChasePoint) -> Option<u64>,
    extra: impl Fn(u64, &ChasePoint) -> Map<String, Value>,
) -> Vec<Value> {
    let of = |r: Regime| {
        curves
            .iter()
            .find(|c| c.regime == r)
            .map_or(&[][..], |c| &c.points)
    };
    let (small, huge) = (of(Regime::Small), of(Regime::Huge));
    let mut xs: Vec<u64> = small.iter().chain(huge).filter_map(x).collect();
    xs.sort_unstable();
    xs.dedup();
    xs.into_iter()
        .map(|at| {
            let s = small.iter().find(|p| x(p) == Some(at));
            let h = huge.iter().find(|p| x(p) == Some(at));
            let mut m = extra(at, s.or(h).expect("x comes from a point"));
            ns_keys(&mut m, "small", s);
            ns_keys(&mut m, "huge", h);
            m.insert(
                "huge_fraction".into(),
                json!(h.and_then(|h| h.huge_fraction)),
            );
            Value::Object(m)
        })
        .collect()
}

/// `cpuid.source` and one key per TLB level.
pub fn cpuid(g: Option<&Geometry>) -> Value {
    let mut m = Map::new();
    m.insert("source".into(), json!(g.map(|g| &g.tlb_source)));
    for (key, level, page) in [
        ("l1d_4k", 1, 4096),
        ("l2_4k", 2, 4096),
        ("l1d_2m", 1, 2 << 20),
        ("l2_2m", 2, 2 << 20),
        ("l1d_1g", 1, 1 << 30),
        ("l2_1g", 2, 1 << 30),
    ] {
        let t = g.and_then(|g| g.data_tlb(level, page));
        m.insert(
            key.into(),
            t.map_or(Value::Null, |t| {
                json!({
                    "entries": t.entries,
                    "page": size(t.page_bytes),
                    "reach_bytes": t.reach_bytes(),
                    "reach": size(t.reach_bytes()),
                    "arithmetic": format!("{} × {} = {}", t.entries, size(t.page_bytes), size(t.reach_bytes())),
                })
            }),
        );
    }
    Value::Object(m)
}

/// `caches.l1d`, `.l2`, `.l3`.
pub fn caches(g: Option<&Geometry>) -> Value {
    let level = |l| {
        g.and_then(|g| g.data_cache(l)).map_or(
            Value::Null,
            |c| json!({"bytes": c.size_bytes, "size": size(c.size_bytes)}),
        )
    };
    json!({"l1d": level(1), "l2": level(2), "l3": level(3)})
}

/// `steps` and `step_counts`; `at` writes an x as text.
pub fn steps(steps: &[Step], at: fn(f64) -> String) -> (Value, Value) {
    let kind = kind_name;
    let list: Vec<Value> = steps
        .iter()
        .map(|s| {
            let label = match &s.matches {
                Some(m) => m.clone(),
                None => match s.kind {
                    StepKind::Cache => "a cache level".into(),
                    StepKind::Translation => "a TLB level".into(),
                    StepKind::Unclassified => "an unclassified step".into(),
                },
            };
            json!({
                "regime": s.regime.name(),
                "x": s.at_x,
                "at": at(s.at_x),
                "kind": kind(s.kind),
                "label": label,
                "near_kind": s.matches_kind.map(kind),
                "ns_before": s.ns_before,
                "ns_after": s.ns_after,
                "rise": s.ns_after / s.ns_before,
            })
        })
        .collect();
    let count = |k| {
        steps
            .iter()
            .filter(|s| s.regime == Regime::Small && s.kind == k)
            .count()
    };
    (
        Value::Array(list),
        json!({
            "cache": count(StepKind::Cache),
            "translation": count(StepKind::Translation),
            "unclassified": count(StepKind::Unclassified),
        }),
    )
}

fn kind_name(k: StepKind) -> &'static str {
    match k {
        StepKind::Cache => "cache",
        StepKind::Translation => "translation",
        StepKind::Unclassified => "unclassified",
    }
}

/// `agreement.items`, `.all`, `.text`. `vm` adds why a VM may disagree.
pub fn agreement(items: &[Agreement], at: fn(f64) -> String, vm: bool) -> Value {
    let list: Vec<Value> = items
        .iter()
        .map(|a| {
            json!({
                "what": &a.what,
                "expected": a.expected_x,
                "expected_text": at(a.expected_x),
                "found": a.found_x,
                "found_text": a.found_x.map(at),
                "found_kind": a.found_kind.map(kind_name),
                "agrees": a.agrees,
            })
        })
        .collect();
    let all = (!items.is_empty()).then(|| items.iter().all(|a| a.agrees));
    let missed: Vec<String> = items
        .iter()
        .filter(|a| !a.agrees)
        .map(|a| match (a.found_kind, a.found_x) {
            (Some(StepKind::Cache), Some(x)) => format!(
                "{} (there is a step at {}, but it stays put with huge pages)",
                &a.what,
                at(x)
            ),
            (Some(StepKind::Translation), Some(x)) => format!(
                "{} (there is a step at {}, but it changes with huge pages)",
                &a.what,
                at(x)
            ),
            _ => a.what.clone(),
        })
        .collect();
    let sentence = match all {
        None => None,
        Some(true) => Some(
            "every bend CPUID and sysfs predict has a measured step of its kind within a factor of two"
                .to_string(),
        ),
        Some(false) => Some(format!(
            "no measured step of its kind within a factor of two of: {}{}",
            missed.join("; "),
            if vm {
                " (this is a virtual machine: CPUID gives the hypervisor's figures, and nested paging changes what a walk costs)"
            } else {
                ""
            }
        )),
    };
    json!({"items": list, "all": all, "text": sentence})
}

/// `counters.dtlb`, `.dtlb_detail`, `.faults`, `.faults_detail`.
pub fn counters(c: Option<&CounterStatus>) -> Value {
    json!({
        "dtlb": c.map(|c| c.dtlb_load_misses.available),
        "dtlb_detail": c.map(|c| &c.dtlb_load_misses.detail),
        "dtlb_why": c.and_then(|c| why_not(&c.dtlb_load_misses)),
        "faults": c.map(|c| c.page_faults.available),
        "faults_detail": c.map(|c| &c.page_faults.detail),
        "faults_why": c.and_then(|c| why_not(&c.page_faults)),
    })
}

/// Why a counter could not be opened, in words for running prose (the raw
/// error stays in `*_detail`); `None` when it was opened.
fn why_not(c: &CounterState) -> Option<&'static str> {
    let said = |words: &[&str]| words.iter().any(|w| c.detail.contains(w));
    (!c.available).then(|| {
        if said(&["ENOENT", "No such file"]) {
            "the kernel offers no such event on this CPU"
        } else if said(&["EACCES", "EPERM", "denied", "not permitted"]) {
            "the kernel refused the request: the perf_event_paranoid setting or a security policy forbids it"
        } else if said(&["ENOSYS"]) {
            "perf_event_open itself is unavailable, as under some container and seccomp policies"
        } else if said(&["EOPNOTSUPP", "not supported"]) {
            "the kernel does not support this event here"
        } else {
            "the kernel returned an error (the run file has it)"
        }
    })
}

/// Whether the run was measured in a virtual machine.
pub fn in_vm(run: &RunFile) -> bool {
    run.machine
        .as_ref()
        .is_some_and(|m| m.virtualization.hypervisor_bit)
}

/// The point whose x is nearest `target` on a log scale.
pub fn nearest<T>(items: &[T], x: impl Fn(&T) -> f64, target: f64) -> Option<&T> {
    items.iter().min_by(|a, b| {
        let d = |v: &T| (x(v) / target).ln().abs();
        d(a).total_cmp(&d(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(available: bool, detail: &str) -> CounterState {
        CounterState {
            available,
            detail: detail.into(),
        }
    }

    #[test]
    fn why_a_counter_did_not_open() {
        let vm = "perf_event_open(dTLB read misses) failed: ENOENT (No such file or directory (os error 2))";
        assert!(why_not(&state(false, vm))
            .unwrap()
            .contains("no such event"));
        let paranoid = "failed: EACCES (Permission denied (os error 13))";
        assert!(why_not(&state(false, paranoid))
            .unwrap()
            .contains("perf_event_paranoid"));
        assert!(why_not(&state(false, "EBUSY")).unwrap().contains("error"));
        assert_eq!(why_not(&state(true, "opened, user space only")), None);
    }
}
