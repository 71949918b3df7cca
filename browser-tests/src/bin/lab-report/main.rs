//! Prints how the in-page experiments compare with native runs on this
//! machine, for `scripts/report-browser` (which gathers the native inputs).
//! Asserts nothing: the machine is shared and noisy, so targets are read,
//! not enforced.
//!
//! ```text
//! lab-report [--native FILE] [--collector FILE] [--sizes 16,256,65536] [BOOK_DIR]
//! ```
//!
//! In one headless Chromium it opens `in-your-browser.html` (served on
//! 127.0.0.1), watches the main thread (`PerformanceObserver` long tasks,
//! and the largest delay of a 10 ms timer), runs the in-page chase up to
//! the largest size and then first touch, and prints:
//!
//! * the browser's chase ns per load at each `--sizes` KiB, next to the
//!   collector's `staircase` (4 KiB pages, from the run file `--collector`)
//!   and the same chase run natively (`--native`, the JSON of
//!   `native-chase`), with the ratios;
//! * the timer step the page saw and whether it was cross-origin isolated;
//! * the longest main-thread task while each experiment ran (target: none
//!   over 50 ms).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod inputs;
mod watch;

use inputs::{chase_at, native_first_pass, read_json, renderer_minor_faults, staircase_at};
use watch::{print_watch, watched};

use anyhow::{bail, Context, Result};
use pagewalk_browser_tests::{block_on, book_dir, serve, Browser};
use serde_json::{json, Value};

struct Args {
    native: Option<PathBuf>,
    collector: Option<PathBuf>,
    /// A collector first-touch run (nohugepage at 64 MiB) to set the
    /// page's first pass beside.
    native_first_touch: Option<PathBuf>,
    sizes_kib: Vec<u64>,
    book: Option<PathBuf>,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        native: None,
        collector: None,
        native_first_touch: None,
        sizes_kib: vec![16, 256, 65536],
        book: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--native" => args.native = Some(it.next().context("--native takes a file")?.into()),
            "--native-first-touch" => {
                args.native_first_touch = Some(
                    it.next()
                        .context("--native-first-touch takes a file")?
                        .into(),
                )
            }
            "--collector" => {
                args.collector = Some(it.next().context("--collector takes a file")?.into())
            }
            "--sizes" => {
                args.sizes_kib = it
                    .next()
                    .context("--sizes takes KiB values, comma-separated")?
                    .split(',')
                    .map(|s| s.trim().parse::<u64>().context("--sizes"))
                    .collect::<Result<_>>()?;
            }
            "-h" | "--help" => {
                println!("usage: lab-report [--native FILE] [--collector FILE] [--native-first-touch FILE] [--sizes 16,256,65536] [BOOK_DIR]");
                std::process::exit(0);
            }
            _ if a.starts_with('-') => bail!("unknown option {a}"),
            _ => args.book = Some(PathBuf::from(a)),
        }
    }
    if args.sizes_kib.is_empty()
        || args
            .sizes_kib
            .iter()
            .any(|&k| k < 16 || !k.is_power_of_two())
    {
        bail!("--sizes: powers of two of at least 16 (KiB), as the chase measures them");
    }
    Ok(args)
}

fn main() -> ExitCode {
    match parse_args().and_then(|a| block_on(report(a))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab-report: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
        _ => "n/a".to_string(),
    }
}

fn ns(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"))
}

fn size(kib: u64) -> String {
    if kib >= 1024 * 1024 {
        format!("{} GiB", kib / (1024 * 1024))
    } else if kib >= 1024 {
        format!("{} MiB", kib / 1024)
    } else {
        format!("{kib} KiB")
    }
}

