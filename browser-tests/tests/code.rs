//! What a reader sees of the book's code: the scaffolding that lets the
//! tests compile a C block (its `~` lines, see CONTRIBUTING.md) stays hidden
//! until the reader asks for it, and then shows without the `~`.
//!
//! Off unless `PAGEWALK_BROWSER_TESTS=1` (scripts/test sets it).

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::{built_book as book, Browser};

/// What the reader sees of staircases.html's C block, the probe's chase loop.
async fn chase_block(browser: &Browser) -> Result<String> {
    let text = browser
        .eval(
            "const code = [...document.querySelectorAll('code.language-c')]
                 .find(c => c.textContent.includes('chase('));
             return code ? code.innerText : null;",
        )
        .await?;
    text.as_str()
        .map(str::to_string)
        .context("staircases.html has no C block quoting chase()")
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn c_scaffolding_is_hidden_until_asked_for() {
    let Some(book) = book("c_scaffolding_is_hidden_until_asked_for") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.goto(&book.server.url("staircases.html")).await?;
        let shown = chase_block(browser).await?;
        ensure!(
            shown.contains("p = (void **)*p;")
                && !shown.contains("int main")
                && !shown.contains('~'),
            "the C block shows:\n{shown}"
        );
        // The buttons appear on hover, so press this one from the page.
        browser
            .eval(
                "document.querySelector(\"pre:has(code.language-c) button[title='Show hidden lines']\").click();",
            )
            .await?;
        let revealed = chase_block(browser).await?;
        ensure!(
            revealed.contains("int main(void)") && !revealed.contains('~'),
            "with its hidden lines shown, the C block reads:\n{revealed}"
        );
        Ok(())
    });
}
