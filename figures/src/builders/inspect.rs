//! The timelines of a `collector inspect` file, for the "your process"
//! page: fault rate, context switches, run-queue wait and huge-page share,
//! one point per sampling interval. Rates are the counter's change over an
//! interval divided by its length, placed at the interval's end, so a burst
//! shows where it happened instead of being averaged over the window.
//!
//! The four share one time axis, from the first sample to the last (not
//! rounded past it), so a burst lines up across them; where a symptom has
//! a threshold (`pagewalk_model::inspect::thresholds`, the verdicts' own),
//! the side of it that is not a symptom is shaded and named.

use pagewalk_model::decimal::shortest;
use pagewalk_model::inspect::thresholds::{HUGE_SHARE, MINOR_FAULTS_PER_S, WAIT_MS_PER_S};
use pagewalk_model::inspect::{InspectResults, ProcessSample, EXPERIMENT};
use pagewalk_model::RunFile;

use super::bars::joined;
use super::points::missing_reason;
use super::source::role;
use crate::spec::{Axis, ChartKind, ChartSpec, Point, Series};

/// The chart names this module builds, as in `{{chart "NAME"}}`.
pub const FAULTS: &str = "inspect-faults";
pub const SWITCHES: &str = "inspect-switches";
pub const RUN_QUEUE: &str = "inspect-run-queue";
pub const HUGE_PAGES: &str = "inspect-huge-pages";

/// The first file of `runs` that holds an inspection, else the first: a
/// chapter passes the shown run, the references and the inspection, and
/// only the inspection has these numbers.
pub fn inspection_in<'a>(runs: &[&'a RunFile]) -> Option<&'a RunFile> {
    runs.iter()
        .copied()
        .find(|r| r.inspect().is_some())
        .or_else(|| runs.first().copied())
}

/// A sample's time to the millisecond: finer than any sampling interval,
/// and few enough digits that every JSON parser (the page's compact one
/// too) reads back the same number.
fn at(t_s: f64) -> f64 {
    (t_s * 1000.0).round() / 1000.0
}

/// One counter read off a sample; `None` where it could not be read.
type Counter = fn(&ProcessSample) -> Option<f64>;

/// `per` times the change of `counter` per second over each interval.
fn rate(i: &InspectResults, counter: Counter, per: f64) -> Vec<Point> {
    i.samples
        .windows(2)
        .map(|w| {
            let dt = w[1].t_s - w[0].t_s;
            let value = match (counter(&w[0]), counter(&w[1])) {
                (Some(a), Some(b)) if dt > 0.0 => Some((b - a) / dt * per),
                _ => None,
            };
            Point::xy(at(w[1].t_s), value)
        })
        .collect()
}

/// One line per `(name, counter, per)`; lines without a single value are
/// left out, and said in the note.
fn timeline(
    run: &RunFile,
    id: &str,
    title: &str,
    y: Axis,
    lines: &[(&str, Counter, f64)],
    points: impl Fn(&InspectResults, Counter, f64) -> Vec<Point>,
) -> ChartSpec {
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let mut series = Vec::new();
    if let Some(i) = run.inspect() {
        for (name, counter, per) in lines {
            let pts = points(i, *counter, *per);
            if pts.iter().any(|p| p.value.is_some()) {
                series.push(Series {
                    name: name.to_string(),
                    role: role(run),
                    faint: false,
                    points: pts,
                });
            } else {
                notes.push(format!("{name}: not readable for this process"));
            }
        }
    }
    let description = super::bars::words(|| match run.inspect() {
        Some(i) => format!(
            "process {} ({}), one point every {} ms",
            i.pid,
            i.command,
            shortest(i.interval_ms)
        ),
        None => "no inspection".to_string(),
    });
    ChartSpec {
        id: id.to_string(),
        title: title.to_string(),
        description,
        kind: ChartKind::Lines,
        // From the first sample to the last, in all four charts.
        x: Axis {
            min: Some(0.0),
            max: run
                .inspect()
                .and_then(|i| i.samples.last())
                .map(|s| at(s.t_s))
                .filter(|t| *t > 0.0),
            ..Axis::linear("time since the first sample (s)", "s")
        },
        // Rates and shares are never negative, and a wait or a fault rate
        // read against zero is not exaggerated by a cut axis.
        y: Axis {
            min: Some(0.0),
            ..y
        },
        categories: Vec::new(),
        series,
        note: joined(&notes, "; "),
        empty_note: None,
    }
}

fn as_f64(v: Option<u64>) -> Option<f64> {
    v.map(|v| v as f64)
}

pub fn inspect_faults(run: &RunFile) -> ChartSpec {
    timeline(
        run,
        FAULTS,
        "Page faults per second",
        Axis::linear("faults per second", "/s").with_band(
            0.0,
            MINOR_FAULTS_PER_S,
            format!(
                "under {} minor faults a second: not a symptom",
                shortest(MINOR_FAULTS_PER_S)
            ),
        ),
        &[
            ("minor faults", |s| Some(s.minor_faults as f64), 1.0),
            ("major faults", |s| Some(s.major_faults as f64), 1.0),
        ],
        rate,
    )
}

