//! The page's charts as the harness reads them: each figure's state, the
//! marks of a chart, and the time to the first chart.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::{Browser, DEFAULT_TIMEOUT};

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

/// A chart figure's state as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartState {
    pub chart: String,
    pub state: String,
}

impl Browser {
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
                // Each chart once: another machine's figure of the same
                // chart (`{{machines}}`) shares its name.
                let mut charts: Vec<String> = Vec::new();
                for s in states {
                    if !charts.contains(&s.chart) {
                        charts.push(s.chart);
                    }
                }
                return Ok(charts);
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
}
