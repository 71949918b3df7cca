//! mdBook's search index holds the prose, not the charts' data tables: in
//! the built book, no entry of the index contains a data table's row as a
//! reader sees it. (mdBook indexes every text node but scripts and styles;
//! the tables ship inside a script, see `figures::figure_html`. With the
//! tables inline again this test fails: tried on a book built before.)
//!
//! Real Chromium: the rows are read from each chart page after its scripts
//! ran, and the index is loaded the way the page's searcher loads it. Off
//! unless `PAGEWALK_BROWSER_TESTS=1`.

use anyhow::{ensure, Context};
use pagewalk_browser_tests::built_book as book;
use serde_json::json;

/// Whitespace folded, as a search body is compared.
fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn the_search_index_has_no_data_table_text() {
    let Some(book) = book("the_search_index_has_no_data_table_text") else {
        return;
    };
    let index_file = std::fs::read_dir(&book.dir)
        .expect("the built book")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("searchindex") && n.ends_with(".js"))
        .expect("a searchindex*.js in the built book");
    book.with_browser(async |browser| {
        let mut rows = Vec::new();
        for page in book.chart_pages() {
            browser.open_charts(&book.server.url(&page)).await?;
            let found = browser
                .eval(
                    "return [...document.querySelectorAll('details.pw-chart-data table')].map(t => {
                       const r = t.tBodies[0] && t.tBodies[0].rows[0];
                       return r ? [...r.cells].map(c => c.textContent).join(' ') : ''; });",
                )
                .await?;
            let found: Vec<String> = serde_json::from_value(found)?;
            ensure!(
                !found.is_empty(),
                "{page}: no data table after its scripts ran"
            );
            // A lab chart is empty until its experiment runs.
            rows.extend(
                found
                    .iter()
                    .map(|r| (page.clone(), fold(r)))
                    .filter(|(_, r)| r.len() > 8),
            );
        }
        let bodies = browser
            .eval_with(
                // A script element, as the page loads it: the page's
                // Content-Security-Policy refuses `eval`.
                "window.search = window.search || {};
                 await new Promise((ok, fail) => {
                   const s = document.createElement('script');
                   s.src = arguments[0];
                   s.onload = ok;
                   s.onerror = () => fail(new Error('cannot load ' + arguments[0]));
                   document.head.appendChild(s);
                 });
                 const docs = window.search.index.documentStore.docs;
                 return Object.values(docs).map(d => [d.title, d.body]);",
                vec![json!(book.server.url(&index_file))],
            )
            .await?;
        let bodies: Vec<(String, String)> = serde_json::from_value::<Vec<(String, String)>>(bodies)
            .context("the index's documents")?
            .into_iter()
            .map(|(t, b)| (t, fold(&b)))
            .collect();
        // The index is read right: the chapters' prose is in it.
        ensure!(
            bodies.iter().any(|(_, b)| b.contains("page fault")),
            "the index holds no prose: {} documents",
            bodies.len()
        );
        ensure!(
            rows.len() >= 20,
            "only {} data tables with rows",
            rows.len()
        );
        for (page, row) in &rows {
            let hit = bodies.iter().find(|(_, b)| b.contains(row.as_str()));
            ensure!(
                hit.is_none(),
                "{page}: the search index holds a data table's row {row:?} (in {:?})",
                hit.map(|(t, _)| t)
            );
        }
        Ok(())
    });
}
