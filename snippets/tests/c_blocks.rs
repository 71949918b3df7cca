//! Every C block in the book compiles and links with `cc -Wall -Werror`.
//!
//! A block is completed by its hidden lines: a line starting with `~` is
//! hidden in the book (`[output.html.code.hidelines]` in book.toml) and
//! compiled here without the `~`. `{{#include ../probes/FILE:anchor}}` is
//! resolved as mdBook resolves it. Every line is compiled under a `#line`
//! naming the chapter (or probe) and line it came from, so the compiler's
//! errors point into the book.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::process::Command;

use common::{blocks, Block};

/// The block as a C file: hidden lines revealed, each run of lines led by a
/// `#line` for where it came from.
fn source(block: &Block) -> String {
    let mut c = String::new();
    let mut next = None;
    for line in &block.lines {
        if next != Some((&line.file, line.line)) {
            writeln!(c, "#line {} \"{}\"", line.line, line.file).unwrap();
        }
        c.push_str(&revealed(&line.text));
        c.push('\n');
        next = Some((&line.file, line.line + 1));
    }
    c
}

/// A hidden line as the compiler sees it: the `~` gone, the indent kept
/// (as mdBook shows it when the reader reveals the hidden lines).
fn revealed(text: &str) -> String {
    let indent = text.len() - text.trim_start().len();
    match text[indent..].strip_prefix('~') {
        Some(rest) => format!("{}{rest}", &text[..indent]),
        None => text.into(),
    }
}

/// The compiler's complaint, or `None` when the block compiles and links.
fn compile(block: &Block, dir: &std::path::Path) -> Option<String> {
    let stem = format!(
        "{}-{}",
        block
            .chapter
            .trim_start_matches("book/")
            .trim_end_matches(".md"),
        block.line
    );
    let file = dir.join(format!("{stem}.c"));
    let c = source(block);
    fs::write(&file, &c).unwrap();
    let mut cc = Command::new("cc");
    cc.args(["-Wall", "-Werror", "-o"])
        .arg(dir.join(stem))
        .arg(&file);
    // As a reader would build it: OpenMP pragmas need the flag, or -Wall
    // reports them as unknown.
    if c.contains("#pragma omp") {
        cc.arg("-fopenmp");
    }
    let out = cc
        .output()
        .expect("cc: a C compiler is needed for the book's C blocks");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn every_c_block_compiles() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = blocks("c");
    assert!(
        blocks.len() >= 20,
        "found only {} C blocks in book/*.md",
        blocks.len()
    );
    let mut failures = String::new();
    for block in &blocks {
        if let Some(errors) = compile(block, dir.path()) {
            writeln!(
                failures,
                "{}:{}: this C block does not compile:\n{errors}",
                block.chapter, block.line
            )
            .unwrap();
        }
    }
    assert!(failures.is_empty(), "{failures}");
    println!("{} C blocks compile with cc -Wall -Werror", blocks.len());
}

#[test]
fn a_broken_block_is_reported_at_its_chapter_line() {
    let block = Block {
        chapter: "book/example.md".into(),
        line: 10,
        lines: vec![
            common::Line {
                file: "book/example.md".into(),
                line: 11,
                text: "~int main(void)".into(),
            },
            common::Line {
                file: "book/example.md".into(),
                line: 12,
                text: "~{".into(),
            },
            common::Line {
                file: "book/example.md".into(),
                line: 13,
                text: "int x = 1".into(),
            },
            common::Line {
                file: "book/example.md".into(),
                line: 14,
                text: "~}".into(),
            },
        ],
    };
    let dir = tempfile::tempdir().unwrap();
    let errors = compile(&block, dir.path()).expect("a missing `;` must not compile");
    assert!(errors.contains("book/example.md:13"), "{errors}");
}
