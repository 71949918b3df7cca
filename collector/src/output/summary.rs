//! The end-of-run summary on stdout: where the file went, the headline
//! figures per mode, and every failed check, loudly.

use std::fmt::Write;
use std::path::Path;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};
use pagewalk_model::{
    ExperimentRecord, FirstTouchResults, ModeResult, PhaseSummary, Provenance, Results, RunFile,
    Status,
};

use crate::guard::human;

pub fn render(run: &RunFile, path: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Run written to {}", path.display());
    if let Provenance::Collector {
        interrupted: true, ..
    } = run.provenance
    {
        let _ = writeln!(
            out,
            "!! INTERRUPTED: only what finished before the signal is in the file"
        );
    }
    if let Some(m) = &run.machine {
        let _ = writeln!(
            out,
            "Machine: {} ({} CPUs), kernel {}, THP enabled={} defrag={}, PMU: {}",
            m.cpu.model_name,
            m.cpu.logical_cpus,
            m.kernel_release,
            m.thp.enabled.as_deref().unwrap_or("absent"),
            m.thp.defrag.as_deref().unwrap_or("absent"),
            if m.pmu.hardware_counters { "yes" } else { "no" },
        );
    }
    for e in &run.experiments {
        out.push('\n');
        experiment(&mut out, e);
    }
    let failed: Vec<_> = run
        .experiments
        .iter()
        .flat_map(|e| e.failed_checks().map(move |c| (e, c)))
        .collect();
    let findings: Vec<_> = run
        .experiments
        .iter()
        .flat_map(|e| e.findings().map(move |c| (e, c)))
        .collect();
    let unchecked: Vec<_> = run
        .experiments
        .iter()
        .flat_map(|e| e.unchecked().map(move |c| (e, c)))
        .collect();
    let total: usize = run
        .experiments
        .iter()
        .map(|e| e.checks.len() - e.findings().count() - e.unchecked().count())
        .sum();
    out.push('\n');
    if !unchecked.is_empty() {
        // Premises this machine cannot check: said, never counted as held.
        let _ = writeln!(out, "Not checked on this machine:");
        for (e, c) in &unchecked {
            let why = c.cannot_tell.as_deref().unwrap_or("");
            let _ = writeln!(out, "  {} / {}: {why}", e.name, c.name);
        }
    }
    if !findings.is_empty() {
        // What the compiler or a library chose: facts about this build,
        // never failures of the machine's premises.
        let _ = writeln!(out, "Findings (the build's choices, recorded):");
        for (e, c) in findings {
            let same = if c.passed { "as" } else { "unlike" };
            let _ = writeln!(out, "  {} / {}", e.name, c.name);
            let _ = writeln!(
                out,
                "      observed: {} ({same} the reference: {})",
                c.observed, c.expected
            );
        }
    }
    if failed.is_empty() {
        let _ = writeln!(out, "Checks: all {total} passed.");
    } else {
        let _ = writeln!(
            out,
            "Checks: {} passed, {} FAILED:",
            total - failed.len(),
            failed.len()
        );
        for (e, c) in failed {
            let _ = writeln!(out, "  !! FAILED  {} / {}", e.name, c.name);
            let _ = writeln!(out, "             expected: {}", c.expected);
            let _ = writeln!(out, "             observed: {}", c.observed);
        }
    }
    out
}

fn experiment(out: &mut String, e: &ExperimentRecord) {
    let took = e
        .duration_s
        .map_or(String::new(), |s| format!(" in {s:.1} s"));
    if e.status == Status::Interrupted {
        let why = e.reason.as_deref().unwrap_or("");
        let _ = writeln!(out, "{}: INTERRUPTED: {why}", e.name);
    }
    match (e.status, &e.results) {
        (Status::Ok | Status::Interrupted, Some(r)) => measured(out, &e.name, &took, r),
        (status, _) => {
            let status = format!("{status:?}").to_uppercase();
            let _ = writeln!(
                out,
                "{}: {status}{took}: {}",
                e.name,
                e.reason.as_deref().unwrap_or("")
            );
        }
    }
}

/// First touch: the size and repetitions, then the table of modes.
fn first_touch(out: &mut String, name: &str, took: &str, ft: &FirstTouchResults) {
    let _ = writeln!(
        out,
        "{}: ok{took}: {}, {} pages per pass, {} repetition(s), medians shown",
        name,
        human(ft.size_bytes),
        ft.pages,
        ft.repetitions
    );
    let short = ft
        .modes
        .iter()
        .filter(|m| m.skipped.is_none() && m.samples.len() < ft.repetitions as usize);
    let short: Vec<_> = short
        .map(|m| format!("{} ({})", m.mode.name(), m.samples.len()))
        .collect();
    if !short.is_empty() {
        let _ = writeln!(
            out,
            "  fewer repetitions than asked (interrupted): {}",
            short.join(", ")
        );
    }
    if let Some(note) = &ft.size_note {
        let _ = writeln!(out, "  size: {note}");
    }
    let _ = writeln!(out, "{}", first_touch_table(ft));
    for m in ft.modes.iter().filter(|m| m.skipped.is_some()) {
        let _ = writeln!(
            out,
            "  {} skipped: {}",
            m.mode.name(),
            m.skipped.as_deref().unwrap_or("")
        );
    }
}

