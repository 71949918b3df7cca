//! A run file can never hurt the reader: the real `mdbook build` of a book
//! whose `data/runs/` holds a run with script and Markdown in its strings,
//! loaded in Chromium. No script from the file runs, no link or image it
//! names is live, and the text is still there to read.

use std::process::Command;

use anyhow::ensure;
use pagewalk_browser_tests::book_copy::{copy_book, example_run};
use pagewalk_browser_tests::{run_test, serial, serve, should_run, Browser};

/// A `model_name` that became a live `javascript:` link and a foreign
/// image on every page, before strings from data were escaped.
const MARKDOWN: &str = "[x](javascript:alert(3)) ![p](http://evil.example/t.png) *b* `c`";
/// An HTML payload that marks the page if it ever runs.
const HTML: &str = "<img src=x onerror=\"document.body.dataset.pwned=1\"><script>document.body.dataset.pwned=2</script>";

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn hostile_strings_in_a_run_stay_text_in_the_built_book() {
    if !should_run("hostile_strings_in_a_run_stay_text_in_the_built_book") {
        return;
    }
    let _one_at_a_time = serial();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_book(&src);
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(example_run()).unwrap()).unwrap();
    run["provenance"]["run_id"] = "20991231T000000Z-aaaaaa".into();
    run["provenance"]["started_utc"] = "2099-12-31T00:00:00Z".into();
    run["machine"]["cpu"]["model_name"] = MARKDOWN.into();
    run["machine"]["kernel_release"] = HTML.into();
    run["machine"]["thp"]["enabled"] = format!("always {HTML}").into();
    std::fs::write(
        src.join("data/runs/hostile.json"),
        serde_json::to_string(&run).unwrap(),
    )
    .unwrap();
    let out = dir.path().join("out");
    let built = Command::new("mdbook")
        .arg("build")
        .arg(&src)
        .arg("-d")
        .arg(&out)
        .output()
        .expect("mdbook on PATH (scripts/install-tools installs it)");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let server = serve(&out).unwrap();
    run_test(async {
        let browser = Browser::start().await?;
        for page in [
            "introduction.html",
            "method.html",
            "first-touch.html",
            "virtual-machines.html",
        ] {
            browser.goto(&server.url(page)).await?;
            let seen = browser
                .eval(
                    "return {
                       pwned: document.body.dataset.pwned || null,
                       js_links: document.querySelectorAll('a[href^=\"javascript:\" i]').length,
                       foreign_images: [...document.images].filter(i => i.src.includes('evil.example')).length,
                       text: document.querySelector('main').innerText,
                     };",
                )
                .await?;
            ensure!(seen["pwned"].is_null(), "{page}: the file's script ran");
            ensure!(seen["js_links"] == 0, "{page}: a javascript: link is live");
            ensure!(
                seen["foreign_images"] == 0,
                "{page}: an image from the file loads"
            );
            if page == "introduction.html" {
                let text = seen["text"].as_str().unwrap_or("");
                ensure!(
                    text.contains("[x](javascript:alert(3))"),
                    "{page}: the CPU name is no longer readable as text"
                );
            }
        }
        // Nothing was fetched from elsewhere, nothing logged an error.
        browser.finish().await
    });
}
