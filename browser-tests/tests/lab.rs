//! The in-page experiments of `in-your-browser.html` in headless Chromium:
//! each experiment runs at a small size and its results appear in its
//! chart; the TLB model follows its sliders; a collector file loaded
//! through the file input is laid over every chart it has numbers for, and
//! corrupt or newer files are refused with a message naming them; Cancel
//! ends a long run's worker and leaves the page usable; a refused memory
//! grow is reported in the page; the labs work from `file://`; results are
//! kept only when the reader asks.
//!
//! Off unless `PAGEWALK_BROWSER_TESTS=1`, like `book.rs`. No timing is
//! asserted: only that numbers appear, where and under which names.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::thirtyfour::prelude::*;
use pagewalk_browser_tests::{
    any_mark_js, built_book as book, chart_css, ensure_charts, file_url, workspace_root, Browser,
    Mark,
};
use serde_json::{json, Value};

const CHAPTER: &str = "in-your-browser.html";
const FIRST_TOUCH: &str = "lab-first-touch";
const CHASE: &str = "lab-chase";
const MODEL: &str = "lab-tlb-model";
const NS_PER_PAGE: &str = "first-touch-ns-per-page";
/// Long enough for a small experiment on a busy two-core machine.
const RUN_TIMEOUT: Duration = Duration::from_secs(180);
/// A mark predicate (see `any_mark_js`): drawn from this browser's results.
const FROM_THE_BROWSER: &str = "m.dataset.role === 'browser'";
/// The compare lab's "keep my results" checkbox.
const KEEP: &str = "section.pw-lab[data-lab=\"compare\"] [name=\"keep\"]";

/// The CSS selector of lab `lab`'s section.
fn lab_css(lab: &str) -> String {
    format!("section.pw-lab[data-lab=\"{lab}\"]")
}

/// Opens the chapter and waits for its charts and its labs to be wired.
async fn open(browser: &Browser, url: &str) -> Result<()> {
    let charts = browser.open_charts(url).await?;
    ensure_charts(url, &charts, &[FIRST_TOUCH, CHASE, MODEL, NS_PER_PAGE])?;
    browser
        .wait_for("window.pagewalkLab && document.querySelector('section.pw-lab[data-lab=\"chase\"]').dataset.pwLabState === 'idle'")
        .await
        .context("the labs were not wired (theme/pagewalk-lab.js)")?;
    // Nothing has asked for a worker yet: the experiments' bundle is not
    // even downloaded until a Run (or a control of the model) needs it.
    let loaded = browser
        .eval(
            "return !!window.pagewalkLabWorkerMain
                || [...document.scripts].some(s => /pagewalk-lab-worker/.test(s.src));",
        )
        .await?;
    ensure!(
        loaded == json!(false),
        "{url}: the lab worker was loaded before any Run"
    );
    Ok(())
}

/// Sets a lab's control (select or input) to `value`, as a reader would.
async fn set(browser: &Browser, lab: &str, name: &str, value: &str) -> Result<()> {
    browser
        .set_value(&format!("{} [name=\"{name}\"]", lab_css(lab)), value)
        .await
}

/// Clicks a lab's button of class `button`.
async fn click(browser: &Browser, lab: &str, button: &str) -> Result<()> {
    browser.click(&format!("{} .{button}", lab_css(lab))).await
}

fn state_is(lab: &str, states: &[&str]) -> String {
    format!(
        "{}.includes(document.querySelector('section.pw-lab[data-lab=\"{lab}\"]').dataset.pwLabState)",
        json!(states)
    )
}

/// The text of a lab's element of class `class`.
async fn lab_text(browser: &Browser, lab: &str, class: &str) -> Result<String> {
    browser
        .text_of(&format!("{} .{class}", lab_css(lab)))
        .await?
        .with_context(|| format!("{lab}: no .{class}"))
}