pub fn inspect_switches(run: &RunFile) -> ChartSpec {
    timeline(
        run,
        SWITCHES,
        "Context switches per second",
        Axis::linear("context switches per second", "/s"),
        &[
            (
                "voluntary (it blocked)",
                |s| as_f64(s.voluntary_switches),
                1.0,
            ),
            (
                "involuntary (preempted)",
                |s| as_f64(s.involuntary_switches),
                1.0,
            ),
        ],
        rate,
    )
}

pub fn inspect_run_queue(run: &RunFile) -> ChartSpec {
    timeline(
        run,
        RUN_QUEUE,
        "Time spent waiting for a CPU",
        Axis::linear("run-queue wait, ms per second", "ms/s").with_band(
            0.0,
            WAIT_MS_PER_S,
            format!(
                "under {} ms a second of waiting: not a symptom",
                shortest(WAIT_MS_PER_S)
            ),
        ),
        // ns per second, shown as ms per second.
        &[("run-queue wait", |s| as_f64(s.run_queue_wait_ns), 1e-6)],
        rate,
    )
}

pub fn inspect_huge_pages(run: &RunFile) -> ChartSpec {
    let mut spec = timeline(
        run,
        HUGE_PAGES,
        "Share of anonymous memory in huge pages",
        Axis::linear(
            "% of anonymous memory in huge pages (AnonHugePages / Anonymous)",
            "%",
        )
        .with_band(
            HUGE_SHARE * 100.0,
            100.0,
            format!(
                "{}% or more in huge pages: not a symptom",
                shortest(HUGE_SHARE * 100.0)
            ),
        ),
        &[(
            "huge-page share",
            |s| match (s.anon_huge_kib, s.anon_kib) {
                (Some(h), Some(a)) if a > 0 => Some(h as f64 / a as f64),
                _ => None,
            },
            100.0,
        )],
        // A share, not a rate: each sample as it was.
        |i, share, per| {
            i.samples
                .iter()
                .map(|s| Point::xy(at(s.t_s), share(s).map(|v| v * per)))
                .collect()
        },
    );
    spec.y.max = Some(100.0);
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::fixtures::committed;

    fn inspection() -> RunFile {
        committed("example-inspection")
    }

    #[test]
    fn fault_rate_is_the_change_over_each_interval() {
        let run = inspection();
        let i = run.inspect().unwrap();
        let spec = inspect_faults(&run);
        let minor = &spec.series[0];
        assert_eq!(minor.points.len(), i.samples.len() - 1);
        let (a, b) = (&i.samples[0], &i.samples[1]);
        let want = (b.minor_faults - a.minor_faults) as f64 / (b.t_s - a.t_s);
        assert_eq!(minor.points[0].value, Some(want));
        assert_eq!(minor.points[0].x, Some(at(b.t_s)));
        assert!((at(b.t_s) - b.t_s).abs() <= 0.0005);
    }

    #[test]
    fn the_four_share_a_time_axis_that_ends_at_the_last_sample() {
        let run = inspection();
        let last = at(run.inspect().unwrap().samples.last().unwrap().t_s);
        for spec in [
            inspect_faults(&run),
            inspect_switches(&run),
            inspect_run_queue(&run),
            inspect_huge_pages(&run),
        ] {
            assert_eq!(
                (spec.x.min, spec.x.max),
                (Some(0.0), Some(last)),
                "{}",
                spec.id
            );
        }
    }

    #[test]
    fn thresholds_are_the_verdicts_own() {
        let run = inspection();
        let band = |spec: ChartSpec| {
            let b = spec.y.band.expect("a threshold band");
            (b.low, b.high)
        };
        assert_eq!(band(inspect_faults(&run)), (0.0, MINOR_FAULTS_PER_S));
        assert_eq!(band(inspect_run_queue(&run)), (0.0, WAIT_MS_PER_S));
        assert_eq!(band(inspect_huge_pages(&run)), (HUGE_SHARE * 100.0, 100.0));
        // Context switches have no threshold in the symptom table.
        assert!(inspect_switches(&run).y.band.is_none());
    }

    #[test]
    fn the_inspection_is_found_among_other_runs_and_a_run_gives_a_note() {
        let insp = inspection();
        let example = committed("example");
        let found = inspection_in(&[&example, &insp]).unwrap();
        assert!(found.inspect().is_some());
        let spec = inspect_huge_pages(&example);
        assert!(spec.series.is_empty());
        assert!(spec.note.unwrap().contains("inspect"));
    }

    #[test]
    fn an_unreadable_counter_is_a_gap_not_a_zero() {
        let mut run = inspection();
        let e = run
            .experiments
            .iter_mut()
            .find(|e| e.name == EXPERIMENT)
            .unwrap();
        if let Some(pagewalk_model::Results::Inspect(i)) = e.results.as_mut() {
            for s in &mut i.samples {
                s.run_queue_wait_ns = None;
            }
        }
        let spec = inspect_run_queue(&run);
        assert!(spec.series.is_empty());
        assert!(spec.note.unwrap().contains("not readable"));
    }
}
