//! mdBook's search reads the prose, not the figures: no entry of the index
//! the page searches contains a data table's row as a reader sees it, and
//! what a reader searches for most is teased with the chapters' words, not
//! a chart's title, legend or ticks. (mdBook indexes every text node but
//! scripts and styles; the preprocessor marks what is not prose and the
//! page takes it out as the index loads: `preprocessor/src/search.rs`,
//! `theme/head.hbs`. Without them both tests fail: tried on a book built
//! before.)
//!
//! Real Chromium: the rows are read from each chart page after its scripts
//! ran, and the index and its results are the page's own searcher's,
//! opened with `?search=`. Off unless `PAGEWALK_BROWSER_TESTS=1`.

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
        // The index as the page's searcher holds it: `?search=` loads it.
        browser
            .goto(&book.server.url("introduction.html?search=page+fault"))
            .await?;
        browser
            .wait_for("document.querySelector('#mdbook-searchresults li')")
            .await?;
        let bodies = browser
            .eval(
                "const docs = window.search.index.documentStore.docs;
                 return Object.values(docs).map(d => [d.title, d.body]);",
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

/// What a reader searches for most, each of which used to lead with chart
/// text ("TLB reach: ns per load by pages touched ...").
const QUERIES: [&str; 3] = ["TLB reach", "MAP_POPULATE", "page walk"];

/// Each result the page's own searcher shows for `?search=QUERY`: the
/// page it links to and its teaser as a reader sees it.
const RESULTS_JS: &str = r#"
return [...document.querySelectorAll('#mdbook-searchresults li')].map(li => {
  const a = li.querySelector('a');
  const t = li.querySelector('.teaser');
  return [a ? a.getAttribute('href') : '', t ? t.textContent : ''];
});"#;

/// The prose of a built page as its HTML stands (parsed, no script run):
/// its `<main>` without what is not prose. That is charts and diagrams but
/// their captions (`<figure>`), drawings (`<svg>`), the labs and every form
/// control, what only a reader without JavaScript sees (`<noscript>`), and
/// tables of numbers (any body cell that starts with a digit: measured
/// values, sizes and counts; a table of words, such as the symptom table,
/// is prose). Whitespace is dropped, as the index and the page space words
/// differently.
const PROSE_JS: &str = r#"
const html = await (await fetch(arguments[0])).text();
const main = new DOMParser().parseFromString(html, 'text/html').querySelector('main');
if (!main) return null;
for (const f of main.querySelectorAll('figure')) {
  for (const c of [...f.childNodes]) if (c.nodeName !== 'FIGCAPTION') c.remove();
}
for (const t of main.querySelectorAll('table')) {
  if ([...t.querySelectorAll('td')].some(td => /^\d/.test(td.textContent.trim()))) t.remove();
}
main.querySelectorAll('script, style, template, noscript, svg, section.pw-lab, form, label, '
  + 'select, input, output, button, textarea, progress').forEach(e => e.remove());
return main.textContent.replace(/\s+/g, '');"#;

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn searching_finds_prose_not_figures() {
    let Some(book) = book("searching_finds_prose_not_figures") else {
        return;
    };
    book.with_browser(async |browser| {
        let mut prose = std::collections::HashMap::<String, String>::new();
        for query in QUERIES {
            let url = book.server.url(&format!(
                "introduction.html?search={}",
                query.replace(' ', "+")
            ));
            browser.goto(&url).await?;
            // The searcher loads the index on demand, then searches.
            browser
                .wait_for("document.querySelector('#mdbook-searchresults li .teaser')")
                .await
                .with_context(|| format!("no results for {query:?}"))?;
            let results: Vec<(String, String)> =
                serde_json::from_value(browser.eval(RESULTS_JS).await?)?;
            ensure!(
                results.len() >= 5,
                "{query:?}: only {} results",
                results.len()
            );
            for (i, (href, teaser)) in results.iter().enumerate() {
                let page = href.split(['?', '#']).next().unwrap_or_default().to_string();
                if !prose.contains_key(&page) {
                    let text = browser
                        .eval_with(PROSE_JS, vec![json!(book.server.url(&page))])
                        .await?;
                    let text = text
                        .as_str()
                        .with_context(|| format!("{page}: no <main>"))?
                        .to_string();
                    prose.insert(page.clone(), text);
                }
                let squeezed: String = teaser.split_whitespace().collect();
                ensure!(!squeezed.is_empty(), "{query:?}: result {i} ({href}) has no teaser");
                ensure!(
                    prose[&page].contains(&squeezed),
                    "{query:?}: result {i} ({page}) teases with text that is not the page's prose: {:?}",
                    fold(teaser)
                );
            }
            // The chapter about it comes first.
            if query == "TLB reach" {
                ensure!(
                    results[0].0.starts_with("tlb-reach.html"),
                    "{query:?} leads with {:?}",
                    results[0]
                );
            }
        }
        Ok(())
    });
}
