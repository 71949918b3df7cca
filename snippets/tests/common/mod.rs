//! The fenced code blocks of the book's chapters, with the file and line
//! every line of code came from (an `{{#include}}` brings its own).

// Each test binary uses part of it.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root: chapter paths in messages are relative to it.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One line of a block and where it stands, for messages and `#line`.
pub struct Line {
    pub file: String,
    pub line: usize,
    pub text: String,
}

pub struct Block {
    /// `book/CHAPTER.md`.
    pub chapter: String,
    /// The line of the opening fence.
    pub line: usize,
    pub lines: Vec<Line>,
}

/// Every block of `language` (the first word of the fence's info string) in
/// book/*.md, in file order.
pub fn blocks(language: &str) -> Vec<Block> {
    let mut chapters: Vec<PathBuf> = fs::read_dir(root().join("book"))
        .expect("book/")
        .map(|e| e.expect("book/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    let mut found = Vec::new();
    for path in chapters {
        let chapter = format!("book/{}", path.file_name().unwrap().to_string_lossy());
        let text = fs::read_to_string(&path).expect("chapter");
        let mut open: Option<Block> = None;
        for (i, text) in text.lines().enumerate() {
            let line = i + 1;
            match open.as_mut() {
                None => {
                    if fence_language(text) == Some(language) {
                        let chapter = chapter.clone();
                        open = Some(Block {
                            chapter,
                            line,
                            lines: Vec::new(),
                        });
                    }
                }
                Some(_) if text.trim_start().starts_with("```") => found.extend(open.take()),
                Some(block) => match include_target(text) {
                    Some(target) => block.lines.extend(include(&path, target, &chapter, line)),
                    None => block.lines.push(Line {
                        file: chapter.clone(),
                        line,
                        text: text.into(),
                    }),
                },
            }
        }
    }
    found
}

/// The language of a line that opens a fenced block: "```c,attr" is "c".
fn fence_language(line: &str) -> Option<&str> {
    let info = line.strip_prefix("```")?;
    let language = info.split([',', ' ']).next().unwrap_or_default();
    (!language.is_empty()).then_some(language)
}

/// `path[:anchor]` of an mdBook `{{#include path[:anchor]}}` line.
fn include_target(line: &str) -> Option<&str> {
    line.trim().strip_prefix("{{#include ")?.strip_suffix("}}")
}

/// The included lines, as mdBook's include takes them: the whole file, or
/// the lines between `ANCHOR: name` and `ANCHOR_END: name`, less any line
/// naming an anchor.
fn include(chapter_path: &Path, target: &str, chapter: &str, at: usize) -> Vec<Line> {
    let (file, anchor) = target
        .split_once(':')
        .map_or((target, None), |(f, a)| (f, Some(a)));
    let path = chapter_path.parent().unwrap().join(file);
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{chapter}:{at}: cannot include {}: {e}", path.display()));
    let path = path.canonicalize().unwrap();
    let shown = path
        .strip_prefix(root())
        .unwrap_or(&path)
        .display()
        .to_string();
    let mut inside = anchor.is_none();
    let mut lines = Vec::new();
    for (i, text) in text.lines().enumerate() {
        if let Some(name) = anchor {
            if text.contains(&format!("ANCHOR: {name}")) {
                inside = true;
            } else if text.contains(&format!("ANCHOR_END: {name}")) {
                inside = false;
            }
        }
        if inside && !text.contains("ANCHOR:") && !text.contains("ANCHOR_END:") {
            lines.push(Line {
                file: shown.clone(),
                line: i + 1,
                text: text.into(),
            });
        }
    }
    assert!(
        !lines.is_empty(),
        "{chapter}:{at}: `{target}` includes nothing"
    );
    lines
}
