//! A small harness for testing the built book in a real browser.
//!
//! [`Browser::start`] launches `chromedriver` on a free port and a headless
//! Chromium with a fresh profile behind it, and installs a recorder script in
//! every document before the page's own scripts run (errors, failed loads,
//! unhandled rejections, and every resource URL). [`serve`] serves a folder
//! on 127.0.0.1. A test then navigates with [`Browser::goto`], waits with
//! [`Browser::wait_for`] or [`Browser::wait_for_charts`], reads the page with
//! [`Browser::eval`], and ends with [`Browser::assert_clean`]: no console
//! error or warning, no failed load, no request to another origin.
//!
//! The tests that use it run only when `PAGEWALK_BROWSER_TESTS=1`;
//! `scripts/test` sets it after installing Chromium. Without it they are
//! compiled as ignored (`build.rs` sets `cfg(pagewalk_browser_tests)`), and
//! [`should_run`] keeps `cargo test -- --ignored` from running them anyway.
//! With it, a missing Chromium or book fails them. A new browser test:
//!
//! ```ignore
//! #[test]
//! #[cfg_attr(not(pagewalk_browser_tests), ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1")]
//! fn my_chart_draws() {
//!     let Some(book) = built_book("my_chart_draws") else {
//!         return;
//!     };
//!     // A fresh browser; at the end its page must be clean (`Browser::finish`).
//!     book.with_browser(async |browser| {
//!         browser.open_charts(&book.server.url("my-chapter.html")).await?;
//!         let marks = browser.marks("my-chart").await?;
//!         // ... compare marks with the data ...
//!         Ok(())
//!     });
//! }
//! ```
//!
//! ```no_run
//! use pagewalk_browser_tests::{block_on, serve, Browser};
//! block_on(async {
//!     let book = serve("book-out")?;
//!     let browser = Browser::start().await?;
//!     browser.goto(&book.url("first-touch.html")).await?;
//!     let charts = browser.wait_for_charts().await?;
//!     assert!(!charts.is_empty());
//!     browser.assert_clean().await?;
//!     browser.quit().await
//! })
//! .unwrap();
//! ```

pub mod book_copy;
pub mod human;
pub mod page;
pub mod server;

use std::future::Future;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use thirtyfour::prelude::*;
use thirtyfour::ChromiumLikeCapabilities;
use thirtyfour::LoggingPrefsLogLevel;

pub use page::{any_mark_js, chart_css, ensure_charts, marks_css, Table};
pub use server::{serve, Served, Server};
pub use thirtyfour;

/// The script installed in every new document; see `src/recorder.js`.
pub const RECORDER_JS: &str = include_str!("recorder.js");

/// The environment variable that turns the browser tests on.
pub const ENABLE_VAR: &str = "PAGEWALK_BROWSER_TESTS";

/// How long [`Browser::wait_for`] and [`Browser::wait_for_charts`] wait.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Chromium's flags: headless, and nothing that phones home (there is no
/// network here but the package registries).
pub const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
];

/// True when `PAGEWALK_BROWSER_TESTS=1`.
pub fn enabled() -> bool {
    std::env::var(ENABLE_VAR).is_ok_and(|v| v == "1")
}

/// For the start of a browser test: false (and says why on stderr) when
/// the browser tests are off, so the test returns early.
pub fn should_run(test: &str) -> bool {
    if enabled() {
        return true;
    }
    eprintln!(
        "{test}: skipped: real-browser test; set {ENABLE_VAR}=1 to run it \
         (scripts/test does, after installing chromium and chromium-driver)"
    );
    false
}

/// The workspace root (the folder holding `book.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("browser-tests lives inside the workspace")
        .to_path_buf()
}

/// The built book: `$PAGEWALK_BOOK_DIR`, else `<workspace>/book-out`. An
/// error says how to build it when it is not there.
pub fn book_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os("PAGEWALK_BOOK_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => workspace_root().join("book-out"),
    };
    if !dir.join("index.html").is_file() {
        bail!(
            "no built book at {} (no index.html): build it first with \
             `scripts/build-wasm && mdbook build` in {}, or point PAGEWALK_BOOK_DIR at a built book",
            dir.display(),
            workspace_root().display()
        );
    }
    let index = std::fs::read_to_string(dir.join("index.html"))
        .with_context(|| format!("reading {}", dir.join("index.html").display()))?;
    if index.contains("__livereload") {
        bail!(
            "{} was written by `mdbook serve` (its pages open a live-reload socket): \
             rebuild it with `mdbook build` before running the browser tests",
            dir.display()
        );
    }
    Ok(dir)
}

