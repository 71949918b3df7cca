//! "Compare runs" (`compare-runs.html`) in headless Chromium: two run
//! files dropped on the page get the verdict table `collector compare`
//! prints, computed in the page by the model's own rule, and each file is
//! laid over every chart of the page it has numbers for.
//!
//! The expected rows are recomputed here from the same JSON with
//! `pagewalk_model::comparison`, never typed in: a run against itself is
//! within noise in every row; against a copy with one figure doubled,
//! exactly that figure's row is slower. Off unless
//! `PAGEWALK_BROWSER_TESTS=1`. No timing is asserted.

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::{built_book as book, workspace_root, Browser};
use pagewalk_figures::{build, Role, CHART_NAMES};
use pagewalk_model::comparison::display::cells;
use pagewalk_model::comparison::{compare_named, Outcome, RunComparison};
use pagewalk_model::{parse_run, RunFile};
use serde_json::{json, Value};

const CHAPTER: &str = "compare-runs.html";
const VERDICTS: &str = "section.pw-lab[data-lab=\"compare\"] .pw-lab-verdicts";
/// Parsing and comparing two files on a busy two-core machine.
const TIMEOUT: Duration = Duration::from_secs(120);

fn example_text() -> String {
    let dir = workspace_root().join("data/example");
    let path = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("an example run in data/example");
    std::fs::read_to_string(path).unwrap()
}

/// The example with its first first-touch mode's first pass doubled (every
/// statistic of it, so its spread stays the same).
fn doubled(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    let experiments = v["experiments"].as_array_mut().unwrap();
    let ft = experiments
        .iter_mut()
        .find(|e| e["name"] == "first-touch")
        .expect("the example has first-touch");
    let s = &mut ft["results"]["first-touch"]["modes"][0]["summary"]["first_pass"]["ns_per_page"];
    for k in ["min", "median", "max", "mean"] {
        s[k] = json!(s[k].as_f64().unwrap() * 2.0);
    }
    v.to_string()
}

/// What the page must show: the model's comparison of the same texts,
/// named as the page names them (the ids are the same, so by file).
fn expected(files: &[(&str, &str)]) -> RunComparison {
    let runs: Vec<RunFile> = files
        .iter()
        .map(|(name, text)| parse_run(name, text).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let named: Vec<(String, &RunFile)> = files
        .iter()
        .map(|(name, _)| name.to_string())
        .zip(&runs)
        .collect();
    compare_named(&named)
}

/// Drops `files` (name, text) on the compare lab together, as a reader
/// dragging two files from a folder.
async fn drop_files(browser: &Browser, files: &[(&str, &str)]) -> Result<()> {
    let list: Vec<Value> = files
        .iter()
        .map(|(n, t)| json!({ "name": n, "text": t }))
        .collect();
    browser
        .eval_with(
            "const dt = new DataTransfer();
             for (const f of arguments[0]) dt.items.add(new File([f.text], f.name, { type: 'application/json' }));
             const zone = document.querySelector('section.pw-lab[data-lab=\"compare\"] .pw-lab-drop');
             zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
             zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
             return null;",
            vec![Value::Array(list)],
        )
        .await?;
    Ok(())
}

/// Each figure's row of the page's table: `[experiment, figure, outcome,
/// cells...]`. The noise basis is said once, above the table, never in a
/// row under each figure (as it once was, 53 times).
async fn page_rows(browser: &Browser, rows: usize) -> Result<Vec<Vec<String>>> {
    browser
        .wait_for_within(
            &format!(
                "(() => {{ const b = document.querySelector('{VERDICTS}');
                           return b && !b.hidden && b.querySelectorAll('tbody tr[data-outcome]').length === {rows}; }})()"
            ),
            TIMEOUT,
        )
        .await
        .context("the verdict table did not appear with every row")?;
    let got = browser
        .eval(&format!(
            "return [...document.querySelectorAll('{VERDICTS} tbody tr[data-outcome]')].map(tr =>
               [tr.dataset.experiment, tr.dataset.figure, tr.dataset.outcome,
                ...[...tr.cells].map(td => td.textContent)]);"
        ))
        .await?;
    let once = browser
        .eval(&format!(
            "const b = document.querySelector('{VERDICTS}');
             return [b.querySelectorAll('tbody tr:not([data-outcome])').length,
                     b.querySelectorAll('.pw-verdict-rule').length,
                     b.querySelector('.pw-verdict-rule').textContent];"
        ))
        .await?;
    ensure!(
        once[0] == json!(0) && once[1] == json!(1),
        "the noise basis should be said once, above the table: {once}"
    );
    ensure!(
        once[2].as_str().is_some_and(|r| r.contains("A-vs-A floor")),
        "the rule does not say what the noise is: {once}"
    );
    Ok(serde_json::from_value(got)?)
}

