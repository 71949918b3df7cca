//! Saves a PNG of named sections of the built book, at phone and desktop
//! widths in the light and navy themes, for a person to look at: what a
//! reader sees where a heading starts.
//!
//! ```text
//! section-shots OUT_DIR BOOK_DIR PAGE.html#ANCHOR...
//! ```
//!
//! Files are `OUT_DIR/PAGE-ANCHOR-WIDTH-THEME.png`: the viewport with the
//! heading at its top. With `PAGEWALK_KEEP_RUN=RUN.json`, the pages are
//! shown as a reader who kept that run in the browser sees them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use pagewalk_browser_tests::{block_on, serve, Browser};

const WIDTHS: [u32; 2] = [390, 1280];
const THEMES: [&str; 2] = ["light", "navy"];

fn main() -> ExitCode {
    match run() {
        Ok(n) => {
            eprintln!("section-shots: {n} screenshots");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("section-shots: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<usize> {
    let usage = "usage: section-shots OUT_DIR BOOK_DIR PAGE.html#ANCHOR...";
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().context(usage)?);
    let dir = PathBuf::from(args.next().context(usage)?);
    let sections: Vec<String> = args.collect();
    anyhow::ensure!(!sections.is_empty(), "{usage}");
    std::fs::create_dir_all(&out)?;
    let server = serve(&dir)?;
    block_on(async {
        let browser = Browser::start().await?;
        if let Some(run) = std::env::var_os("PAGEWALK_KEEP_RUN") {
            let run = PathBuf::from(run);
            let text = std::fs::read_to_string(&run)
                .with_context(|| format!("reading {}", run.display()))?;
            let name = run
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            browser.goto(&server.url("index.html")).await?;
            browser
                .eval_with(
                    "localStorage.setItem('pagewalk-run', JSON.stringify({ name: arguments[0], text: arguments[1] })); return 0;",
                    vec![name.into(), text.into()],
                )
                .await?;
        }
        let mut n = 0;
        for theme in THEMES {
            for width in WIDTHS {
                browser.set_width(width).await?;
                for section in &sections {
                    let (page, anchor) = section.split_once('#').context(usage)?;
                    browser.goto(&server.url(page)).await?;
                    if theme != "light" {
                        browser.switch_theme(theme).await?;
                    }
                    browser
                        .eval(&format!(
                            "document.getElementById({anchor:?})?.scrollIntoView(); return 0;"
                        ))
                        .await?;
                    let png = browser.driver().screenshot_as_png().await?;
                    let stem = page.trim_end_matches(".html");
                    std::fs::write(
                        out.join(format!("{stem}-{anchor}-{width}-{theme}.png")),
                        png,
                    )?;
                    n += 1;
                }
            }
        }
        browser.quit().await?;
        Ok(n)
    })
}