/// Holds browser tests of one test binary to one at a time: the machine
/// has two cores, and a test that waits for a chart should not time out
/// because three other Chromiums are starting.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a browser test starts from: one test at a time, the built book,
/// served on 127.0.0.1.
pub struct BuiltBook {
    _one_at_a_time: MutexGuard<'static, ()>,
    pub dir: PathBuf,
    pub server: Server,
}

/// The fixture for browser test `test`: `None` (skipped, with the reason
/// printed) unless browser tests are on; a missing book fails the test.
pub fn built_book(test: &str) -> Option<BuiltBook> {
    if !should_run(test) {
        return None;
    }
    let lock = serial();
    let dir = book_dir().unwrap_or_else(|e| panic!("{e:#}"));
    let server = serve(&dir).unwrap_or_else(|e| panic!("serving {}: {e}", dir.display()));
    Some(BuiltBook {
        _one_at_a_time: lock,
        dir,
        server,
    })
}

impl BuiltBook {
    /// Runs `body` with a fresh browser, then [`Browser::finish`]es it and
    /// [`BuiltBook::assert_all_served`]; any error fails the test.
    pub fn with_browser(&self, body: impl AsyncFnOnce(&Browser) -> Result<()>) {
        run_test(async {
            let browser = Browser::start().await?;
            body(&browser).await?;
            browser.finish().await
        });
        self.assert_all_served();
    }

    /// The file names of the book's HTML pages, sorted.
    pub fn html_pages(&self) -> Vec<String> {
        let mut pages: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()))
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".html"))
            .collect();
        pages.sort();
        pages
    }

    /// The pages with at least one chart, print.html aside (it repeats
    /// every chapter's).
    pub fn chart_pages(&self) -> Vec<String> {
        self.html_pages()
            .into_iter()
            .filter(|p| p != "print.html")
            .filter(|p| {
                std::fs::read_to_string(self.dir.join(p))
                    .is_ok_and(|h| h.contains("class=\"pw-chart\""))
            })
            .collect()
    }

    /// Fails when the server answered anything with a 404.
    pub fn assert_all_served(&self) {
        let failed = self.server.failures();
        assert!(
            failed.is_empty(),
            "requests the book could not answer: {failed:#?}"
        );
    }
}

/// Runs an async test body and fails the test with the whole error chain.
pub fn run_test(body: impl Future<Output = Result<()>>) {
    if let Err(e) = block_on(body) {
        panic!("{e:#}");
    }
}

/// Runs a future to completion on a fresh single-threaded runtime.
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(future)
}

/// The Chromium and chromedriver binaries: `$PAGEWALK_CHROMIUM` and
/// `$PAGEWALK_CHROMEDRIVER`, else Debian's `/usr/bin/chromium` and
/// `/usr/bin/chromedriver`.
pub fn browser_binaries() -> Result<(PathBuf, PathBuf)> {
    let find = |var: &str, default: &str, package: &str| -> Result<PathBuf> {
        let path = std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from(default), PathBuf::from);
        if !path.is_file() {
            bail!(
                "{} not found: install Debian's `{package}` package \
                 (`apt-get install chromium chromium-driver`; scripts/test does), or set {var}",
                path.display()
            );
        }
        Ok(path)
    };
    Ok((
        find("PAGEWALK_CHROMIUM", "/usr/bin/chromium", "chromium")?,
        find(
            "PAGEWALK_CHROMEDRIVER",
            "/usr/bin/chromedriver",
            "chromium-driver",
        )?,
    ))
}

/// A mark of a chart: one bar (or point) of the plot's SVG.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub series: String,
    /// `data-role`: `run`, `reference`, `browser` or `file`.
    pub role: String,
    pub category: String,
    /// `data-value` exactly as written in the page.
    pub value_text: String,
    /// `data-value` parsed; NaN when it does not parse.
    pub value: f64,
    pub tabindex: Option<String>,
    pub aria_label: Option<String>,
    /// The chart's value unit (its spec's `y.unit`), e.g. `ns per page`.
    pub unit: String,
    /// `getComputedStyle(mark).fill`.
    pub fill: String,
}

