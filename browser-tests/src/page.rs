//! What the tests do to a page as a reader would, and what they read back
//! from it: open a chapter and wait for its charts, focus or hover a mark
//! and wait for the tooltip, read a chart's data table, set and click the
//! page's controls.

use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::{human, Browser, Mark};

/// A data table as text: the header row, then rows of [row header, cells...].
pub type Table = Vec<Vec<String>>;

/// The CSS selector of chart `chart`'s figure.
pub fn chart_css(chart: &str) -> String {
    // Not another machine's figure of the same chart (`{{machines}}`: ids
    // `chart-NAME-machine-I`), which tests/every_chart.rs checks apart.
    format!("figure.pw-chart[data-chart=\"{chart}\"]:not([id*=\"-machine-\"])")
}

/// The CSS selector of chart `chart`'s marks (what [`Browser::marks`] reads).
pub fn marks_css(chart: &str) -> String {
    format!("{} .pw-chart-plot svg [data-series]", chart_css(chart))
}

/// A JavaScript expression, true when some mark `m` of chart `chart`
/// satisfies `predicate` (JavaScript using `m`).
pub fn any_mark_js(chart: &str, predicate: &str) -> String {
    format!(
        "[...document.querySelectorAll({})].some(m => {predicate})",
        json!(marks_css(chart))
    )
}

/// Fails unless `charts` (names, as [`Browser::wait_for_charts`] returns
/// them) holds each of `want`; the message names `page`.
pub fn ensure_charts(page: &str, charts: &[String], want: &[&str]) -> Result<()> {
    for chart in want {
        ensure!(
            charts.iter().any(|c| c == chart),
            "{page}: no chart {chart} in {charts:?}"
        );
    }
    Ok(())
}

impl Mark {
    /// Whether `label` (an `aria-label` or the tooltip) reads, after
    /// `SERIES: `, as this mark's value in human units (see [`human::shows`]).
    pub fn read_in(&self, label: &str) -> bool {
        let key = format!("{}: ", self.series);
        label
            .find(&key)
            .is_some_and(|at| human::shows(&label[at + key.len()..], self.value, &self.unit))
    }

    /// Fails unless a reader can reach and read the mark: a numeric value,
    /// `tabindex="0"`, and an `aria-label` saying the value in human units.
    pub fn ensure_accessible(&self, chart: &str) -> Result<()> {
        ensure!(
            self.value.is_finite(),
            "{chart}: mark without a numeric value: {self:?}"
        );
        // `-1`: focusable, reached with the arrow keys from the chart's
        // one tab stop (`0`); the static SVG without script has all `0`.
        ensure!(
            matches!(self.tabindex.as_deref(), Some("0" | "-1")),
            "{chart}: mark not focusable: {self:?}"
        );
        let label = self.aria_label.as_deref().unwrap_or_default();
        ensure!(
            self.read_in(label),
            "{chart}: aria-label {label:?} does not say the value {} {}: {self:?}",
            self.value_text,
            self.unit
        );
        Ok(())
    }
}

impl Browser {
    /// Navigates to `url` and waits for its charts; returns their names.
    pub async fn open_charts(&self, url: &str) -> Result<Vec<String>> {
        self.goto(url).await?;
        self.wait_for_charts().await
    }

    /// [`Browser::assert_clean`], then [`Browser::quit`]: how a test ends.
    pub async fn finish(self) -> Result<()> {
        self.assert_clean().await?;
        self.quit().await
    }

    /// The text of the first element matching `css`; `None` when none does.
    pub async fn text_of(&self, css: &str) -> Result<Option<String>> {
        let v = self
            .eval_with(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
                vec![json!(css)],
            )
            .await?;
        Ok(v.as_str().map(str::to_string))
    }

    /// Clicks the first element matching `css`.
    pub async fn click(&self, css: &str) -> Result<()> {
        self.driver()
            .find(By::Css(css))
            .await
            .with_context(|| format!("no {css} in the page"))?
            .click()
            .await
            .with_context(|| format!("clicking {css}"))?;
        Ok(())
    }

    /// Sets the control (input or select) matching `css` to `value` and
    /// fires its `input` and `change` events, as a reader's choice does.
    pub async fn set_value(&self, css: &str, value: &str) -> Result<()> {
        let ok = self
            .eval_with(
                "const el = document.querySelector(arguments[0]);
                 if (!el) return false;
                 el.value = arguments[1];
                 el.dispatchEvent(new Event('input', { bubbles: true }));
                 el.dispatchEvent(new Event('change', { bubbles: true }));
                 return el.value === arguments[1];",
                vec![json!(css), json!(value)],
            )
            .await?;
        ensure!(ok == json!(true), "could not set {css} to {value}");
        Ok(())
    }

