//! Chart specs built from run files: the only place that decides what a
//! chart shows. The preprocessor calls [`build`] by chart name.

use std::fmt;

use pagewalk_model::{FirstTouchResults, Mode, Phase, PhaseSummary, Provenance, RunFile, Summary};

use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Role, Series};

/// Every chart name [`build`] knows, as used in `{{chart "NAME"}}`.
pub const CHART_NAMES: &[&str] = &["first-touch-ns-per-page", "first-touch-faults"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    UnknownChart(String),
    /// The chart needs a run and none was given.
    NoRun(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::UnknownChart(name) => write!(
                f,
                "unknown chart `{name}` (known: {})",
                CHART_NAMES.join(", ")
            ),
            BuildError::NoRun(name) => {
                write!(f, "chart `{name}` needs a run file and none was given")
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Builds the chart `name`. `runs[0]` is the run the chapter shows (the
/// reader's own or the example run); the first reference file among the
/// rest, if any, is the published comparison.
pub fn build(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    let run = || {
        runs.first()
            .copied()
            .ok_or_else(|| BuildError::NoRun(name.to_string()))
    };
    let reference = runs.iter().skip(1).copied().find(|r| r.is_reference());
    match name {
        "first-touch-ns-per-page" => Ok(first_touch_ns_per_page(run()?, reference)),
        "first-touch-faults" => Ok(first_touch_faults(run()?)),
        _ => Err(BuildError::UnknownChart(name.to_string())),
    }
}

/// How a source is named in a legend: "this run" for a collector run, the
/// source's own name for published figures.
pub fn series_name(run: &RunFile) -> String {
    match &run.provenance {
        Provenance::Collector { .. } => "this run".to_string(),
        Provenance::Reference { name, .. } => name.clone(),
    }
}

fn role(run: &RunFile) -> Role {
    if run.is_reference() {
        Role::Reference
    } else {
        Role::Run
    }
}

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

/// A point from a summary: the median with min/max whiskers.
fn summary_point(key: &str, s: Option<&Summary>, gap_note: impl FnOnce() -> String) -> Point {
    match s {
        // A single measurement (published figures) has no spread to show.
        Some(s) if s.n <= 1 => Point::bar(key, Some(s.median)),
        Some(s) => Point {
            min: Some(s.min),
            max: Some(s.max),
            note: Some(format!("median of {} repetitions", s.n)),
            ..Point::bar(key, Some(s.median))
        },
        None => Point {
            note: Some(gap_note()),
            ..Point::bar(key, None)
        },
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
