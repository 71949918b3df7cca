//! The whole book, re-rendered in the browser from a reader's run file.
//!
//! `mdbook build` with a run in `data/runs/` and this module with the same
//! run dropped on the page render a chapter through one code path: the
//! preprocessor's data set, views, judges and templates
//! ([`mdbook_pagewalk::Renderer::render_for_html`]), then mdBook 0.5.4's
//! own Markdown to HTML ([`pagewalk_book_html`]). The chapters (after
//! mdBook's `links` preprocessor) and the committed data files are built
//! into the module (`build.rs`); the reader's file never leaves the page.
//!
//! theme/head.hbs loads the module (book/gen/pagewalk-book.js) only when
//! a run is kept in the browser; `theme/index.hbs` then renders the
//! chapter in place before any other script reads the page.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mdbook_pagewalk::data::DataFiles;
use mdbook_pagewalk::{DataSet, Renderer};
use pagewalk_model::display::path_for_terminal;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// The committed files: `(folder, path, bytes)`, from `build.rs`.
const COMMITTED: &[(&str, &str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/data_files.rs"));
/// Every chapter as the preprocessor receives it: `[{path, name, content}]`.
const CHAPTERS: &str = include_str!(concat!(env!("OUT_DIR"), "/chapters.json"));
/// The `[output.html]` settings mdBook renders with.
const BOOK_TOML: &str = include_str!("../../book.toml");

/// One chapter rendered for a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// What mdBook writes inside `<main>`.
    pub html: String,
    /// The chapter's name where its title is a template, else `None`.
    pub title: Option<String>,
    /// Every chapter whose title is a template, with its title: `(path,
    /// title)`.
    pub titles: Vec<(String, String)>,
    /// Problems with the reader's file that were passed over, as the
    /// build prints them.
    pub warnings: Vec<String>,
    /// The machine the run was measured on, in a few words.
    pub machine: String,
}

/// The committed data with the reader's run added to `data/runs/` under
/// its own file name (no folders: a name from the page is only a label).
pub fn data_files(file_name: &str, run: &[u8]) -> DataFiles {
    let mut files = DataFiles::default();
    for (folder, path, bytes) in COMMITTED {
        files.add(folder, PathBuf::from(path), bytes.to_vec());
    }
    let base = Path::new(file_name)
        .file_name()
        .map_or("dropped.json".into(), |n| n.to_string_lossy().into_owned());
    files.add("runs", Path::new("data/runs").join(base), run.to_vec());
    files
}

/// The book with a reader's run: every chapter renders as `mdbook build`
/// renders it with that run in `data/runs/`.
pub struct Book {
    renderer: Renderer,
    chapters: Vec<Value>,
    html: pagewalk_book_html::HtmlConfig,
    edition: Option<pagewalk_book_html::RustEdition>,
    warnings: Vec<String>,
    machine: String,
}

impl Book {
    /// The committed data with `run` (named `file_name`) as the reader's.
    /// A file the build would pass over is refused with the reason.
    pub fn open(file_name: &str, run: &[u8]) -> Result<Book, String> {
        let data = own_data(file_name, run)?;
        let (html, edition) =
            pagewalk_book_html::config_from_book_toml(BOOK_TOML).map_err(|e| format!("{e:#}"))?;
        Ok(Book {
            chapters: serde_json::from_str(CHAPTERS).map_err(|e| e.to_string())?,
            warnings: data.warnings.clone(),
            machine: machine(&data),
            renderer: Renderer::new(Arc::new(data)),
            html,
            edition,
        })
    }

    /// The machine the run was measured on, in a few words.
    pub fn machine(&self) -> &str {
        &self.machine
    }

    /// Renders the chapter at `chapter_path` (`first-touch.md`).
    pub fn render(&self, chapter_path: &str) -> Result<Page, String> {
        let chapter = self
            .chapters
            .iter()
            .find(|c| c["path"] == chapter_path)
            .ok_or_else(|| format!("no chapter {}", path_for_terminal(Path::new(chapter_path))))?;
        let template = chapter["content"].as_str().unwrap_or_default();
        let page = self
            .renderer
            .render_for_html(chapter_path, template)
            .map_err(|e| format!("{e:#}"))?;
        Ok(Page {
            html: pagewalk_book_html::render_markdown(
                &page.text,
                Path::new(chapter_path),
                &self.html,
                self.edition,
            ),
            title: page.title,
            titles: self.titles(),
            warnings: self.warnings.clone(),
            machine: self.machine.clone(),
        })
    }
}

impl Book {
    /// The chapters whose titles are templates, as `(path, title)` with
    /// the run: the sidebar names them as the build does.
    pub fn titles(&self) -> Vec<(String, String)> {
        self.chapters
            .iter()
            .filter_map(|c| {
                let path = c["path"].as_str()?;
                let first = c["content"].as_str()?.lines().next()?;
                let page = self.renderer.render_for_html(path, first).ok()?;
                Some((path.to_string(), page.title?))
            })
            .collect()
    }
}

/// One chapter with the reader's run: [`Book::open`], then
/// [`Book::render`].
pub fn render(chapter_path: &str, file_name: &str, run: &[u8]) -> Result<Page, String> {
    Book::open(file_name, run)?.render(chapter_path)
}

/// For the page: `{html, title, warnings}` as JSON, or the reason the run
/// cannot be shown.
#[wasm_bindgen]
pub fn render_page(chapter_path: &str, file_name: &str, run: &[u8]) -> Result<String, JsError> {
    let page = render(chapter_path, file_name, run).map_err(|e| JsError::new(&e))?;
    Ok(json!({
        "html": page.html,
        "title": page.title,
        "titles": page.titles,
        "warnings": page.warnings,
        "machine": page.machine,
    })
    .to_string())
}

/// Checks a file before the page keeps it: the model's own rules, as the
/// build reads `data/runs/`. Returns the machine it was measured on.
#[wasm_bindgen]
pub fn check_run(file_name: &str, run: &[u8]) -> Result<String, JsError> {
    // The data set only: the views are built once the page renders.
    own_data(file_name, run)
        .map(|data| machine(&data))
        .map_err(|e| JsError::new(&e))
}

/// The data set with `run` as the reader's, or why the build would pass
/// the file over: no page may claim to show a run it did not read.
fn own_data(file_name: &str, run: &[u8]) -> Result<DataSet, String> {
    let data = DataSet::from_files(&data_files(file_name, run)).map_err(|e| format!("{e:#}"))?;
    if data.own {
        Ok(data)
    } else {
        Err(data.warnings.join("; "))
    }
}

/// `Intel Xeon ..., 16 CPUs, kernel 6.8.0`.
fn machine(data: &DataSet) -> String {
    data.run.as_ref().and_then(|r| r.machine.as_ref()).map_or(
        String::from("a machine the file does not describe"),
        |m| {
            format!(
                "{}, {} CPUs, kernel {}",
                m.cpu.model_name, m.cpu.logical_cpus, m.kernel_release
            )
        },
    )
}
