//! A chart is one tab stop: of its marks exactly one has `tabindex="0"`;
//! the arrow keys move between the marks with the tooltip following, and
//! Tab leaves the chart. Checked on every chart of the book.

use anyhow::{ensure, Context};
use pagewalk_browser_tests::thirtyfour::Key;
use pagewalk_browser_tests::{built_book, marks_css, run_test, Browser};
use serde_json::json;

/// Index (among the chart's marks) of the focused element, or -1.
const FOCUSED_JS: &str =
    "return [...document.querySelectorAll(arguments[0])].indexOf(document.activeElement);";

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn each_chart_is_one_tab_stop_with_arrow_keys_inside() {
    let Some(book) = built_book("each_chart_is_one_tab_stop_with_arrow_keys_inside") else {
        return;
    };
    let pages = book.chart_pages();
    run_test(async {
        let browser = Browser::start().await?;
        let mut checked = 0;
        for page in &pages {
            let charts = browser.open_charts(&book.server.url(page)).await?;
            // No lab redraws a chart by itself (the TLB model runs when its
            // controls move, not on load), so nothing takes the focus away
            // between two key presses.
            for chart in charts {
                let marks = browser.marks(&chart).await?;
                // A lab's chart is hidden until this browser has results
                // (in-your-browser.md): nothing to reach by keyboard yet.
                let shown = browser
                    .eval_with(
                        "const f = document.querySelector(`figure.pw-chart[data-chart=\"${arguments[0]}\"]`);
                         return !!f && f.getClientRects().length > 0;",
                        vec![json!(chart)],
                    )
                    .await?;
                if marks.len() < 3 || shown != json!(true) {
                    continue;
                }
                let stops: Vec<usize> = (0..marks.len())
                    .filter(|&i| marks[i].tabindex.as_deref() == Some("0"))
                    .collect();
                ensure!(
                    stops == [0],
                    "{page}: {chart}: tab stops at marks {stops:?}, want only the first"
                );
                let css = json!(marks_css(&chart));
                let focused = async || -> anyhow::Result<i64> {
                    Ok(browser
                        .eval_with(FOCUSED_JS, vec![css.clone()])
                        .await?
                        .as_i64()
                        .unwrap_or(-1))
                };
                browser.focus_mark(&chart, 0).await?;
                for (key, name, want) in [
                    (Key::Right, "right arrow", 1),
                    (Key::Down, "down arrow", 2),
                    (Key::Left, "left arrow", 1),
                    (Key::End, "End", marks.len() as i64 - 1),
                    (Key::Home, "Home", 0),
                    (Key::Right, "right arrow", 1),
                ] {
                    browser.press(key).await?;
                    let at = focused().await?;
                    ensure!(
                        at == want,
                        "{page}: {chart}: {name} focused mark {at}, want {want}"
                    );
                    browser
                        .wait_for_tooltip_of(&chart, &marks[want as usize], name)
                        .await
                        .with_context(|| page.clone())?;
                }
                // The mark reached is now the chart's one tab stop.
                let marks = browser.marks(&chart).await?;
                let stops: Vec<usize> = (0..marks.len())
                    .filter(|&i| marks[i].tabindex.as_deref() == Some("0"))
                    .collect();
                ensure!(
                    stops == [1],
                    "{page}: {chart}: tab stops {stops:?} after the arrows"
                );
                browser.press_tab().await?;
                ensure!(
                    focused().await? == -1,
                    "{page}: {chart}: Tab from a mark stayed among the chart's marks"
                );
                checked += 1;
            }
            browser.assert_clean().await.with_context(|| page.clone())?;
        }
        ensure!(checked >= 4, "only {checked} charts checked");
        eprintln!("checked {checked} charts");
        browser.quit().await
    });
}

/// The sidebar's toggle is a real button once the page's script has run
/// (mdBook's is a `<label>`, which may carry neither `role="button"` nor
/// `aria-expanded`), the hidden checkbox behind it leaves the tab order,
/// and Enter on the button opens and closes the table of contents, with
/// `aria-expanded` and the sidebar's visibility following.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn the_sidebar_toggle_is_a_button_that_enter_opens_and_closes() {
    let Some(book) = built_book("the_sidebar_toggle_is_a_button_that_enter_opens_and_closes")
    else {
        return;
    };
    run_test(async {
        let browser = Browser::start().await?;
        browser.goto(&book.server.url("first-touch.html")).await?;
        let state = async || -> anyhow::Result<serde_json::Value> {
            // Wait out the sidebar's slide before reading where it is.
            tokio::time::sleep(std::time::Duration::from_millis(600)).await;
            browser
                .eval(
                    "const t = document.getElementById('mdbook-sidebar-toggle');
                     const box = document.getElementById('mdbook-sidebar-toggle-anchor');
                     const r = document.getElementById('mdbook-sidebar').getBoundingClientRect();
                     return { tag: t.tagName, expanded: t.getAttribute('aria-expanded'),
                              boxTab: box.tabIndex, checked: box.checked,
                              shown: r.width > 0 && r.right > 0 && r.left < innerWidth,
                              focused: document.activeElement === t };",
                )
                .await
        };
        let first = state().await?;
        ensure!(
            first["tag"] == "BUTTON" && first["boxTab"] == -1,
            "the toggle is not a button, or the checkbox is still a tab stop: {first}"
        );
        let mut open = first["checked"].as_bool().context("no checkbox state")?;
        ensure!(
            first["expanded"] == json!(open.to_string()) && first["shown"] == json!(open),
            "before any press, aria-expanded or the sidebar disagrees with the checkbox: {first}"
        );
        browser
            .eval("document.getElementById('mdbook-sidebar-toggle').focus();")
            .await?;
        for press in 1..=2 {
            browser.press(Key::Enter).await?;
            open = !open;
            let now = state().await?;
            ensure!(
                now["checked"] == json!(open)
                    && now["expanded"] == json!(open.to_string())
                    && now["shown"] == json!(open)
                    && now["focused"] == json!(true),
                "after Enter #{press} the sidebar should be {}: {now}",
                if open { "open" } else { "closed" }
            );
        }
        browser.quit().await
    });
}
