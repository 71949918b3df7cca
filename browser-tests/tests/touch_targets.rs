//! Every control and every diagram usable on a phone, measured in Chromium
//! on every page of the book (`print.html` and `toc.html` aside).
//!
//! 1. `every_control_is_a_finger_sized_target`: at 390 px every control a
//!    reader can tap is at least 44 × 44 CSS px (WCAG 2.5.5): each `<summary>`
//!    (a chart's "Data table", a drill's answer), `<button>` ("Copy as CSV",
//!    the drills' buttons, a code block's copy button), `<input>` (the page
//!    walk's radio buttons and address, a drill's guess), `<select>`,
//!    `<textarea>`, the "Download as CSV" link, mdBook's menu-bar buttons and
//!    its theme menu's entries. At 1280 px each is at least 24 × 24 (WCAG
//!    2.2's minimum), so the phone's sizes need not bloat a screen. A
//!    control inside its `<label>` is measured by the label's box: a tap on
//!    the label is a tap on the control (how the page walk's 13 px radio
//!    buttons become 44 px targets).
//! 2. `diagram_text_is_readable_and_inside_its_boxes`: no text of a diagram
//!    (`<text>` and `<tspan>` of a `.pw-diagram-svg`) is drawn smaller than
//!    11 CSS px (its font size times the SVG's scale) at 390 or 1280 px, and
//!    every `<text>` lies inside the box it is written in (the smallest
//!    `<rect>` holding its anchor), or, written outside every box, inside
//!    the SVG and clear of every box. The page walk is checked in each page
//!    size its decoder offers, with the widest offset too. (The TLB
//!    hierarchy once put every page size's reach on one line, which ran out
//!    of its box with a third page size; it now has a line for each.)
//!
//! Off unless `PAGEWALK_BROWSER_TESTS=1`.

use std::collections::BTreeMap;

use anyhow::{ensure, Context, Result};
use pagewalk_browser_tests::{built_book, Browser, BuiltBook};
use serde_json::Value;

/// What a tap can hit. A control inside a label is measured by the label.
const CONTROLS_JS: &str = r#"
document.querySelectorAll('main details').forEach((d) => { d.open = true; });
// "Copy as CSV" adds a text box and a "Download as CSV" link: ask once
// (a headless browser refuses the clipboard; the test does not need it).
const copy = document.querySelector('main .pw-copy-csv');
if (copy && !document.querySelector('main a.pw-csv-download')) {
  navigator.clipboard.writeText = () => Promise.resolve();
  copy.click();
}
const toggle = document.getElementById('mdbook-theme-toggle');
const themes = arguments[0] && toggle;
if (themes) toggle.click();
const CONTROLS = [
  'main summary', 'main button', 'main input:not([type=hidden])', 'main select',
  'main textarea', 'main a.pw-csv-download', '#mdbook-menu-bar .icon-button',
  '#mdbook-menu-bar .right-buttons a', '.theme-popup .theme',
].join(', ');
const kind = (e) => {
  if (e.matches('.pw-chart-data > summary')) return 'chart data table summary';
  if (e.matches('.pw-copy-csv')) return 'Copy as CSV';
  if (e.matches('.pw-csv-download')) return 'Download as CSV';
  if (e.matches('.pw-drill summary')) return 'drill answer summary';
  if (e.matches('.pw-drill button, .pw-drills-progress button')) return 'drill button';
  if (e.matches('.pw-drill-field')) return 'drill field';
  if (e.matches('.pw-walk-sizes input')) return 'page-walk radio';
  if (e.matches('.pw-walk-address')) return 'page-walk address';
  if (e.matches('pre > .buttons button')) return 'code block button';
  if (e.matches('.pw-lab *')) return 'lab control';
  if (e.matches('.theme-popup *')) return 'theme menu';
  if (e.matches('#mdbook-menu-bar *')) return 'menu bar';
  return e.tagName.toLowerCase() + (e.type ? `[type=${e.type}]` : '');
};
const out = [];
for (const e of document.querySelectorAll(CONTROLS)) {
  if (!e.checkVisibility()) continue;
  const target = (e.matches('input, select, textarea') && e.closest('label')) || e;
  const r = target.getBoundingClientRect();
  const name = (e.getAttribute('aria-label') || e.textContent || e.value || e.id || '').trim().slice(0, 40);
  out.push({ kind: kind(e), name, w: r.width, h: r.height });
}
if (themes) toggle.click();
return out;
"#;

struct Control {
    kind: String,
    name: String,
    w: f64,
    h: f64,
}

impl Control {
    fn read(v: &Value) -> Control {
        Control {
            kind: v["kind"].as_str().unwrap_or_default().to_string(),
            name: v["name"].as_str().unwrap_or_default().to_string(),
            w: v["w"].as_f64().unwrap_or(0.0),
            h: v["h"].as_f64().unwrap_or(0.0),
        }
    }
}

fn four(v: &Value) -> Option<[f64; 4]> {
    let a = v.as_array()?;
    (a.len() == 4).then(|| std::array::from_fn(|i| a[i].as_f64().unwrap_or(f64::NAN)))
}

