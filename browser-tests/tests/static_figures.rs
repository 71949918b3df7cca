//! Without JavaScript a chart is still a figure a reader can read: the
//! build's static SVG has a narrow layout that a phone shows at its own
//! size (no text under 11 CSS px at 390 px, no two marker tags on top of
//! each other), and the wide layout on a wide screen.

use anyhow::ensure;
use pagewalk_browser_tests::built_book;
use serde_json::Value;

const PAGES: [&str; 5] = [
    "staircases.html",
    "tlb-reach.html",
    "first-touch.html",
    "hot-path-faults.html",
    "syscalls.html",
];

/// For each shown static SVG of the page: its layout, its smallest text in
/// CSS px as drawn, and the pairs of marker tags whose boxes overlap.
const MEASURE_JS: &str = "return [...document.querySelectorAll('.pw-chart-plot svg')]
  .filter(s => s.getBoundingClientRect().width > 0)
  .map(s => {
    const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
    const sizes = [...s.querySelectorAll('text')]
      .map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    const boxes = [...s.querySelectorAll('.pw-marker text')].map(t => t.getBoundingClientRect());
    const texts = [...s.querySelectorAll('.pw-marker text')].map(t => t.textContent);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps.push(texts[i] + ' / ' + texts[j]);
      }
    return { layout: s.dataset.layout || null, smallest: Math.min(...sizes), overlaps };
  });";

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn the_static_figure_is_laid_out_for_a_phone_and_for_a_wide_screen() {
    let Some(book) = built_book("the_static_figure_is_laid_out_for_a_phone_and_for_a_wide_screen")
    else {
        return;
    };
    book.with_browser(async |browser| {
        browser.set_scripts_disabled(true).await?;
        for (width, layout) in [(390, "narrow"), (1280, "wide")] {
            browser.set_width(width).await?;
            for page in PAGES {
                browser.goto(&book.server.url(page)).await?;
                let shown: Vec<Value> = serde_json::from_value(browser.eval(MEASURE_JS).await?)?;
                ensure!(!shown.is_empty(), "{page} at {width} px: no figure shown");
                for s in &shown {
                    ensure!(
                        s["layout"] == layout,
                        "{page} at {width} px: the {} layout is shown",
                        s["layout"]
                    );
                    let smallest = s["smallest"].as_f64().unwrap_or(0.0);
                    if width == 390 {
                        ensure!(
                            smallest >= 10.99,
                            "{page} at 390 px: text {smallest:.1} CSS px tall in a static figure"
                        );
                    }
                    ensure!(
                        s["overlaps"].as_array().is_some_and(Vec::is_empty),
                        "{page} at {width} px: {} marker tags overlap",
                        s["overlaps"]
                    );
                }
            }
        }
        browser.set_scripts_disabled(false).await?;
        Ok(())
    });
}
