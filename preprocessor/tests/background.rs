//! The last line of a chapter's "Whose numbers" box: what else the machine
//! did while that chapter's experiment ran, from the run's own record
//! (`fixtures/background-run.json`, a real `collector run syscall
//! shootdown --quick` made while a compiler ran beside it). The figures are
//! recomputed here from the JSON, and a process name from the file is text,
//! never markup.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};
use serde_json::Value;

fn fixture() -> Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/background-run.json"),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn render(run: &Value, chapter: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    std::fs::write(dir.path().join("runs/run.json"), run.to_string()).unwrap();
    let data = DataSet::load(dir.path()).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../book")
        .join(chapter);
    let template = std::fs::read_to_string(path).unwrap();
    let out = Renderer::new(Arc::new(data))
        .render(chapter, &template)
        .unwrap_or_else(|e| panic!("{e}"));
    out.replace('\u{a0}', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn background<'a>(run: &'a Value, name: &str) -> &'a Value {
    &run["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()["background"]
}

#[test]
fn each_box_says_what_else_ran_during_its_own_experiment() {
    let run = fixture();
    for (chapter, experiment) in [("syscalls.md", "syscall"), ("shootdowns.md", "shootdown")] {
        let b = background(&run, experiment);
        let steal = b["steal_fraction"].as_f64().unwrap() * 100.0;
        let runnable = b["other_runnable"].as_f64().unwrap();
        let window = b["window_s"].as_f64().unwrap();
        let cpus = b["others_cpu_s"].as_f64().unwrap() / window;
        // Others' CPUs only over a second or more: ticks cannot resolve less.
        let others = if window >= 1.0 {
            format!(", other processes {cpus:.1} CPUs")
        } else {
            String::new()
        };
        let expected =
            format!("While it ran: {steal:.0}% steal, {runnable:.1} other runnable tasks{others};");
        let page = render(&run, chapter);
        assert!(
            page.contains(&expected),
            "{chapter}: no {expected:?} in\n{page}"
        );
        let busiest = &b["busiest"][0];
        let cpu_s = busiest["cpu_s"].as_f64().unwrap();
        let named = format!(
            "the busiest other process was {}: {cpu_s:.2} s",
            busiest["command"].as_str().unwrap(),
        );
        // Named when it took a twentieth of the window or more.
        assert_eq!(
            page.contains(&named),
            cpu_s >= 0.05 * window,
            "{chapter}: {named:?} in\n{page}"
        );
    }
}

#[test]
fn a_process_name_from_the_file_is_text() {
    let mut run = fixture();
    let e = run["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "syscall")
        .unwrap();
    e["background"]["busiest"][0]["command"] = "<img src=x onerror=alert(1)>".into();
    let page = render(&run, "syscalls.md");
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("the busiest other process was &lt;img"),
        "{page}"
    );
}

#[test]
fn a_file_without_it_has_no_such_line() {
    let mut run = fixture();
    for e in run["experiments"].as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("background");
    }
    assert!(!render(&run, "syscalls.md").contains("While it ran"));
}
