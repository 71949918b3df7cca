//! The noise chapter's two charts, each for one point (the older
//! `noise-spread` put three quantities on one log axis and stays for the
//! compare page):
//!
//! - `noise-runs`: every run of every batch, in the order they ran, as
//!   percent from the pinned batch's median: the spread of each batch is
//!   the height of its cloud, drift shows as a slope, and the 10% longer
//!   workload sits visibly apart. The band is the run's A-vs-A distance.
//! - `noise-detect`: "can I detect this change?": how far apart each
//!   comparison's medians are, against the band of the A-vs-A distance;
//!   a bar that ends inside the band measured nothing.

use pagewalk_model::{ComparisonKind, Condition, RunFile};

use super::points::missing_reason;
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Role, Series};

pub const RUNS: &str = "noise-runs";
pub const DETECT: &str = "noise-detect";

const EXPERIMENT: &str = pagewalk_model::noise::EXPERIMENT;

/// The A-vs-A distance in percent, when the run has it.
fn floor_pct(run: &RunFile) -> Option<f64> {
    pagewalk_model::comparison::noise_floor(run)
        .filter(|f| f.is_finite() && *f >= 0.0)
        .map(|f| f * 100.0)
}

pub fn noise_runs(run: &RunFile) -> ChartSpec {
    let results = run.noise();
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let base = results
        .and_then(|n| n.batch(Condition::Pinned))
        .and_then(|b| b.summary.as_ref())
        .map(|s| s.median)
        .filter(|m| *m > 0.0);
    let mut series = Vec::new();
    if let (Some(n), Some(base)) = (results, base) {
        for c in Condition::ALL {
            let Some(b) = n.batch(c) else { continue };
            if let Some(why) = &b.skipped {
                notes.push(format!("{}: skipped: {why}", c.label()));
                continue;
            }
            series.push(Series {
                name: c.label().to_string(),
                role: Role::Run,
                faint: false,
                points: b
                    .samples_ns
                    .iter()
                    .enumerate()
                    .map(|(i, ns)| Point::xy((i + 1) as f64, Some((ns / base - 1.0) * 100.0)))
                    .collect(),
            });
        }
    }
    let mut y = Axis::linear("percent from the pinned batch's median", "%");
    if let Some(f) = floor_pct(run) {
        y = y.with_band(-f, f, "the run's A-vs-A distance either side of 0");
    }
    ChartSpec {
        id: RUNS.to_string(),
        title: "Every run of every batch, in the order they ran".to_string(),
        description: "each run's time as percent from the pinned batch's median, against its place in its batch, one line per batch (pinned, unpinned, pinned again, and a 10% longer workload), with the run's A-vs-A distance shaded around 0".to_string(),
        kind: ChartKind::Lines,
        x: Axis::linear("run, in order", ""),
        y,
        categories: Vec::new(),
        series,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
        empty_note: None,
    }
}

/// The comparisons a reader might make, each a bar.
const CHANGES: [(ComparisonKind, &str); 3] = [
    (ComparisonKind::AVsA, "the same code twice (A vs A)"),
    (ComparisonKind::PinnedVsUnpinned, "pinned vs unpinned"),
    (ComparisonKind::AVsLonger, "10% more work"),
];

pub fn noise_detect(run: &RunFile) -> ChartSpec {
    let results = run.noise();
    let note = missing_reason(run, EXPERIMENT);
    let points = CHANGES
        .iter()
        .map(|&(kind, _)| {
            let c = results.and_then(|n| n.comparison(kind));
            Point {
                note: Some(match c {
                    None => "not measured in this run".into(),
                    Some(_) if kind == ComparisonKind::AVsA => "the noise floor itself".into(),
                    Some(c) if c.verdict.inside_noise => {
                        "inside the A-vs-A distance: not told from chance".into()
                    }
                    Some(_) => "beyond the A-vs-A distance".into(),
                }),
                ..Point::bar(kind.name(), c.map(|c| c.verdict.difference * 100.0))
            }
        })
        .collect();
    let mut y = Axis::linear("percent apart, median against median", "%").with_value_labels();
    if let Some(f) = floor_pct(run) {
        y = y.with_band(
            0.0,
            f,
            "the run's A-vs-A distance: a change inside it is not told from chance",
        );
    }
    ChartSpec {
        id: DETECT.to_string(),
        title: "Can this machine tell the change apart from noise?".to_string(),
        description: "how far apart the medians of two batches are, in percent, for the same code twice, for pinned against unpinned, and for 10% more work, against the band of the A-vs-A distance".to_string(),
        kind: ChartKind::Bars,
        x: Axis::linear("what changed between the two batches", ""),
        y,
        categories: CHANGES
            .iter()
            .map(|&(k, label)| Category::new(k.name(), label))
            .collect(),
        series: vec![Series {
            name: "this run".to_string(),
            role: Role::Run,
            faint: false,
            points,
        }],
        note,
        empty_note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::fixtures::committed;

    #[test]
    fn runs_are_percent_from_the_pinned_median_in_order() {
        let run = committed("example");
        let n = run.noise().unwrap();
        let base = n
            .batch(Condition::Pinned)
            .unwrap()
            .summary
            .as_ref()
            .unwrap()
            .median;
        let spec = noise_runs(&run);
        let unpinned = spec.series.iter().find(|s| s.name == "unpinned").unwrap();
        let samples = &n.batch(Condition::Unpinned).unwrap().samples_ns;
        assert_eq!(unpinned.points.len(), samples.len());
        for (i, (p, ns)) in unpinned.points.iter().zip(samples).enumerate() {
            assert_eq!(p.x, Some((i + 1) as f64));
            assert_eq!(p.value, Some((ns / base - 1.0) * 100.0));
        }
        let f = pagewalk_model::comparison::noise_floor(&run).unwrap() * 100.0;
        let band = spec.y.band.unwrap();
        assert_eq!((band.low, band.high), (-f, f));
    }

    #[test]
    fn each_change_is_its_median_distance_against_the_floor() {
        let run = committed("example");
        let n = run.noise().unwrap();
        let spec = noise_detect(&run);
        for (kind, _) in CHANGES {
            let want = n.comparison(kind).unwrap().verdict.difference * 100.0;
            assert_eq!(spec.series[0].at(kind.name()).unwrap().value, Some(want));
        }
        let longer = spec.series[0].at(ComparisonKind::AVsLonger.name()).unwrap();
        assert!(
            longer.note.as_deref().unwrap().contains("beyond"),
            "{longer:?}"
        );
        assert_eq!(
            spec.y.band.unwrap().high,
            pagewalk_model::comparison::noise_floor(&run).unwrap() * 100.0
        );
    }
}
