//! Every "n/a" in the book built from the committed example run, and from
//! each run of the fixture matrix, has a reason: a value the run really
//! lacks (listed below, each checked against the run file), or one a
//! published source never gave. A gap anywhere else means a view dropped a
//! value the run file has, and fails here.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{helpers::take_gaps, DataSet, Renderer};
use pagewalk_model::{RunFile, Status, TailVariant};

mod common;

use common::{chapters, data_dir, ROOT};

/// `page: path` for every gap written while rendering each chapter.
fn gaps(data: &Path) -> BTreeSet<String> {
    let renderer = Renderer::new(Arc::new(DataSet::load(data).unwrap()));
    let mut found = BTreeSet::new();
    for (name, template) in chapters() {
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
    // THP `never`: no huge-page regime to chase or fault in.
    let never = run.machine.as_ref().and_then(|m| m.thp.enabled.as_deref()) == Some("never");
    if path.contains("huge") && never {
        return Some("THP is `never` on this machine");
    }
    // CPUID on this Intel guest describes no data TLB.
    if path.starts_with("stair.cpuid.") || path.starts_with("tlb.cpuid.") {
        let staircase = run.staircase()?;
        return staircase
            .geometry
            .tlbs
            .is_empty()
            .then_some("CPUID describes no data TLB");
    }
    // The traced getpid needs strace on the machine.
    if path.contains("getpid_strace") {
        let syscall = run.syscall()?;
        let op = syscall
            .ops
            .iter()
            .find(|o| o.op == pagewalk_model::SyscallOp::GetpidStrace)?;
        return op
            .skipped
            .is_some()
            .then_some("the traced getpid was skipped (no strace)");
    }
    // `mlockall` needs root or a large enough RLIMIT_MEMLOCK.
    if path.contains("mlockall") {
        let tail = run.tail()?;
        return tail
            .variants
            .iter()
            .any(|v| v.variant == TailVariant::Mlockall && v.skipped.is_some())
            .then_some("the mlockall variant was skipped");
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

#[test]
fn every_gap_in_each_fixture_book_has_a_reason() {
    let matrix = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/matrix");
    let mut checked = 0;
    for entry in std::fs::read_dir(matrix).unwrap() {
        let fixture = entry.unwrap().path();
        if fixture.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let dir = data_dir(&fixture);
        let run = DataSet::load(dir.path()).unwrap().run.unwrap();
        let unexplained: Vec<String> = gaps(dir.path())
            .into_iter()
            .filter(|g| reason(&run, g.split_once(": ").unwrap().1).is_none())
            .collect();
        assert!(
            unexplained.is_empty(),
            "{}: n/a where the run should have a value: {unexplained:#?}",
            fixture.display()
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures");
}
