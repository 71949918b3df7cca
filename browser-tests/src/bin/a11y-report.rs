//! Prints axe-core's violations on every page of the built book in each of
//! mdBook's five themes, for `scripts/report-a11y` (asserts nothing; the
//! light and navy themes are held to zero critical and serious violations
//! by `tests/a11y.rs`).
//!
//! ```text
//! a11y-report [--themes light,navy] [--verbose] [BOOK_DIR]
//! ```
//!
//! One line per page and theme: counts by impact and each critical or
//! serious rule with its node count and first selector (with `--verbose`,
//! up to three elements and what axe found there); then one total line
//! per theme. BOOK_DIR defaults to `$PAGEWALK_BOOK_DIR`, else
//! `<workspace>/book-out`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pagewalk_browser_tests::{block_on, book_dir, serve, Browser};

const THEMES: [&str; 5] = ["light", "rust", "coal", "navy", "ayu"];

fn main() -> ExitCode {
    match report() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("a11y-report: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn report() -> Result<()> {
    let mut themes: Vec<String> = THEMES.iter().map(|t| t.to_string()).collect();
    let mut dir = None;
    let mut verbose = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--themes" => {
                themes = it
                    .next()
                    .context("--themes takes a list")?
                    .split(',')
                    .map(str::to_string)
                    .collect()
            }
            "-v" | "--verbose" => verbose = true,
            "-h" | "--help" => {
                println!("usage: a11y-report [--themes light,navy] [--verbose] [BOOK_DIR]");
                return Ok(());
            }
            _ if a.starts_with('-') => bail!("unknown option {a}"),
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    let dir = match dir {
        Some(d) => d,
        None => book_dir()?,
    };
    let mut pages: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html"))
        .collect();
    pages.sort();
    let server = serve(&dir)?;
    block_on(async {
        let browser = Browser::start().await?;
        let mut totals = Vec::new();
        for theme in &themes {
            browser.goto(&server.url("index.html")).await?;
            browser.prefer_theme(theme).await?;
            let mut by_impact: BTreeMap<String, usize> = BTreeMap::new();
            let mut rules: BTreeMap<String, usize> = BTreeMap::new();
            for page in &pages {
                let found = browser.axe_page(&server.url(page)).await?;
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for v in &found {
                    *counts.entry(v.impact.as_str()).or_default() += v.nodes;
                    *by_impact.entry(v.impact.clone()).or_default() += v.nodes;
                    if v.is_severe() {
                        *rules.entry(format!("{} {}", v.impact, v.id)).or_default() += v.nodes;
                    }
                }
                let n = |k: &str| counts.get(k).copied().unwrap_or(0);
                println!(
                    "{theme:5} {page:24} critical {:4} serious {:4} moderate {:4} minor {:4}",
                    n("critical"),
                    n("serious"),
                    n("moderate"),
                    n("minor")
                );
                for v in found.iter().filter(|v| v.is_severe()) {
                    println!("      {v}");
                    if verbose {
                        for e in &v.examples {
                            println!("          {e}");
                        }
                    }
                }
            }
            let n = |k: &str| by_impact.get(k).copied().unwrap_or(0);
            totals.push(format!(
                "{theme:5} all {} pages: critical {} serious {} moderate {} minor {} (nodes){}",
                pages.len(),
                n("critical"),
                n("serious"),
                n("moderate"),
                n("minor"),
                rules
                    .iter()
                    .map(|(r, c)| format!("; {r} x{c}"))
                    .collect::<String>()
            ));
        }
        println!();
        for t in totals {
            println!("{t}");
        }
        browser.quit().await
    })
}
