//! "Your process" (`your-process.html`) in headless Chromium: every verdict
//! of the inspection the book was built from is in the page, with its
//! evidence, its reason and its chapter link, and its four timelines are
//! drawn with one mark per value.
//!
//! What to expect is read from the same file through the preprocessor's
//! own loading (`DataSet`), never typed in. Off unless
//! `PAGEWALK_BROWSER_TESTS=1`.

use anyhow::{ensure, Context};
use mdbook_pagewalk::DataSet;
use pagewalk_browser_tests::{built_book as book, ensure_charts, workspace_root};
use pagewalk_figures::{build, Role};
use serde_json::{json, Value};

const CHAPTER: &str = "your-process.html";
const TIMELINES: [&str; 4] = [
    "inspect-faults",
    "inspect-switches",
    "inspect-run-queue",
    "inspect-huge-pages",
];

/// The JSON name of an enum value (`first-touch-faults`, `cannot-tell`).
fn key(v: serde_json::Result<Value>) -> String {
    v.ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn every_verdict_and_timeline_of_the_inspection_is_shown() {
    let Some(book) = book("every_verdict_and_timeline_of_the_inspection_is_shown") else {
        return;
    };
    let data = DataSet::load(&workspace_root().join("data")).expect("data/ loads");
    let shown = data
        .inspection
        .as_ref()
        .expect("an inspection in data/ (data/example-inspection/ is committed)");
    let inspection = shown.run.inspect().expect("inspect results");
    book.with_browser(async |browser| {
        let charts = browser.open_charts(&book.server.url(CHAPTER)).await?;
        ensure_charts(CHAPTER, &charts, &TIMELINES)?;
        let file = browser
            .eval("return document.querySelector('main').textContent;")
            .await?;
        ensure!(
            file.as_str().is_some_and(|t| t.contains(&shown.file)),
            "the page does not name the file {}",
            shown.file
        );

        for v in &inspection.verdicts {
            let symptom = key(serde_json::to_value(v.symptom));
            let row = browser
                .eval_with(
                    "const tr = document.querySelector(`table.pw-inspect-verdicts tr[data-symptom='${arguments[0]}']`);
                     return tr && { verdict: tr.dataset.verdict,
                                    cells: [...tr.cells].map(td => td.textContent),
                                    href: tr.querySelector('a') && tr.querySelector('a').getAttribute('href') };",
                    vec![json!(symptom)],
                )
                .await?;
            ensure!(row != Value::Null, "no row for {symptom}");
            ensure!(
                row["verdict"] == json!(key(serde_json::to_value(v.verdict))),
                "{symptom}: verdict {} in the page, {:?} in the file",
                row["verdict"],
                v.verdict
            );
            // A number and its unit are joined by a no-break space in the
            // page (preprocessor/src/tables.rs); the file's text has a space.
            let cells: Vec<String> = serde_json::from_value::<Vec<String>>(row["cells"].clone())?
                .into_iter()
                .map(|c| c.replace('\u{a0}', " "))
                .collect();
            ensure!(
                cells[0] == v.symptom.label() && cells[1] == v.verdict.label(),
                "{symptom}: {cells:?}"
            );
            for e in &v.evidence {
                ensure!(cells[2].contains(&e.text()), "{symptom}: evidence {} missing", e.text());
            }
            ensure!(cells[2].trim_end().ends_with(&v.reason), "{symptom}: reason not in {:?}", cells[2]);
            let want_href = v.symptom.chapter().replacen(".md", ".html", 1);
            ensure!(
                row["href"] == json!(want_href),
                "{symptom}: link {} instead of {want_href}",
                row["href"]
            );
        }

        // Each timeline: one mark per value the file gives it.
        let runs = data.chart_runs();
        for chart in TIMELINES {
            let spec = build(chart, &runs)?;
            let values: usize = spec
                .series
                .iter()
                .filter(|s| matches!(s.role, Role::Run))
                .map(|s| s.points.iter().filter(|p| p.value.is_some()).count())
                .sum();
            let marks = browser.marks(chart).await?;
            let drawn = marks.iter().filter(|m| m.role == "run").count();
            ensure!(
                drawn == values,
                "{chart}: {drawn} marks drawn for {values} values in the file"
            );
            if spec.series.is_empty() {
                let note = browser
                    .text_of(&format!("figure[data-chart='{chart}']"))
                    .await?
                    .context("figure")?;
                ensure!(
                    note.contains("not readable"),
                    "{chart}: no values and no reason"
                );
            }
        }
        Ok(())
    });
}
