//! First-touch charts: first-pass cost by mode, and where the faults land.

use pagewalk_model::{FirstTouchResults, Mode, Phase, PhaseSummary, RunFile, Summary};

use super::{role, series_name, summary_point};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Series};

/// Why a source has no first-touch numbers at all, if it has none.
fn missing_reason(run: &RunFile) -> Option<String> {
    if run.first_touch().is_some() {
        return None;
    }
    let why = run
        .experiment(pagewalk_model::first_touch::EXPERIMENT)
        .and_then(|e| e.reason.clone())
        .unwrap_or_else(|| "the first-touch experiment did not run".to_string());
    Some(format!("{}: {why}", series_name(run)))
}

/// Modes any source has a result for, in the study's order.
fn modes_of(sources: &[&FirstTouchResults]) -> Vec<Mode> {
    Mode::ALL
        .into_iter()
        .filter(|m| sources.iter().any(|ft| ft.mode(*m).is_some()))
        .collect()
}

fn category(mode: Mode) -> Category {
    Category {
        key: mode.name().to_string(),
        label: mode.code().to_string(),
    }
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

/// First-pass nanoseconds per 4 KiB page, by mode: the run next to the
/// reference figures. Median bars with min/max whiskers; a mode a source
/// lacks is a gap, never a zero.
pub fn first_touch_ns_per_page(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources: Vec<&RunFile> = std::iter::once(run).chain(reference).collect();
    let results: Vec<&FirstTouchResults> = sources.iter().filter_map(|r| r.first_touch()).collect();
    let modes = modes_of(&results);
    let series = sources
        .iter()
        .map(|src| Series {
            name: series_name(src),
            role: role(src),
            points: match src.first_touch() {
                Some(ft) => modes
                    .iter()
                    .map(|&m| {
                        let fp = ft.mode(m).and_then(|r| r.summary.first_pass.as_ref());
                        summary_point(m.name(), fp.map(|p| &p.ns_per_page), || {
                            gap_reason(ft, m, "first pass")
                        })
                    })
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    let missing: Vec<String> = sources.iter().filter_map(|s| missing_reason(s)).collect();
    ChartSpec {
        id: "first-touch-ns-per-page".to_string(),
        title: "First touch: nanoseconds per 4 KiB page".to_string(),
        description: format!(
            "first-pass time per 4 KiB page for each way of allocating, {}",
            sources
                .iter()
                .map(|s| series_name(s))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("allocation mode", ""),
        y: Axis::linear(
            "first pass, ns per 4 KiB page (median, whiskers min to max)",
            "ns per page",
        ),
        categories: modes.into_iter().map(category).collect(),
        series,
        note: (!missing.is_empty()).then(|| missing.join("; ")),
    }
}

/// Minor page faults in each phase (allocation, first pass, second pass)
/// for each mode of the run.
pub fn first_touch_faults(run: &RunFile) -> ChartSpec {
    let ft = run.first_touch();
    let modes = ft.map(|ft| modes_of(&[ft])).unwrap_or_default();
    let series = Phase::ALL
        .into_iter()
        .map(|phase| Series {
            name: phase.label().to_string(),
            role: role(run),
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
        description: format!(
            "minor page faults during allocation, first pass and second pass for each way of allocating, {}",
            series_name(run)
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("allocation mode", ""),
        y: Axis::linear("minor page faults (median, whiskers min to max)", "faults"),
        categories: modes.into_iter().map(category).collect(),
        series,
        note: missing_reason(run),
    }
}

fn faults(p: Option<&PhaseSummary>) -> Option<&Summary> {
    p.and_then(|p| p.minor_faults.as_ref())
}
