//! Every link from one page of the built book to a place in another (or
//! the same) page finds that place: the glossary links each chapter makes
//! at a term's first use, "see the section on ..." links, the table of
//! contents. mdBook builds a page with a broken fragment without a word,
//! and the reader lands at the top of the wrong page.
//!
//! Read from the built HTML on disk (no browser needed, but the book must
//! be built, so it runs with the browser tests).

use std::collections::{BTreeMap, BTreeSet};

use pagewalk_browser_tests::built_book;

/// The values of `attr="..."` in `html`, in order.
fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&needle) {
        rest = &rest[i + needle.len()..];
        if let Some(end) = rest.find('"') {
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

/// `%20` and friends, as a browser decodes a fragment before looking it up.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "built-book test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn every_link_into_the_book_finds_its_place() {
    let Some(book) = built_book("every_link_into_the_book_finds_its_place") else {
        return;
    };
    let pages = book.html_pages();
    let html: BTreeMap<&str, String> = pages
        .iter()
        .map(|p| {
            (
                p.as_str(),
                std::fs::read_to_string(book.dir.join(p)).unwrap(),
            )
        })
        .collect();
    let ids: BTreeMap<&str, BTreeSet<&str>> = html
        .iter()
        .map(|(p, h)| (*p, attribute_values(h, "id").into_iter().collect()))
        .collect();
    let mut broken = Vec::new();
    let mut checked = 0;
    for (page, h) in &html {
        for href in attribute_values(h, "href") {
            if href.contains("://") || href.starts_with("mailto:") || href.starts_with("data:") {
                continue;
            }
            let Some((target, fragment)) = href.split_once('#') else {
                continue;
            };
            if fragment.is_empty() {
                continue;
            }
            let target = if target.is_empty() {
                *page
            } else {
                target.trim_start_matches("./")
            };
            // Only pages of the book: a link to a file beside it is not ours.
            let Some(known) = ids.get(target) else {
                if target.ends_with(".html") {
                    broken.push(format!("{page}: {href}: no page {target}"));
                }
                continue;
            };
            checked += 1;
            if !known.contains(percent_decoded(fragment).as_str()) && !known.contains(fragment) {
                broken.push(format!("{page}: {href}: {target} has no id {fragment:?}"));
            }
        }
    }
    broken.sort();
    broken.dedup();
    assert!(checked > 50, "only {checked} links with a fragment found");
    assert!(
        broken.is_empty(),
        "{} links point at nothing:\n{}",
        broken.len(),
        broken.join("\n")
    );
    // At least one term of the glossary is linked, and the glossary itself
    // is a page of the book.
    assert!(
        html.keys().any(|p| *p == "glossary.html"),
        "no glossary.html in the built book"
    );
    let to_glossary = html
        .iter()
        .filter(|(p, _)| **p != "print.html" && **p != "glossary.html")
        .flat_map(|(_, h)| attribute_values(h, "href"))
        .filter(|href| href.starts_with("glossary.html#"))
        .count();
    assert!(
        to_glossary >= 20,
        "only {to_glossary} links into the glossary"
    );
}
