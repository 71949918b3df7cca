//! Every chart of the book read on a 390 px phone and a 1280 px screen:
//! no text of a chart (title, legend, ticks, axis titles, category and
//! marker labels) overlaps another text or a data mark, or runs outside the
//! chart; and on a phone no page scrolls sideways (wide tables scroll in
//! their own box).
//!
//! Boxes are the browser's own (`getBoundingClientRect`), so the renderer's
//! width estimates are checked against real fonts.

use anyhow::{ensure, Context};
use pagewalk_browser_tests::{built_book, run_test, Browser, BuiltBook};
use serde_json::{json, Value};

const WIDTHS: [u32; 2] = [390, 1280];

/// The pages a reader reads on a phone: all but the print page (every
/// chapter at once) and the sidebar's no-script table of contents.
fn chapter_pages(book: &BuiltBook) -> Vec<String> {
    book.html_pages()
        .into_iter()
        .filter(|p| p != "print.html" && p != "toc.html")
        .collect()
}

struct Item {
    what: String,
    text: String,
    box_: [f64; 4],
}

struct Layout {
    svg: [f64; 4],
    viewport: f64,
    texts: Vec<Item>,
    marks: Vec<Item>,
}

fn four(v: &Value) -> [f64; 4] {
    std::array::from_fn(|i| v[i].as_f64().unwrap_or(f64::NAN))
}

