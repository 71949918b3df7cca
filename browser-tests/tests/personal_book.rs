//! The published book made personal (issue 31): a reader picks their run
//! file on "your machine", and every chapter then reads exactly as
//! `mdbook build` renders it with that file in `data/runs/`, compared page
//! by page in real Chromium, text for text; a reload keeps it until the
//! reader clears it, and a reader who never picks a file never downloads
//! the renderer.
//!
//! The run is the Intel Xeon guest's (`data/machines/`, the same file as
//! the shared runs' `intel-xeon-emr-16vcpu-kvm.json`): another machine than
//! the example's, so a chapter that kept the example's text fails. The
//! reference build runs `mdbook build` here with the committed data plus
//! that file in `runs/`. Off unless `PAGEWALK_BROWSER_TESTS=1`; the times
//! it prints are a report, never asserted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::book_copy::fresh_run;
use pagewalk_browser_tests::poison::{ensure_inert, file_name_payload, poison_run};
use pagewalk_browser_tests::thirtyfour::By;
use pagewalk_browser_tests::{built_book as book, serve, workspace_root, Browser};
use serde_json::Value;

const RUN: &str = "data/machines/intel-xeon-emr-16vcpu-kvm.json";
/// Compiling and rendering on a busy two-core machine.
const TIMEOUT: Duration = Duration::from_secs(120);

/// `mdbook build` with the committed data and `run` in `data/runs/`.
fn reference_build(run: &Path, to: &Path) {
    let data = to.join("data");
    pagewalk_model::committed::data_with_run(run, &data);
    let status = Command::new("mdbook")
        .arg("build")
        .arg("-d")
        .arg(to.join("book"))
        .current_dir(workspace_root())
        .env("MDBOOK_PREPROCESSOR__PAGEWALK__DATA", &data)
        .status()
        .expect("mdbook runs");
    assert!(
        status.success(),
        "mdbook build with {} failed",
        run.display()
    );
}

/// Every chapter's page, in reading order.
fn chapters() -> Vec<String> {
    let summary = std::fs::read_to_string(workspace_root().join("book/SUMMARY.md")).unwrap();
    summary
        .split(&['(', ')'][..])
        .filter(|s| s.ends_with(".md"))
        .map(|s| s.replace(".md", ".html"))
        .collect()
}

/// What a reader reads of the chapter, once its charts are drawn.
async fn chapter_text(browser: &Browser) -> Result<String> {
    let has_chart = browser
        .eval("return !!document.querySelector('main figure.pw-chart');")
        .await?;
    if has_chart == Value::Bool(true) {
        browser.wait_for_charts_within(TIMEOUT).await?;
    }
    // The run picker says which run is kept: the one part of a page that
    // differs by design, left out of both.
    let text = browser
        .eval(
            "const pickers = [...document.querySelectorAll('main [data-pw-personal]')];
             pickers.forEach(p => p.hidden = true);
             const text = document.querySelector('main').innerText;
             pickers.forEach(p => p.hidden = false);
             return text;",
        )
        .await?;
    Ok(text.as_str().unwrap_or_default().to_string())
}

