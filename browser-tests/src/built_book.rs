//! The built book a browser test loads (`book-out/`, or
//! `$PAGEWALK_BOOK_DIR`), served on 127.0.0.1, and what a test reads of it
//! from disk.

use std::path::{Path, PathBuf};
use std::sync::MutexGuard;

use anyhow::{bail, Context, Result};

use crate::{run_test, serial, serve, should_run, Browser, Server};

/// The workspace root (the folder holding `book.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("browser-tests lives inside the workspace")
        .to_path_buf()
}

/// The built book: `$PAGEWALK_BOOK_DIR`, else `<workspace>/book-out`. An
/// error says how to build it when it is not there.
pub fn book_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os("PAGEWALK_BOOK_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => workspace_root().join("book-out"),
    };
    if !dir.join("index.html").is_file() {
        bail!(
            "no built book at {} (no index.html): build it first with \
             `scripts/build-wasm && mdbook build` in {}, or point PAGEWALK_BOOK_DIR at a built book",
            dir.display(),
            workspace_root().display()
        );
    }
    let index = std::fs::read_to_string(dir.join("index.html"))
        .with_context(|| format!("reading {}", dir.join("index.html").display()))?;
    if index.contains("__livereload") {
        bail!(
            "{} was written by `mdbook serve` (its pages open a live-reload socket): \
             rebuild it with `mdbook build` before running the browser tests",
            dir.display()
        );
    }
    Ok(dir)
}

/// What a browser test starts from: one test at a time, the built book,
/// served on 127.0.0.1.
pub struct BuiltBook {
    _one_at_a_time: MutexGuard<'static, ()>,
    pub dir: PathBuf,
    pub server: Server,
}

/// The fixture for browser test `test`: `None` (skipped, with the reason
/// printed) unless browser tests are on; a missing book fails the test.
pub fn built_book(test: &str) -> Option<BuiltBook> {
    if !should_run(test) {
        return None;
    }
    let lock = serial();
    let dir = book_dir().unwrap_or_else(|e| panic!("{e:#}"));
    let server = serve(&dir).unwrap_or_else(|e| panic!("serving {}: {e}", dir.display()));
    Some(BuiltBook {
        _one_at_a_time: lock,
        dir,
        server,
    })
}

impl BuiltBook {
    /// Runs `body` with a fresh browser, then [`Browser::finish`]es it and
    /// [`BuiltBook::assert_all_served`]; any error fails the test.
    pub fn with_browser(&self, body: impl AsyncFnOnce(&Browser) -> Result<()>) {
        run_test(async {
            let browser = Browser::start().await?;
            body(&browser).await?;
            browser.finish().await
        });
        self.assert_all_served();
    }

    /// The file names of the book's HTML pages, sorted.
    pub fn html_pages(&self) -> Vec<String> {
        let mut pages: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap_or_else(|e| panic!("{}: {e}", self.dir.display()))
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".html"))
            .collect();
        pages.sort();
        pages
    }

    /// The pages with at least one chart, print.html aside (it repeats
    /// every chapter's).
    pub fn chart_pages(&self) -> Vec<String> {
        self.html_pages()
            .into_iter()
            .filter(|p| p != "print.html")
            .filter(|p| {
                std::fs::read_to_string(self.dir.join(p))
                    .is_ok_and(|h| h.contains("class=\"pw-chart\""))
            })
            .collect()
    }

    /// Fails when the server answered anything with a 404.
    pub fn assert_all_served(&self) {
        let failed = self.server.failures();
        assert!(
            failed.is_empty(),
            "requests the book could not answer: {failed:#?}"
        );
    }
}
