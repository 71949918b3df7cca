//! The drills page (`{{#drill}}`, `theme/pagewalk-drills.js`) in Chromium:
//! answers closed until asked for, a guess set beside the value the run
//! file holds, marks that survive a reload, the "only missed" filter and
//! reset, answers readable without JavaScript, a question sheet on paper,
//! and the same from `file://`. Off unless `PAGEWALK_BROWSER_TESTS=1`.

use anyhow::{ensure, Context, Result};
use mdbook_pagewalk::helpers::{format_dur, format_ratio};
use mdbook_pagewalk::DataSet;
use pagewalk_browser_tests::thirtyfour::prelude::*;
use pagewalk_browser_tests::{built_book as book, file_url, workspace_root, Browser};
use pagewalk_figures::size_label;
use pagewalk_model::{Mode, RunFile, SyscallOp};
use serde_json::{json, Value};

const PAGE: &str = "drills.html";
/// A drill with a predicted duration, and one without a prediction.
const FIRST_TOUCH: &str = "first-touch-cost";
const GETPID: &str = "vdso";
const PLAIN: &str = "calloc";

/// The median of `v`, computed here rather than taken from the file's
/// summary, so a wrong summary or a wrong path in the chapter both fail.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// First-pass ns per page of the `nohugepage` mode, from the raw samples.
fn first_touch_ns(run: &RunFile) -> f64 {
    let mode = run
        .first_touch()
        .and_then(|ft| ft.mode(Mode::Nohugepage))
        .expect("the run has a nohugepage first-touch mode");
    median(
        mode.samples
            .iter()
            .filter_map(|s| Some(s.first_pass.as_ref()?.ns_per_page))
            .collect(),
    )
}

fn shown() -> DataSet {
    let dir = workspace_root().join("data");
    DataSet::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()))
}

/// Each drill's id, whether its answer is open, and whether any of the
/// answer's text is laid out (has a box) on screen.
async fn answers(browser: &Browser) -> Result<Vec<(String, bool, bool)>> {
    let v = browser
        .eval(
            "return [...document.querySelectorAll('div.pw-drill')].map(d => {
               const a = d.querySelector('details.pw-drill-answer');
               const inner = [...a.children].filter(c => c.tagName !== 'SUMMARY');
               return [d.dataset.drill, a.open, inner.some(c => c.checkVisibility())];
             });",
        )
        .await?;
    Ok(serde_json::from_value(v)?)
}

/// The `data-value` the build wrote for `who` in drill `id`.
async fn built_value(browser: &Browser, id: &str, who: &str) -> Result<f64> {
    let v = browser
        .eval_with(
            "const li = document.querySelector(`#drill-${arguments[0]} .pw-drill-measured li[data-who=\"${arguments[1]}\"]`);
             return li ? li.dataset.value : null;",
            vec![json!(id), json!(who)],
        )
        .await?;
    v.as_str()
        .with_context(|| format!("drill {id}: no measured value for {who}"))?
        .parse()
        .with_context(|| format!("drill {id}: {who}'s data-value"))
}

/// Focuses `css` and presses `key`, as a keyboard reader does.
async fn press(browser: &Browser, css: &str, key: Key) -> Result<()> {
    let focused = browser
        .eval_with(
            "const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'}); e.focus(); return document.activeElement === e;",
            vec![json!(css)],
        )
        .await?;
    ensure!(focused == json!(true), "{css} did not take the focus");
    browser
        .driver()
        .action_chain()
        .send_keys(key)
        .perform()
        .await?;
    Ok(())
}

/// Clicks `css` after scrolling it to the middle of the window, clear of
/// mdBook's sticky menu bar.
async fn click(browser: &Browser, css: &str) -> Result<()> {
    browser
        .eval_with(
            "document.querySelector(arguments[0])?.scrollIntoView({block: 'center'});",
            vec![json!(css)],
        )
        .await?;
    browser.click(css).await
}

