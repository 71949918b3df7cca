//! The bends the step detector found (`stair.steps`, `tlb.steps`), their
//! counts by kind, and what each one's position matches, as
//! [`pagewalk_model::judge::steps`] judges it.

use pagewalk_model::judge::steps::{counterpart, step_match, StepAt, StepMatch};
use pagewalk_model::{Regime, Step, StepKind};
use schemars::JsonSchema;
use serde::Serialize;

/// A bend the step detector found.
#[derive(Clone, Serialize, JsonSchema)]
pub struct StepView {
    /// The curve: `small` (4 KiB pages), `huge` or `gigantic` (1 GiB pages).
    pub regime: &'static str,
    /// Where, in bytes (`stair`) or pages (`tlb`).
    pub x: f64,
    /// The same as text (`1 MiB`, `96 pages`).
    pub at: String,
    /// `cache` (stays put with huge pages), `translation` (moves, vanishes, or lands at a clearly different latency with huge pages) or `unclassified` (the other regime could not tell).
    pub kind: &'static str,
    /// The known size within a factor of two it matches, one of the same kind first (`L2 cache (1 MiB)`, `L1 dTLB reach (72 × 4 KiB = 288 KiB)`), or what is known of it when none matches (see `match`).
    pub label: String,
    /// What that known size is (`cache` or `translation`); null when nothing is near. It differs from `kind` when, say, an L1 dTLB reach's step stays put with huge pages in a VM whose host backs guest huge pages with 4 KiB pages.
    pub near_kind: Option<&'static str>,
    /// The plateau before it, from each point's fastest repetition (interference only adds time), ns.
    pub ns_before: f64,
    /// The plateau after it, ns.
    pub ns_after: f64,
    /// `ns_after / ns_before`.
    pub rise: f64,
    /// `matches` (a known size within a factor of two); for a step that stayed put, `as-other-regime` (the other regime's step near it matches one) or `both-regimes` (that matches nothing either: its label reads "no known size near it"); else `unmatched` (labels say "matches no TLB reach" / "matches no known size").
    #[serde(rename = "match")]
    pub matched: Option<StepMatch>,
    /// The table's "curve" cell: `4 KiB pages`, `huge pages` or `1 GiB pages`.
    pub curve: &'static str,
    /// The table's "behaved like" cell: `kind`, or `both regimes, matches no cache size` for a `both-regimes` step.
    pub behaved: &'static str,
    /// The table's "which is a" cell: `TLB reach`, `cache size` or `(none)`.
    pub near: &'static str,
}

/// Steps of the 4 KiB curve, by kind.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct StepCounts {
    /// Cache steps (less those in both regimes).
    pub cache: usize,
    /// Translation steps.
    pub translation: usize,
    /// Unclassified steps (less those in both regimes).
    pub unclassified: usize,
    /// Steps that are `both-regimes`: taken out of the `cache` / `unclassified` counts.
    pub both_regimes: usize,
}

/// `steps` and `step_counts`; `at` writes an x as text.
pub fn steps(steps: &[Step], at: fn(f64) -> String) -> (Vec<StepView>, StepCounts) {
    let list = steps
        .iter()
        .map(|s| {
            let label = match &s.matches {
                Some(m) => m.clone(),
                None => match s.kind {
                    StepKind::Cache => "a cache level".into(),
                    StepKind::Translation => "a TLB level".into(),
                    StepKind::Unclassified => "an unclassified step".into(),
                },
            };
            StepView {
                regime: s.regime.name(),
                x: s.at_x,
                at: at(s.at_x),
                kind: kind_name(s.kind),
                label,
                near_kind: s.matches_kind.map(kind_name),
                ns_before: s.ns_before,
                ns_after: s.ns_after,
                rise: s.ns_after / s.ns_before,
                matched: None,
                curve: match s.regime {
                    Regime::Small => "4 KiB pages",
                    Regime::Huge => "huge pages",
                    Regime::Gigantic => "1 GiB pages",
                },
                behaved: kind_name(s.kind),
                near: match s.matches_kind {
                    Some(StepKind::Translation) => "TLB reach",
                    Some(_) => "cache size",
                    None => "(none)",
                },
            }
        })
        .collect();
    let count = |k| {
        steps
            .iter()
            .filter(|s| s.regime == Regime::Small && s.kind == k)
            .count()
    };
    let counts = StepCounts {
        cache: count(StepKind::Cache),
        translation: count(StepKind::Translation),
        unclassified: count(StepKind::Unclassified),
        both_regimes: 0,
    };
    (list, counts)
}

pub fn kind_name(k: StepKind) -> &'static str {
    match k {
        StepKind::Cache => "cache",
        StepKind::Translation => "translation",
        StepKind::Unclassified => "unclassified",
    }
}

/// The steps as the judge reads them.
pub fn step_list(steps: &[StepView]) -> Vec<StepAt> {
    steps
        .iter()
        .map(|s| StepAt {
            small: s.regime == "small",
            x: s.x,
            translation: s.kind == "translation",
            matched: s.near_kind.is_some(),
        })
        .collect()
}

/// Each step's `match`, and `step_counts.both_regimes`; an unmatched
/// step's label says what is known of it instead of naming a level nothing
/// measured.
pub fn judge(steps: &mut [StepView], counts: &mut StepCounts) {
    let list = step_list(steps);
    // 4 KiB-curve steps in both regimes leave the count of their kind: a
    // step no cache explains is not counted as a cache step.
    let both: Vec<&str> = list
        .iter()
        .zip(steps.iter())
        .filter(|(s, _)| s.small && step_match(**s, &list) == StepMatch::BothRegimes)
        .map(|(_, v)| v.kind)
        .collect();
    for kind in &both {
        let n = match *kind {
            "cache" => &mut counts.cache,
            "translation" => &mut counts.translation,
            _ => &mut counts.unclassified,
        };
        *n = n.saturating_sub(1);
    }
    counts.both_regimes = both.len();
    let labels: Vec<String> = steps.iter().map(|s| s.label.clone()).collect();
    for (step, s) in steps.iter_mut().zip(&list) {
        let m = step_match(*s, &list);
        let label = match (m, s.translation) {
            (StepMatch::AsOtherRegime, _) => counterpart(*s, &list)
                .map(|i| format!("where the other curve's step is: {}", labels[i])),
            (StepMatch::BothRegimes, _) => Some("no known size near it".into()),
            (StepMatch::Unmatched, true) => Some("matches no TLB reach".into()),
            (StepMatch::Unmatched, false) => Some("matches no known size".into()),
            _ => None,
        };
        if let Some(label) = label {
            step.label = label;
        }
        step.matched = Some(m);
        if m == StepMatch::BothRegimes {
            step.behaved = "both regimes, matches no cache size";
        }
    }
}
