//! Every number a chart shows a person is in human units with about three
//! significant digits, and is the data's: each mark's label (tooltip and
//! screen reader), each marker's label, each data-table cell; and "Copy as
//! CSV" gives the exact values. The expected numbers come from the spec
//! embedded in the page (every_chart.rs proves it is the data's) and are
//! read back by `human`, not by the formatter that wrote them.

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::{built_book, human, run_test, Browser};
use pagewalk_figures::{exact, ChartKind, ChartSpec, Point, Series, CHART_NAMES};
use serde_json::json;

/// The spec of chart `chart` as embedded in the page.
async fn spec_of(browser: &Browser, chart: &str) -> Result<ChartSpec> {
    let text = browser
        .eval_with(
            "return document.querySelector(`figure[data-chart='${arguments[0]}'] script.pw-chart-spec`).textContent;",
            vec![json!(chart)],
        )
        .await?;
    ChartSpec::from_json(text.as_str().unwrap_or_default()).map_err(anyhow::Error::msg)
}

/// Each marker's `aria-label` says where it is in the x axis' unit.
async fn check_markers(browser: &Browser, chart: &str, spec: &ChartSpec) -> Result<()> {
    let labels = browser
        .eval_with(
            "return [...document.querySelectorAll(`figure[data-chart='${arguments[0]}'] .pw-marker`)]
               .map((m) => [m.getAttribute('data-value'), m.getAttribute('aria-label')]);",
            vec![json!(chart)],
        )
        .await?;
    for pair in labels.as_array().into_iter().flatten() {
        let x: f64 = pair[0].as_str().unwrap_or_default().parse()?;
        let label = pair[1].as_str().unwrap_or_default();
        let at = label
            .rfind(" at ")
            .context("a marker label without ` at `")?;
        ensure!(
            human::shows(&label[at + 4..], x, &spec.x.unit),
            "{chart}: marker {label:?} does not say {x} {}",
            spec.x.unit
        );
    }
    Ok(())
}

/// A row of a data table: a category (key, label) or an x value.
enum Row {
    Category(String, String),
    X(f64),
}

impl Row {
    fn point<'a>(&self, s: &'a Series) -> Option<&'a Point> {
        match self {
            Row::Category(key, _) => s.at(key),
            Row::X(x) => s.points.iter().find(|p| p.x == Some(*x)),
        }
    }
}

/// Each table cell reads as its point's value; gaps read n/a.
async fn check_table(browser: &Browser, chart: &str, spec: &ChartSpec) -> Result<()> {
    let table = browser.chart_table(chart).await?;
    let rows: Vec<Row> = match spec.kind {
        ChartKind::Bars => spec
            .categories
            .iter()
            .map(|c| Row::Category(c.key.clone(), c.label.clone()))
            .collect(),
        ChartKind::Lines => {
            let mut xs: Vec<f64> = spec
                .series
                .iter()
                .flat_map(|s| &s.points)
                .filter_map(|p| p.x)
                .collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            xs.into_iter().map(Row::X).collect()
        }
    };
    ensure!(
        table.len() == rows.len() + 1,
        "{chart}: the table has {} rows, the data {}",
        table.len() - 1,
        rows.len()
    );
    // A series' column by its header (a series with whiskers has their
    // range in the column after it).
    let columns: Vec<usize> = spec
        .series
        .iter()
        .map(|s| {
            table[0]
                .iter()
                .position(|h| *h == s.name)
                .with_context(|| format!("{chart}: no column {:?} in {:?}", s.name, table[0]))
        })
        .collect::<Result<_>>()?;
    for (want, row) in rows.iter().zip(&table[1..]) {
        let key = match want {
            Row::X(x) => {
                ensure!(
                    human::shows(&row[0], *x, &spec.x.unit),
                    "{chart}: row {:?} should say {x} {}",
                    row[0],
                    spec.x.unit
                );
                exact(*x)
            }
            Row::Category(_, label) => {
                ensure!(
                    row[0] == *label,
                    "{chart}: row {:?} should be {label:?}",
                    row[0]
                );
                label.clone()
            }
        };
        for (s, &col) in spec.series.iter().zip(&columns) {
            let cell = row.get(col).map(String::as_str).unwrap_or_default();
            match want.point(s).and_then(|p| p.value) {
                Some(v) => ensure!(
                    human::shows(cell, v, &spec.y.unit),
                    "{chart}: cell {key}/{} is {cell:?}, the data says {v} {}",
                    s.name,
                    spec.y.unit
                ),
                None => ensure!(
                    cell.starts_with("n/a"),
                    "{chart}: cell {key}/{} is {cell:?}, the data has no value",
                    s.name
                ),
            }
        }
    }
    Ok(())
}

/// "Copy as CSV" puts every exact value on the clipboard.
async fn check_csv(browser: &Browser, chart: &str, spec: &ChartSpec) -> Result<()> {
    let csv = browser
        .eval_with(
            "const fig = document.querySelector(`figure[data-chart='${arguments[0]}']`);
             window.__pwCopied = null;
             navigator.clipboard.writeText = (t) => { window.__pwCopied = t; return Promise.resolve(); };
             fig.querySelector('details.pw-chart-data').open = true;
             fig.querySelector('.pw-copy-csv').click();
             return null;",
            vec![json!(chart)],
        )
        .await
        .and(browser.wait_for("window.__pwCopied !== null").await)
        .and(browser.eval("return window.__pwCopied;").await)
        .with_context(|| format!("{chart}: Copy as CSV"))?;
    let csv = csv.as_str().unwrap_or_default();
    let mut want: Vec<f64> = spec
        .series
        .iter()
        .flat_map(|s| &s.points)
        .flat_map(|p| [p.value, p.min, p.max])
        .flatten()
        .collect();
    let mut got: Vec<f64> = csv
        .lines()
        .skip(1)
        .flat_map(|l| l.split(',').skip(1))
        .filter_map(|f| f.parse().ok())
        .collect();
    want.sort_by(f64::total_cmp);
    got.sort_by(f64::total_cmp);
    // The page parses its spec with serde_json's compact float parser
    // (see model/Cargo.toml): equal to within an ulp or so.
    let same =
        |a: f64, b: f64| a == b || (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs());
    ensure!(
        got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
        "{chart}: the CSV's values are not the data's exact values:\n{csv}"
    );
    Ok(())
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn charts_show_human_numbers_and_copy_exact_ones() {
    let Some(book) = built_book("charts_show_human_numbers_and_copy_exact_ones") else {
        return;
    };
    let pages = book.chart_pages();
    run_test(async {
        let browser = Browser::start().await?;
        let mut checked = 0;
        for page in &pages {
            let charts = browser.open_charts(&book.server.url(page)).await?;
            // The labs' charts are redrawn from the reader's browser
            // results, not their embedded spec: tests/lab.rs reads those.
            for chart in charts
                .into_iter()
                .filter(|c| CHART_NAMES.contains(&c.as_str()))
            {
                let spec = spec_of(&browser, &chart).await?;
                let where_ = format!("{page}: {chart}");
                for m in browser.marks(&chart).await? {
                    m.ensure_accessible(&where_)?;
                }
                check_markers(&browser, &chart, &spec)
                    .await
                    .context(where_.clone())?;
                check_table(&browser, &chart, &spec)
                    .await
                    .context(where_.clone())?;
                check_csv(&browser, &chart, &spec).await.context(where_)?;
                checked += 1;
            }
            browser.assert_clean().await.with_context(|| page.clone())?;
        }
        ensure!(checked >= 4, "only {checked} charts checked");
        eprintln!("checked {checked} charts");
        browser.quit().await
    });
}
