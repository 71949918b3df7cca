//! The comparison as a reader sees it, in the terminal (`collector
//! compare`) and in the page (the compare lab): the same cells, the same
//! rule, the same tally, so the two can never tell a different story.

use super::{Outcome, Row, RunComparison};
use crate::decimal::fixed;
use crate::run::RunFile;

/// The rule every table states above its rows.
pub const RULE: &str = "Lower is faster; ratio = run / baseline. Faster or slower only where a \
rank test on the figure's repetitions in the two runs gives p of 0.10 or less and the difference is \
larger than both runs' A-vs-A floor (from their noise experiments); no larger than the floor \
is \"within noise\"; beyond it with overlapping repetitions is \"unstable\"; a figure with one \
repetition in a run is not compared.";

/// Column headers after experiment, figure (and run, with more than two).
pub const VALUE_COLUMNS: [&str; 5] = ["baseline", "run value", "ratio", "noise", "verdict"];

/// Baseline, run value, ratio, noise and verdict, as display text.
pub fn cells(r: &Row) -> [String; 5] {
    let num = |v: Option<f64>| v.map_or("-".into(), |v| format!("{} {}", figure(v), r.unit));
    let verdict = match r.outcome {
        Outcome::Faster | Outcome::Slower => r.outcome.label().to_ascii_uppercase(),
        o => o.label().to_string(),
    };
    [
        num(r.baseline_value),
        num(r.value),
        r.ratio.map_or("-".into(), |x| format!("{}x", fixed(x, 3))),
        r.judgement.map_or("-".into(), |j| {
            let p = j.p.map_or("no test".into(), crate::judge::p_text);
            match j.floor {
                Some(f) => format!("{p}, floor {}%", fixed(f * 100.0, 1)),
                None => p,
            }
        }),
        verdict,
    ]
}

/// Three significant figures, without exponent notation for the large
/// nanosecond counts.
pub fn figure(v: f64) -> String {
    let decimals = match v.abs() {
        x if x >= 100.0 => 0,
        x if x >= 10.0 => 1,
        x if x >= 1.0 => 2,
        _ => 3,
    };
    fixed(v, decimals)
}

/// `53 figures: 9 faster, 21 slower, 11 within noise, 10 unstable, 2 not compared.`
pub fn tally(c: &RunComparison) -> String {
    let count = |o: Outcome| c.rows.iter().filter(|r| r.outcome == o).count();
    format!(
        "{} figures: {} faster, {} slower, {} within noise, {} unstable, {} not compared.",
        c.rows.len(),
        count(Outcome::Faster),
        count(Outcome::Slower),
        count(Outcome::WithinNoise),
        count(Outcome::Unstable),
        count(Outcome::NotCompared)
    )
}

/// What names each run: its run id, unless two runs share one (a copy of
/// a file): then every run is named by its file.
pub fn labels(runs: &[&RunFile], files: &[String]) -> Vec<String> {
    let ids: Vec<String> = runs.iter().map(|r| r.label()).collect();
    let unique = ids
        .iter()
        .all(|id| ids.iter().filter(|x| *x == id).count() == 1);
    if unique {
        ids
    } else {
        files.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_keep_three_significant_digits() {
        assert_eq!(figure(1700.1158), "1700");
        assert_eq!(figure(16.611), "16.6");
        assert_eq!(figure(1.0918), "1.09");
        assert_eq!(figure(0.07637), "0.076");
    }
}
