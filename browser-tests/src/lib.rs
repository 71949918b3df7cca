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
mod browser;
mod built_book;
mod chromedriver;
pub mod human;
pub mod page;
pub mod poison;
pub mod server;
mod test_run;
mod urls;

pub use browser::{
    axe_path, AxeViolation, Browser, ChartState, Mark, ThemeSwitch, CHROMIUM_ARGS, DEFAULT_TIMEOUT,
    RECORDER_JS,
};
pub use built_book::{book_dir, built_book, workspace_root, BuiltBook};
pub use chromedriver::browser_binaries;
pub use page::{any_mark_js, chart_css, ensure_charts, marks_css, Table};
pub use server::{serve, Served, Server};
pub use test_run::{block_on, enabled, run_test, serial, should_run, ENABLE_VAR};
pub use thirtyfour;
pub use urls::{file_url, origin_of, same_origin};
