//! A reader's first partial run does not blank the book: with only
//! `collector run syscall` in `data/runs/`, every other chapter shows the
//! committed example's numbers, says they are the example machine's, and
//! names the command that replaces them; the syscall chapter is the
//! reader's.

mod common;

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};
use pagewalk_model::{read_run, Provenance};

fn example_path() -> std::path::PathBuf {
    std::fs::read_dir(Path::new(common::ROOT).join("data/example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap()
}

#[test]
fn a_syscall_only_run_leaves_every_other_chapter_on_the_example() {
    let example = read_run(&example_path()).unwrap();
    let example_id = match &example.provenance {
        Provenance::Collector { run_id, .. } => run_id.clone(),
        Provenance::Reference { .. } => unreachable!(),
    };
    // The reader's run: syscall alone, on a machine of its own.
    let mut mine = example.clone();
    mine.experiments.retain(|e| e.name == "syscall");
    if let Provenance::Collector {
        run_id,
        started_utc,
        finished_utc,
        ..
    } = &mut mine.provenance
    {
        *run_id = "20261201T000000Z-reader".into();
        *started_utc = "2026-12-01T00:00:00Z".into();
        *finished_utc = Some("2026-12-01T00:00:09Z".into());
    }
    mine.machine.as_mut().unwrap().cpu.model_name = "Reader CPU 9000".into();
    let fixture = tempfile::tempdir().unwrap();
    let path = fixture.path().join("mine.json");
    std::fs::write(&path, serde_json::to_string(&mine).unwrap()).unwrap();
    let dir = common::data_dir(&path);
    std::fs::create_dir_all(dir.path().join("example")).unwrap();
    std::fs::copy(example_path(), dir.path().join("example/example.json")).unwrap();

    let data = DataSet::load(dir.path()).unwrap();
    assert!(data.own, "{:?}", data.warnings);
    let renderer = Renderer::new(Arc::new(data));
    let chapter = |name: &str| {
        let (_, template) = common::chapters()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap();
        renderer.render(name, &template).unwrap()
    };

    let example_cpu = &example.machine.as_ref().unwrap().cpu.model_name;
    for (name, experiment) in [
        ("first-touch.md", "first-touch"),
        ("staircases.md", "staircase"),
        ("tlb-reach.md", "tlb-reach"),
        ("huge-pages.md", "thp"),
        ("hot-path-faults.md", "tail"),
        ("allocator.md", "alloc"),
        ("noise.md", "noise"),
    ] {
        let page = chapter(name);
        assert!(
            !page.contains("This build has no"),
            "{name} is blank although the example has {experiment}"
        );
        assert!(
            page.contains(&format!(
                "the committed example run <code>{example_id}</code>"
            )),
            "{name} does not say its numbers are the example's"
        );
        assert!(
            page.contains(&format!("<code>collector run {experiment}</code>")),
            "{name} does not name the command that replaces them"
        );
        assert!(
            page.contains(&format!("the example machine: {example_cpu}"))
                || page.contains(&format!("the example machine ({example_cpu}")),
            "{name}'s \"Whose numbers\" does not name the example machine"
        );
        assert!(
            !page.contains("Reader CPU 9000"),
            "{name} names the reader's CPU"
        );
    }
    // The example's own numbers, recomputed from its file.
    let ft = example.experiment("first-touch").unwrap();
    let size_mib = match ft.results.as_ref().unwrap() {
        pagewalk_model::Results::FirstTouch(r) => r.size_bytes >> 20,
        _ => unreachable!(),
    };
    let grouped = pagewalk_model::units::group_thousands(&size_mib.to_string());
    assert!(
        chapter("first-touch.md").contains(&format!("mapped {grouped} MiB")),
        "first-touch does not show the example's size ({grouped} MiB)"
    );

    // The page of headline figures: the reader's, with the example's
    // columns named as the example's.
    let glance = chapter("your-machine.md");
    assert!(
        glance.starts_with("# Your machine at a glance"),
        "{}",
        &glance[..80]
    );
    assert!(glance.contains("| figure | the example machine | R1 |"));
    assert!(
        glance.contains("| figure | your machine | R2 |"),
        "the syscall table"
    );

    let syscalls = chapter("syscalls.md");
    assert!(syscalls.contains("your run <code>20261201T000000Z-reader</code>"));
    assert!(syscalls.contains("your machine: Reader CPU 9000"));
    assert!(!syscalls.contains("committed example"));
}
