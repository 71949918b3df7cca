//! `ft` (and `r1.ft`): the first-touch study.

use pagewalk_model::{FirstTouchResults, Mode, ModeResult, Phase, PhaseSummary, RunFile, Summary};
use serde_json::{json, Value};

/// The first-touch view of a run; `null` when it has no such experiment.
pub fn view(run: &RunFile) -> Value {
    let Some(record) = run.experiment(pagewalk_model::first_touch::EXPERIMENT) else {
        return Value::Null;
    };
    let Some(ft) = run.first_touch().filter(|_| record.status.measured()) else {
        // Every key present, so a chapter's table prints "n/a" for it.
        return json!({
            "skipped": record.reason.as_deref().map(str::to_owned).unwrap_or_default(),
            "size_mib": null, "pages": null, "huge_regions": null, "repetitions": null,
            "cut_short": null, "size_note": null, "before": null, "all_checks_passed": null,
            "failed_checks": [], "rust_forms": [], "modes": null, "stated": null,
        });
    };
    let modes: serde_json::Map<String, Value> = Mode::ALL
        .iter()
        .map(|&m| {
            (
                m.name().replace('-', "_"),
                ft.mode(m).map_or(Value::Null, |r| mode(ft, r)),
            )
        })
        .collect();
    let failed: Vec<Value> = record
        .failed_checks()
        .map(|c| {
            let (mode, name) = c.name.split_once(": ").unwrap_or(("", &c.name));
            json!({"mode": mode, "name": name, "expected": &c.expected, "observed": &c.observed})
        })
        .collect();
    let before = ft.memory_before.as_ref();
    json!({
        "skipped": null,
        "size_mib": ft.size_bytes >> 20,
        "pages": ft.pages,
        // 2 MiB windows in the region: the most huge pages it could get.
        "huge_regions": ft.size_bytes / HUGE_BYTES,
        "repetitions": ft.repetitions,
        "cut_short": cut_short(record, ft),
        "size_note": ft.size_note.as_deref().map(str::to_owned),
        "before": before.map(|b| json!({
            "mem_free_mib": b.mem_free_kib / 1024,
            "mem_available_mib": b.mem_available_kib / 1024,
            "swap_free_mib": b.swap_free_kib.map(|k| k / 1024),
            // As /proc/meminfo prints them, for a source quoted exactly.
            "mem_free_kib": b.mem_free_kib,
            "mem_available_kib": b.mem_available_kib,
            "swap_free_kib": b.swap_free_kib,
            "free_order0": b.free_blocks_of(0),
            "free_huge_blocks": b.free_blocks_at_least(9),
        })),
        "all_checks_passed": failed.is_empty(),
        "failed_checks": failed,
        "rust_forms": rust_forms(ft),
        "modes": modes,
        "stated": &ft.stated,
    })
}

/// The Rust forms that ran, in the chapter's order, each as its source
/// text and its mode's view: the rows of the chapter's table.
fn rust_forms(ft: &FirstTouchResults) -> Vec<Value> {
    const FORMS: [(Mode, &str); 3] = [
        (Mode::VecMacro, "vec![0u8; n]"),
        (Mode::ResizeZero, "resize(n, 0)"),
        (Mode::ResizeOne, "resize(n, 1)"),
    ];
    FORMS
        .iter()
        .filter_map(|&(m, form)| {
            let r = ft.mode(m)?;
            let ran = r.summary.allocation.is_some() || r.summary.first_pass.is_some();
            ran.then(|| json!({ "form": form, "mode": mode(ft, r) }))
        })
        .collect()
}

/// For an interrupted run, what it finished instead of "every mode N
/// times": `cut short after 4 of 27 planned repetitions (3 modes of 9)`.
fn cut_short(record: &pagewalk_model::ExperimentRecord, ft: &FirstTouchResults) -> Option<String> {
    if record.status != pagewalk_model::Status::Interrupted {
        return None;
    }
    let planned: Vec<_> = ft.modes.iter().filter(|m| m.skipped.is_none()).collect();
    let done: usize = planned.iter().map(|m| m.samples.len()).sum();
    let started = planned.iter().filter(|m| !m.samples.is_empty()).count();
    Some(format!(
        "cut short after {done} of {} planned repetitions ({started} of {} modes started)",
        planned.len() * ft.repetitions as usize,
        planned.len()
    ))
}

const HUGE_BYTES: u64 = 2 << 20;
/// 4 KiB pages one 2 MiB huge page stands for.
const SMALL_PER_HUGE: f64 = 512.0;

fn mode(ft: &FirstTouchResults, r: &ModeResult) -> Value {
    let phase = |p: Phase| r.summary.phase(p).map_or(Value::Null, phase);
    let huge_kib = r.summary.anon_huge_pages_kib.map(|s| s.median);
    let huge_pages = huge_kib.map(|k| k * 1024.0 / HUGE_BYTES as f64);
    // THP fault counters are per sample; the allocation phase counts too
    // (MAP_POPULATE faults everything in there).
    let thp = |f: fn(&pagewalk_model::ThpFaultCounters) -> i64| -> Option<f64> {
        let per_sample: Option<Vec<f64>> = r
            .samples
            .iter()
            .map(|s| {
                let counts: Vec<i64> = [&s.allocation, &s.first_pass]
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.thp.as_ref().map(f))
                    .collect();
                (!counts.is_empty()).then(|| counts.iter().sum::<i64>() as f64)
            })
            .collect();
        Summary::of(&per_sample?).map(|s| s.median)
    };
    let calls = r.samples.first().and_then(|s| s.allocator_calls);
    json!({
        "skipped": r.skipped.as_deref().map(str::to_owned),
        "alloc": phase(Phase::Allocation),
        "first": phase(Phase::FirstPass),
        "second": phase(Phase::SecondPass),
        "anon_huge_kib": huge_kib,
        "anon_huge_mib": huge_kib.map(|k| k / 1024.0),
        "huge_fraction": huge_kib.map(|k| k * 1024.0 / ft.size_bytes as f64),
        "huge_pages": huge_pages,
        // One fault maps a whole huge page, so each saves 511 faults.
        "faults_predicted": huge_pages.map(|h| ft.pages as f64 - (SMALL_PER_HUGE - 1.0) * h),
        "rerun": r.later_runs.first().map(|s| json!({
            "first": s.first_pass.as_ref().map(|p| json!({"ms": p.wall_ns / 1e6, "ns": p.ns_per_page})),
            "anon_huge_kib": s.anon_huge_pages_kib,
        })),
        "thp_alloc": thp(|c| c.thp_fault_alloc),
        "thp_fallback": thp(|c| c.thp_fault_fallback),
        "calls": calls.map(|c| json!({"alloc": c.alloc, "alloc_zeroed": c.alloc_zeroed, "realloc": c.realloc})),
    })
}

fn phase(p: &PhaseSummary) -> Value {
    json!({
        "ms": p.wall_ns.median / 1e6,
        "wall_ns": p.wall_ns.median,
        "ns": p.ns_per_page.median,
        "ns_min": p.ns_per_page.min,
        "ns_max": p.ns_per_page.max,
        "faults": p.minor_faults.map(|f| f.median),
    })
}
