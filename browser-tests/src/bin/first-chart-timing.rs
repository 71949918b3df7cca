//! Prints how long the book takes from navigation start to its first chart
//! being ready, for the performance report.
//!
//! ```text
//! first-chart-timing [--page first-touch.html] [--runs 5] [--file] [BOOK_DIR]
//! ```
//!
//! BOOK_DIR defaults to `$PAGEWALK_BOOK_DIR`, else `<workspace>/book-out`.
//! The page is served over http on 127.0.0.1 (or opened from `file://` with
//! `--file`), loaded `--runs` times in one fresh headless Chromium, and the
//! time of each load goes to stderr. stdout gets one JSON line:
//! `{"page":..,"transport":"http","runs":5,"samples_ms":[..],"median_ms":..,"min_ms":..,"max_ms":..}`.
//! Exits non-zero when a load has an error or a request to another origin.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pagewalk_browser_tests::{block_on, book_dir, file_url, serve, Browser};

struct Args {
    page: String,
    runs: usize,
    file: bool,
    book: Option<PathBuf>,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        page: "first-touch.html".into(),
        runs: 5,
        file: false,
        book: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--page" => args.page = it.next().context("--page takes a file name")?,
            "--runs" => {
                args.runs = it
                    .next()
                    .context("--runs takes a number")?
                    .parse()
                    .context("--runs")?;
                if args.runs == 0 {
                    bail!("--runs must be at least 1");
                }
            }
            "--file" => args.file = true,
            "-h" | "--help" => {
                println!("usage: first-chart-timing [--page first-touch.html] [--runs 5] [--file] [BOOK_DIR]");
                std::process::exit(0);
            }
            _ if a.starts_with('-') => bail!("unknown option {a}"),
            _ => args.book = Some(PathBuf::from(a)),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("first-chart-timing: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let args = parse_args()?;
    let dir = match args.book {
        Some(d) => d,
        None => book_dir()?,
    };
    let page_path = dir.join(&args.page);
    if !page_path.is_file() {
        bail!(
            "{} not found: build the book first (`scripts/build-wasm && mdbook build`)",
            page_path.display()
        );
    }
    let server = serve(&dir)?;
    let url = if args.file {
        file_url(&page_path)?
    } else {
        server.url(&args.page)
    };
    let samples = block_on(async {
        let browser = Browser::start().await?;
        let mut samples = Vec::new();
        for i in 0..args.runs {
            let ms = browser.time_to_first_chart_ms(&url).await?;
            browser.assert_clean().await?;
            eprintln!("run {}: first chart ready after {ms:.1} ms", i + 1);
            samples.push(ms);
        }
        browser.quit().await?;
        anyhow::Ok(samples)
    })?;
    let mut sorted = samples.clone();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let out = serde_json::json!({
        "page": args.page,
        "transport": if args.file { "file" } else { "http" },
        "runs": n,
        "samples_ms": samples.iter().map(|x| (x * 10.0).round() / 10.0).collect::<Vec<_>>(),
        "median_ms": (median * 10.0).round() / 10.0,
        "min_ms": (sorted[0] * 10.0).round() / 10.0,
        "max_ms": (sorted[n - 1] * 10.0).round() / 10.0,
    });
    println!("{out}");
    Ok(())
}