    /// Waits up to `timeout` for a mark `m` of chart `chart` for which the
    /// JavaScript `predicate` holds.
    pub async fn wait_for_mark(
        &self,
        chart: &str,
        predicate: &str,
        timeout: Duration,
    ) -> Result<()> {
        self.wait_for_within(&any_mark_js(chart, predicate), timeout)
            .await
    }

    /// Scrolls mark `index` of chart `chart` to the middle of the window
    /// and focuses it; fails when it does not take the focus.
    pub async fn focus_mark(&self, chart: &str, index: usize) -> Result<()> {
        let focused = self
            .eval_with(
                "const m = document.querySelectorAll(arguments[0])[arguments[1]];
                 m.scrollIntoView({block: 'center'});
                 m.focus();
                 return document.activeElement === m;",
                vec![json!(marks_css(chart)), json!(index)],
            )
            .await?;
        ensure!(
            focused == json!(true),
            "{chart}: mark {index} did not take focus"
        );
        Ok(())
    }

    /// Moves the mouse to the centre of mark `index` of chart `chart`.
    pub async fn hover_mark(&self, chart: &str, index: usize) -> Result<()> {
        let elements = self.driver().find_all(By::Css(marks_css(chart))).await?;
        let element = elements
            .get(index)
            .with_context(|| format!("{chart}: no mark {index}"))?;
        element.scroll_into_view().await?;
        self.driver()
            .action_chain()
            .move_to_element_center(element)
            .perform()
            .await?;
        Ok(())
    }

    /// Presses `key` (e.g. `Key::Right`) on the focused element.
    pub async fn press(&self, key: Key) -> Result<()> {
        self.driver()
            .action_chain()
            .send_keys(key)
            .perform()
            .await?;
        Ok(())
    }

    /// Presses Tab, moving the focus as a keyboard reader does.
    pub async fn press_tab(&self) -> Result<()> {
        self.driver()
            .action_chain()
            .send_keys(Key::Tab)
            .perform()
            .await?;
        Ok(())
    }

    /// Chart `chart`'s tooltip: its text and whether it can be seen.
    pub async fn tooltip(&self, chart: &str) -> Result<(String, bool)> {
        let v = self
            .eval_with(
                "const t = document.querySelector(arguments[0]);
                 if (!t) return null;
                 const s = getComputedStyle(t);
                 return [t.textContent, s.visibility === 'visible' && s.display !== 'none' && s.opacity !== '0'];",
                vec![json!(format!("{} .pw-tooltip", chart_css(chart)))],
            )
            .await?;
        let pair = v
            .as_array()
            .with_context(|| format!("{chart}: no .pw-tooltip in the figure"))?;
        Ok((
            pair[0].as_str().unwrap_or_default().to_string(),
            pair[1].as_bool().unwrap_or(false),
        ))
    }

    /// Waits until chart `chart`'s tooltip is visible and holds `text`;
    /// the error says what it showed instead after `how` (what was done).
    pub async fn wait_for_tooltip(&self, chart: &str, text: &str, how: &str) -> Result<()> {
        let condition = format!(
            "(() => {{ const t = document.querySelector({tooltip});
                       const s = t && getComputedStyle(t);
                       return t && t.textContent.includes({text}) && s.visibility === 'visible' && s.opacity !== '0'; }})()",
            tooltip = json!(format!("{} .pw-tooltip", chart_css(chart))),
            text = json!(text)
        );
        if let Err(e) = self.wait_for(&condition).await {
            let (shown, visible) = self.tooltip(chart).await?;
            bail!(
                "{chart}: after {how}, the tooltip should show {text:?}; it shows {shown:?} (visible: {visible}): {e:#}"
            );
        }
        Ok(())
    }

    /// Waits until chart `chart`'s tooltip is visible and says `mark`'s
    /// value ([`Mark::read_in`]); the error says what it showed instead
    /// after `how` (what was done).
    pub async fn wait_for_tooltip_of(&self, chart: &str, mark: &Mark, how: &str) -> Result<()> {
        let start = std::time::Instant::now();
        loop {
            let (shown, visible) = self.tooltip(chart).await?;
            if visible && mark.read_in(&shown) {
                return Ok(());
            }
            if start.elapsed() > Duration::from_secs(10) {
                bail!(
                    "{chart}: after {how}, the tooltip should say {} {} for {}/{}; it shows {shown:?} (visible: {visible})",
                    mark.value_text, mark.unit, mark.series, mark.category
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Chart `chart`'s data table (`details.pw-chart-data table`) as text.
    pub async fn chart_table(&self, chart: &str) -> Result<Table> {
        let v = self
            .eval_with(
                "const t = document.querySelector(arguments[0]);
                 if (!t) return null;
                 return [...t.rows].map(r => [...r.cells].map(c => c.textContent.trim()));",
                vec![json!(format!(
                    "{} details.pw-chart-data table",
                    chart_css(chart)
                ))],
            )
            .await?;
        serde_json::from_value::<Option<Table>>(v)?
            .with_context(|| format!("{chart}: no details.pw-chart-data table"))
    }
}
