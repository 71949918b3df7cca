//! What the tests that build the book from a run share: a data folder
//! around one run file, and the chapters as the preprocessor sees them.

use std::path::{Path, PathBuf};

pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// A data folder holding `fixture` as the reader's own run, and the
/// references.
pub fn data_dir(fixture: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    std::fs::copy(fixture, dir.path().join("runs/run.json")).unwrap();
    std::fs::create_dir_all(dir.path().join("reference")).unwrap();
    for entry in std::fs::read_dir(Path::new(ROOT).join("data/reference")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path().join("reference").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    dir
}

/// Every chapter as `(file name, template)`; mdBook's own `{{#include}}`
/// lines are left to mdBook.
#[allow(dead_code)] // Not every test that shares this reads the chapters.
pub fn chapters() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(Path::new(ROOT).join("book")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let template: String = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("{{#include"))
            .map(|l| format!("{l}\n"))
            .collect();
        out.push((name, template));
    }
    out
}

/// The recorded matrix and the committed example run (a full run, from
/// another machine: it reaches the TLB sizes the quick runs do not).
#[allow(dead_code)] // Not every test that shares this runs the matrix.
pub fn fixtures() -> Vec<PathBuf> {
    let json_in = |dir: PathBuf| {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect::<Vec<_>>()
    };
    let mut files = json_in(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/matrix"));
    files.sort();
    files.extend(json_in(Path::new(ROOT).join("data/example")));
    assert!(files.len() >= 3, "the matrix has only {} runs", files.len());
    files
}
