//! # alloc
//!
//! Premise: `malloc` has several paths and their costs differ by two orders
//! of magnitude. Small sizes come from a per-thread cache (tcache); larger
//! ones from bins; very large ones from a fresh `mmap`, returned with
//! `munmap` on free. Where "very large" starts moves: glibc raises its mmap
//! threshold to the size of each mmapped block freed (up to 32 MiB), so a
//! repeated `malloc(1 MiB)` is a cheap heap allocation after the first
//! free, unless the threshold is pinned (`mallopt`) or the size lies above
//! 32 MiB. Each path's `malloc` + `free` is timed in batches; its
//! `mmap`/`munmap` calls are counted (faults per operation, and `strace -c`
//! on a fresh process when strace is installed) rather than assumed.

mod paths;

use pagewalk_model::{
    AllocPath, AllocPathResult, AllocResults, Check, CountMethod, MappingCalls, Results,
};
use serde_json::{json, Value};

use super::{Env, Outcome};
use crate::{interrupt, progress, strace};

pub use paths::PINNED_THRESHOLD;

/// Operations the `strace -c` count covers (after subtracting a run that
/// only starts up and warms up).
const STRACE_BATCHES: u64 = 20;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let quick = env.settings.quick;
    let strace = strace::find();
    let bar = progress::bar(AllocPath::ALL.len() as u64, "alloc");
    let mut results = Vec::new();
    for path in AllocPath::ALL {
        if interrupt::requested() {
            break;
        }
        bar.set_message(path.name());
        let mut r = match measure(path, quick) {
            Ok(r) => r,
            Err(e) => skipped(path, format!("failed: {e}")),
        };
        if is_mmap_path(path) && r.skipped.is_none() {
            if let Ok(strace) = &strace {
                match traced_count(strace, path) {
                    Ok(calls) => r.mapping_calls.push(calls),
                    Err(e) => {
                        r.pattern = r.pattern.map(|p| format!("{p} (strace count failed: {e})"))
                    }
                }
            }
        }
        results.push(r);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let checks = results.iter().flat_map(checks).collect();
    Ok(Outcome::Done {
        results: Results::Alloc(AllocResults { paths: results }),
        checks,
    })
}

fn is_mmap_path(path: AllocPath) -> bool {
    matches!(
        path,
        AllocPath::MmapTypical | AllocPath::MmapForced | AllocPath::MmapPinned
    )
}

fn skipped(path: AllocPath, reason: String) -> AllocPathResult {
    AllocPathResult {
        path,
        skipped: Some(reason),
        size_bytes: None,
        pattern: None,
        ops: None,
        ops_per_batch: None,
        latency: None,
        minor_faults_per_op: None,
        mapping_calls: Vec::new(),
        in_child: false,
    }
}

/// One path, in this process or (pinned threshold) in a child.
fn measure(path: AllocPath, quick: bool) -> Result<AllocPathResult, String> {
    let (batches, per_batch) = paths::plan(path, quick);
    let report = if path == AllocPath::MmapPinned {
        crate::child::run(&probe_args(path, batches, per_batch), &[])?
    } else {
        report(path, batches, per_batch)
    };
    from_report(path, per_batch, &report)
}

