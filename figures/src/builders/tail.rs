//! Tail charts: the per-iteration latency distribution of the run's
//! variants, and their percentiles next to the reference lab machine's.

use pagewalk_model::{RunFile, Stat, TailResults, TailVariantResult};

use super::bars::{joined, source_names, sources};
use super::points::missing_reason;
use super::source::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Series};

const EXPERIMENT: &str = pagewalk_model::tail::EXPERIMENT;

/// Variants that ran, in the study's order, and notes for those that did not.
fn ran(t: &TailResults) -> (Vec<&TailVariantResult>, Vec<String>) {
    let ran = t
        .variants
        .iter()
        .filter(|v| v.skipped.is_none() && v.latency.is_some())
        .collect();
    let skipped = t
        .variants
        .iter()
        .filter_map(|v| {
            Some(format!(
                "{} skipped: {}",
                v.variant.label(),
                v.skipped.as_ref()?
            ))
        })
        .collect();
    (ran, skipped)
}

/// The share of iterations in each latency bucket, one line per variant,
/// log latency against log share: the faulting iterations are the bump on
/// the right of the as-written line. An empty bucket is a gap.
pub fn tail_histogram(run: &RunFile) -> ChartSpec {
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let series = match run.tail() {
        Some(t) => {
            let (ran, skipped) = ran(t);
            notes.extend(skipped);
            ran.into_iter()
                .map(|v| {
                    let l = v.latency.as_ref().expect("filtered on latency");
                    let n = l.histogram.iter().map(|b| b.count).sum::<u64>().max(1) as f64;
                    Series {
                        name: v.variant.label().to_string(),
                        role: role(run),
                        points: l
                            .histogram
                            .iter()
                            .map(|b| match b.count {
                                0 => Point {
                                    note: Some("no iterations in this bucket".into()),
                                    ..Point::xy(b.upto_ns, None)
                                },
                                c => Point::xy(b.upto_ns, Some(c as f64 / n)),
                            })
                            .collect(),
                    }
                })
                .collect()
        }
        None => Vec::new(),
    };
    ChartSpec {
        id: "tail-histogram".to_string(),
        title: "Per-iteration latency, as written and pre-faulted".to_string(),
        description: crate::builders::bars::words(|| {
            format!(
            "share of loop iterations per latency bucket for each way of preparing the memory, {}",
            series_name(run)
        )
        }),
        kind: ChartKind::Lines,
        x: Axis::log("per-iteration latency, up to (ns)", "ns"),
        y: Axis::log("share of iterations in the bucket", "of iterations"),
        categories: Vec::new(),
        series,
        note: joined(&notes, "; "),
        empty_note: None,
    }
}

/// p50, p90, p99, p99.9, max and mean per variant, the run's next to the
/// reference lab machine's (which published p99.9 only).
pub fn tail_percentiles(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let mut notes = Vec::new();
    let mut series = Vec::new();
    for src in &sources {
        notes.extend(missing_reason(src, EXPERIMENT));
        let Some(t) = src.tail() else { continue };
        let (ran, skipped) = ran(t);
        notes.extend(
            skipped
                .into_iter()
                .map(|s| format!("{}: {s}", series_name(src))),
        );
        for v in ran {
            let l = v.latency.as_ref().expect("filtered on latency");
            series.push(Series {
                name: format!("{}, {}", series_name(src), v.variant.label()),
                role: role(src),
                points: Stat::ALL
                    .iter()
                    .map(|&s| match l.get(s) {
                        Some(ns) => Point::bar(s.key(), Some(ns)),
                        None => Point {
                            note: Some("not reported by this source".into()),
                            ..Point::bar(s.key(), None)
                        },
                    })
                    .collect(),
            });
        }
    }
    ChartSpec {
        id: "tail-percentiles".to_string(),
        title: "Tail latency: percentiles per iteration".to_string(),
        description: crate::builders::bars::words(|| {
            format!(
            "p50, p90, p99, p99.9, max and mean of one loop iteration for each way of preparing the memory, {}",
            source_names(&sources)
        )
        }),
        kind: ChartKind::Bars,
        x: Axis::linear("statistic", ""),
        y: Axis::log("ns per iteration (log scale)", "ns"),
        categories: Stat::ALL
            .iter()
            .map(|s| Category::new(s.key(), s.label()))
            .collect(),
        series,
        note: joined(&notes, "; "),
        empty_note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{empty_run, r2, run};
    use super::*;
    use crate::spec::Role;

    #[test]
    fn histogram_has_one_line_per_variant_that_ran_and_gaps_for_empty_buckets() {
        let spec = tail_histogram(&run());
        let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["as written", "MAP_POPULATE"]);
        let written = &spec.series[0].points;
        assert_eq!(written[0].value, Some(0.99));
        assert_eq!((written[1].x, written[1].value), (Some(600.0), None));
        assert_eq!(written[2].value, Some(0.01));
        assert!(spec
            .note
            .unwrap()
            .contains("mlockall skipped: not permitted"));
    }

    #[test]
    fn percentiles_sit_beside_r2s_p999() {
        let spec = tail_percentiles(&run(), Some(&r2("r2-perf-05.json")));
        let keys: Vec<&str> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["p50", "p90", "p99", "p999", "max", "mean"]);
        assert_eq!(spec.series.len(), 4);
        let r2_written = &spec.series[2];
        assert_eq!(r2_written.name, "the reference lab machine, as written");
        assert_eq!(r2_written.role, Role::Reference);
        assert_eq!(r2_written.at("p999").unwrap().value, Some(39_000.0));
        assert_eq!(r2_written.at("p50").unwrap().value, None);
        assert_eq!(spec.series[3].at("p999").unwrap().value, Some(7_600.0));
        assert_eq!(spec.series[0].at("p999").unwrap().value, Some(2_400.0));
    }

    #[test]
    fn a_run_without_tail_says_so() {
        let spec = tail_histogram(&empty_run());
        assert!(spec.series.is_empty());
        assert!(spec.note.unwrap().contains("did not run"));
    }
}
