//! Every "n/a" in the book built from the committed example run has a
//! reason: a value the run really lacks (listed below with why), or one a
//! published source never gave. A gap anywhere else means a view dropped a
//! value the run file has, and fails here.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{helpers::take_gaps, DataSet, Renderer};
use pagewalk_model::{RunFile, Status};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `page: path` for every gap written while rendering each chapter.
fn gaps(data: &Path) -> BTreeSet<String> {
    let renderer = Renderer::new(Arc::new(DataSet::load(data).unwrap()));
    let mut found = BTreeSet::new();
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
        take_gaps();
        renderer
            .render(&name, &template)
            .unwrap_or_else(|e| panic!("{e}"));
        found.extend(take_gaps().into_iter().map(|g| format!("{name}: {g}")));
    }
    found
}

/// Why the example run lacks the value at `path`, checked against the run
/// itself; `None` when it should have it.
fn reason(run: &RunFile, path: &str) -> Option<&'static str> {
    // A published source's figures are whatever it published.
    if path.starts_with("r1.") || path.starts_with("r2.") {
        return Some("a published source did not give it");
    }
    if path.starts_with("numa.placements.") {
        let numa = run.experiment("numa")?;
        return (numa.status == Status::Skipped).then_some("NUMA placement needs two nodes");
    }
    if path == "noise.hybrid_slowdown" {
        let noise = run.noise()?;
        return noise
            .hybrid_slowdown
            .is_none()
            .then_some("not a hybrid CPU: one core type");
    }
    None
}

#[test]
fn every_gap_in_the_example_book_has_a_reason() {
    let data = Path::new(ROOT).join("data");
    let run = DataSet::load(&data).unwrap().run.expect("the example run");
    let found = gaps(&data);
    let unexplained: Vec<&String> = found
        .iter()
        .filter(|g| reason(&run, g.split_once(": ").unwrap().1).is_none())
        .collect();
    assert!(
        unexplained.is_empty(),
        "n/a where the run should have a value (or add the reason to `reason`): {unexplained:#?}"
    );
    // The check sees gaps at all: R2 publishes no mapping count per path.
    assert!(found.iter().any(|g| g.contains(": r2.")), "{found:?}");
}
