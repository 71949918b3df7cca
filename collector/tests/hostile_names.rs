//! File names and values the collector echoes are not the collector's:
//! an escape sequence in a name must not reach the terminal (it can clear
//! the screen and set the window title), and a newline in one must not
//! forge a result line.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HOSTILE: &str = "\x1b]0;pwned\x07\x1b[2J\nforged: ok";

fn collector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .output()
        .expect("run collector")
}

fn example() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.remove(0)
}

fn assert_inert(what: &str, text: &str, lines: usize) {
    for c in ['\x1b', '\x07', '\r'] {
        assert!(!text.contains(c), "{what}: raw {c:?} in {text:?}");
    }
    assert_eq!(text.lines().count(), lines, "{what}: {text:?}");
}

#[test]
fn validate_prints_hostile_file_names_inert() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("data/runs");
    fs::create_dir_all(&runs).unwrap();
    let good = fs::read_to_string(example()).unwrap();
    fs::write(runs.join(format!("a{HOSTILE}.json")), &good).unwrap();
    // A bad file whose refused value is long and hostile too.
    let bad = pagewalk_model::committed::with_hostile_version(&good);
    fs::write(runs.join(format!("b{HOSTILE}.json")), bad).unwrap();
    // A partial file left by a killed run, named by the run.
    fs::write(runs.join(format!(".c{HOSTILE}.999999999.json.tmp")), "{").unwrap();

    let out = collector(&["validate", runs.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the bad file fails: {stderr}");
    assert_inert("stdout", &stdout, 1);
    // The bad file and the partial file, one line each.
    assert_inert("stderr", &stderr, 2);
    assert!(
        stdout.contains(r"\u{1b}]0;pwned\u{7}\u{1b}[2J\nforged: ok"),
        "{stdout}"
    );
    assert!(stdout.contains(": ok ("), "{stdout}");
    assert!(stderr.contains("field `schema_version`"), "{stderr}");
    assert!(
        stderr.len() < 4000,
        "the long value is cut: {} bytes",
        stderr.len()
    );
    assert!(stderr.contains("partial file"), "{stderr}");
}
