//! Every chart of the book read on a 390 px phone and a 1280 px screen:
//! no text of a chart (title, legend, ticks, axis titles, category and
//! marker labels) overlaps another text or a data mark, or runs outside the
//! chart; and on a phone no page scrolls sideways (wide tables scroll in
//! their own box).
//!
//! Boxes are the browser's own (`getBoundingClientRect`), so the renderer's
//! width estimates are checked against real fonts.

use anyhow::{ensure, Context};
use pagewalk_browser_tests::{built_book, run_test, Browser};
use serde_json::{json, Value};

const WIDTHS: [u32; 2] = [390, 1280];

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
fn no_page_scrolls_sideways_on_a_phone() {
    let Some(book) = built_book("no_page_scrolls_sideways_on_a_phone") else {
        return;
    };
    let pages: Vec<String> = book
        .html_pages()
        .into_iter()
        .filter(|p| p != "print.html" && p != "toc.html")
        .collect();
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