/// How [`Browser::switch_theme`] switched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeSwitch {
    /// Through mdBook's theme menu, as a reader does.
    ByMenu,
    /// The page had no theme menu: the class on `<html>` was set directly.
    ByClass,
}

/// A chart figure's state as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartState {
    pub chart: String,
    pub state: String,
}

/// What was drained from chromedriver's logs for the current page.
#[derive(Default)]
struct PageLog {
    /// The origin requests may go to (`http://127.0.0.1:PORT` or `file://`).
    origin: String,
    /// `SEVERE` entries of the browser log.
    severe: Vec<String>,
    /// Request URLs from the performance log (`Network.requestWillBeSent`).
    requests: Vec<String>,
}

/// A headless Chromium behind its own chromedriver. Call [`Browser::quit`]
/// at the end; dropping it (say, on a failed assertion) also ends both
/// processes.
pub struct Browser {
    // Field order is drop order: the session, then chromedriver, then the
    // profile folder.
    driver: Option<WebDriver>,
    page: Mutex<PageLog>,
    chromedriver: ChromeDriver,
    _scratch: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and Chromium (fresh profile, browser and
    /// performance logs on) and installs the recorder script.
    pub async fn start() -> Result<Browser> {
        let (chromium, chromedriver_bin) = browser_binaries()?;
        let scratch = tempfile::Builder::new()
            .prefix("pagewalk-browser-")
            .tempdir()?;
        let profile = scratch.path().join("profile");
        std::fs::create_dir(&profile)?;
        let chromedriver =
            ChromeDriver::spawn(&chromedriver_bin, &scratch.path().join("chromedriver.log"))?;

        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(&chromium.to_string_lossy())?;
        for arg in CHROMIUM_ARGS {
            caps.add_arg(arg)?;
        }
        caps.add_arg(&format!("--user-data-dir={}", profile.display()))?;
        caps.set_browser_log_level(LoggingPrefsLogLevel::All)?;
        caps.set_logging_prefs("performance", LoggingPrefsLogLevel::All)?;
        let driver = WebDriver::new(chromedriver.url(), caps)
            .await
            .with_context(|| {
                format!(
                    "starting {} through {} failed; chromedriver's log:\n{}",
                    chromium.display(),
                    chromedriver_bin.display(),
                    chromedriver.log_tail()
                )
            })?;
        let browser = Browser {
            driver: Some(driver),
            page: Mutex::new(PageLog::default()),
            chromedriver,
            _scratch: scratch,
        };
        browser
            .driver()
            .cdp()
            .send_raw(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": RECORDER_JS }),
            )
            .await
            .context("installing the recorder script")?;
        Ok(browser)
    }

    /// The WebDriver session, for anything the harness does not wrap.
    pub fn driver(&self) -> &WebDriver {
        self.driver
            .as_ref()
            .expect("the session is open until quit")
    }

    /// Ends the session and the browser.
    pub async fn quit(mut self) -> Result<()> {
        if let Some(driver) = self.driver.take() {
            driver.quit().await?;
        }
        Ok(())
    }

    /// Navigates and waits for the load event. What the logs held before
    /// belongs to the previous page and is dropped; use [`Browser::errors`]
    /// before navigating away to see it.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.drain_logs().await?;
        *self.page.lock().unwrap() = PageLog {
            origin: origin_of(url),
            ..PageLog::default()
        };
        self.driver()
            .goto(url)
            .await
            .with_context(|| format!("navigating to {url}"))
    }

    /// Runs `script` (a function body: use `return`) in the page with
    /// `arguments` bound to `args`, and returns its result as JSON.
    pub async fn eval_with(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        let ret = self
            .driver()
            .execute(script, args)
            .await
            .with_context(|| format!("running script in the page: {script}"))?;
        Ok(ret.json().clone())
    }

    /// [`Browser::eval_with`] without arguments.
    pub async fn eval(&self, script: &str) -> Result<Value> {
        self.eval_with(script, Vec::new()).await
    }

