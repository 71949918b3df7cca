//! The built book (`book-out/`, or `$PAGEWALK_BOOK_DIR`) in headless
//! Chromium: charts draw, show the data the book was built from, follow the
//! theme, answer hover and focus, work without JavaScript, on paper and
//! from `file://`, and no page logs an error or asks another origin for
//! anything; only a page with a chart loads the chart engine.
//!
//! Off unless `PAGEWALK_BROWSER_TESTS=1` (scripts/test sets it); when on, a
//! missing Chromium or a missing book fails the test.

use std::collections::BTreeMap;

use anyhow::{ensure, Context, Result};
use mdbook_pagewalk::DataSet;
use pagewalk_browser_tests::thirtyfour::Key;
use pagewalk_browser_tests::{
    built_book as book, ensure_charts, file_url, human, marks_css, run_test as run, workspace_root,
    Browser, Mark, Table, ThemeSwitch,
};
use pagewalk_figures::series_name;
use pagewalk_model::{Mode, Phase, RunFile};
use serde_json::json;

const CHAPTER: &str = "first-touch.html";
const NS_PER_PAGE: &str = "first-touch-ns-per-page";

/// The charts the first-touch chapter asks for, in its order: what its
/// page (and the top of print.html) must show, read from the chapter's
/// source rather than typed here.
fn chapter_charts() -> Vec<String> {
    let md = std::fs::read_to_string(workspace_root().join("book/first-touch.md")).unwrap();
    md.split("{{chart \"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(name, _)| name.to_string()))
        .collect()
}
const FAULTS: &str = "first-touch-faults";
const THEMES: [&str; 5] = ["light", "rust", "coal", "navy", "ayu"];

/// The data the book shows: the same choice the preprocessor makes.
struct Shown {
    run: RunFile,
    r1: RunFile,
}

fn shown() -> Shown {
    let dir = workspace_root().join("data");
    let data = DataSet::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display()));
    let run = data
        .run
        .clone()
        .unwrap_or_else(|| panic!("no run in {} (neither runs/ nor example/)", dir.display()));
    let r1 = data
        .reference_with("R1", pagewalk_model::first_touch::EXPERIMENT)
        .cloned()
        .expect("data/reference has R1's first-touch figures");
    Shown { run, r1 }
}

/// Mode name -> first-pass ns per page (median), for the modes that have one.
fn first_pass_ns(run: &RunFile) -> BTreeMap<String, f64> {
    let ft = run.first_touch().expect("the run has first-touch results");
    Mode::ALL
        .into_iter()
        .filter_map(|m| {
            let fp = ft.mode(m)?.summary.first_pass.as_ref()?;
            Some((m.name().to_string(), fp.ns_per_page.median))
        })
        .collect()
}

/// Mode name -> median minor faults of `phase`, for the modes that have them.
fn phase_faults(run: &RunFile, phase: Phase) -> BTreeMap<String, f64> {
    let ft = run.first_touch().expect("the run has first-touch results");
    Mode::ALL
        .into_iter()
        .filter_map(|m| {
            let faults = ft.mode(m)?.summary.phase(phase)?.minor_faults.as_ref()?;
            Some((m.name().to_string(), faults.median))
        })
        .collect()
}

/// Category -> value of the marks that `keep` selects.
fn values(marks: &[Mark], keep: impl Fn(&Mark) -> bool) -> BTreeMap<String, f64> {
    marks
        .iter()
        .filter(|m| keep(m))
        .map(|m| (m.category.clone(), m.value))
        .collect()
}

/// Equal up to the last bits of an f64 written as decimal text.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn assert_same_values(what: &str, got: &BTreeMap<String, f64>, want: &BTreeMap<String, f64>) {
    let same = got.len() == want.len()
        && want
            .iter()
            .all(|(k, w)| got.get(k).is_some_and(|g| close(*g, *w)));
    assert!(
        same,
        "{what}: the page shows {got:?} but the data says {want:?} \
         (if data/ changed since the book was built, rebuild it with `mdbook build`)"
    );
}