/// One kind's lines. Exhaustive: a new kind does not compile until its
/// summary is decided here.
fn measured(out: &mut String, name: &str, took: &str, r: &Results) {
    use super::{hot_path, translation};
    // Writing to a String cannot fail: the hot-path writers' fmt::Result
    // only carries `?` inside them.
    let written = |_: std::fmt::Result| {};
    match r {
        Results::FirstTouch(ft) => first_touch(out, name, took, ft),
        Results::Tail(t) => written(hot_path::tail(out, name, took, t)),
        Results::Alloc(a) => written(hot_path::alloc(out, name, took, a)),
        Results::Syscall(s) => written(hot_path::syscall(out, name, took, s)),
        Results::Shootdown(s) => written(hot_path::shootdown(out, name, took, s)),
        Results::Noise(n) => written(hot_path::noise(out, name, took, n)),
        Results::Numa(n) => written(hot_path::numa(out, name, took, n)),
        Results::Staircase(s) => translation::staircase(out, name, took, s),
        Results::TlbReach(t) => translation::tlb_reach(out, name, took, t),
        Results::Thp(t) => translation::thp(out, name, took, t),
        Results::Walk(w) => translation::walk(out, name, took, w),
        Results::Mlp(m) => translation::mlp(out, name, took, m),
        Results::Inspect(_) => written(writeln!(
            out,
            "{name}: an inspection of a process (see `collector inspect`)"
        )),
    }
}

fn first_touch_table(ft: &FirstTouchResults) -> Table {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "mode",
        "allocation\nms",
        "allocation\nfaults",
        "1st pass\nns/page",
        "1st pass\nfaults",
        "2nd pass\nns/page",
        "AnonHuge\nkB",
        "THP faults\nalloc/fallback",
    ]);
    for m in &ft.modes {
        if m.skipped.is_some() {
            table.add_row(vec![m.mode.name().to_string(), "skipped".into()]);
            continue;
        }
        let s = &m.summary;
        table.add_row(vec![
            m.mode.name().to_string(),
            cell(s.allocation.as_ref(), |p| {
                format!("{:.1}", p.wall_ns.median / 1e6)
            }),
            cell(s.allocation.as_ref(), faults),
            cell(s.first_pass.as_ref(), ns_per_page),
            cell(s.first_pass.as_ref(), faults),
            cell(s.second_pass.as_ref(), ns_per_page),
            s.anon_huge_pages_kib
                .map_or("-".into(), |k| format!("{:.0}", k.median)),
            thp_faults(m),
        ]);
    }
    for i in 1..8 {
        if let Some(col) = table.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

fn cell(phase: Option<&PhaseSummary>, f: impl Fn(&PhaseSummary) -> String) -> String {
    phase.map_or("-".into(), f)
}

/// Median, with the range when repetitions disagreed by more than 10%.
fn ns_per_page(p: &PhaseSummary) -> String {
    let s = &p.ns_per_page;
    let fmt = |v: f64| {
        if v < 100.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.0}")
        }
    };
    if s.n > 1 && s.spread() > 1.1 {
        format!("{} ({}-{})", fmt(s.median), fmt(s.min), fmt(s.max))
    } else {
        fmt(s.median)
    }
}

fn faults(p: &PhaseSummary) -> String {
    p.minor_faults
        .map_or("-".into(), |f| format!("{:.0}", f.median))
}

/// System-wide THP fault counters over a whole repetition (all phases),
/// from the first repetition: they show whether the kernel tried.
fn thp_faults(m: &ModeResult) -> String {
    let Some(sample) = m.samples.first() else {
        return "-".into();
    };
    let phases = [&sample.allocation, &sample.first_pass, &sample.second_pass];
    let counters: Vec<_> = phases.iter().filter_map(|p| p.as_ref()?.thp).collect();
    if counters.is_empty() {
        return "-".into();
    }
    let alloc: i64 = counters.iter().map(|c| c.thp_fault_alloc).sum();
    let fallback: i64 = counters.iter().map(|c| c.thp_fault_fallback).sum();
    format!("{alloc}/{fallback}")
}