    /// Polls the JavaScript expression `condition` until it is truthy, for
    /// up to [`DEFAULT_TIMEOUT`].
    pub async fn wait_for(&self, condition: &str) -> Result<()> {
        self.wait_for_within(condition, DEFAULT_TIMEOUT).await
    }

    /// [`Browser::wait_for`] with a given timeout. A timeout lists what the
    /// recorder saw, which usually says why.
    pub async fn wait_for_within(&self, condition: &str, timeout: Duration) -> Result<()> {
        let script = format!("return !!({condition});");
        let start = Instant::now();
        loop {
            if self.eval(&script).await?.as_bool() == Some(true) {
                return Ok(());
            }
            if start.elapsed() > timeout {
                let errors = self.errors().await.unwrap_or_default();
                bail!(
                    "timed out after {:.1} s waiting for `{condition}`; errors recorded: {errors:#?}",
                    timeout.as_secs_f64()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Each `figure.pw-chart` of the page with its `data-pw-state`.
    pub async fn chart_states(&self) -> Result<Vec<ChartState>> {
        let v = self
            .eval(
                "return [...document.querySelectorAll('figure.pw-chart')]
                   .map(f => [f.getAttribute('data-chart') || '', f.getAttribute('data-pw-state') || '']);",
            )
            .await?;
        Ok(v.as_array()
            .into_iter()
            .flatten()
            .map(|pair| ChartState {
                chart: pair[0].as_str().unwrap_or_default().to_string(),
                state: pair[1].as_str().unwrap_or_default().to_string(),
            })
            .collect())
    }

    /// Waits until the page has chart figures and every one is
    /// `data-pw-state="ready"`; returns their `data-chart` names. Fails at
    /// once when a figure reports `error`.
    pub async fn wait_for_charts(&self) -> Result<Vec<String>> {
        self.wait_for_charts_within(DEFAULT_TIMEOUT).await
    }

    pub async fn wait_for_charts_within(&self, timeout: Duration) -> Result<Vec<String>> {
        let start = Instant::now();
        loop {
            let states = self.chart_states().await?;
            if !states.is_empty() && states.iter().all(|s| s.state == "ready") {
                return Ok(states.into_iter().map(|s| s.chart).collect());
            }
            let failed: Vec<_> = states.iter().filter(|s| s.state == "error").collect();
            if !failed.is_empty() || start.elapsed() > timeout {
                let errors = self.errors().await.unwrap_or_default();
                let why = if failed.is_empty() {
                    format!("timed out after {:.1} s", timeout.as_secs_f64())
                } else {
                    "a chart reported data-pw-state=\"error\"".to_string()
                };
                bail!("{why} waiting for every figure.pw-chart to be ready; charts: {states:?}; errors recorded: {errors:#?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The marks of chart `chart` (`figure.pw-chart[data-chart=...]`):
    /// every element with `data-series` in its `.pw-chart-plot svg`.
    pub async fn marks(&self, chart: &str) -> Result<Vec<Mark>> {
        let v = self
            .eval_with(
                "const fig = document.querySelector(`figure.pw-chart[data-chart=\"${arguments[0]}\"]`);
                 if (!fig) return null;
                 const spec = fig.querySelector('script.pw-chart-spec');
                 const unit = spec ? (JSON.parse(spec.textContent).y.unit || '') : '';
                 return [...fig.querySelectorAll('.pw-chart-plot svg [data-series]')].map(m => ({
                   unit,
                   series: m.getAttribute('data-series'),
                   role: m.getAttribute('data-role'),
                   category: m.getAttribute('data-category'),
                   value: m.getAttribute('data-value'),
                   tabindex: m.getAttribute('tabindex'),
                   label: m.getAttribute('aria-label'),
                   fill: getComputedStyle(m).fill,
                 }));",
                vec![json!(chart)],
            )
            .await?;
        let Some(list) = v.as_array() else {
            bail!("no figure.pw-chart[data-chart=\"{chart}\"] in the page");
        };
        let s = |m: &Value, k: &str| m[k].as_str().map(str::to_string);
        Ok(list
            .iter()
            .map(|m| {
                let value_text = s(m, "value").unwrap_or_default();
                Mark {
                    series: s(m, "series").unwrap_or_default(),
                    role: s(m, "role").unwrap_or_default(),
                    category: s(m, "category").unwrap_or_default(),
                    value: value_text.trim().parse().unwrap_or(f64::NAN),
                    value_text,
                    tabindex: s(m, "tabindex"),
                    aria_label: s(m, "label"),
                    unit: s(m, "unit").unwrap_or_default(),
                    fill: s(m, "fill").unwrap_or_default(),
                }
            })
            .collect())
    }

    /// Everything that went wrong on the current page: what the recorder
    /// caught (console.error/warn, uncaught errors, failed loads, unhandled
    /// rejections, CSP violations) and the browser log's SEVERE entries.
    pub async fn errors(&self) -> Result<Vec<String>> {
        self.drain_logs().await?;
        let recorded = self.eval("return window.__pwErrors || null;").await?;
        let mut errors: Vec<String> = match recorded.as_array() {
            Some(list) => list
                .iter()
                .map(|e| e.as_str().unwrap_or_default().to_string())
                .collect(),
            None => vec![format!(
                "the recorder script is not in this page ({}): its errors cannot be seen",
                self.driver()
                    .current_url()
                    .await
                    .map(|u| u.to_string())
                    .unwrap_or_default()
            )],
        };
        errors.extend(
            self.page
                .lock()
                .unwrap()
                .severe
                .iter()
                .map(|e| format!("browser log SEVERE: {e}")),
        );
        Ok(errors)
    }

    /// Every URL the current page requested: the recorder's resource
    /// entries and the performance log's requests, first seen first.
    pub async fn requests(&self) -> Result<Vec<String>> {
        self.drain_logs().await?;
        let recorded = self.eval("return window.__pwResources || [];").await?;
        let mut all: Vec<String> = self.page.lock().unwrap().requests.clone();
        all.extend(
            recorded
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|u| u.as_str().map(str::to_string)),
        );
        let mut seen = std::collections::HashSet::new();
        all.retain(|u| seen.insert(u.clone()));
        Ok(all)
    }

    /// Requests of the current page to anywhere but the page's own origin
    /// (`data:`, `blob:` and `about:` URLs count as own).
    pub async fn foreign_requests(&self) -> Result<Vec<String>> {
        let origin = self.page.lock().unwrap().origin.clone();
        Ok(self
            .requests()
            .await?
            .into_iter()
            .filter(|u| !same_origin(u, &origin))
            .collect())
    }

    /// Fails, listing everything, when the current page has any error or
    /// any request to another origin.
    pub async fn assert_clean(&self) -> Result<()> {
        let errors = self.errors().await?;
        let foreign = self.foreign_requests().await?;
        if !errors.is_empty() || !foreign.is_empty() {
            let url = self
                .driver()
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            bail!("{url}: errors: {errors:#?}; requests to other origins: {foreign:#?}");
        }
        Ok(())
    }

    /// Loads `url` and returns the milliseconds from navigation start to
    /// the first chart figure turning `data-pw-state="ready"`: wasm-viz's
    /// own `window.__pwFirstChartMs` when it sets one, else the recorder's
    /// MutationObserver stamp.
    pub async fn time_to_first_chart_ms(&self, url: &str) -> Result<f64> {
        self.goto(url).await?;
        self.wait_for(
            "window.__pwFirstChartMs !== undefined || window.__pwFirstReadyMs !== undefined",
        )
        .await?;
        let v = self
            .eval("return typeof window.__pwFirstChartMs === 'number' ? window.__pwFirstChartMs : window.__pwFirstReadyMs;")
            .await?;
        v.as_f64()
            .with_context(|| format!("no first-chart time in {url}: {v}"))
    }

    /// Switches the mdBook theme (`light`, `rust`, `coal`, `navy`, `ayu`) the
    /// way a reader does: the theme button, then the theme's entry, and
    /// waits for `<html>` to carry the theme's class. Returns
    /// [`ThemeSwitch::ByClass`] when the page has no theme menu: then it sets
    /// the class the way mdBook's script would, so a page built with a custom
    /// template can still be tested, and says so on stderr.
    pub async fn switch_theme(&self, theme: &str) -> Result<ThemeSwitch> {
        let driver = self.driver();
        let how = match driver.find(By::Id("mdbook-theme-toggle")).await {
            Ok(toggle) => {
                let list_open = "(() => { const l = document.getElementById('mdbook-theme-list');
                                          return !!l && getComputedStyle(l).display !== 'none'; })()";
                toggle
                    .click()
                    .await
                    .context("clicking #mdbook-theme-toggle")?;
                self.wait_for(list_open)
                    .await
                    .context("the theme list did not open")?;
                driver
                    .find(By::Id(format!("mdbook-theme-{theme}")))
                    .await
                    .with_context(|| format!("no #mdbook-theme-{theme} in the theme list"))?
                    .click()
                    .await
                    .with_context(|| format!("clicking #mdbook-theme-{theme}"))?;
                // mdBook leaves the list open after a choice, and closing it
                // moves the focus back to the button: close it now, as a
                // reader moving on would, so it steals no focus later.
                toggle
                    .click()
                    .await
                    .context("clicking #mdbook-theme-toggle to close the list")?;
                self.wait_for(&format!("!{list_open}"))
                    .await
                    .context("the theme list did not close")?;
                ThemeSwitch::ByMenu
            }
            Err(_) => {
                eprintln!("switch_theme: no #mdbook-theme-toggle in the page; setting <html class> directly");
                self.eval_with(
                    "const html = document.documentElement;
                     for (const t of ['light', 'rust', 'coal', 'navy', 'ayu']) html.classList.remove(t);
                     html.classList.add(arguments[0]);
                     return null;",
                    vec![json!(theme)],
                )
                .await?;
                ThemeSwitch::ByClass
            }
        };
        self.wait_for(&format!(
            "document.documentElement.classList.contains({})",
            json!(theme)
        ))
        .await
        .with_context(|| format!("<html> did not get the class `{theme}`"))?;
        Ok(how)
    }

    /// Turns the page's own scripts off (or back on) for the pages loaded
    /// next: what a reader without JavaScript sees. The recorder and
    /// [`Browser::eval`] still work.
    pub async fn set_scripts_disabled(&self, disabled: bool) -> Result<()> {
        self.driver()
            .cdp()
            .send_raw(
                "Emulation.setScriptExecutionDisabled",
                json!({ "value": disabled }),
            )
            .await
            .context("Emulation.setScriptExecutionDisabled")?;
        Ok(())
    }

    /// Emulates a screen `width` px wide and 900 high; below 600 px as a
    /// phone (mobile viewport, so the page's `<meta name="viewport">` rules).
    pub async fn set_width(&self, width: u32) -> Result<()> {
        self.driver()
            .cdp()
            .send_raw(
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600 }),
            )
            .await
            .context("Emulation.setDeviceMetricsOverride")?;
        Ok(())
    }

    /// Emulates a CSS media type (`print`, `screen`; empty for none).
    pub async fn emulate_media(&self, media: &str) -> Result<()> {
        self.driver()
            .cdp()
            .send_raw("Emulation.setEmulatedMedia", json!({ "media": media }))
            .await
            .context("Emulation.setEmulatedMedia")?;
        Ok(())
    }

    /// Moves chromedriver's browser and performance logs (which drain on
    /// read) into the current page's record.
    async fn drain_logs(&self) -> Result<()> {
        let handle = self.driver();
        let browser = handle
            .get_log("browser")
            .await
            .context("reading the browser log")?;
        let performance = handle
            .get_log("performance")
            .await
            .context("reading the performance log")?;
        let mut page = self.page.lock().unwrap();
        page.severe.extend(
            browser
                .into_iter()
                .filter(|e| e.level == "SEVERE")
                .map(|e| e.message),
        );
        for entry in performance {
            let Ok(v) = serde_json::from_str::<Value>(&entry.message) else {
                continue;
            };
            let msg = &v["message"];
            let url = match msg["method"].as_str() {
                Some("Network.requestWillBeSent") => &msg["params"]["request"]["url"],
                Some("Network.webSocketCreated") => &msg["params"]["url"],
                _ => continue,
            };
            if let Some(url) = url.as_str() {
                page.requests.push(url.to_string());
            }
        }
        Ok(())
    }

    /// chromedriver's port, for the rare test that talks to it directly.
    pub fn chromedriver_url(&self) -> String {
        self.chromedriver.url()
    }
}

impl Drop for Browser {
    /// Without [`Browser::quit`] (a test failed): ends the session with a
    /// plain blocking request. thirtyfour's own fallback can hang for two
    /// minutes here, which would turn every failure into a long wait.
    fn drop(&mut self) {
        if let Some(driver) = self.driver.take() {
            let id = driver.session_id().to_string();
            let _ = driver.leak();
            let _ = delete_session(self.chromedriver.port, &id);
        }
    }
}

fn delete_session(port: u16, id: &str) -> std::io::Result<()> {
    use std::io::{Read, Write};
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut conn = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    conn.set_read_timeout(Some(Duration::from_secs(15)))?;
    write!(
        conn,
        "DELETE /session/{id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    // chromedriver keeps the connection open: read the head and the body
    // it announces, not to the end.
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = conn.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        reply.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&reply);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if reply.len() >= end + 4 + length {
                return Ok(());
            }
        }
    }
}

/// `http://host:port` of an http(s) URL, `file://` for a file URL.
pub fn origin_of(url: &str) -> String {
    if url.starts_with("file:") {
        return "file://".to_string();
    }
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{scheme}://{host}")
        }
        None => url.to_string(),
    }
}

