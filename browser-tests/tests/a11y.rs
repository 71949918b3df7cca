//! Accessibility: axe-core (installed by `scripts/install-tools --browser`)
//! finds no critical and no serious violation on any page of the built
//! book, in the light theme and in navy (the default dark one). The other
//! three themes are reported by `scripts/report-a11y`, not tested.
//!
//! Off unless `PAGEWALK_BROWSER_TESTS=1` (scripts/test sets it).

use anyhow::ensure;
use pagewalk_browser_tests::built_book as book;
use serde_json::json;

const THEMES: [&str; 2] = ["light", "navy"];

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn no_critical_or_serious_axe_violation_in_light_and_navy() {
    let Some(book) = book("no_critical_or_serious_axe_violation_in_light_and_navy") else {
        return;
    };
    let pages = book.html_pages();
    assert!(pages.len() >= 20, "only {} pages in the book", pages.len());
    book.with_browser(async |browser| {
        let mut problems = Vec::new();
        for theme in THEMES {
            browser.goto(&book.server.url("index.html")).await?;
            browser.prefer_theme(theme).await?;
            for page in &pages {
                let found = browser.axe_page(&book.server.url(page)).await?;
                let themed = browser
                    .eval_with(
                        "return document.documentElement.classList.contains(arguments[0]);",
                        vec![json!(theme)],
                    )
                    .await?;
                // toc.html (the sidebar without script) has no theme script.
                ensure!(
                    themed == json!(true) || page == "toc.html",
                    "{page} did not load in the {theme} theme"
                );
                for v in found.iter().filter(|v| v.is_severe()) {
                    problems.push(format!("{theme} {page}: {v}"));
                }
            }
        }
        ensure!(
            problems.is_empty(),
            "{} critical or serious axe violations:\n{}",
            problems.len(),
            problems.join("\n")
        );
        Ok(())
    });
}
