//! Every chapter names only keys the views have and compares verdicts only
//! with outcomes they can take, in every branch; a planted misspelling
//! fails the build of a real book.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use mdbook_pagewalk::data::DataSet;
use mdbook_pagewalk::Renderer;

fn renderer() -> Renderer {
    let fixture = common::fixtures().pop().unwrap();
    let dir = common::data_dir(&fixture);
    Renderer::new(Arc::new(DataSet::load(dir.path()).unwrap()))
}

#[test]
fn every_chapter_names_only_keys_and_outcomes_the_views_have() {
    let r = renderer();
    let mut problems = Vec::new();
    let chapters = common::chapters();
    assert!(chapters.len() > 20);
    for (name, template) in chapters {
        for p in r.check(&template) {
            problems.push(format!("{name}: {p}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_misspelled_outcome_or_key_in_an_untaken_branch_fails_the_render() {
    let r = renderer();
    for (planted, says) in [
        (
            "{{#if false}}{{#if (eq ft.verdict.hugepage_first \"slowr\")}}x{{/if}}{{/if}}",
            "is never \"slowr\"",
        ),
        (
            "{{#if (eq stair.verdict.l2_tlb_step \"offchart\")}}x{{/if}}",
            "is never \"offchart\"",
        ),
        (
            "{{#unless run}}{{ft.verdcit.populate}}{{/unless}}",
            "`ft.verdcit.populate` is not in the context",
        ),
    ] {
        let e = r
            .render("planted.md", &format!("# T\n\n{planted}\n"))
            .unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("planted.md: line 3") && e.contains(says),
            "{planted}: {e}"
        );
    }
}

/// The whole path: `mdbook build` of the book with one chapter changed.
#[test]
fn mdbook_build_fails_on_a_planted_misspelling() {
    let root = Path::new(common::ROOT);
    let Ok(status) = Command::new("mdbook").arg("--version").output() else {
        eprintln!("skipped: mdbook is not installed (scripts/install-tools installs it)");
        return;
    };
    assert!(status.status.success());
    let exe = env!("CARGO_BIN_EXE_mdbook-pagewalk");
    let dir = tempfile::tempdir().unwrap();
    for item in ["book", "theme", "probes"] {
        copy_dir(&root.join(item), &dir.path().join(item));
    }
    for sub in ["reference", "example", "example-inspection"] {
        copy_dir(
            &root.join("data").join(sub),
            &dir.path().join("data").join(sub),
        );
    }
    let toml = std::fs::read_to_string(root.join("book.toml")).unwrap();
    let toml: String = toml
        .lines()
        .map(|l| {
            if l.starts_with("command = ") && l.contains("mdbook-pagewalk") {
                format!("command = \"{exe}\"\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(dir.path().join("book.toml"), toml).unwrap();
    let chapter = dir.path().join("book/first-touch.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    let planted = text.replacen(
        "(eq ft.verdict.hugepage_first \"slower\")",
        "(eq ft.verdict.hugepage_first \"slowr\")",
        1,
    );
    assert_ne!(
        planted, text,
        "the chapter no longer has the comparison this test plants into"
    );
    std::fs::write(&chapter, planted).unwrap();
    let out = Command::new("mdbook")
        .args(["build", "-d"])
        .arg(dir.path().join("out"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build passed:\n{stderr}");
    assert!(
        stderr.contains("first-touch.md") && stderr.contains("is never \"slowr\""),
        "{stderr}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}
