//! The diagrams (`{{diagram}}`, `theme/pagewalk-diagrams.js`) in Chromium:
//! the address decoder agrees with the preprocessor's `decode` for three
//! known addresses and page sizes, refuses a non-canonical address, shows
//! the build's example without JavaScript, and its text follows every
//! theme. Off unless `PAGEWALK_BROWSER_TESTS=1`.

use anyhow::{ensure, Context, Result};
use mdbook_pagewalk::diagram::{decode, PageSize, EXAMPLE_ADDRESS};
use mdbook_pagewalk::{context, DataSet};
use pagewalk_browser_tests::workspace_root;
use pagewalk_browser_tests::{built_book as book, Browser};
use serde_json::{json, Value};

const PAGE: &str = "page-tables.html";
const THEMES: [&str; 5] = ["light", "rust", "coal", "navy", "ayu"];

/// What the diagram shows: the four index texts and the offset text.
async fn shown(browser: &Browser) -> Result<Vec<String>> {
    let v = browser
        .eval(
            "const f = document.getElementById('diagram-page-walk');
             return ['pml4','pdpt','pd','pt','offset'].map(k => f.querySelector(`[data-value=${k}]`).textContent);",
        )
        .await?;
    Ok(serde_json::from_value(v)?)
}

/// What the diagram should show for `va` on `size` pages, from Rust.
fn expected(va: u64, size: PageSize) -> Vec<String> {
    let d = decode(va, size).expect("a canonical address");
    let mut out: Vec<String> = (0..4)
        .map(|i| d.indexes.get(i).map_or("—".into(), |v| v.to_string()))
        .collect();
    out.push(format!("{:#x}", d.offset));
    out
}

/// Types `address` and picks `size` (`4k`, `2m`, `1g`) as a reader does.
async fn enter(browser: &Browser, address: &str, size: &str) -> Result<()> {
    browser
        .click(&format!("input[name=pw-walk-size][value=\"{size}\"]"))
        .await?;
    browser.set_value("#pw-walk-address", address).await
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn the_decoder_cuts_three_known_addresses() {
    let Some(book) = book("the_decoder_cuts_three_known_addresses") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.goto(&book.server.url(PAGE)).await?;
        browser
            .wait_for("!document.querySelector('form.pw-decoder').hidden")
            .await?;
        browser
            .eval("document.getElementById('diagram-page-walk').scrollIntoView({block: 'center'});")
            .await?;
        let cases = [
            ("0x00007fffffffe000", "4k", 0x0000_7fff_ffff_e000, PageSize::K4),
            ("0x401123", "4k", 0x0040_1123, PageSize::K4),
            ("ffff_ffff_8100_0abc", "2m", 0xffff_ffff_8100_0abc, PageSize::M2),
            ("0x7ffd8a3b2c10", "1g", 0x7ffd_8a3b_2c10, PageSize::G1),
        ];
        for (typed, size, va, page) in cases {
            enter(browser, typed, size).await?;
            let got = shown(browser).await?;
            let want = expected(va, page);
            ensure!(got == want, "{typed} on {size}: shows {got:?}, decode says {want:?}");
            let sentence = browser.text_of(".pw-walk-text").await?.context("sentence")?;
            let d = decode(va, page).context("canonical")?;
            ensure!(
                sentence.contains(&format!("PML4 entry {}, PDPT entry {}", d.indexes[0], d.indexes[1])),
                "{typed}: text alternative {sentence:?}"
            );
            // Skipped levels are marked as such on the diagram.
            let skipped: Value = browser
                .eval("return [...document.querySelectorAll('#diagram-page-walk .pw-dg-skip')].length;")
                .await?;
            ensure!(skipped == json!(4 - d.indexes.len()), "{typed}: {skipped} rows skipped");
        }

        enter(browser, "0x0000800000000000", "4k").await?;
        let invalid = browser
            .eval("return document.getElementById('pw-walk-address').getAttribute('aria-invalid');")
            .await?;
        ensure!(invalid == json!("true"), "a non-canonical address was accepted");
        let sentence = browser.text_of(".pw-walk-text").await?.unwrap_or_default();
        ensure!(sentence.contains("canonical"), "non-canonical: {sentence:?}");
        Ok(())
    });
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1"
)]
fn diagrams_without_javascript_and_in_every_theme() {
    let Some(book) = book("diagrams_without_javascript_and_in_every_theme") else {
        return;
    };
    book.with_browser(async |browser| {
        browser.set_scripts_disabled(true).await?;
        browser.goto(&book.server.url(PAGE)).await?;
        let got = shown(browser).await?;
        let want = expected(EXAMPLE_ADDRESS, PageSize::K4);
        ensure!(got == want, "without JavaScript: {got:?}, want {want:?}");
        let form_hidden = browser
            .eval("return document.querySelector('form.pw-decoder').hidden;")
            .await?;
        ensure!(form_hidden == json!(true), "a decoder form that cannot work is shown");
        browser.set_scripts_disabled(false).await?;

        // The nested walk numbers its 24 references, one per cell.
        browser.goto(&book.server.url("virtual-machines.html")).await?;
        let numbers = browser
            .eval("return [...document.querySelectorAll('#diagram-nested-walk [data-n]')].map(g => Number(g.dataset.n));")
            .await?;
        ensure!(numbers == json!((1..=24).collect::<Vec<u32>>()), "nested walk: {numbers}");

        // The TLB diagram carries the sizes CPUID gave the run shown.
        let data = DataSet::load(&workspace_root().join("data"))?;
        let ctx = context::build(&data);
        browser.goto(&book.server.url("tlb-reach.html")).await?;
        for (level, keys) in [(0, ["l1d_4k", "l1d_2m"]), (1, ["l2_4k", "l2_2m"])] {
            let shown = browser
                .text_of(&format!("#diagram-tlb-hierarchy [data-level=\"{level}\"]"))
                .await?
                .context("TLB level text")?;
            for key in keys {
                if let Some(want) = ctx["tlb"]["cpuid"][key]["arithmetic"].as_str() {
                    ensure!(shown.contains(want), "TLB level {level}: {shown:?} lacks {want:?}");
                }
            }
        }

        // Text in the diagrams is the page's text colour in every theme.
        for page in [PAGE, "first-touch.html", "tlb-reach.html", "virtual-machines.html", "allocator.html"] {
            browser.goto(&book.server.url(page)).await?;
            for theme in THEMES {
                browser.switch_theme(theme).await?;
                let v = browser
                    .eval(
                        "const t = document.querySelector('.pw-diagram-svg text:not([class])');
                         return [getComputedStyle(t).fill, getComputedStyle(document.querySelector('main')).color];",
                    )
                    .await?;
                ensure!(v[0] == v[1], "{page}, {theme}: diagram text {} on page text {}", v[0], v[1]);
            }
        }
        Ok(())
    });
}