/// Runs an experiment through its Run button and waits for it to finish.
async fn run_lab(browser: &Browser, lab: &str) -> Result<()> {
    click(browser, lab, "pw-lab-run").await?;
    browser
        .wait_for(&state_is(lab, &["running", "done", "error"]))
        .await?;
    browser
        .wait_for_within(&state_is(lab, &["done", "error"]), RUN_TIMEOUT)
        .await
        .with_context(|| format!("{lab} did not finish"))?;
    let error = lab_text(browser, lab, "pw-lab-error")
        .await
        .unwrap_or_default();
    let state = browser
        .eval_with(
            "return document.querySelector(`section.pw-lab[data-lab=\"${arguments[0]}\"]`).dataset.pwLabState;",
            vec![json!(lab)],
        )
        .await?;
    ensure!(state == json!("done"), "{lab} ended in {state}: {error}");
    Ok(())
}

fn by_role<'a>(marks: &'a [Mark], role: &str) -> Vec<&'a Mark> {
    marks.iter().filter(|m| m.role == role).collect()
}

fn assert_positive(chart: &str, marks: &[&Mark]) -> Result<()> {
    for m in marks {
        m.ensure_accessible(chart)?;
        ensure!(
            m.value >= 0.0,
            "{chart}: a browser mark with a negative value: {m:?}"
        );
    }
    Ok(())
}

/// The chase's region sizes for a bound in KiB: powers of two from 16 KiB.
fn chase_sizes(max_kib: u64) -> usize {
    (4..=max_kib.ilog2()).count()
}

/// Runs first touch at its smallest plan: 16 MiB, once.
async fn run_small_first_touch(browser: &Browser) -> Result<()> {
    set(browser, "first-touch", "max-mib", "16").await?;
    set(browser, "first-touch", "repetitions", "1").await?;
    run_lab(browser, "first-touch").await
}

/// Runs the chase up to 1 MiB, three samples per size; returns its chart's
/// marks, which must hold one browser mark per size.
async fn run_small_chase(browser: &Browser) -> Result<Vec<Mark>> {
    set(browser, "chase", "max-kib", "1024").await?;
    set(browser, "chase", "samples", "3").await?;
    run_lab(browser, "chase").await?;
    let marks = browser.marks(CHASE).await?;
    let mine = by_role(&marks, "browser");
    ensure!(
        mine.len() == chase_sizes(1024),
        "{CHASE}: {} browser marks, one per size expected: {mine:?}",
        mine.len()
    );
    Ok(marks)
}

/// Whether chart `chart` is on the page for a reader (laid out, not
/// hidden), and, when it is not, its lab says what will appear there.
async fn chart_shown(browser: &Browser, chart: &str) -> Result<bool> {
    let v = browser
        .eval_with(
            "const f = document.querySelector(`figure.pw-chart[data-chart=\"${arguments[0]}\"]`);
             const lab = f.closest('section.pw-lab');
             const empty = lab.querySelector('.pw-lab-empty');
             const seen = (e) => !!e && e.getClientRects().length > 0 && e.getBoundingClientRect().height > 0;
             return [seen(f), seen(empty), f.getBoundingClientRect().height];",
            vec![json!(chart)],
        )
        .await?;
    let shown = v[0] == json!(true);
    ensure!(
        shown != (v[1] == json!(true)),
        "{chart}: the chart and its placeholder should take turns: {v}"
    );
    Ok(shown)
}

