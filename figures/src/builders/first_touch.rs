//! First-touch charts: first-pass cost by mode, and where the faults land.

use pagewalk_model::{FirstTouchResults, Mode, Phase, PhaseSummary, RunFile, Summary};

use super::bars::{category_bars, reported, source_names, sources};
use super::points::missing_reason;
use super::{role, series_name, summary_point};
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
    let sources = sources(run, reference);
    let bars = category_bars(
        &sources,
        EXPERIMENT,
        RunFile::first_touch,
        &modes_of(&sources),
        category,
        |ft, m| {
            let fp = ft.mode(m).and_then(|r| r.summary.first_pass.as_ref());
            summary_point(m.name(), fp.map(|p| &p.ns_per_page), || {
                gap_reason(ft, m, "first pass")
            })
        },
    );
    ChartSpec {
        id: "first-touch-ns-per-page".to_string(),
        title: "First touch: nanoseconds per 4 KiB page".to_string(),
        description: format!(
            "first-pass time per 4 KiB page for each way of allocating, {}",
            source_names(&sources)
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("allocation mode", ""),
        y: Axis::linear(
            "first pass, ns per 4 KiB page (median, whiskers min to max)",
            "ns per page",
        ),
        categories: bars.categories,
        series: bars.series,
        note: bars.note,
        empty_note: None,
    }
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
        note: missing_reason(run, EXPERIMENT),
        empty_note: None,
    }
}

fn faults(p: Option<&PhaseSummary>) -> Option<&Summary> {
    p.and_then(|p| p.minor_faults.as_ref())
}
