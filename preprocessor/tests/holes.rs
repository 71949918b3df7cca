//! No holes and no false verdicts on any fixture, the real runs from other
//! machines among them: the book built from each run in the matrix must
//! not print an empty value in a sentence (`and )`, `( )`, a dangling
//! `against`), a raw error string, a negative time, a size the run does
//! not have as if it did, or a verdict its own numbers contradict; and
//! every check the run failed is named where the book uses it.
//!
//! Each rule is a reader's complaint about a real run (the Intel Xeon guest
//! whose hypervisor zeroes CPUID leaf 0x18), kept so it cannot come back.

use std::sync::Arc;

use mdbook_pagewalk::{context, DataSet, Renderer};
use pagewalk_model::{read_run, Status};
use serde_json::Value;

mod common;

use common::{chapters, data_dir, fixtures};

/// Every chapter's text, HTML tags dropped and whitespace folded, as a
/// reader reads it.
fn book(renderer: &Renderer) -> Vec<(String, String)> {
    chapters()
        .into_iter()
        .map(|(name, template)| {
            let markdown = renderer
                .render(&name, &template)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut text = reader_text(&prose(&markdown));
            // A broken table shows its pipes as text: said as a hole.
            for row in broken_tables(&prose(&markdown)) {
                text.push_str(&format!(" BROKEN-TABLE-ROW {row}"));
            }
            (name, text)
        })
        .collect()
}

/// Table rows that Markdown will not read as a table: a block of `|` lines
/// whose second line is not the header's separator (a blank line, say,
/// left between a table's generated rows and the rest of it).
fn broken_tables(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut broken = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with('|') {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].trim_start().starts_with('|') {
            i += 1;
        }
        let separator = lines.get(start + 1).is_some_and(|l| {
            let l = l.trim();
            l.starts_with('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
        });
        if !separator {
            broken.push(lines[start].trim().to_string());
        }
    }
    broken
}

/// Text outside tags, with `<code>`'s content kept, whitespace folded.
fn reader_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    decode_entities(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `&#95;`, `&#x27;`, `&amp;`... as the characters a reader sees.
fn decode_entities(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest[..rest.len().min(12)].find(';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let c = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "nbsp" => Some(' '),
            e => e
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| e.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(if c == '\u{a0}' { ' ' } else { c });
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.replace('\u{a0}', " ")
}

/// Prose only: fenced code blocks are not sentences.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Where `needle` sits in `text`, with some context either side.
fn around(text: &str, at: usize) -> String {
    let mut start = at.saturating_sub(90);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 90).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    format!("…{}…", &text[start..end])
}

/// The problems in one page's text.
fn holes(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let patterns: &[(&str, &str)] = &[
        ("( )", "an empty value in parentheses"),
        ("()", "an empty value in parentheses"),
        (" and )", "a list ending in an empty value"),
        (" and .", "a list ending in an empty value"),
        (" and ,", "a list ending in an empty value"),
        ("against )", "a comparison against nothing"),
        ("against .", "a comparison against nothing"),
        ("against and", "a comparison against nothing"),
        ("against ,", "a comparison against nothing"),
        ("(unknown)", "an unknown size printed as a value"),
        ("a size unknown", "an assumed size shown as observed"),
        ("(os error", "a raw error string"),
        ("No such file or directory", "a raw error string"),
        (
            "BROKEN-TABLE-ROW",
            "a table row Markdown does not read as one",
        ),
        ("perf_event_open(", "a raw error string"),
    ];
    for (pattern, what) in patterns {
        let mut from = 0;
        while let Some(i) = text[from..].find(pattern) {
            let at = from + i;
            // `()` after a function name is a call, not a hole.
            let call = *pattern == "()"
                && text[..at]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !call {
                found.push(format!("{what}: {}", around(text, at)));
            }
            from = at + pattern.len();
        }
    }
    // A negative time: "−16 ns" above a baseline is "below it", never a figure.
    let text = text.to_string();
    let bytes: Vec<char> = text.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        if (*c == '−' || *c == '-')
            && (i == 0 || bytes[i - 1] == ' ' || bytes[i - 1] == '(')
            && bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit())
        {
            let rest: String = bytes[i + 1..].iter().take(16).collect();
            let unit =
                rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
            if unit.starts_with(" ns") || unit.starts_with(" µs") || unit.starts_with(" ms") {
                let at: usize = bytes[..i].iter().map(|c| c.len_utf8()).sum();
                found.push(format!("a negative time: {}", around(&text, at)));
            }
        }
    }
    found
}

/// Sentences that assert a TLB figure, which a run without TLB figures
/// must not print.
const TLB_CLAIMS: [&str; 4] = [
    "as many as the L2 TLB holds",
    "from CPUID 0x2 descriptors",
    "what the hypervisor chose to report",
    "inside the L2 TLB's reach (",
];

