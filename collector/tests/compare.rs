//! `collector compare` end to end on the committed example run: against
//! itself, against a copy with one figure doubled (in each output format),
//! and with a file that is not a run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn collector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("an example run in data/example")
}

/// The example with the first mode's first-pass ns/page doubled.
fn doubled(dir: &Path) -> (PathBuf, String) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(example()).unwrap()).unwrap();
    let ft = &mut v["experiments"][0]["results"]["first-touch"]["modes"][0];
    let mode = ft["mode"].as_str().unwrap().to_string();
    let s = &mut ft["summary"]["first_pass"]["ns_per_page"];
    for k in ["min", "median", "max", "mean"] {
        s[k] = Value::from(s[k].as_f64().unwrap() * 2.0);
    }
    // A setup difference from the file, which a Markdown table must show
    // as text (it once hid the rest of a pull-request comment).
    v["machine"]["kernel_release"] = "6.1 <!-- hidden <img src=x>".into();
    let path = dir.join("doubled.json");
    std::fs::write(&path, v.to_string()).unwrap();
    (path, format!("{mode} first pass"))
}

#[test]
fn a_run_against_itself_is_within_noise() {
    let ex = example();
    let out = collector(&["compare", ex.to_str().unwrap(), ex.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Setup: the same in every run."), "{stdout}");
    assert!(stdout.contains(" 0 faster, 0 slower, "), "{stdout}");
    assert!(stdout.contains(", 0 not compared."), "{stdout}");
}

#[test]
fn the_doubled_figure_is_named_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let (copy, figure) = doubled(dir.path());
    let ex = example();
    let args = |format| {
        [
            "compare",
            ex.to_str().unwrap(),
            copy.to_str().unwrap(),
            "--format",
            format,
        ]
    };

    let out = collector(&args("text"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let slower: Vec<&str> = stdout.lines().filter(|l| l.contains("SLOWER")).collect();
    assert_eq!(slower.len(), 1, "{stdout}");
    assert!(
        slower[0].contains(&figure) && slower[0].contains("2.000x"),
        "{}",
        slower[0]
    );
    assert!(stdout.contains(" 0 faster, 1 slower, "), "{stdout}");

    let out = collector(&args("markdown"));
    let escaped = text(&out.stdout);
    // Every `<` from the file is escaped (the table itself writes none).
    let bare = escaped
        .match_indices('<')
        .filter(|(i, _)| !escaped[..*i].ends_with('\\'))
        .count();
    assert_eq!(bare, 0, "HTML from the file is live: {escaped}");
    assert!(escaped.contains("6\\.1 \\<\\!\\-\\- hidden"), "{escaped}");
    // Read as Markdown reads it: without the escapes.
    let md = escaped.replace('\\', "");
    assert!(md.contains("| experiment | figure | run |"), "{md}");
    let row = md
        .lines()
        .find(|l| l.contains(&format!("| first-touch | {figure} |")))
        .unwrap();
    assert!(row.contains("| SLOWER |"), "{row}");
    assert!(row.contains("A-vs-A floor"), "{row}");
    // The two files hold the same run id: the files name them.
    assert!(row.contains("doubled.json"), "{row}");

    let out = collector(&args("json"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let changed: Vec<&Value> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["outcome"] != "within-noise")
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0]["figure"], figure.as_str());
    assert_eq!(changed[0]["outcome"], "slower");
}

#[test]
fn a_bad_file_is_named_and_help_has_examples() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema_version\": 1}").unwrap();
    let ex = example();
    let out = collector(&["compare", ex.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("bad.json"),
        "{}",
        text(&out.stderr)
    );

    assert!(!collector(&["compare", ex.to_str().unwrap()])
        .status
        .success());
    for command in ["compare", "inspect"] {
        let help = text(&collector(&[command, "--help"]).stdout);
        assert!(help.contains("Examples:"), "{help}");
        assert!(help.contains(&format!("collector {command} ")), "{help}");
    }
}
