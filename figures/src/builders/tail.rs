//! Tail charts: the share of the run's iterations slower than each
//! latency (a survival curve per variant), and their percentiles next to
//! the reference lab machine's.

use pagewalk_model::{units, Latency, RunFile, Stat, TailResults, TailVariantResult};

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

/// The recorded percentiles a survival curve passes through: at p99, no
/// more than 1 in 100 iterations took longer, so the curve crosses 0.01
/// there (and so on), which is how the chart is read.
const CROSSINGS: [(Stat, f64, &str); 4] = [
    (Stat::P50, 0.5, "p50: no more than half took longer"),
    (Stat::P90, 0.1, "p90: no more than 1 in 10 took longer"),
    (Stat::P99, 0.01, "p99: no more than 1 in 100 took longer"),
    (
        Stat::P999,
        0.001,
        "p99.9: no more than 1 in 1,000 took longer",
    ),
];

/// One exact point of a survival curve: at `.0` ns, the share `.1` of the
/// iterations took longer; `.2` says how that is known.
type Exact = (f64, f64, String);

/// The survival curve (1 − CDF) of one distribution: the share of its
/// iterations slower than each latency, from the counts alone. A bucket
/// holds the values in (previous `upto_ns`, `upto_ns`], so at each bucket's
/// lower edge exactly the iterations in it and the buckets above it were
/// slower; the first bucket's lower edge is not recorded, its point is the
/// fastest iteration (all took at least that long), and the last bucket's
/// point is at its lower edge (nothing is slower than its upper one). The
/// recorded percentiles are the points where the curve crosses 0.5, 0.1,
/// 0.01 and 0.001; one the counts contradict (each is rounded to its
/// histogram's precision) is left out, named in the second value. Equal
/// latencies make one point: the lower share, both notes. `Err`: why
/// there is no curve.
fn survival(l: &Latency) -> Result<(Vec<Point>, Vec<String>), &'static str> {
    let total = l
        .histogram
        .iter()
        .fold(0u64, |a, b| a.saturating_add(b.count));
    let (Some(first), false) = (l.histogram.first(), total == 0) else {
        return Err("no latency histogram recorded");
    };
    let all = units::count(total as f64);
    let mut edges: Vec<Exact> = Vec::new();
    if let Some(min) = l.min_ns.filter(|&m| m > 0.0 && m <= first.upto_ns) {
        let note = format!("the fastest iteration: all {all} took at least this long");
        edges.push((min, 1.0, note));
    }
    let mut slower = total;
    for b in &l.histogram[..l.histogram.len() - 1] {
        slower = slower.saturating_sub(b.count);
        let note = match slower {
            0 => "no iteration took longer".to_string(),
            n => format!(
                "{} of {all} iterations took longer, 1 in {}",
                units::count(n as f64),
                units::count(total as f64 / n as f64)
            ),
        };
        edges.push((b.upto_ns, slower as f64 / total as f64, note));
    }
    let mut left_out = Vec::new();
    let mut exact = edges.clone();
    match l.n {
        Some(n) if n != total => left_out.push(format!(
            "its percentiles count {} iterations, its buckets {all}, so they are not drawn",
            units::count(n as f64)
        )),
        _ => {
            for (stat, share, note) in CROSSINGS {
                let Some(ns) = l.get(stat) else { continue };
                // Slower than ns: no more than `share`; up to it: no less.
                let fits = edges
                    .iter()
                    .all(|&(x, s, _)| !(x < ns && s < share || x > ns && s > share));
                if fits {
                    exact.push((ns, share, note.to_string()));
                } else {
                    left_out.push(format!(
                        "its {} of {} disagrees with its buckets and is not drawn",
                        stat.label(),
                        units::duration_ns(ns)
                    ));
                }
            }
        }
    }
    pagewalk_model::sort::heap_sort_by(&mut exact, |a, b| a.0 < b.0 || (a.0 == b.0 && a.1 > b.1));
    let mut points: Vec<Point> = Vec::new();
    for (x, share, note) in exact {
        let value = (share > 0.0).then_some(share);
        match points.last_mut() {
            Some(p) if p.x == Some(x) => {
                p.value = value;
                p.note = Some(format!("{}; {note}", p.note.take().unwrap_or_default()));
            }
            _ => points.push(Point {
                note: Some(note),
                ..Point::xy(x, value)
            }),
        }
    }
    Ok((points, left_out))
}

