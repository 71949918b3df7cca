//! `tlb-reach`: ns per load by pages touched, one cache line per page, so
//! the data stays in cache and only the TLB runs out.

use pagewalk_model::RunFile;

use super::chase::{curves, note_steps, skipped, NS_AXIS, NS_UNIT};
use super::geometry::{geometry_markers, no_tlb_note, size_label};
use crate::builders::bars::joined;
use crate::builders::points::missing_reason;
use crate::builders::source::series_name;
use crate::spec::{Axis, ChartKind, ChartSpec};

/// ns per load by pages touched (one line per page), both regimes, with
/// markers at the TLB entry counts and the L1d size in lines.
pub fn tlb_reach(run: &RunFile) -> ChartSpec {
    let results = run.tlb_reach();
    let mut notes: Vec<String> = missing_reason(run, pagewalk_model::translation::TLB_REACH)
        .into_iter()
        .collect();
    if let Some(t) = results {
        notes.extend(skipped(&t.curves));
        notes.push(format!(
            "the data touched stays within {} by construction",
            size_label(t.data_limit_bytes)
        ));
    }
    let markers = markers(run);
    if results.is_some() {
        notes.extend(no_tlb_note(&markers));
    }
    let mut series = results
        .map(|t| curves(run, &t.curves, |p| p.pages.map(|n| n as f64)))
        .unwrap_or_default();
    if let Some(t) = results {
        note_steps(&mut series, &t.steps);
    }
    ChartSpec {
        id: "tlb-reach".into(),
        title: "TLB reach: ns per load by pages touched".into(),
        description: crate::builders::bars::words(|| {
            format!(
            "one cache line per 4 KiB page, ns per load against the number of pages on log-log axes, with 4 KiB and huge pages, {}",
            series_name(run)
        )
        }),
        kind: ChartKind::Lines,
        x: pages_axis().with_markers(markers),
        y: Axis::log(NS_AXIS, NS_UNIT),
        categories: Vec::new(),
        series,
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

/// The 4 KiB ÷ huge-page ratio of `tlb-reach`, under it on the same axis.
pub fn tlb_reach_ratio(run: &RunFile) -> ChartSpec {
    super::ratio::ratio(
        run,
        super::ratio::Above {
            id: "tlb-reach",
            x: pages_axis().with_markers(markers(run)),
            curves: run.tlb_reach().map_or(&[], |t| &t.curves),
            x_of: |p| p.pages.map(|n| n as f64),
            note: missing_reason(run, pagewalk_model::translation::TLB_REACH),
        },
    )
}

fn pages_axis() -> Axis {
    Axis::log("pages touched (one 64-byte line each)", "pages")
}

/// A TLB runs out at its entry count in 4 KiB pages; a cache at its size
/// in 64-byte lines (one per page).
fn markers(run: &RunFile) -> Vec<crate::spec::Marker> {
    run.tlb_reach().map_or_else(Vec::new, |t| {
        geometry_markers(
            run,
            &t.geometry,
            |b| (b / 64) as f64,
            |entries, page| entries * page / 4096,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::translation::fixtures::run;

    #[test]
    fn tlb_reach_counts_pages_and_names_a_skipped_regime() {
        let spec = tlb_reach(&run());
        assert_eq!(spec.series.len(), 1);
        let xs: Vec<f64> = spec.series[0].points.iter().map(|p| p.x.unwrap()).collect();
        assert_eq!(xs, [8.0, 128.0]);
        assert!(spec
            .note
            .as_deref()
            .unwrap()
            .contains("huge pages (THP) skipped"));
        // L1 dTLB at 64 entries; the 1 MiB L2 as 16384 lines.
        let xs: Vec<f64> = spec.x.markers.iter().map(|m| m.x).collect();
        assert_eq!(xs, [16384.0, 64.0]);
    }
}