/// Every mark is addressable: a number in `data-value`, reachable by Tab,
/// and labelled with its exact value.
fn assert_marks_accessible(chart: &str, marks: &[Mark]) {
    assert!(
        !marks.is_empty(),
        "{chart}: no marks with data-series in .pw-chart-plot svg"
    );
    for m in marks {
        assert!(
            !m.series.is_empty() && !m.category.is_empty(),
            "{chart}: mark without series or category: {m:?}"
        );
        if let Err(e) = m.ensure_accessible(chart) {
            panic!("{e:#}");
        }
    }
}

/// Test 1: both first-touch charts draw, and their marks and data tables
/// are the numbers of the run the book shows and of R1.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn first_touch_charts_show_the_data() {
    let Some(book) = book("first_touch_charts_show_the_data") else {
        return;
    };
    let data = shown();
    book.with_browser(async |browser| {
        let charts = browser.open_charts(&book.server.url(CHAPTER)).await?;
        ensure_charts(CHAPTER, &charts, &[NS_PER_PAGE, FAULTS])?;

        let marks = browser.marks(NS_PER_PAGE).await?;
        assert_marks_accessible(NS_PER_PAGE, &marks);
        // A panel per phase: each source's series are named after it and
        // the phase (`this run: first pass`), as the table's columns are.
        let first_pass = |source: &RunFile| format!("{}: first pass", series_name(source));
        assert_same_values(
            "first-pass ns per page of the run",
            &values(&marks, |m| {
                m.role == "run" && m.series == first_pass(&data.run)
            }),
            &first_pass_ns(&data.run),
        );
        for (role, source) in [("run", &data.run), ("reference", &data.r1)] {
            let names: Vec<String> = Phase::ALL
                .iter()
                .map(|p| format!("{}: {}", series_name(source), p.label()))
                .collect();
            let odd: Vec<&Mark> = marks
                .iter()
                .filter(|m| m.role == role && !names.contains(&m.series))
                .collect();
            ensure!(
                odd.is_empty(),
                "{NS_PER_PAGE}: {role} marks should be the series {names:?}: {odd:?}"
            );
        }
        assert_same_values(
            "first-pass ns per page of R1",
            &values(&marks, |m| {
                m.role == "reference" && m.series == first_pass(&data.r1)
            }),
            &first_pass_ns(&data.r1),
        );
        ensure!(
            marks
                .iter()
                .all(|m| m.role == "run" || m.role == "reference"),
            "{NS_PER_PAGE}: marks of another role: {marks:?}"
        );

        let marks = browser.marks(FAULTS).await?;
        assert_marks_accessible(FAULTS, &marks);
        for phase in Phase::ALL {
            assert_same_values(
                &format!("minor faults, {}", phase.label()),
                &values(&marks, |m| m.series == phase.label() && m.role == "run"),
                &phase_faults(&data.run, phase),
            );
        }

        // The data tables, put in place by the page's script: one row per
        // mode, one column per series, read as a person would.
        let ns = browser.chart_table(NS_PER_PAGE).await?;
        for source in [&data.run, &data.r1] {
            check_table(
                NS_PER_PAGE,
                &ns,
                (&first_pass(source), "ns per page"),
                &first_pass_ns(source),
            )?;
        }
        let faults = browser.chart_table(FAULTS).await?;
        for phase in Phase::ALL {
            check_table(
                FAULTS,
                &faults,
                (phase.label(), "faults"),
                &phase_faults(&data.run, phase),
            )?;
        }

        // The spec the page drew from is in the figure too.
        let specs = browser
            .eval(
                "return [...document.querySelectorAll('figure.pw-chart')].map(f => {
                   const s = f.querySelector('script.pw-chart-spec');
                   return s ? JSON.parse(s.textContent).id : null; });",
            )
            .await?;
        ensure!(
            specs == json!(chapter_charts()),
            "chart specs in the page: {specs}"
        );
        Ok(())
    });
}