/// The survival curve of each variant that ran (1 − CDF): for each
/// latency, the share of iterations that took longer, log latency against
/// log share. The curves fall from 1; where one crosses 0.01 is its p99,
/// 0.001 its p99.9 (the band between the two is shaded), and the faulting
/// iterations hold the as-written curve up, a shoulder at about their
/// share, out to the fault's cost.
pub fn tail_histogram(run: &RunFile) -> ChartSpec {
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let mut series = Vec::new();
    if let Some(t) = run.tail() {
        let (ran, skipped) = ran(t);
        notes.extend(skipped);
        for v in ran {
            let label = v.variant.label();
            let l = v.latency.as_ref().expect("filtered on latency");
            match survival(l) {
                Ok((points, left_out)) => {
                    notes.extend(left_out.into_iter().map(|w| format!("{label}: {w}")));
                    series.push(Series {
                        name: label.to_string(),
                        role: role(run),
                        faint: false,
                        points,
                    });
                }
                Err(why) => notes.push(format!("{label}: {why}")),
            }
        }
        let how = crate::builders::bars::words(|| {
            "each point is exact: at a bucket edge, the iterations counted above it; \
             at p50, p90, p99 and p99.9, the recorded percentile; the lines between \
             points are drawn straight"
                .to_string()
        });
        if !series.is_empty() && !how.is_empty() {
            notes.push(how);
        }
    }
    ChartSpec {
        id: "tail-histogram".to_string(),
        title: "Tail latency: the share of iterations slower than each latency".to_string(),
        description: crate::builders::bars::words(|| {
            format!(
            "survival curve (1 minus the CDF) of one loop iteration's latency for each way of preparing the memory, both axes log: where a curve crosses 1 in 100 is its p99, {}",
            series_name(run)
        )
        }),
        kind: ChartKind::Lines,
        x: Axis::log("latency of one iteration (ns, log scale)", "ns"),
        y: Axis::log(
            "share of iterations that took longer (log scale)",
            "of iterations",
        )
        .with_band(
            0.001,
            0.01,
            "1 in 100 to 1 in 1,000 slower: a curve crosses the top at its p99, the bottom at its p99.9",
        ),
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
                faint: false,
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
    use crate::spec::{Role, Scale};

    /// 10,000 iterations from 400 ns: 110 slower than 500 ns, none between
    /// 500 and 700, 100 slower than 1 µs, 5 slower than 2 µs, 1 slower
    /// than 4 µs (the last bucket runs to 50 µs).
    fn latency(p999: f64, n: u64) -> Latency {
        let b = |upto_ns, count| pagewalk_model::Bucket { upto_ns, count };
        Latency {
            n: Some(n),
            min_ns: Some(400.0),
            p50_ns: Some(450.0),
            p90_ns: Some(480.0),
            p99_ns: Some(1_000.0),
            p999_ns: Some(p999),
            max_ns: Some(42_000.0),
            mean_ns: Some(470.0),
            histogram: vec![
                b(500.0, 9_890),
                b(700.0, 0),
                b(1_000.0, 10),
                b(2_000.0, 95),
                b(4_000.0, 4),
                b(50_000.0, 1),
            ],
        }
    }

    fn xy(points: &[Point]) -> Vec<(f64, Option<f64>)> {
        points.iter().map(|p| (p.x.unwrap(), p.value)).collect()
    }

    #[test]
    fn the_curve_is_the_share_slower_at_each_edge_through_the_percentiles() {
        let (points, left_out) = survival(&latency(1_900.0, 10_000)).unwrap();
        assert!(left_out.is_empty(), "{left_out:?}");
        // Worked by hand from the buckets: at an edge, the iterations in
        // the buckets above it out of 10,000; p50..p99.9 at 1/2..1/1000.
        assert_eq!(
            xy(&points),
            [
                (400.0, Some(1.0)),
                (450.0, Some(0.5)),
                (480.0, Some(0.1)),
                (500.0, Some(0.011)),
                (700.0, Some(0.011)),
                (1_000.0, Some(0.01)),
                (1_900.0, Some(0.001)),
                (2_000.0, Some(0.0005)),
                (4_000.0, Some(0.0001)),
            ]
        );
        let note = |x: f64| points.iter().find(|p| p.x == Some(x)).unwrap().note.clone();
        assert_eq!(
            note(500.0).unwrap(),
            "110 of 10,000 iterations took longer, 1 in 90.9"
        );
        // p99 falls on an edge: one point, the edge's exact share, both said.
        let both = note(1_000.0).unwrap();
        assert!(
            both.contains("p99: no more than 1 in 100 took longer"),
            "{both}"
        );
        assert!(
            both.contains("100 of 10,000 iterations took longer, 1 in 100"),
            "{both}"
        );
        assert!(note(400.0).unwrap().contains("fastest iteration"));
    }

    #[test]
    fn a_percentile_the_counts_contradict_is_left_out_and_said() {
        // 5 in 10,000 were slower than 2 µs, so p99.9 cannot be 3 µs.
        let (points, left_out) = survival(&latency(3_000.0, 10_000)).unwrap();
        assert!(points.iter().all(|p| p.x != Some(3_000.0)));
        assert_eq!(
            left_out,
            ["its p99.9 of 3 µs disagrees with its buckets and is not drawn"]
        );
        // Counts of another sample: the percentiles are not its crossings.
        let (points, left_out) = survival(&latency(1_900.0, 9_999)).unwrap();
        assert_eq!(points.len(), 6, "{points:?}");
        assert!(left_out[0].contains("count 9,999 iterations, its buckets 10,000"));
        let empty = Latency {
            histogram: Vec::new(),
            ..latency(1_900.0, 10_000)
        };
        assert_eq!(survival(&empty), Err("no latency histogram recorded"));
    }

    /// The share of `l`'s iterations slower than `x`, counted from below:
    /// everything not in a bucket ending at or before `x`.
    fn slower_than(l: &Latency, x: f64) -> f64 {
        let total: u64 = l.histogram.iter().map(|b| b.count).sum();
        let at_most: u64 = l
            .histogram
            .iter()
            .filter(|b| b.upto_ns <= x)
            .map(|b| b.count)
            .sum();
        (total - at_most) as f64 / total as f64
    }

    #[test]
    fn the_example_runs_curves_recount_from_its_buckets() {
        let run = super::super::fixtures::committed("example");
        let spec = tail_histogram(&run);
        assert_eq!((spec.x.scale, spec.y.scale), (Scale::Log, Scale::Log));
        let t = run.tail().unwrap();
        assert_eq!(spec.series.len(), t.variants.len());
        let mut drawn = 0;
        for s in &spec.series {
            let v = t
                .variants
                .iter()
                .find(|v| v.variant.label() == s.name)
                .unwrap();
            let l = v.latency.as_ref().unwrap();
            let n = l.n.unwrap() as f64;
            let mut last = (0.0, 1.0);
            for p in &s.points {
                let (x, share) = (p.x.unwrap(), p.value.unwrap());
                // Falling left to right, one point per latency.
                assert!(x > last.0 && share <= last.1, "{}: {p:?}", s.name);
                last = (x, share);
                let edge = l.histogram.iter().any(|b| b.upto_ns == x);
                let pct = [(l.p50_ns, 0.5), (l.p90_ns, 0.1), (l.p99_ns, 0.01)]
                    .into_iter()
                    .chain([(l.p999_ns, 0.001)])
                    .filter(|&(ns, _)| ns == Some(x))
                    .map(|(_, q)| q)
                    .fold(f64::NAN, f64::min);
                let want = if edge {
                    slower_than(l, x)
                } else if x == l.min_ns.unwrap() {
                    1.0
                } else {
                    pct
                };
                assert!((share - want).abs() <= 1e-12 * want, "{}: {p:?}", s.name);
                drawn += 1;
            }
            // Every edge but the last bucket's top, with the share slower.
            for b in &l.histogram[..l.histogram.len() - 1] {
                assert!(s.points.iter().any(|p| p.x == Some(b.upto_ns)), "{b:?}");
            }
            // The last point: the slowest bucket's iterations, at its
            // lower edge.
            let tail = l.histogram.last().unwrap().count as f64;
            let end = s.points.last().unwrap();
            assert_eq!(end.value, Some(tail / n));
            assert_eq!(end.x, Some(l.histogram[l.histogram.len() - 2].upto_ns));
            // The curve crosses 1 in 100 at p99 and 1 in 1,000 at p99.9.
            for (ns, share) in [(l.p99_ns, 0.01), (l.p999_ns, 0.001)] {
                let ns = ns.unwrap();
                let at = s.points.iter().find(|p| p.x == Some(ns)).unwrap();
                assert!(at.value.unwrap() <= share, "{}: {at:?}", s.name);
                assert!(s
                    .points
                    .iter()
                    .filter(|p| p.x.unwrap() < ns)
                    .all(|p| p.value.unwrap() >= share));
            }
        }
        assert_eq!(drawn, super::super::fixtures::values(&spec));
        // As written, one iteration in 256 met a new page: the curve holds
        // above 1 in 1,000 out past 1.5 µs; pre-faulted, none does.
        let at = |name: &str, x: f64| {
            let s = spec.series.iter().find(|s| s.name == name).unwrap();
            s.points
                .iter()
                .rev()
                .find(|p| p.x.unwrap() <= x)
                .unwrap()
                .value
                .unwrap()
        };
        assert!(
            at("as written", 1_500.0) > 0.003,
            "{}",
            at("as written", 1_500.0)
        );
        assert!(at("MAP_POPULATE", 1_500.0) < 0.001);
        assert!(spec.note.unwrap().contains("each point is exact"));
    }

    #[test]
    fn the_fixture_run_draws_its_buckets_and_says_why_not_its_percentiles() {
        let spec = tail_histogram(&run());
        let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["as written", "MAP_POPULATE"]);
        // 990, 0 and 10 of 1,000 iterations from 396 ns: 10 slower than
        // 450 ns and than 600 ns (the empty bucket is a flat step).
        assert_eq!(
            xy(&spec.series[0].points),
            [(396.0, Some(1.0)), (450.0, Some(0.01)), (600.0, Some(0.01))]
        );
        let note = spec.note.unwrap();
        assert!(note.contains("mlockall skipped: not permitted"), "{note}");
        assert!(
            note.contains("as written: its percentiles count 100 iterations, its buckets 1,000"),
            "{note}"
        );
        // The band the p99 and p99.9 crossings are read against.
        let band = spec.y.band.unwrap();
        assert_eq!((band.low, band.high), (0.001, 0.01));
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
