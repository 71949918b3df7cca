//! The walk chart: ns per access, one load per page, at each stride, on
//! 4 KiB pages and on huge pages. One group per stride, one bar per page
//! size, from zero on a linear axis: each group taller than the one before
//! is a level of the walk that started to miss.

use pagewalk_model::walk::EXPERIMENT;
use pagewalk_model::{Regime, RunFile};

use super::points::{missing_reason, summary_point};
use super::translation::size_label;
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Role, Series};

pub const NAME: &str = "walk";

/// The strides, in order, whatever a run measured.
const STRIDES: [u64; 4] = [4 << 10, 32 << 10, 2 << 20, 1 << 30];

pub fn walk(run: &RunFile) -> ChartSpec {
    let results = run.walk();
    let series = Regime::ALL
        .iter()
        .map(|&regime| Series {
            name: regime.label().to_string(),
            role: Role::Run,
            points: match results {
                Some(w) => STRIDES
                    .iter()
                    .map(|&stride| {
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
                None => Vec::new(),
            },
        })
        .collect();
    ChartSpec {
        id: NAME.to_string(),
        title: "The walk's levels: ns per access by stride".to_string(),
        description: format!(
            "median nanoseconds per load, one load per page over {} pages in a random order, at strides of 4 KiB, 32 KiB, 2 MiB and 1 GiB, with 4 KiB and huge pages; whiskers span the repetitions",
            results.map_or("thousands of".into(), |w| w.pages.to_string())
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("stride between pages", ""),
        y: Axis::linear("ns per load (median; whiskers: the repetitions)", "ns"),
        categories: STRIDES
            .iter()
            .map(|&s| Category::new(s.to_string(), size_label(s)))
            .collect(),
        series,
        note: missing_reason(run, EXPERIMENT),
        empty_note: None,
    }
}