/// The kinds of control the book must have, and how many at least, so that
/// a selector gone stale cannot pass by measuring nothing.
const MUST_HAVE: [(&str, usize); 8] = [
    ("chart data table summary", 20),
    ("Copy as CSV", 20),
    ("Download as CSV", 10),
    ("drill answer summary", 20),
    ("drill button", 40),
    ("page-walk radio", 3),
    ("menu bar", 4),
    ("theme menu", 5),
];

/// Loads `page` and waits until its scripts have built what they build:
/// the charts (and their "Copy as CSV"), the decoder, the drills' marks.
async fn open(browser: &Browser, book: &BuiltBook, page: &str) -> Result<()> {
    browser.goto(&book.server.url(page)).await?;
    browser
        .wait_for("document.readyState === 'complete'")
        .await?;
    if book.chart_pages().iter().any(|p| p == page) {
        browser.wait_for_charts().await.context(page.to_string())?;
    }
    Ok(())
}

fn pages(book: &BuiltBook) -> Vec<String> {
    book.html_pages()
        .into_iter()
        .filter(|p| p != "print.html" && p != "toc.html")
        .collect()
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn every_control_is_a_finger_sized_target() {
    let Some(book) = built_book("every_control_is_a_finger_sized_target") else {
        return;
    };
    let pages = pages(&book);
    book.with_browser(async |browser| {
        let mut small = Vec::new();
        for (width, least) in [(390, 44.0), (1280, 24.0)] {
            browser.set_width(width).await?;
            // Per kind: how many, and the smallest width and height seen.
            let mut seen: BTreeMap<String, (usize, f64, f64)> = BTreeMap::new();
            for (i, page) in pages.iter().enumerate() {
                open(browser, &book, page).await?;
                // The theme menu is the same on every page: open it on one.
                let v = browser
                    .eval_with(CONTROLS_JS, vec![Value::Bool(i == 0)])
                    .await?;
                let controls = v.as_array().context("the controls")?;
                for c in controls.iter().map(Control::read) {
                    let e = seen.entry(c.kind.clone()).or_insert((0, f64::MAX, f64::MAX));
                    *e = (e.0 + 1, e.1.min(c.w), e.2.min(c.h));
                    // Sub-pixel layout: a 44 px box may measure 43.99.
                    if c.w < least - 0.05 || c.h < least - 0.05 {
                        small.push(format!(
                            "{page} at {width} px: {} {:?} is {:.1} × {:.1} px, under {least} × {least}",
                            c.kind, c.name, c.w, c.h
                        ));
                    }
                }
            }
            for (kind, at_least) in MUST_HAVE {
                let n = seen.get(kind).map_or(0, |s| s.0);
                ensure!(
                    n >= at_least,
                    "at {width} px only {n} controls of kind {kind:?} were measured (want {at_least})"
                );
            }
            for (kind, (n, w, h)) in &seen {
                eprintln!("{width} px: {n:4} × {kind}, smallest {w:.1} × {h:.1} px");
            }
        }
        ensure!(
            small.is_empty(),
            "{} controls are too small to tap:\n{}",
            small.len(),
            small.join("\n")
        );
        Ok(())
    });
}

/// Every diagram's text: its size in CSS px, and where it lies against the
/// boxes of its SVG (all in the SVG's own units).
const DIAGRAM_TEXT_JS: &str = r#"
const out = [];
for (const svg of document.querySelectorAll('main .pw-diagram-svg')) {
  const fig = svg.closest('figure').id;
  const scale = svg.getScreenCTM().a;
  const vb = svg.viewBox.baseVal;
  const rects = [...svg.querySelectorAll('rect')].map((r) => r.getBBox());
  const holds = (r, x, y) => x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height;
  const box = (b) => [b.x, b.y, b.x + b.width, b.y + b.height];
  for (const t of svg.querySelectorAll('text, tspan')) {
    if (![...t.childNodes].some((n) => n.nodeType === 3 && n.data.trim())) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    const text = [...t.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join('').trim();
    const entry = { fig, text, px, tag: t.tagName };
    if (t.tagName === 'text') {
      const ax = t.x.baseVal[0].value;
      const ay = t.y.baseVal[0].value;
      const home = rects
        .filter((r) => holds(r, ax, ay))
        .sort((a, b) => a.width * a.height - b.width * b.height)[0];
      entry.text = t.textContent.trim();
      entry.bbox = box(t.getBBox());
      entry.home = home ? box(home) : null;
      entry.svg = [vb.x, vb.y, vb.x + vb.width, vb.y + vb.height];
      entry.rects = rects.map(box);
    }
    out.push(entry);
  }
}
return out;
"#;

struct DiagramText {
    fig: String,
    text: String,
    px: f64,
    tag: String,
    /// For a `<text>`: its box, the box it is written in, the SVG's
    /// `viewBox` and every box of the SVG.
    bbox: Option<[f64; 4]>,
    home: Option<[f64; 4]>,
    svg: Option<[f64; 4]>,
    rects: Vec<[f64; 4]>,
}

impl DiagramText {
    fn read(v: &Value) -> DiagramText {
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        DiagramText {
            fig: s("fig"),
            text: s("text"),
            px: v["px"].as_f64().unwrap_or(0.0),
            tag: s("tag"),
            bbox: four(&v["bbox"]),
            home: four(&v["home"]),
            svg: four(&v["svg"]),
            rects: v["rects"]
                .as_array()
                .map(|a| a.iter().filter_map(four).collect())
                .unwrap_or_default(),
        }
    }
}

/// Half a unit of slack: glyph boxes are rounded, and a box's edge is the
/// middle of its 2-unit stroke.
const SLACK: f64 = 0.5;

fn inside(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] >= b[0] - SLACK && a[1] >= b[1] - SLACK && a[2] <= b[2] + SLACK && a[3] <= b[3] + SLACK
}

fn overlaps(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[2].min(b[2]) - a[0].max(b[0]) > SLACK && a[3].min(b[3]) - a[1].max(b[1]) > SLACK
}

/// What is wrong with the diagrams' text as drawn now, one line each; the
/// smallest size seen goes into `smallest`.
fn diagram_problems(texts: &[DiagramText], smallest: &mut f64) -> Vec<String> {
    let mut out = Vec::new();
    for t in texts {
        *smallest = smallest.min(t.px);
        if t.px < 11.0 - 0.01 {
            out.push(format!(
                "{}: {} {:?} is drawn at {:.1} px",
                t.fig, t.tag, t.text, t.px
            ));
        }
        let (Some(bbox), Some(svg)) = (&t.bbox, &t.svg) else {
            continue;
        };
        match &t.home {
            Some(home) if !inside(bbox, home) => out.push(format!(
                "{}: {:?} runs out of its box: text {bbox:?}, box {home:?}",
                t.fig, t.text
            )),
            Some(_) => {}
            None => {
                if !inside(bbox, svg) {
                    out.push(format!(
                        "{}: {:?} runs out of the diagram: text {bbox:?}, diagram {svg:?}",
                        t.fig, t.text
                    ));
                }
                if let Some(r) = t.rects.iter().find(|r| overlaps(bbox, r)) {
                    out.push(format!(
                        "{}: {:?}, outside every box, runs into the box {r:?}: text {bbox:?}",
                        t.fig, t.text
                    ));
                }
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
fn diagram_text_is_readable_and_inside_its_boxes() {
    let Some(book) = built_book("diagram_text_is_readable_and_inside_its_boxes") else {
        return;
    };
    let pages: Vec<String> = pages(&book)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(book.dir.join(p)).is_ok_and(|h| h.contains("pw-diagram-svg"))
        })
        .collect();
    book.with_browser(async |browser| {
        let mut problems = Vec::new();
        for width in [390, 1280] {
            browser.set_width(width).await?;
            let mut figures = std::collections::BTreeSet::new();
            let mut count = 0;
            let mut smallest = f64::MAX;
            for page in &pages {
                open(browser, &book, page).await?;
                // The page walk as built, then in each page size its decoder
                // offers; 1 GiB with the widest offset (0x3fffffff).
                let walk = browser
                    .eval("return !!document.querySelector('main figure.pw-walk form:not([hidden])');")
                    .await?
                    == Value::Bool(true);
                let states: &[(&str, &str)] = if walk {
                    &[
                        ("", ""),
                        ("2m", "0x7ffd8a3b2c10"),
                        ("1g", "0x7fffffffffff"),
                    ]
                } else {
                    &[("", "")]
                };
                for (size, address) in states {
                    if !size.is_empty() {
                        browser
                            .eval(
                                "document.getElementById('diagram-page-walk').scrollIntoView({block: 'center'});",
                            )
                            .await?;
                        browser
                            .click(&format!("input[name=pw-walk-size][value=\"{size}\"]"))
                            .await?;
                        browser.set_value("#pw-walk-address", address).await?;
                    }
                    let v = browser.eval(DIAGRAM_TEXT_JS).await?;
                    let texts: Vec<DiagramText> = v
                        .as_array()
                        .context("the diagrams' texts")?
                        .iter()
                        .map(DiagramText::read)
                        .collect();
                    count += texts.len();
                    figures.extend(texts.iter().map(|t| t.fig.clone()));
                    let state = if size.is_empty() { "" } else { size };
                    problems.extend(
                        diagram_problems(&texts, &mut smallest)
                            .into_iter()
                            .map(|p| format!("{page} at {width} px {state}: {p}")),
                    );
                }
            }
            ensure!(
                figures.len() >= 5 && count >= 150,
                "at {width} px only {count} texts in {} diagrams were read: {figures:?}",
                figures.len()
            );
            eprintln!(
                "{width} px: {count} diagram texts in {} diagrams, the smallest {smallest:.1} px",
                figures.len()
            );
        }
        problems.dedup();
        ensure!(
            problems.is_empty(),
            "{} diagram texts too small or out of their boxes:\n{}",
            problems.len(),
            problems.join("\n")
        );
        Ok(())
    });
}
