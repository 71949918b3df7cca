//! Points and notes shared by the charts: why a source has no results, a
//! point from a summary, and the latency charts' (tail, alloc, syscall)
//! percentile bars.

use pagewalk_model::{reason, Latency, RunFile, Summary};

use super::source::series_name;
use crate::spec::{ChartSpec, Point};

/// Why a source has no results of `experiment`, if it has none: the
/// recorded reason as the run file has it, which [`notes_in_words`] puts
/// in a reader's words with the chart's other notes.
pub fn missing_reason(run: &RunFile, experiment: &str) -> Option<String> {
    let e = run.experiment(experiment);
    if e.is_some_and(|e| e.results.is_some()) {
        return None;
    }
    let why = e
        .and_then(|e| e.reason.clone())
        .unwrap_or_else(|| format!("the {experiment} experiment did not run"));
    Some(format!("{}: {why}", series_name(run)))
}

/// `spec` with every note (the chart's, and each point's, which the
/// legend, the tooltip and the data table show) in a reader's words
/// ([`reason::in_words`]). [`build`](super::build) passes every chart
/// through it, so a reason a builder quotes from the run file (a point's
/// `skipped`, an experiment's `reason`, as [`missing_reason`] does) never
/// reaches the page as the system wrote it: no `(os error 2)`, no
/// `apt-get install` in a legend.
pub(crate) fn notes_in_words(mut spec: ChartSpec) -> ChartSpec {
    let said = |note: &mut Option<String>| {
        if let Some(text) = note {
            *text = reason::in_words(text);
        }
    };
    said(&mut spec.note);
    said(&mut spec.empty_note);
    for point in spec.series.iter_mut().flat_map(|s| &mut s.points) {
        said(&mut point.note);
    }
    spec
}

/// The median with a whisker up to p99 (when the source has both); a gap
/// with the reason when there is no median.
pub fn percentile_point(key: &str, latency: Option<&Latency>, skipped: Option<&str>) -> Point {
    match latency.and_then(|l| Some((l.p50_ns?, l))) {
        Some((p50, l)) => Point {
            min: l.p99_ns.map(|_| p50),
            max: l.p99_ns,
            note: l.n.map(|n| format!("{n} batches")),
            ..Point::bar(key, Some(p50))
        },
        None => Point {
            note: Some(match skipped {
                Some(why) => format!("skipped: {why}"),
                None => "not reported by this source".into(),
            }),
            ..Point::bar(key, None)
        },
    }
}

/// A point from a summary: the median with min/max whiskers.
pub(crate) fn summary_point(
    key: &str,
    s: Option<&Summary>,
    gap_note: impl FnOnce() -> String,
) -> Point {
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

#[cfg(test)]
mod tests {
    use super::super::fixtures::{r2, run, values};
    use crate::{build, render_svg, table_html, Palette};

    #[test]
    fn every_latency_chart_renders_addressable_marks() {
        let (run, refs) = (run(), [r2("r2-perf-05.json"), r2("r2-systems-01.json")]);
        let runs = [&run, &refs[0], &refs[1]];
        for name in [
            "tail-histogram",
            "tail-percentiles",
            "alloc-latency",
            "syscall-floor",
            "noise-spread",
        ] {
            let spec = build(name, &runs).unwrap();
            let svg = render_svg(&spec, &Palette::light(), 720, 0);
            let marks = svg.matches("class=\"pw-mark\"").count();
            assert_eq!(marks, values(&spec), "{name}");
            for attr in [
                "data-series=",
                "data-category=",
                "data-value=",
                "tabindex=\"0\"",
                "aria-label=",
            ] {
                assert!(svg.contains(attr), "{name} lacks {attr}");
            }
        }
    }

    #[test]
    fn named_whiskers_are_read_as_percentiles() {
        let spec = build("alloc-latency", &[&run()]).unwrap();
        let svg = render_svg(&spec, &Palette::light(), 720, 0);
        assert!(svg.contains("p50 9 µs, p99 15 µs"), "{svg}");
        assert!(!svg.contains("min 9"));
        assert!(table_html(&spec).contains(">p50\u{a0}–\u{a0}p99</th>"));
    }
}
