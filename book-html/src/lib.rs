//! One chapter's Markdown to exactly the HTML that mdBook 0.5.4's HTML
//! renderer puts into the page as `{{{content}}}`.
//!
//! The conversion is mdBook's own code, vendored from the `mdbook-html` 0.5.4
//! crate (where it is `pub(crate)`): `html/` is its `src/html/` minus the
//! print page and the whole-book `build_trees`, and `utils.rs` holds the id
//! helpers from its `src/utils.rs`. Each vendored file lists its changes at the
//! top. The crate builds for `wasm32-unknown-unknown`, so the book can be
//! re-rendered in the browser; `tests/same_as_mdbook.rs` checks the output
//! against a real `mdbook build`.
//!
//! Not included: what mdBook does *before* the renderer (the `links` and
//! `index` preprocessors and any configured preprocessor) and the page
//! template around the content.

use std::path::Path;
use std::str::FromStr;

pub use mdbook_core::config::{HtmlConfig, RustEdition};

mod html;
mod utils;

/// The HTML mdBook 0.5.4 writes for a chapter's content.
///
/// `text` is the chapter's Markdown as the renderer sees it (after
/// preprocessors), `chapter_path` its path relative to the book's `src`
/// directory (used only in diagnostics), `html` the `[output.html]` config and
/// `edition` the `[rust] edition`. This is mdbook-html's
/// `html::render_markdown(text, &HtmlRenderOptions::new(path, config, edition))`.
pub fn render_markdown(
    text: &str,
    chapter_path: &Path,
    html: &HtmlConfig,
    edition: Option<RustEdition>,
) -> String {
    let options = html::HtmlRenderOptions::new(chapter_path, html, edition);
    html::render_markdown(text, &options)
}

/// Parses a `book.toml` the way `mdbook` does and returns what
/// [`render_markdown`] needs: the `[output.html]` config (the default one when
/// absent or invalid, as in mdBook's renderer) and `[rust] edition`.
///
/// `MDBOOK_*` environment overrides, which `mdbook build` also applies, are
/// not applied here.
pub fn config_from_book_toml(toml_text: &str) -> anyhow::Result<(HtmlConfig, Option<RustEdition>)> {
    let config = mdbook_core::config::Config::from_str(toml_text)?;
    Ok((
        config.html_config().unwrap_or_default(),
        config.rust.edition,
    ))
}
