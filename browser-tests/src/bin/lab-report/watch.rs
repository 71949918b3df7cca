//! The main thread's health while an in-page experiment runs: long tasks
//! (`PerformanceObserver`) and the lateness of a 10 ms timer.

use std::time::Duration;

use anyhow::{Context, Result};
use pagewalk_browser_tests::Browser;
use serde_json::Value;

/// Installed before an experiment: every long task's duration, and the
/// largest lateness of a 10 ms timer (a task that blocks the thread delays
/// it by about its own length, long task or not).
const WATCH: &str = "
  window.__pwWatch = { long: [], lateMax: 0, stop: false };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__pwWatch.long.push(e.duration); })
      .observe({ type: 'longtask' });
    window.__pwWatch.observer = true;
  } catch (e) { window.__pwWatch.observer = String(e); }
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    window.__pwWatch.lateMax = Math.max(window.__pwWatch.lateMax, now - last - 10);
    last = now;
    if (!window.__pwWatch.stop) setTimeout(tick, 10);
  };
  setTimeout(tick, 10);
  return null;";

pub struct Watch {
    longest_long_task_ms: Option<f64>,
    long_tasks: usize,
    max_timer_delay_ms: f64,
    observer: Value,
}

pub async fn watched(browser: &Browser, start: &str, done: &str) -> Result<Watch> {
    browser.eval(WATCH).await?;
    browser.eval(start).await?;
    browser
        .wait_for_within(done, Duration::from_secs(900))
        .await
        .context("the experiment did not finish")?;
    let w = browser
        .eval("window.__pwWatch.stop = true; return window.__pwWatch;")
        .await?;
    let long: Vec<f64> = w["long"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .collect();
    Ok(Watch {
        longest_long_task_ms: long.iter().copied().reduce(f64::max),
        long_tasks: long.len(),
        max_timer_delay_ms: w["lateMax"].as_f64().unwrap_or(f64::NAN),
        observer: w["observer"].clone(),
    })
}

pub fn print_watch(what: &str, w: &Watch) {
    let long = match (w.observer.as_bool(), w.longest_long_task_ms) {
        (Some(true), Some(ms)) => format!("{} long task(s), the longest {ms:.0} ms", w.long_tasks),
        (Some(true), None) => "no long task (none over 50 ms)".to_string(),
        _ => format!("long tasks not observable here ({})", w.observer),
    };
    println!(
        "  main thread during {what}: {long}; a 10 ms timer was at most {:.1} ms late",
        w.max_timer_delay_ms
    );
}
