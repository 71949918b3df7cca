//! How a browser test runs: only when `PAGEWALK_BROWSER_TESTS=1`, one at a
//! time per test binary, its async body on a fresh runtime, failing with the
//! whole error chain.

use std::future::Future;
use std::sync::{Mutex, MutexGuard};

use anyhow::Result;

/// The environment variable that turns the browser tests on.
pub const ENABLE_VAR: &str = "PAGEWALK_BROWSER_TESTS";

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

/// Holds browser tests of one test binary to one at a time: the machine
/// has two cores, and a test that waits for a chart should not time out
/// because three other Chromiums are starting.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
