//! Every chart on every page of the built book shows the data the book was
//! built from: the spec embedded in the page is exactly what
//! `pagewalk_figures::build` makes of `data/` (the preprocessor's own
//! choice of run and references), and every drawn mark is one of its
//! points, with each placeable point drawn. New charts are covered the
//! moment a chapter uses them.

use std::collections::BTreeMap;

use anyhow::{ensure, Context};
use mdbook_pagewalk::DataSet;
use pagewalk_browser_tests::{block_on, built_book, workspace_root, Browser};
use pagewalk_figures::{build, exact, ChartKind, ChartSpec, RunFile, Scale, CHART_NAMES};

/// (series, category or exact x) -> value, as a chart should draw it.
fn expected_marks(spec: &ChartSpec) -> BTreeMap<(String, String), f64> {
    let placeable = |v: f64| v.is_finite() && (spec.y.scale != Scale::Log || v > 0.0);
    let mut want = BTreeMap::new();
    for s in &spec.series {
        for p in &s.points {
            let Some(v) = p.value.filter(|v| placeable(*v)) else {
                continue;
            };
            let key = match spec.kind {
                ChartKind::Bars => p.category.clone().unwrap_or_default(),
                ChartKind::Lines => match p.x {
                    Some(x) if x.is_finite() && (spec.x.scale != Scale::Log || x > 0.0) => exact(x),
                    _ => continue,
                },
            };
            want.insert((s.name.clone(), key), v);
        }
    }
    want
}

/// Where two specs' JSON first differs, with a little context.
fn first_difference(got: &ChartSpec, want: &ChartSpec) -> String {
    let (a, b) = (
        serde_json::to_string(got).unwrap_or_default(),
        serde_json::to_string(want).unwrap_or_default(),
    );
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let around = |s: &str| {
        s.get(at.saturating_sub(60)..(at + 60).min(s.len()))
            .unwrap_or("")
            .to_string()
    };
    format!("page …{}…\n data …{}…", around(&a), around(&b))
}

/// The other machines' figures of `chart` (`#chart-NAME-machine-I`, in
/// order) embed exactly the specs `{{machines}}` gives for them.
async fn check_other_machines(
    browser: &Browser,
    page: &str,
    chart: &str,
    specs: &[ChartSpec],
) -> anyhow::Result<()> {
    for (i, want) in specs.iter().enumerate() {
        let embedded = browser
            .eval_with(
                "const f = document.getElementById(arguments[0]); return f ? f.querySelector('script.pw-chart-spec').textContent : '';",
                vec![format!("chart-{chart}-machine-{}", i + 1).into()],
            )
            .await?;
        let got = ChartSpec::from_json(embedded.as_str().unwrap_or_default())
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{page}: {chart}: machine {}", i + 1))?;
        ensure!(
            &got == want,
            "{page}: {chart}: machine {}'s spec is not what data/machines gives: {}",
            i + 1,
            first_difference(&got, want)
        );
    }
    Ok(())
}

fn html_pages(dir: &std::path::Path) -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html") && n != "print.html" && n != "toc.html" && n != "404.html")
        .collect();
    pages.sort();
    pages
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn every_chart_shows_the_data_it_was_built_from() {
    let Some(book) = built_book("every_chart_shows_the_data_it_was_built_from") else {
        return;
    };
    let (dir, server) = (&book.dir, &book.server);
    let data = DataSet::load(&workspace_root().join("data")).expect("data/ loads");
    assert!(data.run.is_some(), "a run to show");
    let runs: Vec<&RunFile> = data.chart_runs();
    let result = block_on(async {
        let browser = Browser::start().await?;
        let mut checked = 0;
        for page in html_pages(dir) {
            let html = std::fs::read_to_string(dir.join(&page))?;
            if !html.contains("class=\"pw-chart\"") {
                continue;
            }
            browser.goto(&server.url(&page)).await?;
            let charts = browser
                .wait_for_charts()
                .await
                .with_context(|| page.clone())?;
            // The in-page labs' charts hold the reader's browser results,
            // not data/: tests/lab.rs covers them.
            for chart in charts
                .into_iter()
                .filter(|c| CHART_NAMES.contains(&c.as_str()))
            {
                // A chart drawn across machines shares its scale with the
                // other machines' figures under it (`{{machines}}`).
                let across = html.contains(&format!("id=\"chart-{chart}-machine-1\""));
                let want_spec = if across {
                    let specs = mdbook_pagewalk::machines::specs(&data, &chart)
                        .map_err(anyhow::Error::msg)?;
                    check_other_machines(&browser, &page, &chart, &specs[1..]).await?;
                    specs[0].clone()
                } else {
                    build(&chart, &runs).with_context(|| format!("{page}: {chart}"))?
                };
                let embedded = browser
                    .eval_with(
                        "return document.querySelector(`#chart-${arguments[0]} script.pw-chart-spec`).textContent;",
                        vec![chart.clone().into()],
                    )
                    .await?;
                let embedded = ChartSpec::from_json(embedded.as_str().unwrap_or_default())
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("{page}: {chart}: embedded spec"))?;
                ensure!(
                    embedded == want_spec,
                    "{page}: {chart}: the page's spec is not what data/ gives: {}",
                    first_difference(&embedded, &want_spec)
                );

                let want = expected_marks(&want_spec);
                let marks = browser.marks(&chart).await?;
                let mut got = BTreeMap::new();
                for m in &marks {
                    ensure!(
                        matches!(m.tabindex.as_deref(), Some("0" | "-1")),
                        "{page}: {chart}: mark {m:?} is not focusable"
                    );
                    ensure!(
                        m.aria_label.as_deref().is_some_and(|l| !l.is_empty()),
                        "{page}: {chart}: mark {m:?} has no label"
                    );
                    got.insert((m.series.clone(), m.category.clone()), m.value);
                }
                ensure!(
                    got.len() == marks.len(),
                    "{page}: {chart}: two marks claim the same point"
                );
                // The page parses its spec with serde_json's compact float
                // parser (see model/Cargo.toml): equal to within an ulp.
                let same = |a: f64, b: f64| {
                    a == b || (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs())
                };
                let only = |a: &BTreeMap<(String, String), f64>,
                            b: &BTreeMap<(String, String), f64>| {
                    a.iter()
                        .filter(|(k, v)| !b.get(*k).is_some_and(|w| same(**v, *w)))
                        .map(|(k, v)| format!("{k:?}={v}"))
                        .collect::<Vec<_>>()
                };
                ensure!(
                    only(&got, &want).is_empty() && only(&want, &got).is_empty(),
                    "{page}: {chart}: drawn marks differ from the data\n drawn only: {:?}\n data only:  {:?}",
                    only(&got, &want),
                    only(&want, &got)
                );
                checked += 1;
            }
            browser.assert_clean().await.with_context(|| page.clone())?;
        }
        browser.quit().await?;
        ensure!(
            checked >= 2,
            "only {checked} charts found in {}",
            dir.display()
        );
        Ok::<_, anyhow::Error>(checked)
    });
    match result {
        Ok(n) => eprintln!("checked {n} charts"),
        Err(e) => panic!("{e:#}"),
    }
}