#[test]
fn no_fixture_prints_a_hole_a_raw_error_or_an_unknown_size() {
    let mut problems = Vec::new();
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let dir = data_dir(&fixture);
        let data = Arc::new(DataSet::load(dir.path()).unwrap());
        let ctx = context::build(&data);
        let pages = book(&Renderer::new(data));
        // CPUID reported no L2 TLB for 4 KiB pages on this run.
        let no_tlbs = ["stair", "tlb"]
            .iter()
            .all(|v| ctx[v].is_null() || ctx[v]["cpuid"]["l2_4k"].is_null());
        for (name, text) in &pages {
            for hole in holes(text) {
                problems.push(format!("{run}, {name}: {hole}"));
            }
            if no_tlbs {
                for claim in TLB_CLAIMS {
                    if let Some(at) = text.find(claim) {
                        problems.push(format!(
                            "{run}, {name}: a TLB figure the run does not have: {}",
                            around(text, at)
                        ));
                    }
                }
            }
        }
        for problem in contradictions(&fixture, &pages) {
            problems.push(format!("{run}: {problem}"));
        }
        // Every failed check is named on the page of its experiment's
        // chapter or on "your machine" (method.md promises it).
        let file = read_run(&fixture).unwrap();
        let yours = &pages
            .iter()
            .find(|(n, _)| n == "your-machine.md")
            .unwrap()
            .1;
        for e in file
            .experiments
            .iter()
            .filter(|e| e.status != Status::Skipped)
        {
            for c in e
                .checks
                .iter()
                .filter(|c| !c.passed && c.cannot_tell.is_none() && !c.finding)
            {
                let said = reader_text(&c.name);
                if !yours.contains(&said) {
                    problems.push(format!(
                        "{run}: the failed check \"{said}\" ({}) is not named on your-machine.md",
                        e.name
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Verdict sentences their own numbers contradict, recomputed from the
/// run file itself (not from the views the sentences were chosen by).
fn contradictions(fixture: &std::path::Path, pages: &[(String, String)]) -> Vec<String> {
    let file = read_run(fixture).unwrap();
    let page = |name: &str| {
        pages
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, t)| t.as_str())
    };
    let mut found = Vec::new();
    let range = |s: &pagewalk_model::Summary| (s.min, s.max);
    let disjoint = |a: (f64, f64), b: (f64, f64)| a.1 < b.0 || b.1 < a.0;

    // "within the spread of their repetitions" for the walk's 4 KiB stride.
    if let Some(w) = file.walk() {
        let at = |r: pagewalk_model::Regime| {
            w.point(r, 4096)
                .and_then(|p| p.ns_per_load.as_ref())
                .map(range)
        };
        if let (Some(a), Some(b)) = (
            at(pagewalk_model::Regime::Small),
            at(pagewalk_model::Regime::Huge),
        ) {
            if disjoint(a, b)
                && page("page-tables.md").contains("are within the spread of their repetitions")
            {
                found.push(format!(
                    "page-tables.md says the 4 KiB stride's two page sizes are within the spread of their repetitions, but their ranges are {a:?} and {b:?}"
                ));
            }
        }
    }
    // "could not be told apart" for getpid against clock_gettime.
    if let Some(s) = file.syscall() {
        let p50 = |name: &str| {
            s.ops
                .iter()
                .find(|o| o.op.name() == name)
                .and_then(|o| o.latency.as_ref())
                .and_then(|l| l.p50_ns)
        };
        if let (Some(getpid), Some(clock)) = (p50("getpid"), p50("clock-gettime")) {
            let r = getpid / clock;
            if !(1.0 / 3.0..3.0).contains(&r)
                && page("your-machine.md").contains("could not be told apart")
            {
                found.push(format!(
                    "your-machine.md cannot tell getpid from clock_gettime at {r:.1}×"
                ));
            }
        }
    }
    // "No bend on this run moved with the page size" with the curves apart.
    if let Some(st) = file.staircase() {
        let curve = |r: pagewalk_model::Regime| st.curves.iter().find(|c| c.regime == r);
        if let (Some(small), Some(huge)) = (
            curve(pagewalk_model::Regime::Small),
            curve(pagewalk_model::Regime::Huge),
        ) {
            let widest = small
                .points
                .iter()
                .filter_map(|p| {
                    let h = huge
                        .points
                        .iter()
                        .find(|h| h.region_bytes == p.region_bytes)?;
                    let (a, b) = (range(&p.ns_per_load), range(&h.ns_per_load));
                    (a.0 > b.1).then(|| p.ns_per_load.median / h.ns_per_load.median)
                })
                .fold(0.0, f64::max);
            if widest >= 1.5
                && page("staircases.md").contains("No bend on this run moved with the page size")
            {
                found.push(format!(
                    "staircases.md says no bend moved with the page size, but 4 KiB pages were {widest:.1}× huge pages beyond the spread"
                ));
            }
        }
    }
    found
}

/// Writes each fixture's book as text into `$PAGEWALK_DUMP` (a folder), for
/// reading what a reader on that machine sees.
#[test]
#[ignore = "a tool: PAGEWALK_DUMP=DIR cargo test -p mdbook-pagewalk --test holes -- --ignored"]
fn dump() {
    let Some(out) = std::env::var_os("PAGEWALK_DUMP") else {
        return;
    };
    for fixture in fixtures() {
        let run = fixture.file_stem().unwrap().to_string_lossy().to_string();
        let dir = data_dir(&fixture);
        let data = Arc::new(DataSet::load(dir.path()).unwrap());
        let target = std::path::Path::new(&out).join(&run);
        std::fs::create_dir_all(&target).unwrap();
        for (name, text) in book(&Renderer::new(data)) {
            std::fs::write(target.join(name.replace(".md", ".txt")), text).unwrap();
        }
    }
    let _ = Value::Null;
}
