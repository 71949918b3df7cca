//! The harness checked against hand-made pages: it must see errors and
//! foreign requests, or the book tests could pass without looking.

use std::net::TcpListener;
use std::path::Path;

use pagewalk_browser_tests::{block_on, file_url, serial, serve, should_run, Browser};

/// A page whose one chart turns ready after `delay_ms`, like wasm-viz does.
fn chart_page(delay_ms: u32) -> String {
    format!(
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>fixture</title></head><body>
<figure class="pw-chart" data-chart="demo" data-pw-state="loading">
  <div class="pw-chart-plot"></div><div class="pw-tooltip" hidden></div>
</figure>
<script>
setTimeout(() => {{
  const fig = document.querySelector('figure.pw-chart');
  fig.querySelector('.pw-chart-plot').innerHTML =
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">' +
    '<rect data-series="run" data-category="a" data-value="12.5" tabindex="0" aria-label="a: 12.5" style="fill: rgb(1, 2, 3)" width="10" height="10"/>' +
    '<rect data-series="ref" data-category="a" data-value="1,119" tabindex="0" aria-label="a: 1,119" width="10" height="20"/></svg>';
  fig.setAttribute('data-pw-state', 'ready');
}}, {delay_ms});
</script></body></html>"#
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn sees_charts_marks_and_time_to_first_chart() {
    if !should_run("sees_charts_marks_and_time_to_first_chart") {
        return;
    }
    let _one_at_a_time = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "chart.html", &chart_page(300));
    let server = serve(dir.path()).unwrap();
    block_on(async {
        let browser = Browser::start().await?;
        let ms = browser
            .time_to_first_chart_ms(&server.url("chart.html"))
            .await?;
        assert!((300.0..5000.0).contains(&ms), "first chart after {ms} ms");
        assert_eq!(browser.wait_for_charts().await?, ["demo"]);
        let marks = browser.marks("demo").await?;
        assert_eq!(marks.len(), 2);
        assert_eq!((marks[0].series.as_str(), marks[0].value), ("run", 12.5));
        assert_eq!(marks[0].fill, "rgb(1, 2, 3)");
        assert_eq!(marks[0].tabindex.as_deref(), Some("0"));
        assert!(marks[1].value.is_nan(), "1,119 is not a plain number");
        browser.assert_clean().await?;
        // A second page in the same browser gets the recorder too.
        browser.goto(&server.url("chart.html")).await?;
        browser.wait_for("window.__pwErrors !== undefined").await?;
        browser.assert_clean().await?;
        browser.quit().await
    })
    .unwrap();
    assert!(server.failures().is_empty(), "{:?}", server.failures());
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn catches_errors_and_foreign_requests() {
    if !should_run("catches_errors_and_foreign_requests") {
        return;
    }
    let _one_at_a_time = serial();
    // A loopback port nobody listens on: another origin that fails fast.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "bad.html",
        &format!(
            r#"<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bad</title>
<link rel="stylesheet" href="http://127.0.0.1:{closed}/font.css"></head><body>
<img src="missing.png" alt="">
<script>
console.error("boom from console");
console.warn("careful");
Promise.reject(new Error("nobody caught me"));
setTimeout(() => {{ throw new Error("thrown later"); }}, 0);
</script></body></html>"#
        ),
    );
    let server = serve(dir.path()).unwrap();
    block_on(async {
        let browser = Browser::start().await?;
        browser.goto(&server.url("bad.html")).await?;
        browser
            .wait_for("window.__pwErrors.some(e => e.includes('thrown later'))")
            .await?;
        let errors = browser.errors().await?.join("\n");
        for expected in [
            "console.error: boom from console",
            "console.warn: careful",
            "unhandled rejection: Error: nobody caught me",
            "uncaught error: Uncaught Error: thrown later",
            "failed to load <img>",
            "failed to load <link>",
            "browser log SEVERE",
        ] {
            assert!(
                errors.contains(expected),
                "missing {expected:?} in:\n{errors}"
            );
        }
        let foreign = browser.foreign_requests().await?;
        assert!(
            foreign
                .iter()
                .any(|u| u.contains(&format!(":{closed}/font.css"))),
            "{foreign:?}"
        );
        let err = browser.assert_clean().await.unwrap_err().to_string();
        assert!(err.contains("font.css") && err.contains("boom"), "{err}");
        browser.quit().await
    })
    .unwrap();
    assert_eq!(server.failures().len(), 1, "{:?}", server.requests());
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn file_urls_are_their_own_origin() {
    if !should_run("file_urls_are_their_own_origin") {
        return;
    }
    let _one_at_a_time = serial();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "chart.html", &chart_page(50));
    let url = file_url(&dir.path().join("chart.html")).unwrap();
    block_on(async {
        let browser = Browser::start().await?;
        browser.goto(&url).await?;
        assert_eq!(browser.wait_for_charts().await?, ["demo"]);
        browser.assert_clean().await?;
        browser.quit().await
    })
    .unwrap();
}
