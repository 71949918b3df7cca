//! Gathers what the browser needs to render any chapter, as `mdbook build`
//! would, once a reader's run is added: each chapter's template after
//! mdBook's own preprocessors (`links`, `index`), and the committed data
//! files. Both are embedded in the module, so a page renders with no
//! request (the book works from file://).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mdbook_driver::book::BookItem;
use mdbook_driver::builtin_preprocessors::{IndexPreprocessor, LinkPreprocessor};
use mdbook_driver::MDBook;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use pagewalk_model::committed;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .parent()
        .unwrap()
        .to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("book.toml").display()
    );

    let md = MDBook::load(&root).unwrap_or_else(|e| panic!("cannot load the book: {e:#}"));
    let ctx = PreprocessorContext::new(root.clone(), md.config.clone(), "html".into());
    let book = LinkPreprocessor::new()
        .run(&ctx, md.book.clone())
        .and_then(|b| IndexPreprocessor::new().run(&ctx, b))
        .unwrap_or_else(|e| panic!("mdBook's preprocessors failed: {e:#}"));
    let src = root.join(&md.config.book.src);
    println!(
        "cargo:rerun-if-changed={}",
        src.join("SUMMARY.md").display()
    );
    let mut chapters = Vec::new();
    for item in book.iter() {
        if let BookItem::Chapter(ch) = item {
            let (Some(path), Some(source)) = (&ch.path, &ch.source_path) else {
                continue;
            };
            println!("cargo:rerun-if-changed={}", src.join(source).display());
            // mdBook turns `<i class="fa fa-NAME">` into an icon; this
            // module leaves that conversion out (pagewalk-book-html's
            // `icons`), so a chapter using one would render differently.
            assert!(
                !ch.content.contains("class=\"fa"),
                "{}: uses a Font Awesome icon, which the in-browser book does not render",
                source.display()
            );
            chapters.push(serde_json::json!({
                "path": path.to_string_lossy(),
                "name": ch.name,
                "content": ch.content,
            }));
        }
    }
    // What chapters include (`{{#include ../probes/...}}`).
    println!("cargo:rerun-if-changed={}", root.join("probes").display());
    std::fs::write(
        out.join("chapters.json"),
        serde_json::to_string(&chapters).unwrap(),
    )
    .unwrap();

    // The committed files, as the model's tests list them.
    for folder in committed::FOLDERS {
        println!(
            "cargo:rerun-if-changed={}",
            root.join("data").join(folder).display()
        );
    }
    let mut files = String::from("&[\n");
    for path in committed::files() {
        let folder = path
            .parent()
            .and_then(Path::file_name)
            .unwrap()
            .to_string_lossy();
        writeln!(
            files,
            "    ({folder:?}, {:?}, include_bytes!({:?})),",
            Path::new("data")
                .join(&*folder)
                .join(path.file_name().unwrap()),
            path
        )
        .unwrap();
    }
    files.push(']');
    std::fs::write(out.join("data_files.rs"), files).unwrap();
}
