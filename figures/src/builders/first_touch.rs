//! First-touch charts: first-pass cost by mode, and where the faults land.

use pagewalk_model::{FirstTouchResults, Mode, Phase, PhaseSummary, RunFile, Summary};

use super::bars::{joined, reported, source_names, sources, words};
use super::points::{missing_reason, summary_point};
use super::source::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Series};

const EXPERIMENT: &str = pagewalk_model::first_touch::EXPERIMENT;

/// Modes any source has a result for, in the study's order.
fn modes_of(sources: &[&RunFile]) -> Vec<Mode> {
    reported(Mode::ALL, sources, RunFile::first_touch, |ft, m| {
        ft.mode(m).is_some()
    })
}

fn category(mode: Mode) -> Category {
    Category::new(mode.name(), mode.code())
}

fn category_named(name: &str) -> Category {
    Category::new(name, name)
}

fn gap_reason(ft: &FirstTouchResults, mode: Mode, what: &str) -> String {
    match ft.mode(mode) {
        None => "not reported by this source".to_string(),
        Some(m) => match &m.skipped {
            Some(reason) => format!("skipped: {reason}"),
            None => format!("no {what} recorded"),
        },
    }
}

/// Where each mode pays: nanoseconds per 4 KiB page of allocation, first
/// pass and second pass, as small multiples (a panel per phase on one
/// scale, so a mode's bar sits in the phase that paid), the run next to
/// the reference figures. Median bars with min/max whiskers; what a source
/// lacks is a gap, never a zero, and a measured zero says 0.
pub fn first_touch_ns_per_page(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let modes = by_where_it_pays(run, modes_of(&sources));
    // Loops, not iterator chains: this runs in the lab's worker too, whose
    // wasm has a budget (scripts/build-wasm).
    let mut series = Vec::new();
    for phase in Phase::ALL {
        for &src in &sources {
            let mut points = Vec::new();
            if let Some(ft) = src.first_touch() {
                for &m in &modes {
                    let p = ft.mode(m).and_then(|r| r.summary.phase(phase));
                    points.push(summary_point(m.name(), p.map(|p| &p.ns_per_page), || {
                        gap_reason(ft, m, "time")
                    }));
                }
            }
            series.push(Series {
                name: format!("{}: {}", series_name(src), phase.label()),
                role: role(src),
                faint: false,
                points,
            });
        }
    }
    let mut notes = Vec::new();
    for &src in &sources {
        notes.extend(missing_reason(src, EXPERIMENT));
    }
    // The panels are named as the series' phases are.
    let panels = Phase::ALL.map(|p| category_named(p.label())).to_vec();
    ChartSpec {
        id: "first-touch-ns-per-page".to_string(),
        title: "First touch: where each mode pays, per 4 KiB page".to_string(),
        description: words(|| {
            format!(
                "time per 4 KiB page of allocation, first pass and second pass, side by side (allocation and first pass on one scale, the much cheaper second pass on its own), for each way of allocating, the modes that pay at allocation first, {}",
                source_names(&sources)
            )
        }),
        kind: ChartKind::Bars,
        x: Axis {
            panels,
            last_panel_alone: true,
            ..Axis::linear("allocation mode", "")
        },
        y: Axis::linear(
            "ns per 4 KiB page (median, whiskers min to max)",
            "ns per page",
        ),
        categories: modes.into_iter().map(category).collect(),
        series,
        note: joined(&notes, "; "),
        empty_note: None,
    }
}

/// `modes` with those whose allocation cost this run more than their first
/// pass (they pay up front: `MAP_POPULATE`, `malloc + memset`, ...) first,
/// then the rest, each group in the study's order: the chart is read by
/// where the cost lands.
fn by_where_it_pays(run: &RunFile, modes: Vec<Mode>) -> Vec<Mode> {
    let median = |m: Mode, p: Phase| {
        let ft = run.first_touch()?;
        Some(ft.mode(m)?.summary.phase(p)?.ns_per_page.median)
    };
    let upfront = |m: Mode| match (median(m, Phase::Allocation), median(m, Phase::FirstPass)) {
        (Some(a), Some(f)) => a > f,
        _ => m.faults_at_allocation(),
    };
    let (mut first, rest): (Vec<Mode>, Vec<Mode>) = modes.into_iter().partition(|&m| upfront(m));
    first.extend(rest);
    first
}

/// Minor page faults in each phase (allocation, first pass, second pass)
/// for each mode of the run.
pub fn first_touch_faults(run: &RunFile) -> ChartSpec {
    let ft = run.first_touch();
    let modes = modes_of(&[run]);
    let series = Phase::ALL
        .into_iter()
        .map(|phase| Series {
            name: phase.label().to_string(),
            role: role(run),
            faint: false,
            points: match ft {
                Some(ft) => modes
                    .iter()
                    .map(|&m| {
                        let s = faults(ft.mode(m).and_then(|r| r.summary.phase(phase)));
                        summary_point(m.name(), s, || gap_reason(ft, m, "fault count"))
                    })
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    ChartSpec {
        id: "first-touch-faults".to_string(),
        title: "First touch: minor page faults per phase".to_string(),
        description: words(|| {
            format!(
                "minor page faults during allocation, first pass and second pass for each way of allocating, {}",
                series_name(run)
            )
        }),
        kind: ChartKind::Bars,
        x: Axis::linear("allocation mode", ""),
        y: Axis::linear("minor page faults (median, whiskers min to max)", "faults"),
        categories: modes.into_iter().map(category).collect(),
        series,
        note: missing_reason(run, EXPERIMENT),
        empty_note: None,
    }
}

fn faults(p: Option<&PhaseSummary>) -> Option<&Summary> {
    p.and_then(|p| p.minor_faults.as_ref())
}
