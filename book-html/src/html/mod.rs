// Copied from mdBook 0.5.4: crate `mdbook-html` 0.5.4, file `src/html/mod.rs`
// (https://github.com/rust-lang/mdBook), under the Mozilla Public License 2.0.
//
// This Source Code Form is subject to the terms of the Mozilla Public
// License, v. 2.0. If a copy of the MPL was not distributed with this
// file, You can obtain one at https://mozilla.org/MPL/2.0/.
//
// Changes from the original:
// - removed the print page (`mod print`, `render_print_page`) and the whole-book
//    `ChapterTree`/`build_trees` (with their `Book`/`Chapter`/`PathBuf` imports);
// - removed the now-unused `pub(crate) use serialize::serialize` re-export.

//! HTML rendering support.
//!
//! This module's primary entry point is [`render_markdown`] which will take
//! markdown text and render it to HTML. In summary, the general procedure of
//! that function is:
//!
//! 1. Use [`pulldown_cmark`] to parse the markdown and generate events.
//! 2. [`tree`] converts those events to a tree data structure.
//!      1. Parse HTML inside the markdown using [`tokenizer`].
//!      2. Apply various transformations to the tree data structure, such as adding header links.
//! 3. Serialize the tree to HTML in [`serialize()`].

use ego_tree::Tree;
use mdbook_core::config::{HtmlConfig, RustEdition};
use mdbook_markdown::{MarkdownOptions, new_cmark_parser};
use std::path::Path;

mod admonitions;
mod hide_lines;
mod serialize;
#[cfg(test)]
mod tests;
mod tokenizer;
mod tree;

pub(crate) use hide_lines::{hide_lines, wrap_rust_main};
pub(crate) use tree::{Element, Node};

/// Options for converting a single chapter's markdown to HTML.
pub(crate) struct HtmlRenderOptions<'a> {
    /// Options for parsing markdown.
    pub markdown_options: MarkdownOptions,
    /// The chapter's location, relative to the `SUMMARY.md` file.
    pub path: &'a Path,
    /// The default Rust edition, used to set the proper class on the code blocks.
    pub edition: Option<RustEdition>,
    /// The [`HtmlConfig`], whose options affect how the HTML is generated.
    pub config: &'a HtmlConfig,
}

impl<'a> HtmlRenderOptions<'a> {
    /// Creates a new [`HtmlRenderOptions`].
    pub(crate) fn new(
        path: &'a Path,
        config: &'a HtmlConfig,
        edition: Option<RustEdition>,
    ) -> HtmlRenderOptions<'a> {
        let mut markdown_options = MarkdownOptions::default();
        markdown_options.smart_punctuation = config.smart_punctuation;
        markdown_options.definition_lists = config.definition_lists;
        markdown_options.admonitions = config.admonitions;
        HtmlRenderOptions {
            markdown_options,
            path,
            edition,
            config,
        }
    }
}

/// Renders markdown to HTML.
pub(crate) fn render_markdown(text: &str, options: &HtmlRenderOptions<'_>) -> String {
    let tree = build_tree(text, options);
    let mut output = String::new();
    serialize::serialize(&tree, &mut output);
    output
}

/// Renders markdown to a [`Tree`].
fn build_tree(text: &str, options: &HtmlRenderOptions<'_>) -> Tree<Node> {
    let events = new_cmark_parser(text, &options.markdown_options);
    tree::MarkdownTreeBuilder::build(options, events)
}