/// Test 2: focus (script, then Tab) and hover (mouse) show the mark's exact
/// value in the figure's tooltip.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn hover_and_focus_show_the_exact_value() {
    let Some(book) = book("hover_and_focus_show_the_exact_value") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.open_charts(&book.server.url(CHAPTER)).await?;
        let chart = NS_PER_PAGE;
        let marks = browser.marks(chart).await?;
        ensure!(
            marks.len() >= 3,
            "{chart}: too few marks to test: {marks:?}"
        );

        // Focus from script.
        let first = 0;
        browser.focus_mark(chart, first).await?;
        browser
            .wait_for_tooltip_of(chart, &marks[first], "focusing a mark")
            .await?;

        // The right arrow moves to the next mark, and the tooltip follows.
        browser.press(Key::Right).await?;
        let next = &marks[first + 1];
        let active = browser
            .eval("const a = document.activeElement; return [a.getAttribute('data-series'), a.getAttribute('data-category')];")
            .await?;
        ensure!(
            active == json!([next.series, next.category]),
            "{chart}: the right arrow from the first mark focused {active}, expected the next mark {next:?}"
        );
        browser
            .wait_for_tooltip_of(chart, next, "pressing the right arrow")
            .await?;

        // The mouse over the widest bar (easy to hit) shows its value.
        let (widest, target) = marks
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != first + 1)
            .max_by(|a, b| a.1.value.total_cmp(&b.1.value))
            .expect("marks");
        browser.hover_mark(chart, widest).await?;
        browser
            .wait_for_tooltip_of(chart, target, "moving the mouse over a mark")
            .await
    });
}

/// Test 3: switching the mdBook theme redraws the charts in the theme's
/// colours, in place (no reload), and they stay ready and interactive.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn charts_follow_the_theme() {
    let Some(book) = book("charts_follow_the_theme") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.open_charts(&book.server.url(CHAPTER)).await?;
        browser.eval("window.__pwMarker = 1; return null;").await?;
        let chart = NS_PER_PAGE;
        let run_fill = |marks: &[Mark]| -> Result<String> {
            let m = marks
                .iter()
                .find(|m| m.role == "run")
                .context("no run mark")?;
            ensure!(
                !m.fill.is_empty() && m.fill != "none",
                "run mark has no fill: {m:?}"
            );
            Ok(m.fill.clone())
        };
        let mut previous = run_fill(&browser.marks(chart).await?)?;
        let mut fills = BTreeMap::new();
        for theme in THEMES {
            let how = browser.switch_theme(theme).await?;
            // mdBook 0.5 has the menu; a fallback would test less than a
            // reader does.
            ensure!(
                how == ThemeSwitch::ByMenu,
                "{CHAPTER} has no theme menu (#mdbook-theme-toggle)"
            );
            // Light is the default theme here, and rust's palette is close to
            // light's: only wait for a change where the palettes differ
            // (checked below), and give the redraw a moment otherwise.
            let changes = matches!(theme, "coal" | "navy" | "ayu");
            let condition = format!(
                "(() => {{ const m = document.querySelector({run});
                           return m && getComputedStyle(m).fill !== {prev}; }})()",
                run = json!(format!("{}[data-role=\"run\"]", marks_css(chart))),
                prev = json!(previous)
            );
            if changes {
                browser.wait_for(&condition).await.with_context(|| {
                    format!("the chart kept the fill {previous} after switching to {theme}")
                })?;
            } else {
                let _ = browser
                    .wait_for_within(&condition, std::time::Duration::from_millis(1500))
                    .await;
            }
            let states = browser.chart_states().await?;
            ensure!(
                states.iter().all(|s| s.state == "ready"),
                "after switching to {theme}, charts are not all ready: {states:?}"
            );
            let marks = browser.marks(chart).await?;
            assert_marks_accessible(chart, &marks);
            previous = run_fill(&marks)?;
            fills.insert(theme, previous.clone());
            let marker = browser.eval("return window.__pwMarker === 1;").await?;
            ensure!(
                marker == json!(true),
                "the page reloaded when switching to {theme}"
            );
        }
        for dark in ["coal", "navy", "ayu"] {
            ensure!(
                fills[dark] != fills["light"],
                "the run series has the same fill under light and {dark}: {fills:?}"
            );
        }
        // Redrawn charts still answer focus.
        let marks = browser.marks(chart).await?;
        browser.focus_mark(chart, 0).await?;
        browser
            .wait_for_tooltip_of(chart, &marks[0], "focusing a mark after theme switches")
            .await
    });
}

