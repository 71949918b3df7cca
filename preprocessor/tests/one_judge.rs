//! The chapters and `collector compare` (and the compare page, which runs
//! the same `pagewalk_model::comparison` in wasm) give the same verdict on
//! the same pair of numbers, on every committed run and fixture.
//!
//! A chapter judges two figures of one run (huge pages against 4 KiB
//! pages); a comparison judges one figure in two runs. So each run is
//! copied with one figure replaced by the other (the copy's 4 KiB point is
//! the original's huge-page point), and the comparison of the original
//! with the copy must say what the chapter said, mirrored where the chapter
//! read the pair the other way round.

mod common;

use std::sync::Arc;

use mdbook_pagewalk::data::DataSet;
use pagewalk_model::comparison::{compare_runs, Outcome};
use pagewalk_model::first_touch::Mode;
use pagewalk_model::{read_run, Results, RunFile};
use serde_json::Value;

fn context(fixture: &std::path::Path) -> Value {
    let dir = common::data_dir(fixture);
    let data = DataSet::load(dir.path()).unwrap();
    mdbook_pagewalk::context::build(&Arc::new(data))
}

/// A chapter's verdict (`"slower"`) as the comparison's outcome.
fn outcome(verdict: &Value) -> Option<Outcome> {
    Some(match verdict.as_str()? {
        "slower" => Outcome::Slower,
        "faster" => Outcome::Faster,
        "within-noise" => Outcome::WithinNoise,
        "unstable" => Outcome::Unstable,
        "unrepeated" => Outcome::NotCompared,
        other => panic!("not an order: {other}"),
    })
}

fn mirrored(o: Outcome) -> Outcome {
    match o {
        Outcome::Slower => Outcome::Faster,
        Outcome::Faster => Outcome::Slower,
        o => o,
    }
}

fn row(base: &RunFile, copy: &RunFile, experiment: &str, figure: &str) -> Outcome {
    let c = compare_runs(&[base.clone(), copy.clone()]);
    let r = c
        .rows
        .iter()
        .find(|r| r.experiment == experiment && r.figure == figure)
        .unwrap_or_else(|| panic!("no row {experiment} / {figure}"));
    r.outcome
}

#[test]
fn chapters_and_comparisons_judge_the_same_pair_alike() {
    let mut compared = 0;
    let mut outcomes = std::collections::BTreeSet::new();
    for fixture in common::fixtures() {
        let name = fixture.file_name().unwrap().to_string_lossy().to_string();
        let run = read_run(&fixture).unwrap();
        if run.noise().is_some_and(|_| run.experiments.len() == 1) {
            continue;
        }
        let ctx = context(&fixture);

        // Huge pages against 4 KiB pages at thp's largest size: the chapter
        // reads 4 KiB against huge; the comparison the copy's 4 KiB point
        // (the original's huge one) against the original's.
        let thp = run.experiments.iter().find_map(|e| match &e.results {
            Some(Results::Thp(t)) if e.status == pagewalk_model::Status::Ok => Some(t),
            _ => None,
        });
        if let Some(t) = thp.filter(|t| t.sizes.len() >= 2) {
            let last = t.sizes.len() - 1;
            let size = &t.sizes[last];
            if let (Some(_), Some(huge)) = (&size.small, &size.huge) {
                let chapter = &ctx["thp"]["sizes"][last]["small_vs_huge"];
                let want = outcome(chapter).unwrap_or_else(|| panic!("{name}: no thp verdict"));
                let mut copy = run.clone();
                for e in &mut copy.experiments {
                    if let Some(Results::Thp(t)) = &mut e.results {
                        t.sizes[last].small = Some(huge.clone());
                    }
                }
                let got = row(&run, &copy, "thp", "4 KiB pages, largest region");
                assert_eq!(got, mirrored(want), "{name}: thp at the largest size");
                outcomes.insert(format!("{want:?}"));
                compared += 1;
            }
        }

        // The hugepage first pass against the nohugepage one: the copy's
        // nohugepage first pass is the original's hugepage one, which is
        // the chapter's reading of the pair.
        let ft = run.experiments.iter().find_map(|e| match &e.results {
            Some(Results::FirstTouch(f)) if e.status == pagewalk_model::Status::Ok => Some(f),
            _ => None,
        });
        let first = |f: &pagewalk_model::FirstTouchResults, m: Mode| {
            f.modes
                .iter()
                .find(|x| x.mode == m && x.skipped.is_none())
                .and_then(|x| x.summary.first_pass.clone())
        };
        if let Some(f) = ft {
            if let (Some(huge), Some(_)) = (first(f, Mode::Hugepage), first(f, Mode::Nohugepage)) {
                let chapter = &ctx["ft"]["verdict"]["hugepage_first"];
                let want = outcome(chapter).unwrap_or_else(|| panic!("{name}: no ft verdict"));
                let mut copy = run.clone();
                for e in &mut copy.experiments {
                    if let Some(Results::FirstTouch(f)) = &mut e.results {
                        for m in f.modes.iter_mut().filter(|m| m.mode == Mode::Nohugepage) {
                            m.summary.first_pass = Some(huge.clone());
                        }
                    }
                }
                let figure = format!("{} first pass", Mode::Nohugepage.name());
                let got = row(&run, &copy, "first-touch", &figure);
                assert_eq!(got, want, "{name}: hugepage first pass");
                outcomes.insert(format!("{want:?}"));
                compared += 1;
            }
        }
    }
    assert!(compared >= 10, "only {compared} pairs compared");
    // The fixtures must exercise more than one outcome, or agreement
    // proves little.
    assert!(outcomes.len() >= 2, "every pair came out {outcomes:?}");
}

#[test]
fn the_chapters_floor_is_the_comparisons_floor() {
    for fixture in common::fixtures() {
        let run = read_run(&fixture).unwrap();
        let ctx = context(&fixture);
        let chapter = ctx["noise"]["floor"].as_f64();
        assert_eq!(
            chapter,
            pagewalk_model::comparison::noise_floor(&run),
            "{}",
            fixture.display()
        );
    }
}
