//! [`Browser`]: a headless Chromium behind its own chromedriver, with the
//! recorder script in every document. This module starts and ends the
//! session, navigates, runs scripts and waits; what the page did is read in
//! `page_log`, its charts in `charts`, and screen, theme and media are set in
//! `emulation`.

mod axe;
mod charts;
mod emulation;
mod page_log;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use thirtyfour::prelude::*;
use thirtyfour::ChromiumLikeCapabilities;
use thirtyfour::LoggingPrefsLogLevel;

pub use axe::{axe_path, AxeViolation};
pub use charts::{ChartState, Mark};
pub use emulation::ThemeSwitch;
use page_log::PageLog;

use crate::browser_binaries;
use crate::chromedriver::ChromeDriver;

/// The script installed in every new document; see `src/recorder.js`.
pub const RECORDER_JS: &str = include_str!("../recorder.js");

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
        self.start_page_log(url).await?;
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
            let _ = self.chromedriver.delete_session(&id);
        }
    }
}
