//! No accepted file can put a live link, a foreign image or a script in the
//! book. The real `mdbook build` of a book whose newest run and inspection
//! carry markup in **every** free-text field the model has (the fields
//! come from the types, `pagewalk_browser_tests::poison`, so a new field is
//! covered the day it is added) and in their file names, then:
//! - every built HTML file, `print.html` too, is read for a link, image or
//!   handler that a payload made (no browser needed to see it);
//! - every page is loaded in Chromium: no payload script ran, no
//!   `javascript:` link or foreign image is live, nothing was fetched
//!   from another origin, and the page's Content-Security-Policy forbids
//!   other origins should anything slip through.

use std::path::Path;
use std::process::Command;

use anyhow::ensure;
use pagewalk_browser_tests::book_copy::{copy_book, fresh_run};
use pagewalk_browser_tests::poison::{ensure_inert, file_name_payload, poison_run, EVIL_HOST};
use pagewalk_browser_tests::{run_test, serial, serve, should_run, workspace_root, Browser};

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "real-browser test: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn markup_in_every_string_and_file_name_stays_text_in_the_built_book() {
    if !should_run("markup_in_every_string_and_file_name_stays_text_in_the_built_book") {
        return;
    }
    let _one_at_a_time = serial();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_book(&src);

    let run = poison_run(&fresh_run("aaaaaa"));
    let inspection = poison_run(&inspection_base());
    for poisoned in [&run, &inspection] {
        // Only formats the model checks keep a payload out: a run id, the
        // timestamps and an experiment's name (which must match its results).
        for (field, why) in &poisoned.refused {
            ensure_only_formats(field, why);
        }
        assert!(
            poisoned.places.len() > 100,
            "only {} places",
            poisoned.places.len()
        );
    }
    let name = file_name_payload();
    write(&src.join(format!("data/runs/{name}.json")), &run.file);
    std::fs::create_dir_all(src.join("data/inspections")).unwrap();
    write(
        &src.join(format!("data/inspections/{name}.json")),
        &inspection.file,
    );

    let out = dir.path().join("out");
    let built = Command::new("mdbook")
        .arg("build")
        .arg(&src)
        .arg("-d")
        .arg(&out)
        .output()
        .expect("mdbook on PATH (scripts/install-tools installs it)");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );

    let pages = html_files(&out);
    assert!(pages.len() > 20, "{} pages", pages.len());
    let mut found = Vec::new();
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        for bad in live_payloads(&html) {
            found.push(format!(
                "{}: {bad}",
                page.strip_prefix(&out).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "live markup from the files:\n{}",
        found.join("\n")
    );
    // The payloads are on the pages as text (escaped, not dropped).
    let machine = std::fs::read_to_string(out.join("your-machine.html")).unwrap();
    assert!(
        machine.contains("[x](javascript:alert(") || machine.contains("&#91;x&#93;"),
        "your-machine.html shows no payload at all: was the poisoned run shown?"
    );

    let server = serve(&out).unwrap();
    run_test(async {
        let browser = Browser::start().await?;
        for page in &pages {
            let rel = page
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel.contains('/') {
                continue; // fonts, css: not pages
            }
            browser.goto(&server.url(&rel)).await?;
            ensure_inert(&browser, &rel).await?;
            let seen = browser
                .eval(
                    "return { csp: document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]')?.content || null };",
                )
                .await?;
            let csp = seen["csp"].as_str().unwrap_or("");
            ensure!(
                csp.contains("default-src 'self'") && !csp.contains('*'),
                "{rel}: no Content-Security-Policy that keeps to this origin: {csp:?}"
            );
        }
        // Nothing was fetched from elsewhere, nothing logged an error.
        browser.finish().await
    });
}

/// The committed example inspection, started now (so the newest).
fn inspection_base() -> serde_json::Value {
    let dir = workspace_root().join("data/example-inspection");
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let fresh = fresh_run("bbbbbb");
    v["provenance"] = fresh["provenance"].clone();
    v
}

fn ensure_only_formats(field: &str, why: &str) {
    let formats = [
        "provenance.run_id",
        "provenance.started_utc",
        "provenance.finished_utc",
        "experiments[].name",
    ];
    assert!(
        formats.contains(&field),
        "the model refused a payload in {field} ({why}): a free-text field it no longer reaches?"
    );
}

fn write(path: &Path, v: &serde_json::Value) {
    std::fs::write(path, serde_json::to_string(v).unwrap()).unwrap();
}

fn html_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(html_files(&p));
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every tag of `html` that a payload made live: an attribute that links,
/// loads or runs something and names `javascript:`, the payloads' host, or
/// (a handler) the payloads' marks. A chart's JSON spec is data the page
/// parses, not markup, and is skipped; a `data:text/csv` download holds the
/// values percent-encoded, as text.
fn live_payloads(html: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with("script type=\"application/json\"") {
            match rest.find("</script") {
                Some(end) => rest = &rest[end..],
                None => break,
            }
            continue;
        }
        let Some(end) = rest.find('>') else { break };
        let tag = &rest[..end];
        for (name, value) in attributes(tag) {
            let v = decode_entities(&value).to_ascii_lowercase();
            let v = v.trim();
            let links = matches!(
                name.as_str(),
                "href"
                    | "src"
                    | "srcset"
                    | "action"
                    | "formaction"
                    | "poster"
                    | "data"
                    | "xlink:href"
                    | "background"
            );
            let payload_link = v.starts_with("javascript:")
                || (v.contains(EVIL_HOST) && !v.starts_with("data:text/csv"));
            let handler = name.starts_with("on") && (v.contains("alert(") || v.contains("pwned"));
            if (links && payload_link) || handler {
                bad.push(format!("<{}>", tag.chars().take(160).collect::<String>()));
            }
        }
        rest = &rest[end..];
    }
    bad
}

/// `name=value` pairs of a tag's text, quoted or not.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = tag.as_bytes();
    let mut i = tag.find(|c: char| c.is_whitespace()).unwrap_or(tag.len());
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' {
            i += 1;
        }
        let name = tag[start..i].to_ascii_lowercase();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            let value = match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let from = i + 1;
                    let to = tag[from..].find(q as char).map_or(tag.len(), |e| from + e);
                    i = (to + 1).min(tag.len());
                    &tag[from..to]
                }
                _ => {
                    let from = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    &tag[from..i]
                }
            };
            out.push((name, value.to_string()));
        } else if !name.is_empty() {
            out.push((name, String::new()));
        }
        if i == start {
            i += 1;
        }
    }
    out
}

/// Character references as a browser reads them in an attribute
/// (`&#58;`, `&#x3a;`, `&colon;`, `&amp;`).
fn decode_entities(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e < 12);
        let Some(end) = end else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let c = if let Some(hex) = entity.strip_prefix("#x").or(entity.strip_prefix("#X")) {
            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
        } else if let Some(dec) = entity.strip_prefix('#') {
            dec.parse().ok().and_then(char::from_u32)
        } else {
            match entity {
                "amp" => Some('&'),
                "colon" => Some(':'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "sol" => Some('/'),
                "period" => Some('.'),
                _ => None,
            }
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