/// True when `url` stays on `origin` (see [`origin_of`]).
pub fn same_origin(url: &str, origin: &str) -> bool {
    if ["data:", "blob:", "about:"]
        .iter()
        .any(|p| url.starts_with(p))
    {
        return true;
    }
    if origin == "file://" {
        return url.starts_with("file://");
    }
    url == origin || url.starts_with(&format!("{origin}/"))
}

/// The `file://` URL of a file on disk.
pub fn file_url(path: &Path) -> Result<String> {
    let abs = std::fs::canonicalize(path).with_context(|| format!("{}", path.display()))?;
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(b as char)
            }
            _ => url.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(url)
}

/// A chromedriver process on a free port, in its own process group so
/// that ending it also ends any browser it left behind.
struct ChromeDriver {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl ChromeDriver {
    fn spawn(binary: &Path, log: &Path) -> Result<ChromeDriver> {
        use std::os::unix::process::CommandExt;
        let mut last_error = None;
        for _ in 0..3 {
            let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
            let child = Command::new(binary)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .with_context(|| format!("starting {}", binary.display()))?;
            let mut driver = ChromeDriver {
                child,
                port,
                log: log.to_path_buf(),
            };
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(15) {
                if let Ok(Some(status)) = driver.child.try_wait() {
                    last_error = Some(format!("chromedriver exited with {status}"));
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Ok(driver);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            last_error.get_or_insert_with(|| "chromedriver did not listen within 15 s".into());
            drop(driver);
        }
        bail!(
            "{}: {}; its log:\n{}",
            binary.display(),
            last_error.unwrap_or_default(),
            tail(log)
        )
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn log_tail(&self) -> String {
        tail(&self.log)
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The group is chromedriver's own (process_group(0) above): its id
        // is chromedriver's pid, so this ends only what this harness started.
        let pid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("http://127.0.0.1:8000/a/b.html?x"),
            "http://127.0.0.1:8000"
        );
        assert_eq!(origin_of("file:///tmp/x.html"), "file://");
        let o = "http://127.0.0.1:8000";
        assert!(same_origin("http://127.0.0.1:8000/x.js", o));
        assert!(same_origin("data:image/png;base64,AA", o));
        assert!(!same_origin("http://127.0.0.1:8001/x.js", o));
        assert!(!same_origin("http://127.0.0.1:80000/x.js", o));
        assert!(!same_origin("https://fonts.googleapis.com/css", o));
        assert!(!same_origin("chrome-error://chromewebdata/", o));
        assert!(same_origin("file:///tmp/a.css", "file://"));
        assert!(!same_origin("https://example.org/", "file://"));
    }

    #[test]
    fn file_urls_escape() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a b#.html");
        std::fs::write(&p, "").unwrap();
        let url = file_url(&p).unwrap();
        assert!(url.starts_with("file:///"), "{url}");
        assert!(url.ends_with("/a%20b%23.html"), "{url}");
    }
}