/// Where two texts first part, with some context, for the failure.
fn first_difference(want: &str, got: &str) -> String {
    let at = want
        .chars()
        .zip(got.chars())
        .position(|(a, b)| a != b)
        .unwrap_or(want.chars().count().min(got.chars().count()));
    let around = |s: &str| -> String { s.chars().skip(at.saturating_sub(120)).take(240).collect() };
    format!(
        "at character {at}:\n built: {}\n page:  {}",
        around(want),
        around(got)
    )
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn a_picked_run_renders_every_chapter_as_the_build_does() {
    let Some(book) = book("a_picked_run_renders_every_chapter_as_the_build_does") else {
        return;
    };
    let run: PathBuf = workspace_root().join(RUN);
    let tmp = tempfile::tempdir().unwrap();
    reference_build(&run, tmp.path());
    let reference = serve(tmp.path().join("book")).unwrap();
    let renderer = book.dir.join("gen/pagewalk-book.js");
    let size = std::fs::metadata(&renderer).map(|m| m.len()).unwrap_or(0);
    book.with_browser(async |browser| {
        // A plain visit never downloads the renderer.
        browser.goto(&book.server.url("your-machine.html")).await?;
        browser.wait_for("document.querySelector('.pw-personal-input')").await?;
        ensure!(
            !book
                .server
                .requests()
                .iter()
                .any(|r| r.target.contains("pagewalk-book")),
            "the book renderer was requested before any run was picked"
        );

        // Pick the file; the page checks it, keeps it and reloads.
        let picked = Instant::now();
        browser
            .driver()
            .find(By::Css(".pw-personal-input"))
            .await?
            .send_keys(run.to_string_lossy().as_ref())
            .await?;
        browser
            .wait_for_within(
                "window.pagewalkBook && window.pagewalkBook.rendered && !window.pagewalkBook.rendered.error",
                TIMEOUT,
            )
            .await
            .context("the chapter was not rendered with the picked run")?;
        let to_first = picked.elapsed();

        let (mut per_page, mut starts) = (Vec::new(), Vec::new());
        for page in chapters() {
            browser.goto(&reference.url(&page)).await?;
            let want = chapter_text(browser).await?;
            browser.goto(&book.server.url(&page)).await?;
            browser
                .wait_for_within("window.pagewalkBook && window.pagewalkBook.rendered", TIMEOUT)
                .await?;
            let rendered = browser.eval("return window.pagewalkBook.rendered;").await?;
            ensure!(
                rendered["error"].is_null(),
                "{page}: not rendered with the run: {rendered}"
            );
            per_page.push(rendered["ms"].as_f64().unwrap_or(f64::NAN));
            starts.push(rendered["startMs"].as_f64().unwrap_or(f64::NAN));
            let got = chapter_text(browser).await?;
            ensure!(
                want == got,
                "{page}: the page with the picked run differs from mdbook build with it, {}",
                first_difference(&want, &got)
            );
            let banner = browser
                .eval("const b = document.querySelector('.pw-personal-banner'); return b && b.textContent;")
                .await?;
            ensure!(
                banner.as_str().is_some_and(|b| b.contains("intel-xeon-emr-16vcpu-kvm.json")),
                "{page}: the page does not say whose run it shows: {banner}"
            );
        }

        // The note and its button are as accessible as the rest.
        let severe: Vec<String> = browser
            .axe()
            .await?
            .into_iter()
            .filter(|v| v.is_severe())
            .map(|v| format!("{v:?}"))
            .collect();
        ensure!(severe.is_empty(), "axe, with a kept run: {severe:#?}");

        // The sidebar names the templated chapter as the build does.
        let sidebar = "return [...document.querySelectorAll('mdbook-sidebar-scrollbox a[href$=\"your-machine.html\"]')]
                         .map(a => a.textContent.trim()).join('|');";
        browser.goto(&reference.url("your-machine.html")).await?;
        let want = browser.eval(sidebar).await?;
        browser.goto(&book.server.url("your-machine.html")).await?;
        browser
            .wait_for_within("window.pagewalkBook && window.pagewalkBook.rendered", TIMEOUT)
            .await?;
        let got = browser.eval(sidebar).await?;
        ensure!(
            want == got && want.as_str().is_some_and(|t| t.contains("Your machine")),
            "the sidebar names the chapter {got}, the build {want}"
        );

        // A reload keeps it; clearing brings the example back.
        browser.driver().refresh().await?;
        browser
            .wait_for_within("window.pagewalkBook && window.pagewalkBook.rendered", TIMEOUT)
            .await
            .context("a reload lost the run")?;
        browser
            .driver()
            .find(By::Css(".pw-personal-banner .pw-personal-clear"))
            .await?
            .click()
            .await?;
        browser
            .wait_for_within(
                "document.readyState === 'complete' && !window.pagewalkBook && !document.querySelector('.pw-personal-banner')",
                TIMEOUT,
            )
            .await
            .context("clearing the run did not bring the example back")?;

        per_page.sort_by(f64::total_cmp);
        starts.sort_by(f64::total_cmp);
        eprintln!(
            "personal book: renderer {size} bytes ({} gzipped); pick to first chapter re-rendered {:.2} s; \
             per page median {:.0} ms (of which starting the module {:.0} ms), max {:.0} ms, over {} pages",
            gzipped(&renderer),
            to_first.as_secs_f64(),
            per_page[per_page.len() / 2],
            starts[starts.len() / 2],
            per_page[per_page.len() - 1],
            per_page.len()
        );
        Ok(())
    });
}

/// A run with markup in every free-text field and in its file name, kept in
/// the browser: every chapter renders it (the page's renderer is the
/// build's, escape included) and none of it is live.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn a_hostile_picked_run_stays_text_on_every_chapter() {
    let Some(book) = book("a_hostile_picked_run_stays_text_on_every_chapter") else {
        return;
    };
    let poisoned = poison_run(&fresh_run("bbbbbb"));
    let name = format!("{}.json", file_name_payload());
    book.with_browser(async |browser| {
        browser.goto(&book.server.url("your-machine.html")).await?;
        browser.wait_for("document.querySelector('.pw-personal-input')").await?;
        // Dropped on the picker, as a reader drags it from a folder.
        browser
            .eval_with(
                "const dt = new DataTransfer();
                 dt.items.add(new File([arguments[1]], arguments[0], { type: 'application/json' }));
                 const zone = document.querySelector('[data-pw-personal]');
                 zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
                 zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
                 return null;",
                vec![Value::from(name.clone()), Value::from(poisoned.file.to_string())],
            )
            .await?;
        browser
            .wait_for_within("window.pagewalkBook && window.pagewalkBook.rendered", TIMEOUT)
            .await
            .context("the dropped file was not kept and shown")?;
        for page in chapters() {
            browser.goto(&book.server.url(&page)).await?;
            browser
                .wait_for_within("window.pagewalkBook && window.pagewalkBook.rendered", TIMEOUT)
                .await?;
            let seen = browser
                .eval(
                    "return {
                       rendered: window.pagewalkBook.rendered,
                       banner: document.querySelector('.pw-personal-banner strong')?.textContent || null,
                     };",
                )
                .await?;
            ensure!(
                seen["rendered"]["error"].is_null(),
                "{page}: the hostile run was not rendered: {}",
                seen["rendered"]
            );
            ensure_inert(browser, &page).await?;
            ensure!(
                seen["banner"].as_str() == Some(name.as_str()),
                "{page}: the file's name is not shown as text: {}",
                seen["banner"]
            );
        }
        // The print page keeps the build's text and says so, naming the
        // kept run as text.
        browser.goto(&book.server.url("print.html")).await?;
        browser
            .wait_for_within("document.querySelector('.pw-personal-banner')", TIMEOUT)
            .await
            .context("print.html does not say it shows the example run")?;
        ensure_inert(browser, "print.html").await?;
        let named = browser
            .eval("return document.querySelector('.pw-personal-banner strong')?.textContent || null;")
            .await?;
        ensure!(
            named.as_str() == Some(name.as_str()),
            "print.html: the file's name is not shown as text: {named}"
        );
        browser.goto(&book.server.url("your-machine.html")).await?;
        let text = browser
            .eval("return document.querySelector('main').textContent;")
            .await?;
        ensure!(
            text.as_str().is_some_and(|t| t.contains("[x](javascript:alert(")),
            "your-machine.html shows no payload at all: was the hostile run shown?"
        );
        browser
            .eval("localStorage.removeItem('pagewalk-run'); return null;")
            .await?;
        Ok(())
    });
}

/// `gzip -9` size of a file, as the site would serve it compressed.
fn gzipped(path: &Path) -> String {
    Command::new("sh")
        .arg("-c")
        .arg(format!("gzip -9nc '{}' | wc -c", path.display()))
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "?".into())
}
