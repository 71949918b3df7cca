//! The last line of a chapter's "Whose numbers" box: what else the machine
//! did while that chapter's experiment ran, from the run's own record
//! (`fixtures/background-run.json`, a real `collector run syscall
//! shootdown --quick` made while a compiler ran beside it), said only when
//! it was busy enough to matter (`judge::busy`) and then naming what was
//! high; the method page lists every experiment's figures either way. The
//! figures are recomputed here from the JSON, and a process name from the
//! file is text, never markup.

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

/// The experiment's record in the run file.
fn experiment<'a>(run: &'a mut Value, name: &str) -> &'a mut Value {
    run["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == name)
        .unwrap()
}

/// The box's busy line, from "While this ran," to its link to the method
/// page, with the parentheses Markdown-escaped in it as a reader reads them.
fn busy_line(page: &str) -> Option<String> {
    let at = page.find("While this ran,")?;
    let rest = &page[at..];
    let end = rest
        .find("([how busy the machine was](noise.md#how-busy-the-machine-was))")
        .expect("the line links the method page");
    Some(rest[..end].replace("&#40;", "(").replace("&#41;", ")"))
}

#[test]
fn a_busy_box_names_what_was_high_during_its_own_experiment() {
    let run = fixture();
    let cpus = run["machine"]["cpu"]["logical_cpus"].as_u64().unwrap();
    assert_eq!(cpus, 2, "the rules below are for two CPUs: one left free");
    for (chapter, experiment) in [("syscalls.md", "syscall"), ("shootdowns.md", "shootdown")] {
        let b = background(&run, experiment);
        let steal = b["steal_fraction"].as_f64().unwrap();
        let runnable = b["other_runnable"].as_f64().unwrap();
        let window = b["window_s"].as_f64().unwrap();
        let page = render(&run, chapter);
        let line = busy_line(&page).unwrap_or_else(|| panic!("{chapter}: no busy line in\n{page}"));
        // A compiler beside the collector on two CPUs: more other runnable
        // tasks than the one CPU the collector leaves free.
        assert!(runnable > 1.0, "{chapter}: the fixture is not busy");
        let said = format!(
            "on average {runnable:.1} other tasks were ready to run, more than the one CPU the collector left free"
        );
        assert!(line.contains(&said), "{chapter}: no {said:?} in {line:?}");
        // The others' figures are left out under a second's window (ticks
        // cannot resolve it), and steal below 5% is not said.
        assert!(
            window < 1.0 && !line.contains("other processes kept"),
            "{line}"
        );
        assert!(steal < 0.05 && !line.contains("steal"), "{line}");
        let busiest = &b["busiest"][0];
        let cpu_s = busiest["cpu_s"].as_f64().unwrap();
        let named = format!(
            "the busiest other process: {}: {cpu_s:.2} s",
            busiest["command"].as_str().unwrap(),
        );
        // Named when it took a twentieth of the window or more.
        assert_eq!(
            line.contains(&named),
            cpu_s >= 0.05 * window,
            "{chapter}: {named:?} in {line:?}"
        );
        // The figures themselves stay on the method page.
        assert!(!page.contains("other runnable tasks"), "{chapter}: {page}");
    }
}

#[test]
fn a_quiet_machine_gets_no_line_and_high_steal_is_named() {
    let mut run = fixture();
    let b = &mut experiment(&mut run, "syscall")["background"];
    b["other_runnable"] = 0.5.into();
    let page = render(&run, "syscalls.md");
    assert!(!page.contains("While this ran"), "{page}");
    assert!(!page.contains("how busy the machine was"), "{page}");

    // A second-long window with 7% steal: the host's share is said.
    let b = &mut experiment(&mut run, "syscall")["background"];
    b["window_s"] = 1.5.into();
    b["steal_fraction"] = 0.07.into();
    b["others_cpu_s"] = 0.1.into();
    let page = render(&run, "syscalls.md");
    let line = busy_line(&page).unwrap_or_else(|| panic!("no busy line in\n{page}"));
    assert!(
        line.starts_with(
            "While this ran, the hypervisor took 7% of the CPU time for others (steal):"
        ),
        "{line}"
    );
    // Just under: quiet again.
    experiment(&mut run, "syscall")["background"]["steal_fraction"] = 0.049.into();
    assert!(!render(&run, "syscalls.md").contains("While this ran"));

    // Other processes on half the free CPU, over a second: said with the
    // busiest of them.
    let b = &mut experiment(&mut run, "syscall")["background"];
    b["others_cpu_s"] = 1.2.into();
    b["busiest"][0]["cpu_s"] = 1.0.into();
    let page = render(&run, "syscalls.md");
    let line = busy_line(&page).unwrap_or_else(|| panic!("no busy line in\n{page}"));
    assert!(
        line.contains(
            "other processes kept 0.8 CPUs busy (the busiest other process: rustc: 1.00 s)"
        ),
        "{line}"
    );
}

#[test]
fn the_method_page_keeps_every_experiments_figures() {
    let run = fixture();
    let page = render(&run, "noise.md");
    for experiment in ["syscall", "shootdown"] {
        let b = background(&run, experiment);
        let steal = b["steal_fraction"].as_f64().unwrap() * 100.0;
        let runnable = b["other_runnable"].as_f64().unwrap();
        let row = format!(
            "| `{experiment}` | {steal:.0}% steal, {runnable:.1} other runnable tasks | busy |"
        );
        assert!(page.contains(&row), "no {row:?} in\n{page}");
    }
}

#[test]
fn a_process_name_from_the_file_is_text() {
    let mut run = fixture();
    experiment(&mut run, "syscall")["background"]["busiest"][0]["command"] =
        "<img src=x onerror=alert(1)>".into();
    let page = render(&run, "syscalls.md");
    assert!(!page.contains("<img"), "{page}");
    assert!(
        page.contains("the busiest other process: &lt;img"),
        "{page}"
    );
}

#[test]
fn a_file_without_it_has_no_such_line() {
    let mut run = fixture();
    for e in run["experiments"].as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("background");
    }
    assert!(!render(&run, "syscalls.md").contains("While this ran"));
    assert!(!render(&run, "noise.md").contains("| experiment | while it ran |"));
}