/// Test 4: without JavaScript, print.html still holds each chart's static
/// SVG with the data's numbers, and its data table (HTML in the page; no
/// CSV is shipped, it is made on request); printed, the SVG shows and the
/// data box stays closed.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn print_page_works_without_javascript() {
    let Some(book) = book("print_page_works_without_javascript") else {
        return;
    };
    let data = shown();
    book.with_browser(async |browser| {
        browser.set_scripts_disabled(true).await?;
        browser.emulate_media("print").await?;
        browser.goto(&book.server.url("print.html")).await?;
        let states = browser.chart_states().await?;
        let charts: Vec<&str> = states.iter().map(|s| s.chart.as_str()).collect();
        // The first-touch chapter's charts come first; later chapters add theirs.
        let first: Vec<String> = chapter_charts();
        let first: Vec<&str> = first.iter().map(String::as_str).collect();
        ensure!(charts.starts_with(&first), "print.html charts: {states:?}");
        ensure!(
            states.iter().all(|s| s.state.is_empty()),
            "scripts are off, yet a chart has a data-pw-state: {states:?}"
        );

        // The static SVG: the same marks and values as the interactive one.
        let marks = browser.marks(NS_PER_PAGE).await?;
        assert_marks_accessible(NS_PER_PAGE, &marks);
        // The first-pass panel's marks (`this run: first pass`).
        for (what, source) in [("run", &data.run), ("R1", &data.r1)] {
            let series = format!("{}: first pass", series_name(source));
            assert_same_values(
                &format!("static SVG, {what}"),
                &values(&marks, |m| m.series == series),
                &first_pass_ns(source),
            );
        }
        let marks = browser.marks(FAULTS).await?;
        assert_marks_accessible(FAULTS, &marks);
        assert_same_values(
            "static SVG, first-pass faults",
            &values(&marks, |m| m.series == Phase::FirstPass.label()),
            &phase_faults(&data.run, Phase::FirstPass),
        );

        // On paper the SVG is laid out, the data table (still in the page
        // for screen readers) is not, and the chart's title shows once.
        let sizes = browser
            .eval(
                "return [...document.querySelectorAll('figure.pw-chart')].map(f => {
                   // The layout the page shows (a wide and a narrow one ship).
                   const svg = [...f.querySelectorAll('.pw-chart-plot svg')]
                     .find(s => s.getBoundingClientRect().height > 0) || null;
                   const table = f.querySelector('details.pw-chart-data');
                   const rows = f.querySelectorAll('details.pw-chart-data table tbody tr').length;
                   const h = e => e ? e.getBoundingClientRect().height : -1;
                   const title = JSON.parse(f.querySelector('script.pw-chart-spec').textContent).title;
                   const shown = [...f.querySelectorAll('.pw-title, figcaption')]
                     .filter(e => e.getBoundingClientRect().height > 0)
                     .filter(e => e.textContent.replace(/\\s+/g, ' ').trim() === title).length;
                   const tableOk = rows > 0 && !f.querySelector('a[href^=\"data:\"], noscript');
                   return [h(svg), h(table), shown, tableOk, !!f.closest('.pw-screen-only'),
                           !!f.closest('.pw-lab-chart[hidden]')]; });",
            )
            .await?;
        for (chart, pair) in charts.iter().zip(sizes.as_array().context("sizes")?) {
            let (svg, table) = (
                pair[0].as_f64().unwrap_or(-1.0),
                pair[1].as_f64().unwrap_or(-1.0),
            );
            // Compare runs' copies of the chapters' charts stay off paper.
            if pair[4] == json!(true) {
                ensure!(svg <= 0.0, "{chart}: a screen-only copy printed");
                continue;
            }
            // A lab's chart waits, hidden, for this browser's results: with
            // none there is nothing to print.
            if pair[5] == json!(true) {
                ensure!(svg <= 0.0, "{chart}: a lab chart with no results printed");
                continue;
            }
            ensure!(
                svg > 50.0,
                "{chart}: static SVG missing or not laid out in print (height {svg})"
            );
            ensure!(
                table == 0.0,
                "{chart}: data table printed (height {table}); it should stay closed"
            );
            ensure!(
                pair[2] == json!(1),
                "{chart}: its title is printed {} times, not once",
                pair[2]
            );
            // A lab's chart has no rows before its experiment runs.
            ensure!(
                pair[3] == json!(true) || chart.starts_with("lab-"),
                "{chart}: no data table in its data box without JavaScript (or a CSV shipped in the page)"
            );
        }

        // The table, read without script, has the run's and R1's numbers.
        let ns = browser.chart_table(NS_PER_PAGE).await?;
        for source in [&data.run, &data.r1] {
            let column = format!("{}: first pass", series_name(source));
            check_table(NS_PER_PAGE, &ns, (&column, "ns per page"), &first_pass_ns(source))?;
        }
        Ok(())
    });
}

