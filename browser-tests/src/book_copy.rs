//! A throwaway copy of the book's sources, for tests that need a book
//! built from data of their own (a hostile run file, a run that lands
//! while `mdbook serve` watches). The copy uses this workspace's
//! preprocessor wherever it lives, and the repository's own `.gitignore`
//! files, because mdBook's watcher reads the root one.

use std::path::{Path, PathBuf};

use crate::workspace_root;

/// Copies `book/`, `theme/`, the folders chapters include code from,
/// `data/example/`, `data/reference/`, an empty
/// `data/runs/` and the ignore files into `to`, with a `book.toml` whose
/// preprocessor is built from this workspace.
pub fn copy_book(to: &Path) {
    let root = workspace_root();
    // `probes/` and `snippets/`: chapters include code from them.
    for dir in [
        "book",
        "theme",
        "probes",
        "snippets",
        "data/example",
        "data/reference",
    ] {
        if root.join(dir).is_dir() {
            copy_dir(&root.join(dir), &to.join(dir));
        }
    }
    std::fs::create_dir_all(to.join("data/runs")).unwrap();
    for file in [".gitignore", "data/runs/.gitignore"] {
        std::fs::copy(root.join(file), to.join(file)).unwrap();
    }
    let toml = std::fs::read_to_string(root.join("book.toml"))
        .unwrap()
        .replace(
            "cargo run --quiet --release -p mdbook-pagewalk --",
            &format!(
                "cargo run --quiet --release --manifest-path {} -p mdbook-pagewalk --",
                root.join("Cargo.toml").display()
            ),
        );
    std::fs::write(to.join("book.toml"), toml).unwrap();
}

/// The committed example run.
pub fn example_run() -> PathBuf {
    let dir = workspace_root().join("data/example");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("an example run in data/example")
}

/// The example run as a new run of the reader's, started now (the
/// newest, so the one shown; the model refuses a start more than a day
/// ahead of the clock): its id ends in `suffix` (six letters or digits).
pub fn fresh_run(suffix: &str) -> serde_json::Value {
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(example_run()).unwrap()).unwrap();
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let now = pagewalk_model::UtcTime::from_unix_seconds(secs as i64).rfc3339();
    let stamp: String = now.chars().filter(|c| *c != '-' && *c != ':').collect();
    run["provenance"]["run_id"] = format!("{stamp}-{suffix}").into();
    run["provenance"]["started_utc"] = now.clone().into();
    run["provenance"]["finished_utc"] = now.into();
    run
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
