//! A reader's file name (and what a refused file holds) reaches the book
//! builder's terminal only made safe: an escape sequence in a name cannot
//! clear the screen or set the window title, a newline cannot split a
//! warning, and a 100 KB value is not echoed whole.

#[allow(dead_code)]
mod common;

use std::fs;
use std::path::Path;

use mdbook_pagewalk::DataSet;

const HOSTILE: &str = "\x1b]0;pwned\x07\x1b[2J\nforged";

#[test]
fn warnings_quote_hostile_names_and_values() {
    let example = Path::new(common::ROOT).join("data/example");
    let first = fs::read_dir(&example)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let dir = common::data_dir(&first);
    let runs = dir.path().join("runs");
    let good = fs::read_to_string(&first).unwrap();
    let bad = pagewalk_model::committed::with_hostile_version(&good);
    fs::write(runs.join(format!("a{HOSTILE}.json")), bad).unwrap();
    fs::write(runs.join(format!("b{HOSTILE}.json")), "{").unwrap();
    let reference = fs::read_dir(dir.path().join("reference"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::copy(reference, runs.join(format!("c{HOSTILE}.json"))).unwrap();

    let data = DataSet::load(dir.path()).unwrap();
    assert_eq!(data.warnings.len(), 3, "{:?}", data.warnings);
    for w in &data.warnings {
        for c in ['\x1b', '\x07', '\n', '\r'] {
            assert!(!w.contains(c), "raw {c:?} in {w:?}");
        }
        assert!(w.len() < 2000, "cut: {} bytes", w.len());
        assert!(w.contains(r"\u{1b}]0;pwned\u{7}\u{1b}[2J\nforged"), "{w}");
    }
    assert!(data
        .warnings
        .iter()
        .any(|w| w.contains("field `schema_version`")));
}
