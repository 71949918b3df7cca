//! Which `collector inspect` file the "your process" page shows: the
//! reader's newest, else the committed example, else none (and the page
//! says how to make one); never the run the other chapters show; a bad
//! reader file passed over with the file and field named.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mdbook_pagewalk::{context, DataSet, Renderer};
use serde_json::Value;

fn committed(folder: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(folder);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_else(|| panic!("a json file in {}", dir.display()))
}

fn inspection_json() -> Value {
    serde_json::from_str(&std::fs::read_to_string(committed("example-inspection")).unwrap())
        .unwrap()
}

/// A data folder with the example run and reference, plus `files` as
/// `(folder, name, text)`.
fn data_dir(files: &[(&str, &str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["example", "reference"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    let ex = committed("example");
    std::fs::copy(
        &ex,
        dir.path().join("example").join(ex.file_name().unwrap()),
    )
    .unwrap();
    for (folder, name, text) in files {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::write(dir.path().join(folder).join(name), text).unwrap();
    }
    dir
}

fn chapter(data: DataSet) -> String {
    let template = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/your-process.md"),
    )
    .unwrap();
    Renderer::new(Arc::new(data))
        .render("your-process.md", &template)
        .unwrap()
}

#[test]
fn without_an_inspection_the_page_says_how_to_make_one() {
    let dir = data_dir(&[]);
    let data = DataSet::load(dir.path()).unwrap();
    assert!(data.inspection.is_none());
    assert_eq!(context::build(&data)["inspect"], Value::Null);
    let page = chapter(data);
    assert!(page.contains("No inspection yet"), "{page}");
    assert!(page.contains("collector -- inspect"));
    assert!(!page.contains("pw-chart"), "a chart without an inspection");
    assert!(!page.contains("pw-inspect-verdicts"));
}

#[test]
fn the_readers_newest_wins_over_the_example_and_is_never_the_run() {
    let mut older = inspection_json();
    older["provenance"]["run_id"] = "20200101T000000Z-000001".into();
    older["provenance"]["started_utc"] = "2020-01-01T00:00:00Z".into();
    older["experiments"][0]["results"]["inspect"]["command"] = "older".into();
    let mut newer = inspection_json();
    newer["provenance"]["run_id"] = "20260101T000000Z-000002".into();
    newer["provenance"]["started_utc"] = "2026-01-01T00:00:00Z".into();
    newer["experiments"][0]["results"]["inspect"]["command"] = "<b>newer</b>".into();
    let v0 = &mut newer["experiments"][0]["results"]["inspect"]["verdicts"][0];
    v0["reason"] = "<script>alert(1)</script>".into();
    v0["evidence"][0]["what"] = "[x](javascript:alert(1))".into();
    let dir = data_dir(&[
        ("inspections", "a.json", newer.to_string()),
        // Misplaced among the runs: still an inspection, never the run.
        ("runs", "b.json", older.to_string()),
    ]);
    let data = DataSet::load(dir.path()).unwrap();
    let shown = data.inspection.as_ref().unwrap();
    assert!(shown.own);
    assert_eq!(shown.file, "a.json");
    assert!(!data.own, "an inspection became the reader's run");
    assert!(data.run.as_ref().unwrap().inspect().is_none());
    assert!(
        data.warnings
            .iter()
            .any(|w| w.contains("b.json") && w.contains("data/inspections/")),
        "{:?}",
        data.warnings
    );
    let ctx = context::build(&data);
    assert_eq!(ctx["inspect"]["kind"], "your process");
    assert_eq!(ctx["inspect"]["command"], "<b>newer</b>");
    let page = chapter(data);
    // Outside the charts' JSON (raw text inside <script>, where a tag is
    // inert), the file's markup is characters.
    let prose: String = page
        .split("<script")
        .map(|part| {
            part.split_once("</script>")
                .map_or(part, |(_, after)| after)
        })
        .collect();
    assert!(
        prose.contains("&lt;b&gt;newer&lt;/b&gt;"),
        "the command is not shown"
    );
    assert!(!prose.contains("<b>newer"), "the command became markup");
    assert!(!prose.contains("alert(1)</"), "a reason became markup");
    assert!(!prose.contains("](javascript"), "evidence became a link");
    assert!(
        prose.contains("&lt;script&gt;alert"),
        "the reason is not shown"
    );
}

#[test]
fn a_bad_reader_file_is_passed_over_with_file_and_field_named() {
    let mut bad = inspection_json();
    bad["experiments"][0]["results"]["inspect"]["verdicts"][1]["reason"] = " ".into();
    let run = std::fs::read_to_string(committed("example")).unwrap();
    let dir = data_dir(&[
        ("inspections", "bad.json", bad.to_string()),
        ("inspections", "a-run.json", run),
        (
            "example-inspection",
            "example.json",
            inspection_json().to_string(),
        ),
    ]);
    let data = DataSet::load(dir.path()).unwrap();
    let w = data.warnings.join("\n");
    assert!(
        w.contains("bad.json") && w.contains("verdicts[1].reason"),
        "{w}"
    );
    assert!(
        w.contains("a-run.json") && w.contains("`experiments`"),
        "{w}"
    );
    // Nothing of the reader's loaded: the example is shown, as the example.
    let shown = data.inspection.as_ref().unwrap();
    assert!(!shown.own);
    assert_eq!(
        context::build(&data)["inspect"]["kind"],
        "the example process"
    );
}

#[test]
fn a_bad_committed_example_fails_the_build() {
    let mut bad = inspection_json();
    bad["experiments"][0]["results"]["inspect"]["verdicts"]
        .as_array_mut()
        .unwrap()
        .pop();
    let dir = data_dir(&[("example-inspection", "x.json", bad.to_string())]);
    let e = DataSet::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("x.json") && e.contains("verdicts"), "{e}");
}