/// Fails when a lab's worker is still alive after `what`.
async fn ensure_no_live_workers(browser: &Browser, what: &str) -> Result<()> {
    let live = browser
        .eval("return window.pagewalkLab.liveWorkers();")
        .await?;
    ensure!(live == json!(0), "{live} lab workers outlived {what}");
    Ok(())
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn experiments_fill_their_charts() {
    let Some(book) = book("experiments_fill_their_charts") else {
        return;
    };
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        // No chart before there is data: each lab's chart waits, hidden,
        // with a line saying what will appear (the first-touch one once
        // spanned 1 GiB to 2 GiB with every point pinned to an edge).
        for chart in [FIRST_TOUCH, CHASE, MODEL] {
            ensure!(
                !chart_shown(browser, chart).await?,
                "{chart} is drawn before this browser has any result"
            );
        }

        // The placeholder holds the figure's place: the figure that takes
        // its turn moves the text below by a fraction of its height, not
        // by all of it (a layout shift as the results arrive).
        let height = |what: &'static str| async move {
            let v = browser
                .eval_with(
                    "const f = document.querySelector(`figure.pw-chart[data-chart=\"${arguments[0]}\"]`);
                     const lab = f.closest('section.pw-lab');
                     const e = arguments[1] === 'empty' ? lab.querySelector('.pw-lab-empty') : f.closest('.pw-lab-chart');
                     const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
                     return r.height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom);",
                    vec![json!(FIRST_TOUCH), json!(what)],
                )
                .await?;
            anyhow::Ok(v.as_f64().unwrap_or(0.0))
        };
        let placeholder = height("empty").await?;

        // First touch at the smallest plan: 16 MiB, once.
        run_small_first_touch(browser).await?;
        ensure!(
            chart_shown(browser, FIRST_TOUCH).await?,
            "{FIRST_TOUCH} stayed hidden after its run"
        );
        let drawn = height("chart").await?;
        ensure!(
            drawn > 0.0 && (drawn - placeholder).abs() <= 0.25 * drawn,
            "{FIRST_TOUCH}: its placeholder was {placeholder:.0} px tall, the figure that replaced it {drawn:.0} px: the page below moved by the difference"
        );
        let marks = browser.marks(FIRST_TOUCH).await?;
        let mine = by_role(&marks, "browser");
        let names: BTreeSet<&str> = mine.iter().map(|m| m.series.as_str()).collect();
        // memory.grow may end within one tick of a coarse clock: then it is
        // a gap (n/a with the reason in the table), not a mark, and at
        // every size it is not a series at all (said in the summary).
        let all = BTreeSet::from([
            "this browser: first pass",
            "this browser: memory.grow",
            "this browser: second pass",
        ]);
        ensure!(
            names.is_subset(&all)
                && names.contains("this browser: first pass")
                && names.contains("this browser: second pass"),
            "{FIRST_TOUCH}: browser series {names:?}"
        );
        ensure!(
            mine.iter().all(|m| m.category == "16"),
            "{FIRST_TOUCH}: {mine:?}"
        );
        assert_positive(FIRST_TOUCH, &mine)?;
        ensure!(
            !by_role(&marks, "run").is_empty(),
            "{FIRST_TOUCH}: the example run is gone"
        );
        let summary = lab_text(browser, "first-touch", "pw-lab-summary").await?;
        ensure!(
            summary.contains("timer step"),
            "first-touch summary: {summary}"
        );
        // A grow the clock never saw is left off the chart and said once.
        ensure!(
            names.contains("this browser: memory.grow")
                || summary.contains("Not drawn: memory.grow, at most one timer step"),
            "first-touch: memory.grow neither drawn nor said: {summary}"
        );

        // The chase up to 1 MiB, three samples per size.
        let marks = run_small_chase(browser).await?;
        let mine = by_role(&marks, "browser");
        assert_positive(CHASE, &mine)?;
        ensure!(
            mine.iter().all(|m| m.value > 0.0),
            "{CHASE}: a zero latency: {mine:?}"
        );
        // The same series over the collector's staircase chart, where the page has it.
        let on_staircase = by_role(&browser.marks("staircase").await?, "browser").len();
        ensure!(
            on_staircase == mine.len(),
            "staircase: {on_staircase} browser marks, the chase has {}",
            mine.len()
        );
        let summary = lab_text(browser, "chase", "pw-lab-summary").await?;
        let isolated = browser.eval("return self.crossOriginIsolated;").await?;
        let said = format!(
            "cross-origin isolated: {}",
            if isolated == json!(true) { "yes" } else { "no" }
        );
        ensure!(
            summary.contains("timer step") && summary.contains(&said),
            "chase summary should give the timer step and {said:?}: {summary}"
        );
        let results = browser
            .eval("return window.pagewalkLab.results.chase.report;")
            .await?;
        ensure!(
            results["timer"]["resolution_ns"]
                .as_f64()
                .is_some_and(|r| r > 0.0),
            "no timer step measured: {results}"
        );

        // The TLB model (drawn once a control moves) follows the entries slider.
        let values: Vec<u64> = browser
            .eval("return document.querySelector('[name=\"entries\"]').dataset.values;")
            .await?
            .as_str()
            .unwrap_or_default()
            .split(',')
            .filter_map(|v| v.parse().ok())
            .collect();
        let at = values
            .iter()
            .position(|&v| v == 256)
            .context("256 entries on the slider")?;
        set(browser, "tlb-model", "entries", &at.to_string()).await?;
        browser
            .wait_for_mark(
                MODEL,
                "m.dataset.series.startsWith('model: 256 entries')",
                RUN_TIMEOUT,
            )
            .await?;
        let reach = lab_text(browser, "tlb-model", "pw-lab-reach").await?;
        ensure!(
            reach.contains("reach 1 MiB"),
            "256 × 4 KiB should read reach 1 MiB: {reach}"
        );
        // The reach is a marker on the model's chart and on the chase's.
        for chart in [MODEL, CHASE] {
            let marker = browser
                .eval_with(
                    "const m = document.querySelector(`figure.pw-chart[data-chart=\"${arguments[0]}\"] .pw-marker[data-kind=\"tlb\"]`);
                     return m ? [m.getAttribute('aria-label'), m.getAttribute('data-value')] : [null, null];",
                    vec![json!(chart)],
                )
                .await?;
            ensure!(
                marker[0]
                    .as_str()
                    .is_some_and(|l| l.contains("256 × 4 KiB = 1 MiB"))
                    && marker[1] == json!("1048576"),
                "{chart}: the model's reach marker should be at 1 MiB: {marker}"
            );
        }
        let model = by_role(&browser.marks(MODEL).await?, "browser").len();
        ensure!(model > 0, "{MODEL}: no model marks");

        ensure_no_live_workers(browser, "the runs").await?;
        Ok(())
    });
}