async fn text(browser: &Browser, css: &str) -> Result<String> {
    browser
        .text_of(css)
        .await?
        .with_context(|| format!("no {css} in the page"))
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn answers_open_on_request_and_a_guess_meets_the_run() {
    let Some(book) = book("answers_open_on_request_and_a_guess_meets_the_run") else {
        return;
    };
    let data = shown();
    let run = data.run.as_ref().expect("a run in data/");
    let r1 = data
        .reference_with("R1", pagewalk_model::first_touch::EXPERIMENT)
        .expect("R1's first-touch figures");
    book.with_browser(async |browser| {
        browser.goto(&book.server.url(PAGE)).await?;
        browser
            .wait_for("document.querySelector('.pw-drills-progress')")
            .await?;

        let all = answers(browser).await?;
        ensure!(all.len() >= 30, "only {} drills", all.len());
        for (id, open, shown) in &all {
            ensure!(!open && !shown, "drill {id}: answer shown before it was asked for");
        }
        // Every drill links to its chapter.
        let unlinked = browser
            .eval("return [...document.querySelectorAll('div.pw-drill')].filter(d => !d.querySelector('.pw-drill-links a[href*=\".html\"]')).map(d => d.dataset.drill);")
            .await?;
        ensure!(unlinked == json!([]), "drills without a chapter link: {unlinked}");

        // Every link lands on an element that exists: a renamed heading or
        // a moved chart fails here.
        let hrefs = browser
            .eval("return [...document.querySelectorAll('.pw-drill-links a')].map(a => a.getAttribute('href'));")
            .await?;
        for href in hrefs.as_array().context("hrefs")? {
            let href = href.as_str().unwrap_or_default();
            let (page, anchor) = href.split_once('#').unwrap_or((href, ""));
            let html = std::fs::read_to_string(book.dir.join(page))
                .with_context(|| format!("drill link {href}: no page {page}"))?;
            ensure!(
                anchor.is_empty() || html.contains(&format!("id=\"{anchor}\"")),
                "drill link {href}: no element with that id"
            );
        }

        // The values the build wrote are the run file's.
        let ns = first_touch_ns(run);
        let built = built_value(browser, FIRST_TOUCH, "run").await?;
        ensure!(
            (built - ns).abs() <= ns * 1e-12,
            "first touch: the page has {built} ns, the run's samples give {ns}"
        );
        let r1_ns = r1
            .first_touch()
            .and_then(|ft| ft.mode(Mode::Nohugepage))
            .and_then(|m| m.summary.first_pass.as_ref())
            .map(|p| p.ns_per_page.median)
            .context("R1's nohugepage first pass")?;
        ensure!((built_value(browser, FIRST_TOUCH, "r1").await? - r1_ns).abs() <= r1_ns * 1e-12);
        if let Some(getpid) = run
            .syscall()
            .and_then(|s| s.op(SyscallOp::Getpid))
            .and_then(|o| o.latency.as_ref()?.p50_ns)
        {
            let built = built_value(browser, GETPID, "run").await?;
            ensure!((built - getpid).abs() <= getpid * 1e-12, "getpid: page {built}, run {getpid}");
        }

        // A guess twice the measured value, committed with the keyboard,
        // then the answer opened with Enter on its summary.
        let field = format!("#drill-{FIRST_TOUCH} .pw-drill-field");
        browser.set_value(&field, &format!("{}", 2.0 * ns)).await?;
        press(browser, &field, Key::Enter).await?;
        browser
            .wait_for(&format!("document.querySelector({}).readOnly", json!(field)))
            .await?;
        press(browser, &format!("#drill-{FIRST_TOUCH} summary"), Key::Enter).await?;
        // `toggle`, which draws the comparison, fires after `open` is set.
        browser
            .wait_for(&format!(
                "document.querySelector('#drill-{FIRST_TOUCH} details').open \
                 && document.querySelector('#drill-{FIRST_TOUCH} .pw-drill-against')"
            ))
            .await?;
        let against = text(browser, &format!("#drill-{FIRST_TOUCH} .pw-drill-against")).await?;
        let want = format!("{}, {} too high", format_dur(ns), format_ratio(2.0));
        ensure!(against.contains(&want), "comparison {against:?} lacks {want:?}");
        ensure!(
            against.contains(&format_dur(r1_ns)),
            "comparison {against:?} lacks R1's {}",
            format_dur(r1_ns)
        );
        let yours = text(browser, &format!("#drill-{FIRST_TOUCH} .pw-drill-yours")).await?;
        ensure!(yours.contains(&format_dur(2.0 * ns)), "guess shown as {yours:?}");
        // The answer is now on screen; the others are still closed.
        let all = answers(browser).await?;
        for (id, open, shown) in &all {
            let want = id == FIRST_TOUCH;
            ensure!(*open == want && *shown == want, "drill {id}: open {open}, shown {shown}");
        }

        // A text guess is repeated beside the answer.
        browser.set_value(&format!("#drill-{PLAIN} .pw-drill-field"), "zero pages").await?;
        click(browser, &format!("#drill-{PLAIN} .pw-drill-commit")).await?;
        click(browser, &format!("#drill-{PLAIN} summary")).await?;
        // `toggle` fires after the click returns.
        browser
            .wait_for(&format!("document.querySelector('#drill-{PLAIN} .pw-drill-yours')"))
            .await?;
        let yours = text(browser, &format!("#drill-{PLAIN} .pw-drill-yours")).await?;
        ensure!(yours.contains("zero pages"), "text guess shown as {yours:?}");

        // A size is typed in KiB and compared in bytes: half the L2 TLB's
        // reach reads "2.0× too low" beside the reach the book uses for the
        // run (measured, or CPUID's where the measurement confirms it).
        let ctx = mdbook_pagewalk::context::build(&data);
        if let Some(reach) = ctx["tlb"]["measured"]["l2"]["used_reach_bytes"].as_f64() {
            let id = "tlb-step";
            ensure!(built_value(browser, id, "run").await? == reach, "{id}: page and context differ");
            browser
                .set_value(&format!("#drill-{id} .pw-drill-field"), &format!("{}", reach / 2048.0))
                .await?;
            click(browser, &format!("#drill-{id} .pw-drill-commit")).await?;
            click(browser, &format!("#drill-{id} summary")).await?;
            browser
                .wait_for(&format!("document.querySelector('#drill-{id} .pw-drill-against')"))
                .await?;
            let against = text(browser, &format!("#drill-{id} .pw-drill-against")).await?;
            let want = format!("{}, {} too low", size_label(reach as u64), format_ratio(2.0));
            ensure!(against.contains(&want), "{id}: {against:?} lacks {want:?}");
        }
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn progress_survives_a_reload_and_filters() {
    let Some(book) = book("progress_survives_a_reload_and_filters") else {
        return;
    };
    book.with_browser(async |browser| {
        let url = book.server.url(PAGE);
        browser.goto(&url).await?;
        browser.wait_for("document.querySelector('.pw-drills-progress')").await?;
        let total = browser.eval("return document.querySelectorAll('div.pw-drill').length;").await?;
        let total = total.as_u64().context("drill count")?;
        for (id, mark) in [(FIRST_TOUCH, "knew"), (PLAIN, "missed")] {
            click(browser, &format!("#drill-{id} summary")).await?;
            browser
                .click(&format!("#drill-{id} .pw-drill-mark button[data-mark=\"{mark}\"]"))
                .await?;
        }
        browser.set_value(&format!("#drill-{GETPID} .pw-drill-field"), "150").await?;
        click(browser, &format!("#drill-{GETPID} .pw-drill-commit")).await?;

        browser.goto(&url).await?;
        browser.wait_for("document.querySelector('.pw-drills-progress')").await?;
        let count = text(browser, ".pw-drills-count").await?;
        let want = format!("2 of {total} drills marked: 1 knew it, 1 missed it.");
        ensure!(count.contains(&want), "after a reload: {count:?}, want {want:?}");
        let pressed = browser
            .eval("return [...document.querySelectorAll('.pw-drill-mark button[aria-pressed=\"true\"]')].map(b => b.closest('.pw-drill').dataset.drill + ':' + b.dataset.mark);")
            .await?;
        ensure!(
            pressed == json!([format!("{PLAIN}:missed"), format!("{FIRST_TOUCH}:knew")])
                || pressed == json!([format!("{FIRST_TOUCH}:knew"), format!("{PLAIN}:missed")]),
            "marks after a reload: {pressed}"
        );
        let guess = browser
            .eval(&format!("const f = document.querySelector('#drill-{GETPID} .pw-drill-field'); return [f.value, f.readOnly];"))
            .await?;
        ensure!(guess == json!(["150", true]), "guess after a reload: {guess}");

        // Only the missed one (and its question) stays visible.
        click(browser, ".pw-drills-only-missed").await?;
        let visible = browser
            .eval("return [...document.querySelectorAll('div.pw-drill')].filter(d => d.checkVisibility() && d.previousElementSibling.checkVisibility()).map(d => d.dataset.drill);")
            .await?;
        ensure!(visible == json!([PLAIN]), "only missed shows {visible}");
        // It keeps the number it has in the full list.
        let numbers = browser
            .eval(&format!(
                "const all = [...document.querySelectorAll('div.pw-drill')];
                 const h = document.querySelector('#drill-{PLAIN}').previousElementSibling;
                 return [getComputedStyle(h, '::before').content, all.findIndex(d => d.id === 'drill-{PLAIN}') + 1];"
            ))
            .await?;
        ensure!(
            numbers[0] == json!(format!("\"{}. \"", numbers[1])),
            "the missed drill's number under the filter: {numbers}"
        );
        click(browser, ".pw-drills-only-missed").await?;

        click(browser, ".pw-drills-reset").await?;
        browser.goto(&url).await?;
        browser.wait_for("document.querySelector('.pw-drills-progress')").await?;
        let count = text(browser, ".pw-drills-count").await?;
        ensure!(count.starts_with(&format!("0 of {total}")), "after reset and reload: {count:?}");
        let field = browser
            .eval(&format!("return document.querySelector('#drill-{GETPID} .pw-drill-field').readOnly;"))
            .await?;
        ensure!(field == json!(false), "the guess survived the reset");
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn without_javascript_answers_are_readable_and_print_is_a_question_sheet() {
    let Some(book) = book("without_javascript_answers_are_readable_and_print_is_a_question_sheet")
    else {
        return;
    };
    let data = shown();
    let ns = first_touch_ns(data.run.as_ref().expect("a run"));
    book.with_browser(async |browser| {
        browser.set_scripts_disabled(true).await?;
        browser.goto(&book.server.url(PAGE)).await?;
        // The forms are in the HTML (so the page does not move when the
        // script wires them) but not shown: without script they cannot work.
        let controls = browser
            .eval("return [document.querySelectorAll('.pw-drill-guess').length,
                           [...document.querySelectorAll('.pw-drills-progress, .pw-drill-guess, .pw-drill-mark')]
                             .filter(e => e.checkVisibility()).length];")
            .await?;
        ensure!(
            controls[0].as_u64() > Some(0) && controls[1] == json!(0),
            "[guess forms in the page, controls shown] without JavaScript: {controls}"
        );
        // The reader opens an answer the way <details> allows, and reads it.
        click(browser, &format!("#drill-{FIRST_TOUCH} summary")).await?;
        let all = answers(browser).await?;
        let opened = all.iter().find(|(id, ..)| id == FIRST_TOUCH).context("drill")?;
        ensure!(opened.1 && opened.2, "answer not readable without JavaScript: {opened:?}");
        let measured = text(browser, &format!("#drill-{FIRST_TOUCH} .pw-drill-measured")).await?;
        ensure!(measured.contains(&format_dur(ns)), "measured list {measured:?}");

        // On paper: every question, no answer.
        browser.emulate_media("print").await?;
        let sheet: Value = browser
            .eval("return [[...document.querySelectorAll('details.pw-drill-answer')].filter(a => a.checkVisibility()).length,
                            [...document.querySelectorAll('div.pw-drill')].filter(d => d.previousElementSibling.checkVisibility()).length,
                            document.querySelectorAll('div.pw-drill').length];")
            .await?;
        ensure!(
            sheet[0] == json!(0) && sheet[1] == sheet[2],
            "print: [answers laid out, questions laid out, drills] = {sheet}"
        );
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn drills_work_from_file_urls_and_stay_off_other_pages() {
    let Some(book) = book("drills_work_from_file_urls_and_stay_off_other_pages") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.goto(&file_url(&book.dir.join(PAGE))?).await?;
        browser
            .wait_for("document.querySelector('.pw-drills-progress')")
            .await?;
        click(browser, &format!("#drill-{PLAIN} summary")).await?;
        browser
            .click(&format!(
                "#drill-{PLAIN} .pw-drill-mark button[data-mark=\"knew\"]"
            ))
            .await?;
        let count = text(browser, ".pw-drills-count").await?;
        ensure!(count.contains("1 knew it"), "from file://: {count:?}");
        browser.assert_clean().await?;

        browser.goto(&book.server.url("first-touch.html")).await?;
        browser.wait_for_charts().await?;
        let added = browser
            .eval(
                "return document.querySelectorAll('.pw-drills-progress, .pw-drill-guess').length;",
            )
            .await?;
        ensure!(added == json!(0), "drill controls on a page without drills");
        Ok(())
    });
}