impl Layout {
    fn read(v: &Value) -> Layout {
        let items = |key: &str| {
            v[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|i| Item {
                            what: i["what"].as_str().unwrap_or_default().to_string(),
                            text: i["text"].as_str().unwrap_or_default().to_string(),
                            box_: four(&i["box_"]),
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        Layout {
            svg: four(&v["svg"]),
            viewport: v["viewport"].as_f64().unwrap_or(0.0),
            texts: items("texts"),
            marks: items("marks"),
        }
    }
}

/// Every text and mark of chart `chart` with its box `[left, top, right,
/// bottom]`, the SVG's box and the viewport width.
const LAYOUT_JS: &str = r#"
const fig = document.querySelector(`figure[data-chart='${arguments[0]}']`);
const svg = fig.querySelector('.pw-chart-plot svg');
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const what = (e) => {
  const g = e.closest('g[class]');
  return (g ? g.getAttribute('class').split(' ')[0] : 'svg') + (e.getAttribute('class') ? '.' + e.getAttribute('class') : '');
};
const texts = [...svg.querySelectorAll('text')]
  .filter((t) => t.textContent.trim() !== '')
  .map((t) => ({ what: what(t), text: t.textContent, box_: box(t) }));
const marks = [...svg.querySelectorAll('.pw-mark')]
  .map((m) => ({ what: 'mark', text: m.getAttribute('aria-label') || '', box_: box(m) }));
return { svg: box(svg), viewport: document.documentElement.clientWidth, texts, marks };
"#;

/// How far two boxes overlap in each direction (negative: apart).
fn overlap(a: &[f64; 4], b: &[f64; 4]) -> (f64, f64) {
    (
        a[2].min(b[2]) - a[0].max(b[0]),
        a[3].min(b[3]) - a[1].max(b[1]),
    )
}

/// What is wrong with one chart's layout, one line per problem.
fn problems(l: &Layout) -> Vec<String> {
    // Glyph boxes include the font's line gap: allow a pixel of touching.
    const SLACK: f64 = 1.0;
    let mut out = Vec::new();
    for (i, a) in l.texts.iter().enumerate() {
        let [x0, y0, x1, y1] = a.box_;
        let [sx0, sy0, sx1, sy1] = l.svg;
        if x0 < sx0 - SLACK || y0 < sy0 - SLACK || x1 > sx1 + SLACK || y1 > sy1 + SLACK {
            out.push(format!(
                "{} {:?} is cut off by the chart's edge",
                a.what, a.text
            ));
        }
        if x1 > l.viewport + SLACK {
            out.push(format!("{} {:?} runs off the screen", a.what, a.text));
        }
        for b in &l.texts[i + 1..] {
            let (dx, dy) = overlap(&a.box_, &b.box_);
            if dx > SLACK && dy > SLACK {
                out.push(format!(
                    "{} {:?} overlaps {} {:?}",
                    a.what, a.text, b.what, b.text
                ));
            }
        }
        for m in &l.marks {
            let (dx, dy) = overlap(&a.box_, &m.box_);
            if dx > SLACK && dy > SLACK {
                out.push(format!(
                    "{} {:?} covers the mark {:?}",
                    a.what, a.text, m.text
                ));
            }
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn chart_labels_never_overlap_or_clip() {
    let Some(book) = built_book("chart_labels_never_overlap_or_clip") else {
        return;
    };
    let pages = book.chart_pages();
    run_test(async {
        let browser = Browser::start().await?;
        let mut checked = 0;
        let mut failures = Vec::new();
        for width in WIDTHS {
            browser.set_width(width).await?;
            for page in &pages {
                browser.goto(&book.server.url(page)).await?;
                let charts = browser
                    .wait_for_charts()
                    .await
                    .with_context(|| page.clone())?;
                for chart in charts {
                    let layout = browser.eval_with(LAYOUT_JS, vec![json!(chart)]).await?;
                    let layout = Layout::read(&layout);
                    ensure!(
                        layout.texts.len() >= 3,
                        "{page}: {chart} at {width} px: only {} texts drawn",
                        layout.texts.len()
                    );
                    failures.extend(
                        problems(&layout)
                            .into_iter()
                            .map(|p| format!("{page} {chart} at {width} px: {p}")),
                    );
                    checked += 1;
                }
                browser.assert_clean().await.with_context(|| page.clone())?;
            }
        }
        ensure!(checked >= 4, "only {checked} charts were measured");
        ensure!(
            failures.is_empty(),
            "{} layout problems:\n{}",
            failures.len(),
            failures.join("\n")
        );
        eprintln!("measured {checked} charts");
        browser.quit().await
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn no_page_scrolls_sideways_on_a_phone() {
    let Some(book) = built_book("no_page_scrolls_sideways_on_a_phone") else {
        return;
    };
    let pages = chapter_pages(&book);
    run_test(async {
        let browser = Browser::start().await?;
        browser.set_width(390).await?;
        let mut wide = Vec::new();
        for page in &pages {
            browser.goto(&book.server.url(page)).await?;
            browser
                .wait_for("document.readyState === 'complete'")
                .await?;
            // The page itself, and mdBook's article column, with every
            // data table open.
            let v = browser
                .eval(
                    "document.querySelectorAll('details').forEach((e) => { e.open = true; });
                     const d = document.scrollingElement;
                     const main = document.querySelector('main') || d;
                     const widest = [...main.querySelectorAll('*')]
                       .filter((e) => e.getBoundingClientRect().right > d.clientWidth + 1)
                       .filter((e) => !e.closest('pre, .table-wrapper, .pw-chart-data, #mdbook-sidebar, .sidebar'))
                       .slice(0, 3)
                       .map((e) => e.tagName.toLowerCase() + (e.getAttribute('class') ? '.' + e.getAttribute('class').split(' ')[0] : ''));
                     return [d.scrollWidth, d.clientWidth, main.scrollWidth, main.clientWidth, widest];",
                )
                .await?;
            let (sw, cw) = (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0));
            let (mw, mc) = (v[2].as_f64().unwrap_or(0.0), v[3].as_f64().unwrap_or(0.0));
            if sw > cw + 1.0 || mw > mc + 1.0 {
                wide.push(format!(
                    "{page}: page {sw} px wide in a {cw} px screen (article {mw} in {mc}); too wide: {}",
                    v[4]
                ));
            }
        }
        ensure!(
            wide.is_empty(),
            "pages that scroll sideways at 390 px:\n{}",
            wide.join("\n")
        );
        browser.quit().await
    });
}

/// Every number (with its unit) in a table cell of `main` that the browser
/// broke over two lines, with every `<details>` open: `[page text, cell]`.
/// A number is a run of digits, separators and a unit after a space
/// (`1.09 ns`, `262,144`, `4 KiB`, `2.8×`); a range's ends are two.
const WRAPPED_NUMBERS_JS: &str = r#"
document.querySelectorAll('details').forEach((e) => { e.open = true; });
const number = /\d[\d,.]*(?:[ \u00a0](?:ns|µs|ms|s|B|KiB|MiB|GiB|TiB|pages|%)(?![\w]))?[%×]?/g;
const out = [];
for (const cell of document.querySelectorAll('main table td, main table th')) {
  const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const m of node.data.matchAll(number)) {
      const r = document.createRange();
      r.setStart(node, m.index);
      r.setEnd(node, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
      if (tops.size > 1) out.push([m[0], cell.textContent.trim().slice(0, 80)]);
    }
  }
}
return out;"#;

/// Chromium at 390 px: no number in any table of a chapter (the charts'
/// data tables, opened, and the chapters' own) wraps inside its cell. The
/// staircase's data table once put `1.09 ns (1.09 ns – 1.13 ns)` on five
/// lines.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn no_table_number_wraps_on_a_phone() {
    let Some(book) = built_book("no_table_number_wraps_on_a_phone") else {
        return;
    };
    let pages = chapter_pages(&book);
    run_test(async {
        let browser = Browser::start().await?;
        browser.set_width(390).await?;
        let mut wrapped = Vec::new();
        let mut tables = 0;
        for page in &pages {
            browser.goto(&book.server.url(page)).await?;
            browser
                .wait_for("document.readyState === 'complete'")
                .await?;
            if page.as_str() != "index.html" && book.chart_pages().contains(page) {
                browser
                    .wait_for_charts()
                    .await
                    .with_context(|| page.clone())?;
            }
            tables += browser
                .eval("return document.querySelectorAll('main table').length;")
                .await?
                .as_u64()
                .unwrap_or(0);
            let found: Vec<(String, String)> =
                serde_json::from_value(browser.eval(WRAPPED_NUMBERS_JS).await?)?;
            wrapped.extend(
                found
                    .into_iter()
                    .map(|(n, cell)| format!("{page}: {n:?} in {cell:?}")),
            );
        }
        ensure!(tables >= 20, "only {tables} tables were read");
        ensure!(
            wrapped.is_empty(),
            "{} numbers wrap inside their cell at 390 px:\n{}",
            wrapped.len(),
            wrapped.join("\n")
        );
        browser.quit().await
    });
}

/// Chromium at 390 px: every table a chapter writes itself (not a chart's
/// data table, which scrolls in its own box) fits the article's column, so
/// that nothing in it is off the screen. Wide tables were reshaped, not
/// scrolled: fewer columns, a long column moved into a list, a table split
/// in two (the first-touch counters were 815 px, the Rust forms 923 px),
/// or a row made a card (the symptoms, and SOURCES' ledger at 1,738 px).
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn chapter_tables_fit_a_phone() {
    let Some(book) = built_book("chapter_tables_fit_a_phone") else {
        return;
    };
    let pages = chapter_pages(&book);
    run_test(async {
        let browser = Browser::start().await?;
        browser.set_width(390).await?;
        let mut wide = Vec::new();
        let mut tables = 0;
        for page in &pages {
            browser.goto(&book.server.url(page)).await?;
            browser
                .wait_for("document.readyState === 'complete'")
                .await?;
            let v = browser
                .eval(
                    "document.querySelectorAll('details').forEach((e) => { e.open = true; });
                     const main = document.querySelector('main');
                     const column = main.clientWidth;
                     return [...main.querySelectorAll('table')]
                       .filter((t) => !t.closest('.pw-chart-data'))
                       .map((t) => [Math.round(t.getBoundingClientRect().width), column,
                                    [...t.querySelectorAll('th')].map((c) => c.textContent.trim()).join(' | ')]);",
                )
                .await?;
            for t in v.as_array().into_iter().flatten() {
                tables += 1;
                let (width, column) = (t[0].as_f64().unwrap_or(0.0), t[1].as_f64().unwrap_or(0.0));
                if width > column + 1.0 {
                    wide.push(format!(
                        "{page}: {width} px in a {column} px column: {}",
                        t[2]
                    ));
                }
            }
        }
        ensure!(tables >= 20, "only {tables} chapter tables were measured");
        ensure!(
            wide.is_empty(),
            "tables wider than the column at 390 px:\n{}",
            wide.join("\n")
        );
        browser.quit().await
    });
}

/// Chromium at 390 px: the symptom table's reason to exist, its "how to
/// prove it" column, is on the screen without scrolling sideways (it was
/// off it in a 652 px table), each row a card.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn the_symptom_table_shows_how_to_prove_it_on_a_phone() {
    let Some(book) = built_book("the_symptom_table_shows_how_to_prove_it_on_a_phone") else {
        return;
    };
    run_test(async {
        let browser = Browser::start().await?;
        for width in WIDTHS {
            browser.set_width(width).await?;
            browser.goto(&book.server.url("symptoms.html")).await?;
            browser
                .wait_for("document.readyState === 'complete'")
                .await?;
            let v = browser
                .eval(
                    "const t = document.querySelector('main table');
                     const wrap = t.closest('.table-wrapper') || t.parentElement;
                     const w = document.documentElement.clientWidth;
                     const proofs = [...t.tBodies[0].rows].map((r) => r.cells[2]);
                     const off = proofs.map((c) => c.getBoundingClientRect())
                       .filter((b) => b.width < 40 || b.left < -0.5 || b.right > w + 0.5)
                       .length;
                     return [proofs.length, off, wrap.scrollWidth - wrap.clientWidth,
                             Math.round(t.getBoundingClientRect().width), w];",
                )
                .await?;
            let count = v[0].as_u64().unwrap_or(0);
            ensure!(count >= 8, "{width} px: only {count} symptom rows");
            ensure!(
                v[1].as_u64() == Some(0) && v[2].as_f64().unwrap_or(1.0) <= 1.0,
                "{width} px: {} of {count} 'how to prove it' cells are off the screen \
                 (the table is {} px wide in {} px, its box scrolls {} px)",
                v[1],
                v[3],
                v[4],
                v[2]
            );
        }
        browser.quit().await
    });
}

/// Chromium at 390 px: the staircase's data table, opened, is one line per
/// row (it was 8,368 px tall): no taller than two lines of its text per
/// row, and its header.
#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn the_staircase_data_table_is_short_on_a_phone() {
    let Some(book) = built_book("the_staircase_data_table_is_short_on_a_phone") else {
        return;
    };
    run_test(async {
        let browser = Browser::start().await?;
        browser.set_width(390).await?;
        browser
            .open_charts(&book.server.url("staircases.html"))
            .await?;
        let v = browser
            .eval(
                "const d = document.querySelector('figure[data-chart=\"staircase\"] details.pw-chart-data');
                 d.open = true;
                 const t = d.querySelector('table');
                 const cell = t.tBodies[0].rows[0].cells[1];
                 const cs = getComputedStyle(cell);
                 const line = parseFloat(cs.lineHeight) || 1.25 * parseFloat(cs.fontSize);
                 return [t.tBodies[0].rows.length, Math.round(t.tBodies[0].getBoundingClientRect().height), line];",
            )
            .await?;
        let rows = v[0].as_f64().unwrap_or(0.0);
        let height = v[1].as_f64().unwrap_or(f64::INFINITY);
        let line = v[2].as_f64().unwrap_or(0.0);
        ensure!(rows >= 20.0 && line > 0.0, "staircase table: {v}");
        ensure!(
            height <= rows * 2.0 * line,
            "the staircase data table's rows are {height} px tall for {rows} rows of {line} px lines"
        );
        eprintln!("staircase data table at 390 px: {rows} rows, {height} px");
        browser.quit().await
    });
}