fn outcome_key(o: Outcome) -> String {
    serde_json::to_value(o)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The page's rows hold the model's rows, cell for cell, in order, each
/// figure named as the book names it (the model's `label`, not the name
/// `collector compare` prints).
fn ensure_same_rows(got: &[Vec<String>], want: &RunComparison) -> Result<()> {
    ensure!(
        got.len() == want.rows.len(),
        "{} rows, want {}",
        got.len(),
        want.rows.len()
    );
    for (g, w) in got.iter().zip(&want.rows) {
        let mut cells_want = vec![w.experiment.clone(), w.label.clone()];
        cells_want.extend(cells(w));
        ensure!(
            g[0] == w.experiment && g[1] == w.figure && g[2] == outcome_key(w.outcome),
            "row {g:?} is not {} / {} ({:?})",
            w.experiment,
            w.figure,
            w.outcome
        );
        ensure!(
            g[3..] == cells_want[..],
            "cells {:?}, want {cells_want:?}",
            &g[3..]
        );
    }
    Ok(())
}

/// Each figure of a mode, an allocator path or a system call is named in
/// the table as its chart names it (`MADV_NOHUGEPAGE, first pass`, not
/// `nohugepage first pass`): by the label of the chart's category whose
/// key the figure's name starts with.
fn ensure_books_labels(got: &[Vec<String>], run: &RunFile) -> Result<()> {
    let mut checked = 0;
    for (experiment, chart) in [
        ("first-touch", "first-touch-ns-per-page"),
        ("alloc", "alloc-latency"),
        ("syscall", "syscall-floor"),
    ] {
        let spec = build(chart, &[run])?;
        for row in got.iter().filter(|r| r[0] == experiment) {
            let id = row[1].split(' ').next().unwrap_or_default();
            let category = spec
                .categories
                .iter()
                .find(|c| c.key == id)
                .with_context(|| format!("{chart} has no category {id:?} for {:?}", row[1]))?;
            ensure!(
                row[4].starts_with(&format!("{}, ", category.label)),
                "{experiment} / {}: shown as {:?}, its chart calls it {:?}",
                row[1],
                row[4],
                category.label
            );
            checked += 1;
        }
    }
    ensure!(
        checked >= 10,
        "only {checked} figures named by their charts"
    );
    Ok(())
}

async fn open(browser: &Browser, url: &str) -> Result<Vec<String>> {
    let charts = browser.open_charts(url).await?;
    browser
        .wait_for("window.pagewalkLab && document.querySelector('section.pw-lab[data-lab=\"compare\"]').dataset.pwLabState === 'idle'")
        .await
        .context("the compare lab was not wired")?;
    Ok(charts)
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn a_run_against_itself_is_within_noise_and_both_files_are_on_every_chart() {
    let Some(book) = book("a_run_against_itself_is_within_noise_and_both_files_are_on_every_chart")
    else {
        return;
    };
    let text = example_text();
    let files = [("a.json", text.as_str()), ("b.json", text.as_str())];
    let want = expected(&files);
    assert!(
        want.rows.iter().all(|r| r.outcome == Outcome::WithinNoise),
        "the model itself says a run differs from itself"
    );
    let run = parse_run("a.json", &text).unwrap();
    book.with_browser(async |browser| {
        let charts = open(browser, &book.server.url(CHAPTER)).await?;
        let book_charts: Vec<&String> = charts
            .iter()
            .filter(|c| CHART_NAMES.contains(&c.as_str()))
            .collect();
        ensure!(
            book_charts.len() >= 5,
            "the page has only {book_charts:?} of the book's charts"
        );
        drop_files(browser, &files).await?;
        let rows = page_rows(browser, want.rows.len()).await?;
        ensure_same_rows(&rows, &want)?;
        ensure_books_labels(&rows, &run)?;
        ensure!(
            rows.iter().all(|r| r[2] == "within-noise"),
            "a row of a run against itself is not within noise"
        );
        let setup = browser
            .text_of(&format!("{VERDICTS} .pw-verdict-setup"))
            .await?
            .unwrap_or_default();
        ensure!(setup.contains("the same in every run"), "setup: {setup}");

        // Both files on every chart the run has numbers for.
        for chart in book_charts {
            let spec = build(chart, &[&run])?;
            let has = spec
                .series
                .iter()
                .any(|s| matches!(s.role, Role::Run) && s.points.iter().any(|p| p.value.is_some()));
            if !has {
                continue;
            }
            let marks = browser.marks(chart).await?;
            for name in ["a.json", "b.json"] {
                ensure!(
                    marks.iter().any(|m| m.role == "file"
                        && (m.series == name || m.series.starts_with(&format!("{name}: ")))),
                    "{chart}: no marks of {name}"
                );
            }
        }
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn a_doubled_figure_is_the_one_slower_row_and_names_stay_text() {
    let Some(book) = book("a_doubled_figure_is_the_one_slower_row_and_names_stay_text") else {
        return;
    };
    let text = example_text();
    let copy = doubled(&text);
    // A file name is the reader's: markup in it must stay characters.
    let hostile = "<img src=x onerror=\"window.pwOwned=1\">doubled.json";
    let files = [("baseline.json", text.as_str()), (hostile, copy.as_str())];
    let want = expected(&files);
    let slower: Vec<(String, String)> = want
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::Slower)
        .map(|r| (r.experiment.clone(), r.figure.clone()))
        .collect();
    assert_eq!(
        slower.len(),
        1,
        "the model should find one slower figure: {slower:?}"
    );
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        drop_files(browser, &files).await?;
        let rows = page_rows(browser, want.rows.len()).await?;
        ensure_same_rows(&rows, &want)?;
        let page_slower: Vec<(String, String)> = rows
            .iter()
            .filter(|r| r[2] != "within-noise")
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect();
        ensure!(
            page_slower == slower,
            "rows not within noise: {page_slower:?}, want only {slower:?} slower"
        );
        let runs = browser
            .text_of(&format!("{VERDICTS} .pw-verdict-runs"))
            .await?
            .unwrap_or_default();
        ensure!(runs.contains(hostile), "the run list lost the file name: {runs}");
        let injected = browser
            .eval(&format!(
                "return document.querySelectorAll('{VERDICTS} img').length + (window.pwOwned ? 100 : 0);"
            ))
            .await?;
        ensure!(injected == json!(0), "a file name became markup ({injected})");
        Ok(())
    });
}

/// On a phone the drop zone is on the first screen, before the page
/// explains the rule (it was two screens down), and at both widths its
/// file chooser is a 44 px target.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn the_drop_zone_is_on_a_phones_first_screen() {
    let Some(book) = book("the_drop_zone_is_on_a_phones_first_screen") else {
        return;
    };
    book.with_browser(async |browser| {
        for width in [390, 1280] {
            browser.set_width(width).await?;
            open(browser, &book.server.url(CHAPTER)).await?;
            let v = browser
                .eval(
                    "const zone = document.querySelector('section.pw-lab[data-lab=\"compare\"] .pw-lab-drop');
                     const choose = zone.querySelector('label:has(input[type=file])');
                     const rule = document.getElementById('the-rule');
                     const z = zone.getBoundingClientRect(), c = choose.getBoundingClientRect();
                     return [z.bottom, innerHeight, !!(rule.compareDocumentPosition(zone) & Node.DOCUMENT_POSITION_PRECEDING),
                             c.width, c.height];",
                )
                .await?;
            let f = |i: usize| v[i].as_f64().unwrap_or(f64::NAN);
            if width < 600 {
                ensure!(
                    f(0) <= f(1),
                    "{width} px: the drop zone ends at {} px, below the first screen ({} px)",
                    f(0),
                    f(1)
                );
            }
            ensure!(v[2] == json!(true), "the drop zone comes after the rule");
            ensure!(
                f(3) >= 44.0 && f(4) >= 44.0,
                "{width} px: the file chooser is {} x {} px",
                f(3),
                f(4)
            );
        }
        Ok(())
    });
}
