//! The hot-path chapter's tail chart is a survival curve, as drawn in the
//! page (after wasm-viz redraws it): each variant's mark at a bucket edge
//! is the share of the run's iterations counted in the buckets above that
//! edge, recounted here from the run file the book was built from, and a
//! curve drawn through a variant's p99 (p99.9) crosses 1 in 100 (1 in
//! 1,000) there: no mark left of it lies below that share, none right of
//! it above.

use std::collections::BTreeMap;

use anyhow::{ensure, Context};
use mdbook_pagewalk::DataSet;
use pagewalk_browser_tests::{built_book, workspace_root};
use pagewalk_figures::exact;

const CHART: &str = "tail-histogram";

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn the_tail_chart_draws_the_share_of_iterations_slower_than_each_latency() {
    let Some(book) =
        built_book("the_tail_chart_draws_the_share_of_iterations_slower_than_each_latency")
    else {
        return;
    };
    let data = DataSet::load(&workspace_root().join("data")).expect("data/ loads");
    let run = data.run.as_ref().expect("a run to show");
    let tail = run.tail().expect("the run the book shows has tail results");
    book.with_browser(async |browser| {
        browser.goto(&book.server.url("hot-path-faults.html")).await?;
        let charts = browser.wait_for_charts().await?;
        ensure!(
            charts.iter().any(|c| c == CHART),
            "no {CHART} in {charts:?}"
        );
        let mut drawn: BTreeMap<(String, String), f64> = BTreeMap::new();
        for m in browser.marks(CHART).await? {
            drawn.insert((m.series, m.category), m.value);
        }
        // The page parses its spec with serde_json's compact float parser:
        // equal to within an ulp.
        let same = |a: f64, b: f64| (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs());
        let (mut edges, mut crossings) = (0, 0);
        for v in &tail.variants {
            let Some(l) = v.latency.as_ref().filter(|l| !l.histogram.is_empty()) else {
                continue;
            };
            let name = v.variant.label();
            let total: u64 = l.histogram.iter().map(|b| b.count).sum();
            // Counted from the bottom: all but those at or below the edge.
            let mut at_or_below = 0;
            for b in &l.histogram[..l.histogram.len() - 1] {
                at_or_below += b.count;
                let slower = total - at_or_below;
                let want = slower as f64 / total as f64;
                let got = drawn.get(&(name.to_string(), exact(b.upto_ns))).copied();
                ensure!(
                    got.is_some_and(|g| same(g, want)),
                    "{name} at {} ns: drawn {got:?}, but {slower} of {total} iterations were slower ({want})",
                    b.upto_ns
                );
                edges += 1;
            }
            let curve: Vec<(f64, f64)> = drawn
                .iter()
                .filter(|((s, _), _)| s == name)
                .map(|((_, x), &y)| Ok((x.parse::<f64>().context("a mark's x")?, y)))
                .collect::<anyhow::Result<_>>()?;
            for (stat, p, share) in [("p99", l.p99_ns, 0.01), ("p99.9", l.p999_ns, 0.001)] {
                let Some(p) = p.filter(|&p| curve.iter().any(|&(x, _)| x == p)) else {
                    continue;
                };
                for &(x, y) in &curve {
                    ensure!(
                        !(x < p && y < share || x > p && y > share),
                        "{name}: the mark at {x} ns ({y}) says the curve does not cross {share} at its {stat}, {p} ns"
                    );
                }
                crossings += 1;
            }
        }
        ensure!(edges > 0, "no bucket edges drawn to check");
        ensure!(crossings > 0, "no curve drawn through its p99 or p99.9");
        // The band the crossings are read against.
        let bands = browser
            .eval(
                "return document.querySelectorAll('figure[data-chart=\"tail-histogram\"] .pw-chart-plot svg .pw-band').length;",
            )
            .await?;
        ensure!(bands.as_u64() == Some(1), "{bands} shaded bands drawn");
        Ok(())
    });
}