async fn report(args: Args) -> Result<()> {
    let native = args.native.as_ref().map(read_json).transpose()?;
    let collector = args.collector.as_ref().map(read_json).transpose()?;
    let dir = match &args.book {
        Some(d) => d.clone(),
        None => book_dir()?,
    };
    let server = serve(&dir)?;
    let browser = Browser::start().await?;
    // Long tasks from the very start of the page: loading it, drawing the
    // charts, fetching and starting the lab worker, the first model run.
    browser
        .driver()
        .cdp()
        .send_raw(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": "window.__pwLoadLong = []; try { new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__pwLoadLong.push(e.duration); }).observe({ type: 'longtask' }); } catch (e) {}" }),
        )
        .await
        .context("installing the page-load long-task observer")?;
    browser.goto(&server.url("in-your-browser.html")).await?;
    browser.wait_for_charts().await?;
    browser
        .wait_for("window.pagewalkLab && document.querySelector('section.pw-lab[data-lab=\"chase\"]').dataset.pwLabState === 'idle'")
        .await
        .context("the labs did not start")?;
    browser
        .wait_for_within(
            "document.querySelector('figure.pw-chart[data-chart=\"lab-tlb-model\"] [data-role=\"browser\"]')",
            Duration::from_secs(120),
        )
        .await
        .context("the TLB model did not draw")?;
    let load_long: Vec<f64> = browser
        .eval("return window.__pwLoadLong || [];")
        .await?
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .collect();

    let max_kib = *args.sizes_kib.iter().max().expect("sizes checked");
    let chase_params = json!({ "max_kib": max_kib, "samples": 5, "time_cap_s": 600 });
    eprintln!(
        "lab-report: running the in-page chase up to {}",
        size(max_kib)
    );
    let chase_watch = watched(
        &browser,
        &format!(
            "window.pagewalkLab.run('chase', {chase_params}).catch(e => window.__pwLabError = String(e)); return null;"
        ),
        "window.__pwLabError || (window.pagewalkLab.running().length === 0 && window.pagewalkLab.results.chase)",
    )
    .await?;
    let chase = browser
        .eval("return window.__pwLabError ? {error: window.__pwLabError} : window.pagewalkLab.results.chase.report;")
        .await?;
    if let Some(e) = chase.get("error").and_then(Value::as_str) {
        bail!("the in-page chase failed: {e}");
    }

    eprintln!("lab-report: running in-page first touch (16 to 64 MiB, 3 repetitions)");
    // The worker is a thread of a renderer process: its minor faults are
    // the renderer's, counted by the kernel whatever the page can see.
    let faults_before = renderer_minor_faults();
    let ft_params = json!({ "sizes_mib": [16, 32, 64], "repetitions": 3, "memory_cap_mib": 1024, "time_cap_s": 300 });
    let ft_watch = watched(
        &browser,
        &format!(
            "window.pagewalkLab.run('first-touch', {ft_params}).catch(e => window.__pwLabError = String(e)); return null;"
        ),
        "window.__pwLabError || (window.pagewalkLab.running().length === 0 && window.pagewalkLab.results['first-touch'])",
    )
    .await?;
    let ft = browser
        .eval("const r = window.pagewalkLab.results['first-touch']; return r ? r.report : {error: window.__pwLabError};")
        .await?;
    let renderer_faults = renderer_minor_faults().saturating_sub(faults_before);
    let errors = browser.errors().await?;
    browser.quit().await?;

    let version = std::process::Command::new(
        std::env::var("PAGEWALK_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
    )
    .arg("--version")
    .output()
    .ok()
    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    .unwrap_or_default();
    println!("In-page experiments vs native, this machine ({version}, headless)");
    let t = &chase["timer"];
    println!(
        "  page timer step: {} ns (performance.now(), smallest change seen in the worker); cross-origin isolated: {}",
        t["resolution_ns"].as_f64().map_or("n/a".into(), |v| format!("{v:.0}")),
        t["cross_origin_isolated"]
    );
    println!();
    println!("  Pointer chase, ns per dependent load (median of 5 samples; browser min-max in brackets):");
    println!(
        "  {:>8}  {:>22}  {:>18}  {:>8}  {:>14}  {:>8}  {:>10}",
        "region",
        "browser (wasm, worker)",
        "collector staircase",
        "ratio",
        "native (lab)",
        "ratio",
        "added/load"
    );
    for &kib in &args.sizes_kib {
        let b = chase_at(&chase["points"], kib);
        let c = collector.as_ref().and_then(|r| staircase_at(r, kib));
        let n = native
            .as_ref()
            .and_then(|r| chase_at(&r["points"], kib))
            .map(|x| x.0);
        let browser_text = b.map_or("n/a".to_string(), |(m, lo, hi)| {
            format!("{m:.2} [{lo:.2}-{hi:.2}]")
        });
        let added = b.zip(n).map(|(b, n)| b.0 - n);
        println!(
            "  {:>8}  {:>22}  {:>18}  {:>8}  {:>14}  {:>8}  {:>10}",
            size(kib),
            browser_text,
            ns(c),
            ratio(b.map(|x| x.0), c),
            ns(n),
            ratio(b.map(|x| x.0), n),
            ns(added)
        );
    }
    println!("  (each ratio is the browser over the column before it; the collector's curve is its 4 KiB-page regime)");
    // Why: in wasm32 each step is `i32.shl; i32.add; i32.load` (the slot's
    // word index scaled and added to the buffer's offset, then the engine
    // adds the memory base), where native x86 folds `base + index*4` into
    // the load itself: a few cycles more per load, whatever the load costs.
    println!("  (added/load is browser minus native: wasm32 adds a shift and an add to every step of the chain, a constant few cycles; it weighs most where a load is cheapest)");
    if let Some(loads) = chase["points"].as_array().map(|p| {
        p.iter()
            .filter_map(|p| p["loads_per_sample"].as_u64())
            .collect::<Vec<_>>()
    }) {
        if let (Some(lo), Some(hi)) = (loads.iter().min(), loads.iter().max()) {
            println!("  browser loads per sample: {lo} to {hi}");
        }
    }
    print_watch("the chase", &chase_watch);
    println!();
    println!("  First touch in the page (wasm memory.grow), ns per 4 KiB page, median of 3:");
    match ft["sizes"].as_array() {
        Some(sizes) => {
            for s in sizes {
                let m = |k: &str| s[k]["median"].as_f64();
                println!(
                    "  {:>8}  grow {:>8}  first pass {:>8}  second pass {:>8}",
                    size(s["size_bytes"].as_u64().unwrap_or(0) / 1024),
                    ns(m("grow")),
                    ns(m("first")),
                    ns(m("second"))
                );
            }
        }
        None => println!("  no first-touch results: {ft}"),
    }
    // Evidence for what the engine does per page: the kernel's own count.
    let pages_written: u64 = ft["sizes"].as_array().map_or(0, |sizes| {
        sizes
            .iter()
            .map(|s| {
                s["pages"].as_u64().unwrap_or(0)
                    * s["samples"].as_array().map_or(0, |v| v.len() as u64)
            })
            .sum()
    });
    if pages_written > 0 {
        println!(
            "  renderer minor faults while it ran: {renderer_faults} for {pages_written} pages first written ({:.2} per page; native first touch takes 1)",
            renderer_faults as f64 / pages_written as f64
        );
    }
    if let Some(path) = &args.native_first_touch {
        let native = native_first_pass(path)?;
        let page = ft["sizes"]
            .as_array()
            .and_then(|s| s.last())
            .and_then(|s| s["first"]["median"].as_f64());
        println!(
            "  first pass at 64 MiB: page {} vs collector nohugepage {} per page: ratio {}",
            ns(page),
            ns(native),
            ratio(page, native)
        );
    }
    print_watch("first touch", &ft_watch);
    println!(
        "  main thread while the page loaded (charts drawn, lab worker started, first model run): {}",
        match load_long.iter().copied().reduce(f64::max) {
            Some(ms) => format!("{} long task(s), the longest {ms:.0} ms", load_long.len()),
            None => "no long task (none over 50 ms)".to_string(),
        }
    );
    if !errors.is_empty() {
        println!("  page errors: {errors:#?}");
    }
    Ok(())
}
