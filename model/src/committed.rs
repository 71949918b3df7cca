//! The data files committed with the source (`data/example`,
//! `data/example-inspection`, `data/reference`), for the tests of every
//! crate that hold code to real files. A reader's own runs (`data/runs`,
//! `data/inspections`) are not among them: a test must see on a clean
//! clone what it sees here.

use std::path::PathBuf;

/// The folders under `data/` that are committed.
pub const FOLDERS: [&str; 4] = ["example", "example-inspection", "machines", "reference"];

/// Every committed JSON file, sorted by path.
pub fn files() -> Vec<PathBuf> {
    let data = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"));
    let mut files: Vec<PathBuf> = FOLDERS
        .iter()
        .filter_map(|dir| std::fs::read_dir(data.join(dir)).ok())
        .flatten()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// A `data/` folder at `to` as a reader's clone would have it after
/// `collector run`: every committed file, and `run` in `runs/`. For the
/// tests that hold a page rendered with a reader's run to a real
/// `mdbook build` with the same run.
pub fn data_with_run(run: &std::path::Path, to: &std::path::Path) {
    for file in files() {
        let folder = file.parent().and_then(|p| p.file_name()).unwrap();
        std::fs::create_dir_all(to.join(folder)).unwrap();
        std::fs::copy(&file, to.join(folder).join(file.file_name().unwrap())).unwrap();
    }
    std::fs::create_dir_all(to.join("runs")).unwrap();
    std::fs::copy(run, to.join("runs").join(run.file_name().unwrap())).unwrap();
}

/// `good` (a run file's text) with its `schema_version` replaced by a
/// 100 KB string that starts with an escape sequence: an error that echoed
/// it whole would fill and rewrite a terminal.
pub fn with_hostile_version(good: &str) -> String {
    let key = "\"schema_version\": ";
    let at = good.find(key).expect("a schema_version") + key.len();
    let digits = good[at..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(good.len() - at);
    format!(
        "{}\"\\u001b[2J{}\"{}",
        &good[..at],
        "9".repeat(100_000),
        &good[at + digits..]
    )
}
