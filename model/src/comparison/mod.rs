//! `collector compare` and the page's "compare runs": every headline figure
//! of each run held against the same figure of the first (the baseline),
//! with a verdict that is never "faster" or "slower" inside the noise.
//!
//! The verdict is [`crate::judge::order`], the rule the chapters use too:
//! a rank test on the figure's repetitions in the two runs, and a
//! difference no larger than the larger of the two runs' A-vs-A floors is
//! within noise. A figure with one repetition in a run has no scatter to
//! test and is not compared: the floor of a CPU-bound loop says nothing
//! about a page fault's. No native-only code here: the page runs the same
//! rule in wasm.

pub mod display;
mod headline;
mod setup;

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::judge::{self, Judgement, Order};
use crate::noise::ComparisonKind;
use crate::run::RunFile;

pub use headline::{figures, size, Figure};
pub use setup::{differences, SetupDifference};

/// The whole comparison, in the order a reader needs it: what differs in
/// the setup, then one row per figure and compared run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct RunComparison {
    /// Run labels; the first is the baseline every other run is held against.
    pub runs: Vec<String>,
    pub setup: Vec<SetupDifference>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Faster,
    Slower,
    WithinNoise,
    /// Beyond the floor, but the repetitions overlap too much to tell.
    Unstable,
    /// Measured under other conditions, in one run only, or without
    /// repetitions to judge by: `basis` says which.
    NotCompared,
}

impl From<Order> for Outcome {
    fn from(o: Order) -> Outcome {
        match o {
            Order::Faster => Outcome::Faster,
            Order::Slower => Outcome::Slower,
            Order::WithinNoise => Outcome::WithinNoise,
            Order::Unstable => Outcome::Unstable,
            Order::Unrepeated => Outcome::NotCompared,
        }
    }
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Faster => "faster",
            Outcome::Slower => "slower",
            Outcome::WithinNoise => "within noise",
            Outcome::Unstable => "unstable",
            Outcome::NotCompared => "not compared",
        }
    }
}

/// One figure of one run against the baseline's.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Row {
    pub experiment: String,
    pub figure: String,
    /// The figure as the book's charts name it (`MADV_NOHUGEPAGE, first
    /// pass` for `nohugepage first pass`): the page's verdict table shows
    /// it, the command line the name it takes.
    #[serde(default)]
    pub label: String,
    pub unit: String,
    /// Label of the run held against the baseline.
    pub run: String,
    pub outcome: Outcome,
    pub baseline_value: Option<f64>,
    pub value: Option<f64>,
    /// `value / baseline_value`: below 1 is faster.
    pub ratio: Option<f64>,
    /// The judge's verdict with the p-value and floor behind it.
    pub judgement: Option<Judgement>,
    /// Where the noise came from, or why it was not compared.
    pub basis: String,
}

/// The A-vs-A floor of a run: how far measurements of the same thing came
/// apart in its `noise` experiment (the two identical batches, and the
/// halves of each: the larger). `None` when that experiment did not run.
/// The one floor every verdict is held against, chapters and comparisons
/// alike.
pub fn noise_floor(run: &RunFile) -> Option<f64> {
    run.noise()?
        .comparisons
        .iter()
        .find(|c| c.kind == ComparisonKind::AVsA)
        .map(|c| c.verdict.noise)
}

/// Compares every run after the first with the first, each named by its
/// label (run id or reference name).
pub fn compare_runs(runs: &[RunFile]) -> RunComparison {
    let named: Vec<(String, &RunFile)> = runs.iter().map(|r| (r.label(), r)).collect();
    compare_named(&named)
}

/// [`compare_runs`] with the caller's names (a file name where two runs
/// carry the same id).
pub fn compare_named(runs: &[(String, &RunFile)]) -> RunComparison {
    let refs: Vec<&RunFile> = runs.iter().map(|(_, r)| *r).collect();
    let mut rows = Vec::new();
    if let Some(((_, base), others)) = runs.split_first() {
        let base_figures = figures(base);
        for (label, other) in others {
            let other_figures = figures(other);
            let floors = [noise_floor(base), noise_floor(other)];
            for a in &base_figures {
                let b = other_figures
                    .iter()
                    .find(|b| b.experiment == a.experiment && b.name == a.name);
                rows.push(row(a, b, floors, label));
            }
            // Figures only the other run has: said, not silently dropped.
            for b in other_figures.iter().filter(|b| {
                !base_figures
                    .iter()
                    .any(|a| a.experiment == b.experiment && a.name == b.name)
            }) {
                rows.push(not_compared(b, label, "not in the baseline run"));
            }
        }
    }
    RunComparison {
        runs: runs.iter().map(|(label, _)| label.clone()).collect(),
        setup: differences(&refs),
        rows,
    }
}

fn not_compared(f: &Figure, run: &str, why: &str) -> Row {
    Row {
        experiment: f.experiment.clone(),
        figure: f.name.clone(),
        label: f.label.clone(),
        unit: f.unit.to_string(),
        run: run.to_string(),
        outcome: Outcome::NotCompared,
        baseline_value: None,
        value: None,
        ratio: None,
        judgement: None,
        basis: why.to_string(),
    }
}

fn row(a: &Figure, b: Option<&Figure>, floors: [Option<f64>; 2], run: &str) -> Row {
    let Some(b) = b else {
        return not_compared(
            a,
            run,
            "not in this run (skipped, not run, or another mode)",
        );
    };
    let with_values = |outcome, ratio, judgement, basis: String| Row {
        baseline_value: Some(a.value),
        value: Some(b.value),
        ratio,
        judgement,
        outcome,
        basis,
        ..not_compared(a, run, "")
    };
    if a.conditions != b.conditions {
        let why = format!(
            "measured with different sizes or modes: {} vs {}",
            a.conditions, b.conditions
        );
        return with_values(Outcome::NotCompared, None, None, why);
    }
    if a.value <= 0.0 {
        let why = "the baseline value is not positive: no ratio".to_string();
        return with_values(Outcome::NotCompared, None, None, why);
    }
    let ratio = b.value / a.value;
    // The floor below which nothing on either machine differs.
    let floor = floors.iter().flatten().copied().reduce(f64::max);
    let j = judge::order(&b.repeated, &a.repeated, floor);
    let mut basis = vec![
        format!("baseline {}", a.repeated_by),
        format!("this run {}", b.repeated_by),
    ];
    if let Some(p) = j.p {
        basis.push(format!("rank test {}", judge::p_text(p)));
    }
    if let Some(f) = floor {
        basis.push(format!("A-vs-A floor {}", pct(f)));
    }
    let basis = basis.join("; ");
    let basis = if j.order == Order::Unrepeated {
        format!(
            "one repetition in a run: nothing says how far this figure moves by itself ({basis})"
        )
    } else {
        basis
    };
    with_values(j.order.into(), Some(ratio), Some(j), basis)
}

/// `7.1%`, `0.21%`: enough figures that a small floor does not print as 0.
fn pct(x: f64) -> String {
    let p = x * 100.0;
    if !p.is_finite() {
        return crate::units::NOT_A_NUMBER.to_string();
    }
    let decimals = if p >= 10.0 { 0 } else { 2 };
    format!("{}%", crate::decimal::fixed(p, decimals))
}
