//! The page side renders every chapter exactly as `mdbook build` does with
//! the same run in `data/runs/`: byte-for-byte the same `<main>`, for a run
//! from another machine (the Intel Xeon guest in `data/machines/`, which
//! the published book shows nowhere as the run).
//!
//! Needs the pinned `mdbook` on PATH (the README's first command installs
//! it); without it the test says so and passes over.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What mdBook wrote inside `<main ...>` on one page.
fn main_of(page: &str) -> &str {
    let start = page.find("<main").expect("a <main>");
    let open_end = start + page[start..].find('>').unwrap() + 1;
    let end = page.rfind("</main>").expect("a </main>");
    page[open_end..end].trim()
}

#[test]
fn every_chapter_renders_as_mdbook_build_renders_it() {
    if Command::new("mdbook").arg("--version").output().is_err() {
        eprintln!("mdbook is not on PATH (scripts/install-tools installs it): passed over");
        return;
    }
    let run = root().join("data/machines/intel-xeon-emr-16vcpu-kvm.json");
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    pagewalk_model::committed::data_with_run(&run, &data);
    let out = tmp.path().join("book");
    let status = Command::new("mdbook")
        .arg("build")
        .arg("-d")
        .arg(&out)
        .current_dir(root())
        .env("MDBOOK_PREPROCESSOR__PAGEWALK__DATA", &data)
        .status()
        .unwrap();
    assert!(status.success(), "mdbook build with the Intel run failed");

    let bytes = std::fs::read(&run).unwrap();
    let name = run.file_name().unwrap().to_str().unwrap();
    let summary = std::fs::read_to_string(root().join("book/SUMMARY.md")).unwrap();
    let book = pagewalk_wasm_book::Book::open(name, &bytes).unwrap();
    let mut checked = 0;
    for chapter in summary
        .split(&['(', ')'][..])
        .filter(|s| s.ends_with(".md"))
    {
        let built = std::fs::read_to_string(out.join(chapter).with_extension("html"))
            .unwrap_or_else(|e| panic!("{chapter}: {e}"));
        let page = book
            .render(chapter)
            .unwrap_or_else(|e| panic!("{chapter}: {e}"));
        let want = main_of(&built);
        let got = page.html.trim();
        if want != got {
            let at = want
                .bytes()
                .zip(got.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(want.len().min(got.len()));
            let from = at.saturating_sub(200);
            panic!(
                "{chapter}: differs from mdbook build at byte {at}:\n build: {}\n page:  {}",
                &want[from..(at + 200).min(want.len())],
                &got[from..(at + 200).min(got.len())]
            );
        }
        if let Some(title) = &page.title {
            assert!(
                built.contains(&format!("<title>{title} - ")),
                "{chapter}: the page is titled as the build titles it"
            );
        }
        assert!(page.machine.contains("Xeon"), "{}", page.machine);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} chapters found in SUMMARY.md");
}
