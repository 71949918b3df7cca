//! Saves a PNG of every chart of the built book, at phone and desktop
//! widths in the light and navy themes, for a person to look at.
//!
//! ```text
//! chart-shots OUT_DIR [BOOK_DIR]
//! ```
//!
//! BOOK_DIR defaults to `$PAGEWALK_BOOK_DIR`, else `<workspace>/book-out`.
//! Files are `OUT_DIR/PAGE-CHART-WIDTH-THEME.png` (with `page` for a
//! screenshot of the top of each chart page).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use pagewalk_browser_tests::{block_on, book_dir, serve, Browser};
use thirtyfour::By;

const WIDTHS: [u32; 2] = [390, 1280];
const THEMES: [&str; 2] = ["light", "navy"];

fn main() -> ExitCode {
    match run() {
        Ok(n) => {
            eprintln!("chart-shots: {n} screenshots");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("chart-shots: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<usize> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(
        args.next()
            .context("usage: chart-shots OUT_DIR [BOOK_DIR]")?,
    );
    let dir = match args.next() {
        Some(d) => PathBuf::from(d),
        None => book_dir()?,
    };
    std::fs::create_dir_all(&out)?;
    let server = serve(&dir)?;
    let mut pages: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html") && n != "print.html")
        .filter(|n| {
            std::fs::read_to_string(dir.join(n)).is_ok_and(|h| h.contains("class=\"pw-chart\""))
        })
        .collect();
    pages.sort();
    block_on(async {
        let browser = Browser::start().await?;
        let mut n = 0;
        for theme in THEMES {
            for width in WIDTHS {
                browser.set_width(width).await?;
                for page in &pages {
                    browser.goto(&server.url(page)).await?;
                    if theme != "light" {
                        browser.switch_theme(theme).await?;
                    }
                    let charts = browser.wait_for_charts().await?;
                    let stem = page.trim_end_matches(".html");
                    for chart in charts {
                        let figure = browser
                            .driver()
                            .find(By::Css(format!("figure[data-chart='{chart}']")))
                            .await?;
                        figure.scroll_into_view().await?;
                        let png = figure.screenshot_as_png().await?;
                        std::fs::write(
                            out.join(format!("{stem}-{chart}-{width}-{theme}.png")),
                            png,
                        )?;
                        n += 1;
                    }
                }
            }
        }
        browser.quit().await?;
        Ok(n)
    })
}