/// The probe's arguments for `path`.
fn probe_args(path: AllocPath, batches: u64, per_batch: u64) -> Vec<String> {
    [
        "probe",
        "alloc",
        path.name(),
        "--batches",
        &batches.to_string(),
        "--per-batch",
        &per_batch.to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// What `probe alloc` prints and the collector reads back: one path's loop
/// as JSON. For `mmap-pinned` the threshold is pinned first, which is why
/// that path only ever runs in a child.
pub fn report(path: AllocPath, batches: u64, per_batch: u64) -> Value {
    if path == AllocPath::MmapPinned {
        // SAFETY: mallopt only changes this process's malloc parameters.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, PINNED_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, -1);
        }
    }
    let m = paths::measure(path, batches, per_batch);
    json!({
        "latency": m.recorder.latency(false),
        "ops_run": m.ops_run,
        "minor_faults": m.minor_faults,
        "free_chunks": m.free_chunks,
    })
}

fn from_report(path: AllocPath, per_batch: u64, v: &Value) -> Result<AllocPathResult, String> {
    let latency = pagewalk_model::json::from_value(&v["latency"]).map_err(|e| e.to_string())?;
    let ops_run = v["ops_run"].as_u64().ok_or("probe output has no ops_run")?;
    let faults = v["minor_faults"]
        .as_u64()
        .ok_or("probe output has no minor_faults")?;
    let mut mapping_calls = Vec::new();
    if is_mmap_path(path) {
        // A fresh mapping faults once (malloc writes its chunk header) and
        // is unmapped by its free: two calls per fault, at least.
        mapping_calls.push(MappingCalls {
            method: CountMethod::Faults,
            ops: Some(ops_run),
            mmap: Some(faults),
            munmap: None,
            total: 2 * faults,
        });
    }
    Ok(AllocPathResult {
        path,
        skipped: None,
        size_bytes: Some(paths::size(path) as u64),
        pattern: Some(pattern_with_bins(path, v)),
        ops: Some(ops_run),
        ops_per_batch: Some(per_batch),
        latency,
        minor_faults_per_op: Some(faults as f64 / ops_run.max(1) as f64),
        mapping_calls,
        in_child: path == AllocPath::MmapPinned,
    })
}

fn pattern_with_bins(path: AllocPath, v: &Value) -> String {
    match v["free_chunks"].as_u64() {
        Some(n) => format!(
            "{}; {n} free chunks in malloc's bins at the end (mallinfo ordblks)",
            paths::pattern(path)
        ),
        None => paths::pattern(path),
    }
}

/// Exact `mmap` and `munmap` calls of the path's loop: a child run under
/// `strace -c`, minus a child that only starts up and warms up.
fn traced_count(strace: &std::path::Path, path: AllocPath) -> Result<MappingCalls, String> {
    let (_, per_batch) = paths::plan(path, true);
    let count =
        |batches| strace::count(strace, "mmap,munmap", &probe_args(path, batches, per_batch));
    let (full, base) = (count(STRACE_BATCHES)?, count(0)?);
    let delta = |name: &str| {
        full.get(name)
            .copied()
            .unwrap_or(0)
            .saturating_sub(base.get(name).copied().unwrap_or(0))
    };
    let (mmap, munmap) = (delta("mmap"), delta("munmap"));
    Ok(MappingCalls {
        method: CountMethod::Strace,
        ops: Some(STRACE_BATCHES * per_batch),
        mmap: Some(mmap),
        munmap: Some(munmap),
        total: mmap + munmap,
    })
}

/// The premises: tcache, bins and pool never map; the typical 1 MiB path
/// is served from the heap; forced and pinned map afresh every time.
fn checks(r: &AllocPathResult) -> Vec<Check> {
    let (Some(per_op), None) = (r.minor_faults_per_op, &r.skipped) else {
        return Vec::new();
    };
    let name = r.path.name();
    let mut checks = Vec::new();
    match r.path {
        AllocPath::MmapForced | AllocPath::MmapPinned => {
            checks.push(Check::new(
                format!("{name}: a fresh mapping per operation (faults per op >= 1)"),
                per_op >= 0.99,
                ">= 1 minor fault per operation",
                format!("{per_op:.3}"),
            ));
            if let Some(c) = r
                .mapping_calls
                .iter()
                .find(|c| c.method == CountMethod::Strace)
            {
                let ops = c.ops.unwrap_or(0);
                checks.push(Check::new(
                    format!("{name}: one mmap and one munmap per operation (strace -c)"),
                    c.mmap == Some(ops) && c.munmap == Some(ops),
                    format!("mmap={ops} munmap={ops}"),
                    format!(
                        "mmap={} munmap={}",
                        c.mmap.unwrap_or(0),
                        c.munmap.unwrap_or(0)
                    ),
                ));
            }
        }
        _ => {
            let limit = 0.01;
            checks.push(Check::new(
                format!("{name}: no fresh memory per operation (faults per op ~ 0)"),
                per_op <= limit,
                format!("<= {limit}"),
                format!("{per_op:.4}"),
            ));
            if let Some(c) = r
                .mapping_calls
                .iter()
                .find(|c| c.method == CountMethod::Strace)
            {
                checks.push(Check::new(
                    format!("{name}: no mmap or munmap in the loop (strace -c)"),
                    c.total == 0,
                    "0",
                    c.total.to_string(),
                ));
            }
        }
    }
    checks
}