/// The table's column `series` holds `want` (mode -> value) in the rows
/// labelled with each mode's code, and "n/a" in the others.
/// Checks column `series` of table `t` against `want`, each cell read as a
/// person would ([`human::shows`]) in the chart's `unit`.
fn check_table(
    chart: &str,
    t: &Table,
    (series, unit): (&str, &str),
    want: &BTreeMap<String, f64>,
) -> Result<()> {
    let header = t.first().context("empty table")?;
    let col = header
        .iter()
        .position(|h| h == series)
        .with_context(|| format!("{chart}: no column {series:?} in the table header {header:?}"))?;
    for mode in Mode::ALL {
        let Some(row) = t
            .iter()
            .skip(1)
            .find(|r| r.first().map(String::as_str) == Some(mode.code()))
        else {
            ensure!(
                !want.contains_key(mode.name()),
                "{chart}: no row {:?} in the table but {series} has a value for it",
                mode.code()
            );
            continue;
        };
        let cell = row.get(col).map(String::as_str).unwrap_or_default();
        match want.get(mode.name()) {
            Some(v) => {
                ensure!(
                    human::shows(cell, *v, unit),
                    "{chart}: table cell {series}/{} is {cell:?}, the data says {v} {unit}",
                    mode.code()
                );
            }
            None => ensure!(
                cell.starts_with("n/a"),
                "{chart}: table cell {series}/{} is {cell:?} but the data has no value",
                mode.code()
            ),
        }
    }
    Ok(())
}

/// Test 5: from `file://` (no server) the charts still draw: the wasm is
/// inlined in the script, nothing is fetched.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn charts_work_from_file_urls() {
    let Some(book) = book("charts_work_from_file_urls") else {
        return;
    };
    book.with_browser(async |browser| {
        let charts = browser
            .open_charts(&file_url(&book.dir.join(CHAPTER))?)
            .await?;
        ensure!(
            charts == chapter_charts(),
            "charts from file://: {charts:?}"
        );
        Ok(())
    });
}

