//! The noise chart: how far apart, in percent, the runs of each batch are
//! (slowest over fastest), and how far apart each comparison's medians
//! are, with A vs A among them: a difference below A vs A measured nothing.

use pagewalk_model::decimal::fixed;
use pagewalk_model::{ComparisonKind, Condition, NoiseResults, RunFile};

use super::bars::{category_bars, source_names, sources};
use crate::spec::{Axis, Category, ChartSpec, Point};

/// One bar: a batch's spread or a comparison's difference.
#[derive(Clone, Copy)]
enum Bar {
    Spread(Condition),
    Difference(ComparisonKind),
}

const BARS: [Bar; 7] = [
    Bar::Spread(Condition::Pinned),
    Bar::Spread(Condition::Unpinned),
    Bar::Spread(Condition::PinnedAgain),
    Bar::Spread(Condition::Longer),
    Bar::Difference(ComparisonKind::AVsA),
    Bar::Difference(ComparisonKind::PinnedVsUnpinned),
    Bar::Difference(ComparisonKind::AVsLonger),
];

impl Bar {
    fn key(self) -> String {
        match self {
            Bar::Spread(c) => format!("spread-{}", c.name()),
            Bar::Difference(k) => k.name().to_string(),
        }
    }

    fn label(self) -> String {
        match self {
            Bar::Spread(c) => format!("{}: slowest / fastest run", c.label()),
            Bar::Difference(ComparisonKind::AVsA) => "A vs A: pinned, twice".into(),
            Bar::Difference(ComparisonKind::PinnedVsUnpinned) => {
                "A vs B: pinned vs unpinned".into()
            }
            Bar::Difference(ComparisonKind::AVsLonger) => "A vs B: 10% more work".into(),
        }
    }

    /// Percent apart, with a note.
    fn value(self, n: &NoiseResults) -> (Option<f64>, Option<String>) {
        match self {
            Bar::Spread(c) => match n.batch(c) {
                Some(b) => match (&b.skipped, b.spread) {
                    (Some(why), _) => (None, Some(format!("skipped: {why}"))),
                    (None, Some(s)) => (
                        Some((s - 1.0) * 100.0),
                        b.cv.map(|cv| format!("cv {}%", fixed(cv * 100.0, 2))),
                    ),
                    (None, None) => (None, Some("no runs".into())),
                },
                None => (None, Some("not reported by this source".into())),
            },
            Bar::Difference(k) => match n.comparison(k) {
                Some(c) => (
                    Some(c.verdict.difference * 100.0),
                    Some(match k {
                        ComparisonKind::AVsA => "the noise floor".to_string(),
                        _ if c.verdict.inside_noise => {
                            "inside the A-vs-A noise: nothing measured".into()
                        }
                        _ => "outside the A-vs-A noise".into(),
                    }),
                ),
                None => (None, Some("not reported by this source".into())),
            },
        }
    }
}

pub fn noise_spread(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    // All of BARS, not only those a source reports.
    let bars = category_bars(
        &sources,
        pagewalk_model::noise::EXPERIMENT,
        RunFile::noise,
        &BARS,
        |b| Category::new(b.key(), b.label()),
        |n, b| {
            let (value, note) = b.value(n);
            // Identical runs are 0% apart: no place on a log axis.
            let (value, note) = match value {
                Some(v) if v <= 0.0 => (None, Some("0%: identical".to_string())),
                v => (v, note),
            };
            Point {
                note,
                ..Point::bar(b.key(), value)
            }
        },
    );
    bars.chart(
        "noise-spread",
        "Run-to-run noise: pinned, unpinned, A vs A",
        || {
            format!(
            "how far apart the runs of each batch are (slowest over fastest), and how far apart the medians of two batches are, in percent; {}",
            source_names(&sources)
            )
        },
        "batch or comparison",
        Axis::log("percent apart (log scale)", "%"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{r2, run};
    use super::*;

    #[test]
    fn spreads_and_differences_in_percent_with_r2() {
        let spec = noise_spread(&run(), Some(&r2("r2-perf-01.json")));
        assert_eq!(spec.categories.len(), 7);
        let run = &spec.series[0];
        let unpinned = run.at("spread-unpinned").unwrap().value.unwrap();
        assert!((unpinned - 50.0).abs() < 1e-9);
        // Identical runs are 0% apart: a gap on a log axis, explained.
        let again = run.at("spread-pinned-again").unwrap();
        assert_eq!(again.value, None);
        assert!(again.note.as_deref().unwrap().contains("identical"));
        let b = run.at("pinned-vs-unpinned").unwrap();
        assert!(b
            .note
            .as_deref()
            .unwrap()
            .contains("outside the A-vs-A noise"));
        let r2 = &spec.series[1];
        assert!((r2.at("spread-unpinned").unwrap().value.unwrap() - 140.0).abs() < 1e-9);
        assert!((r2.at("spread-pinned").unwrap().value.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(r2.at("a-vs-a").unwrap().value, None);
    }
}