/// The committed example run.
fn example_file() -> PathBuf {
    let dir = workspace_root().join("data/example");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("an example run in data/example")
}

async fn send_file(browser: &Browser, path: &std::path::Path) -> Result<()> {
    let input = browser
        .driver()
        .find(By::Css(
            "section.pw-lab[data-lab=\"compare\"] input[type=\"file\"]",
        ))
        .await
        .context("the compare lab has no file input")?;
    input
        .send_keys(path.to_string_lossy().as_ref())
        .await
        .with_context(|| format!("sending {} to the file input", path.display()))?;
    Ok(())
}

async fn mark_counts(browser: &Browser) -> Result<Value> {
    browser
        .eval(
            "const out = {};
             for (const f of document.querySelectorAll('figure.pw-chart'))
               out[f.dataset.chart] = f.querySelectorAll('.pw-chart-plot svg [data-series]').length;
             return out;",
        )
        .await
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn loaded_files_overlay_every_chart_and_bad_ones_are_named() {
    let Some(book) = book("loaded_files_overlay_every_chart_and_bad_ones_are_named") else {
        return;
    };
    let example = example_file();
    let name = example.file_name().unwrap().to_string_lossy().into_owned();
    let scratch = tempfile::tempdir().unwrap();
    let broken = scratch.path().join("broken.json");
    std::fs::write(&broken, "{ \"schema_version\": 1, \"provenance\": ").unwrap();
    let newer = scratch.path().join("from-the-future.json");
    let text = std::fs::read_to_string(&example).unwrap();
    // One impossible number broke every chart of the page until reload.
    let extreme = scratch.path().join("extreme.json");
    std::fs::write(
        &extreme,
        text.replacen(
            "\"ns_per_page\": ",
            "\"ns_per_page\": 1.7e308, \"was\": ",
            1,
        ),
    )
    .unwrap();
    // Latin-1 bytes: the CLI refuses them, so the page must too.
    let latin1 = scratch.path().join("latin1.json");
    std::fs::write(&latin1, [text.as_bytes(), b" \xE9"].concat()).unwrap();
    // A version no build reads yet, whatever the current one is.
    let mut future: Value = serde_json::from_str(&text).unwrap();
    future["schema_version"] = json!(u32::MAX);
    std::fs::write(&newer, future.to_string()).unwrap();
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        let before = mark_counts(browser).await?;

        send_file(browser, &example).await?;
        browser
            .wait_for_mark(
                NS_PER_PAGE,
                &format!(
                    "m.dataset.series === {} && m.dataset.role === 'file'",
                    json!(format!("{name}: first pass"))
                ),
                RUN_TIMEOUT,
            )
            .await
            .context("the loaded file's series never appeared")?;
        // Every chart the file has numbers for carries it, next to the run.
        for chart in [NS_PER_PAGE, FIRST_TOUCH] {
            let marks = browser.marks(chart).await?;
            let file: Vec<&Mark> = by_role(&marks, "file");
            ensure!(
                !file.is_empty()
                    && file
                        .iter()
                        .all(|m| m.series == name || m.series.starts_with(&format!("{name}: "))),
                "{chart}: file marks should be named after {name}: {file:?}"
            );
            ensure!(
                !by_role(&marks, "run").is_empty(),
                "{chart}: the run's marks are gone"
            );
            // The file is the example run: its values are the run's.
            let run_values: Vec<&str> = by_role(&marks, "run")
                .iter()
                .map(|m| m.value_text.as_str())
                .collect();
            ensure!(
                file.iter()
                    .all(|m| run_values.contains(&m.value_text.as_str())),
                "{chart}: the file's values are not the run's: {file:?} vs {run_values:?}"
            );
            let table = browser
                .text_of(&format!("{} .pw-chart-data", chart_css(chart)))
                .await?
                .unwrap_or_default();
            ensure!(
                table.contains(&name),
                "{chart}: the data table does not list {name}"
            );
        }
        let listed = lab_text(browser, "compare", "pw-lab-files").await?;
        ensure!(
            listed.contains(&name),
            "the file list does not show {name}: {listed}"
        );
        let with_file = mark_counts(browser).await?;

        // A corrupt file and a newer one: refused, named, nothing changes.
        for (path, expect) in [
            (&broken, vec!["broken.json", "not valid JSON"]),
            (
                &newer,
                vec!["from-the-future.json", "schema_version", "newer"],
            ),
            (
                &extreme,
                vec!["extreme.json", "ns_per_page", "more than an hour"],
            ),
            (&latin1, vec!["latin1.json", "not UTF-8 text"]),
        ] {
            send_file(browser, path).await?;
            browser
                .wait_for_within(
                    &format!(
                        "(() => {{ const e = document.querySelector('section.pw-lab[data-lab=\"compare\"] .pw-lab-error');
                                   return !e.hidden && e.textContent.includes({}); }})()",
                        json!(expect[0])
                    ),
                    RUN_TIMEOUT,
                )
                .await?;
            let message = lab_text(browser, "compare", "pw-lab-error").await?;
            for word in &expect {
                ensure!(
                    message.contains(word),
                    "the message for {} lacks {word:?}: {message}",
                    path.display()
                );
            }
            ensure!(
                mark_counts(browser).await? == with_file,
                "a refused file changed the charts"
            );
            ensure!(
                !message.contains("unreachable"),
                "a trap's word reached the reader: {message}"
            );
        }

        // Dropped on the drop zone, the same run under another name joins it.
        browser
            .eval_with(
                "const dt = new DataTransfer();
                 dt.items.add(new File([arguments[0]], 'dropped.json', { type: 'application/json' }));
                 const zone = document.querySelector('section.pw-lab[data-lab=\"compare\"] .pw-lab-drop');
                 zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
                 zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
                 return null;",
                vec![json!(text)],
            )
            .await?;
        browser
            .wait_for_mark(
                NS_PER_PAGE,
                "m.dataset.series === 'dropped.json: first pass' && m.dataset.role === 'file'",
                RUN_TIMEOUT,
            )
            .await
            .context("a dropped file's series never appeared")?;
        browser
            .eval("document.querySelector('.pw-lab-files li[data-file=\"dropped.json\"] .pw-lab-remove').click(); return null;")
            .await?;
        browser
            .wait_for("!document.querySelector('[data-series^=\"dropped.json: \"]')")
            .await?;

        // Remove takes the file off every chart again.
        click(browser, "compare", "pw-lab-remove").await?;
        browser
            .wait_for("!document.querySelector('figure.pw-chart [data-role=\"file\"]')")
            .await?;
        ensure!(
            mark_counts(browser).await? == before,
            "removing the file did not restore the charts"
        );
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn cancel_ends_a_long_run_and_the_page_stays_usable() {
    let Some(book) = book("cancel_ends_a_long_run_and_the_page_stays_usable") else {
        return;
    };
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        set(browser, "chase", "max-kib", "1048576").await?;
        set(browser, "chase", "samples", "9").await?;
        set(browser, "chase", "time-cap-s", "600").await?;
        click(browser, "chase", "pw-lab-run").await?;
        browser
            .wait_for_within(
                "window.pagewalkLab.liveWorkers() === 1 && window.pagewalkLab.running().includes('chase')
                 && document.querySelector('section.pw-lab[data-lab=\"chase\"] .pw-lab-progress').value > 0",
                RUN_TIMEOUT,
            )
            .await
            .context("the long chase did not start")?;
        click(browser, "chase", "pw-lab-cancel").await?;
        browser.wait_for(&state_is("chase", &["idle"])).await?;
        ensure_no_live_workers(browser, "Cancel").await?;
        ensure!(browser.eval("return window.pagewalkLab.running();").await? == json!([]));
        let status = lab_text(browser, "chase", "pw-lab-status").await?;
        ensure!(
            status.contains("Cancelled"),
            "status after cancel: {status}"
        );
        let run_enabled = browser
            .eval("return !document.querySelector('section.pw-lab[data-lab=\"chase\"] .pw-lab-run').disabled;")
            .await?;
        ensure!(
            run_enabled == json!(true),
            "Run stays disabled after Cancel"
        );

        // Still usable: the model answers its slider, a new run completes.
        set(browser, "tlb-model", "page-bytes", "2097152").await?;
        browser
            .wait_for_mark(
                MODEL,
                "m.dataset.series.includes('2 MiB pages')",
                RUN_TIMEOUT,
            )
            .await?;
        run_small_chase(browser).await?;
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn a_refused_grow_is_reported_in_the_page() {
    let Some(book) = book("a_refused_grow_is_reported_in_the_page") else {
        return;
    };
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        // 4 GiB on top of what the worker has is past WebAssembly's 32-bit
        // limit: memory.grow must fail, whatever the machine has.
        browser
            .eval(
                "window.pagewalkLab.run('first-touch', {sizes_mib: [4096], repetitions: 1, memory_cap_mib: 8192, time_cap_s: 30}).catch(() => {});
                 return null;",
            )
            .await?;
        browser
            .wait_for_within(&state_is("first-touch", &["error", "done"]), RUN_TIMEOUT)
            .await?;
        let message = lab_text(browser, "first-touch", "pw-lab-error").await?;
        ensure!(
            message.contains("memory.grow") && message.contains("4 GiB"),
            "the refused grow should be named in the page: {message:?}"
        );
        ensure_no_live_workers(browser, "the refused grow").await?;
        // The page is unharmed: the charts are drawn and a small run works.
        browser.wait_for_charts().await?;
        run_small_first_touch(browser).await?;
        let error = lab_text(browser, "first-touch", "pw-lab-error").await?;
        ensure!(
            error.is_empty(),
            "the error stayed after a good run: {error}"
        );
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn labs_work_from_file_urls_and_keep_results_only_when_asked() {
    let Some(book) = book("labs_work_from_file_urls_and_keep_results_only_when_asked") else {
        return;
    };
    book.with_browser(async |browser| {
        let url = file_url(&book.dir.join(CHAPTER))?;
        open(browser, &url).await?;
        run_small_chase(browser).await?;
        let stored = "(() => { try { return localStorage.getItem('pagewalk-lab-results-v1'); } catch (_) { return null; } })()";
        ensure!(
            browser.eval(&format!("return {stored};")).await? == Value::Null,
            "results were stored without the reader asking"
        );

        // Ticked: kept, and back after a reload. Unticked: gone.
        browser.click(KEEP).await?;
        browser.wait_for(&format!("{stored} !== null")).await?;
        open(browser, &url).await?;
        browser
            .wait_for(&format!(
                "{} && document.querySelector('[name=\"keep\"]').checked",
                any_mark_js(CHASE, FROM_THE_BROWSER)
            ))
            .await
            .context("kept results did not come back after a reload")?;
        browser.click(KEEP).await?;
        browser.wait_for(&format!("{stored} === null")).await?;
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn wrong_form_values_are_named_not_replaced() {
    let Some(book) = book("wrong_form_values_are_named_not_replaced") else {
        return;
    };
    book.with_browser(async |browser| {
        open(browser, &book.server.url(CHAPTER)).await?;
        for (lab, field, value, expect) in [
            (
                "first-touch",
                "time-cap-s",
                "0",
                "Time cap: enter a whole number from 1 to 600 (\"0\")",
            ),
            ("first-touch", "time-cap-s", "-5", "(\"-5\")"),
            // What a number field holds after "abc": nothing.
            (
                "first-touch",
                "time-cap-s",
                "",
                "Time cap: enter a whole number from 1 to 600 (empty)",
            ),
            (
                "first-touch",
                "memory-cap-mib",
                "1.5",
                "Memory cap: enter a whole number from 16 to 3072 (\"1.5\")",
            ),
            ("chase", "time-cap-s", "100000", "(\"100000\")"),
        ] {
            set(browser, lab, field, value).await?;
            click(browser, lab, "pw-lab-run").await?;
            browser.wait_for(&state_is(lab, &["error"])).await?;
            let message = lab_text(browser, lab, "pw-lab-error").await?;
            ensure!(
                message.starts_with("Not run: ") && message.contains(expect),
                "{lab} {field}={value:?}: {message}"
            );
            // Nothing ran: no worker was started for it.
            ensure_no_live_workers(browser, "a refused run").await?;
            set(browser, lab, field, "60").await?;
        }
        Ok(())
    });
}

/// Every control of every lab (and the compare lab's file chooser and
/// checkbox, by their labels) is at least 44 px each way, at 390 and 1280
/// px, in the light and the navy theme; and Run stands out: its fill is
/// 3:1 against the lab's background and its text 4.5:1 against its fill
/// (the browser's grey button on white is 1.2:1).
const CONTROLS_JS: &str = r#"
const lum = (c) => {
  const m = c.match(/[\d.]+/g).map(Number);
  const [r, g, b] = m.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const bg = (e) => {
  for (; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c && !/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
};
const small = [];
const targets = [...document.querySelectorAll('section.pw-lab select, section.pw-lab button, section.pw-lab input')]
  .map((e) => (e.type === 'file' || e.type === 'checkbox') ? e.closest('label') : e)
  .filter((e) => e && e.getClientRects().length);
for (const e of targets) {
  const b = e.getBoundingClientRect();
  if (b.width < 44 || b.height < 44) small.push(`${e.tagName.toLowerCase()}.${e.className || e.name || e.type}: ${Math.round(b.width)} x ${Math.round(b.height)}`);
}
const runs = [...document.querySelectorAll('section.pw-lab .pw-lab-run')].map((r) => {
  const s = getComputedStyle(r);
  return [ratio(s.backgroundColor, bg(r.closest('section'))), ratio(s.color, s.backgroundColor)];
});
return [targets.length, small, runs];
"#;

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn controls_fit_a_finger_and_run_stands_out() {
    let Some(book) = book("controls_fit_a_finger_and_run_stands_out") else {
        return;
    };
    book.with_browser(async |browser| {
        for theme in ["light", "navy"] {
            for width in [390, 1280] {
                browser.set_width(width).await?;
                open(browser, &book.server.url(CHAPTER)).await?;
                browser.switch_theme(theme).await?;
                let v = browser.eval(CONTROLS_JS).await?;
                let at = format!("{theme}, {width} px");
                ensure!(
                    v[0].as_u64().unwrap_or(0) >= 12,
                    "{at}: only {} controls",
                    v[0]
                );
                ensure!(
                    v[1].as_array().is_some_and(|a| a.is_empty()),
                    "{at}: controls under 44 px: {}",
                    v[1]
                );
                let runs = v[2].as_array().cloned().unwrap_or_default();
                ensure!(runs.len() == 2, "{at}: {} Run buttons", runs.len());
                for r in &runs {
                    let (fill, text) = (r[0].as_f64().unwrap_or(0.0), r[1].as_f64().unwrap_or(0.0));
                    ensure!(
                        fill >= 3.0 && text >= 4.5,
                        "{at}: Run's fill is {fill:.2}:1 against the lab, its text {text:.2}:1 against its fill"
                    );
                }
            }
        }
        Ok(())
    });
}