/// Test 6: every page of the book loads without an error or a request to
/// another origin, and no template was left unrendered.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn every_page_is_clean() {
    let Some(book) = book("every_page_is_clean") else {
        return;
    };
    let pages = book.html_pages();
    for expected in ["index.html", "first-touch.html", "print.html"] {
        assert!(
            pages.iter().any(|p| p == expected),
            "no {expected} in {}",
            book.dir.display()
        );
    }
    run(async {
        let browser = Browser::start().await?;
        let mut problems = Vec::new();
        for page in &pages {
            browser.goto(&book.server.url(page)).await?;
            let has_charts = !browser.chart_states().await?.is_empty();
            if has_charts {
                if let Err(e) = browser.wait_for_charts().await {
                    problems.push(format!("{page}: {e:#}"));
                }
            }
            // Text outside code: a `{{` there is a template left unrendered.
            let leftover = browser
                .eval(
                    "const body = document.body.cloneNode(true);
                     body.querySelectorAll('pre, code, script, style, template').forEach(e => e.remove());
                     const text = body.textContent;
                     const i = text.indexOf('{{');
                     return i < 0 ? null : text.slice(Math.max(0, i - 60), i + 60);",
                )
                .await?;
            if !leftover.is_null() {
                problems.push(format!("{page}: unrendered template text: {leftover}"));
            }
            let errors = browser.errors().await?;
            let foreign = browser.foreign_requests().await?;
            if !errors.is_empty() || !foreign.is_empty() {
                problems.push(format!(
                    "{page}: errors: {errors:#?}; requests to other origins: {foreign:#?}"
                ));
            }
        }
        // From file://, where a path from the site's root finds nothing:
        // the 404 page's styles and the no-JS sidebar's icon must still load.
        for page in ["404.html", "toc.html"] {
            browser.goto(&file_url(&book.dir.join(page))?).await?;
            let errors = browser.errors().await?;
            let styled = browser
                .eval("return getComputedStyle(document.body).getPropertyValue('--bg').trim() !== '';")
                .await?;
            if !errors.is_empty() || styled != json!(true) {
                problems.push(format!(
                    "file:// {page}: styled: {styled}; errors: {errors:#?}"
                ));
            }
        }
        browser.quit().await?;
        ensure!(
            problems.is_empty(),
            "{} of {} pages have problems:\n{}",
            problems.len(),
            pages.len(),
            problems.join("\n")
        );
        Ok(())
    });
    book.assert_all_served();
}

/// Test 7: only what a page needs. The chart engine (`gen/pagewalk-viz.js`,
/// ~200 KB) is loaded by `theme/pagewalk-charts.js` on a page that draws a
/// chart, and on no other page; no page loads the lab's worker before a
/// lab is used; and no page asks for a web font.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn only_pages_with_a_chart_load_the_chart_engine() {
    let Some(book) = book("only_pages_with_a_chart_load_the_chart_engine") else {
        return;
    };
    let pages = book.html_pages();
    book.with_browser(async |browser| {
        let mut problems = Vec::new();
        let (mut with, mut without) = (0, 0);
        for page in &pages {
            browser.goto(&book.server.url(page)).await?;
            let charts = !browser.chart_states().await?.is_empty();
            if charts {
                browser.wait_for_charts().await?;
                with += 1;
            } else {
                without += 1;
            }
            let loaded = browser
                .eval(
                    "const names = performance.getEntriesByType('resource').map(e => e.name);
                     return [names.some(n => /\\/gen\\/pagewalk-viz\\.js$/.test(n)),
                             !!window.pagewalkViz,
                             names.filter(n => /pagewalk-lab-worker|\\.woff2?$|\\.ttf$/.test(n))];",
                )
                .await?;
            if loaded[0] != json!(charts) || loaded[1] != json!(charts) {
                problems.push(format!(
                    "{page}: has charts: {charts}; engine requested, started: {}, {}",
                    loaded[0], loaded[1]
                ));
            }
            if loaded[2].as_array().is_some_and(|a| !a.is_empty()) {
                problems.push(format!("{page}: loaded on load: {}", loaded[2]));
            }
        }
        ensure!(
            with >= 5 && without >= 5,
            "{with} pages with charts and {without} without: the book changed shape"
        );
        ensure!(problems.is_empty(), "{}", problems.join("\n"));
        Ok(())
    });
}
