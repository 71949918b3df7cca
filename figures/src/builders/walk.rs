//! The walk chart: what each level of the walk adds to a load. One group
//! per stride, in order, each named for what that stride takes away from
//! the caches (entries stop sharing a line, then a page table, then a page
//! directory per page); a bar per page size, from zero on a linear axis,
//! with each value written at its end; the no-walk baseline (the 4 KiB
//! stride on huge pages) shaded across the plot with its spread, so each
//! bar reads as the baseline plus what its levels cost. A page size the run
//! did not measure at all is not a series (its reason is in the note).

use pagewalk_model::walk::EXPERIMENT;
use pagewalk_model::{Regime, RunFile, WalkResults};

use super::points::{missing_reason, summary_point};
use super::translation::size_label;
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Role, Series};

pub const NAME: &str = "walk";

/// The strides, in order, whatever a run measured, with what each one
/// adds to a 4 KiB page's walk.
const STRIDES: [(u64, &str); 4] = [
    (4 << 10, "entries share a line"),
    (32 << 10, "an entry per line"),
    (2 << 20, "a page table per page"),
    (1 << 30, "a page directory per page"),
];

pub fn walk(run: &RunFile) -> ChartSpec {
    let results = run.walk();
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let mut series = Vec::new();
    for regime in Regime::ALL {
        let Some(w) = results else { break };
        let s = regime_series(w, regime);
        if s.points.iter().any(|p| p.value.is_some()) {
            series.push(s);
        } else {
            notes.push(format!("{}: {}", regime.label(), why_none(w, regime)));
        }
    }
    let baseline = results.and_then(|w| w.point(Regime::Huge, 4 << 10)?.ns_per_load.as_ref());
    let y = Axis::linear("ns per load (median; range: the repetitions)", "ns").with_value_labels();
    ChartSpec {
        id: NAME.to_string(),
        title: "What each level of the walk adds to a load".to_string(),
        description: format!(
            "median nanoseconds per load, one load per page over {} pages in a random order, at strides of 4 KiB, 32 KiB, 2 MiB and 1 GiB (entries sharing a line, an entry per line, a page table per page, a page directory per page), with 4 KiB and huge pages, against the no-walk baseline of the 4 KiB stride on huge pages; ranges span the repetitions",
            results.map_or("thousands of".into(), |w| w.pages.to_string())
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("stride between pages: what it adds", ""),
        y: match baseline {
            Some(b) => y.with_band(b.min, b.max, "no-walk baseline: 4 KiB apart on huge pages (its range)"),
            None => y,
        },
        categories: STRIDES
            .iter()
            .map(|&(s, adds)| Category::new(s.to_string(), format!("{} apart: {adds}", size_label(s))))
            .collect(),
        series,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
        empty_note: None,
    }
}

fn regime_series(w: &WalkResults, regime: Regime) -> Series {
    Series {
        name: regime.label().to_string(),
        role: Role::Run,
        faint: false,
        points: STRIDES
            .iter()
            .map(|&(stride, _)| {
                let p = w.point(regime, stride);
                summary_point(
                    &stride.to_string(),
                    p.and_then(|p| p.ns_per_load.as_ref()),
                    || match (p, p.and_then(|p| p.skipped.as_deref())) {
                        (_, Some(why)) => format!("skipped: {why}"),
                        (None, _) => "not a stride of this page size".into(),
                        (Some(_), None) => "not measured in this run".into(),
                    },
                )
            })
            .collect(),
    }
}

/// Why a page size has no value at any stride: its points' one reason,
/// or "not measured".
fn why_none(w: &WalkResults, regime: Regime) -> String {
    let reasons: Vec<&str> = STRIDES
        .iter()
        .filter_map(|&(s, _)| w.point(regime, s)?.skipped.as_deref())
        .collect();
    match reasons.first() {
        Some(first) if reasons.iter().all(|r| r == first) => format!("skipped: {first}"),
        Some(_) => format!("skipped: {}", reasons.join("; ")),
        None => "not measured in this run".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::fixtures::committed;

    #[test]
    fn the_band_is_the_huge_page_baseline_and_empty_sizes_are_no_series() {
        let run = committed("example");
        let w = run.walk().unwrap();
        let spec = walk(&run);
        let base = w
            .point(Regime::Huge, 4096)
            .unwrap()
            .ns_per_load
            .as_ref()
            .unwrap();
        let band = spec.y.band.as_ref().unwrap();
        assert_eq!((band.low, band.high), (base.min, base.max));
        assert!(spec.y.value_labels);
        // Every series has a value; a page size without any is in the note.
        for s in &spec.series {
            assert!(s.points.iter().any(|p| p.value.is_some()), "{}", s.name);
        }
        let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
        for regime in Regime::ALL {
            let measured = STRIDES
                .iter()
                .any(|&(s, _)| w.point(regime, s).is_some_and(|p| p.ns_per_load.is_some()));
            assert_eq!(names.contains(&regime.label()), measured, "{regime:?}");
        }
        // The 1 GiB stride on 4 KiB pages is that point's median.
        let small = spec
            .series
            .iter()
            .find(|s| s.name == Regime::Small.label())
            .unwrap();
        let want = w
            .point(Regime::Small, 1 << 30)
            .unwrap()
            .ns_per_load
            .as_ref()
            .unwrap()
            .median;
        assert_eq!(
            small.at(&(1u64 << 30).to_string()).unwrap().value,
            Some(want)
        );
        assert!(spec.categories[3].label.contains("page directory"));
    }
}
