//! The mdBook preprocessor: every chapter of the book rendered against
//! the runs in `data/`.

use std::path::PathBuf;
use std::sync::Arc;

use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::errors::Result;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use pagewalk_model::display::{quoted_for_terminal, MAX_LINE_CHARS};

use crate::data::DataSet;
use crate::doctest;
use crate::render::Renderer;

pub struct Pagewalk;

impl Preprocessor for Pagewalk {
    fn name(&self) -> &str {
        "pagewalk"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
        let dir: PathBuf = ctx
            .config
            .get::<PathBuf>("preprocessor.pagewalk.data")?
            .unwrap_or_else(|| "data".into());
        let data = DataSet::load(&ctx.root.join(dir))?;
        for warning in &data.warnings {
            // Each names a reader's file, already made safe; this is the
            // last guard for whatever else a warning quotes.
            eprintln!(
                "mdbook-pagewalk: warning: {}",
                quoted_for_terminal(warning, MAX_LINE_CHARS)
            );
        }
        let renderer = Renderer::new(Arc::new(data));
        // `mdbook test`: rustdoc gets the code blocks on their source lines.
        let for_rustdoc = ctx.renderer == "test";
        let mut failure = None;
        book.for_each_mut(|item| {
            if let BookItem::Chapter(ch) = item {
                let name = ch
                    .path
                    .as_ref()
                    .map_or(ch.name.clone(), |p| p.display().to_string());
                // Rendered in full either way, so a template error fails
                // `mdbook test` too.
                let rendered = if for_rustdoc {
                    renderer.render(&name, &ch.content).and_then(|_| {
                        doctest::code_blocks_in_place(&ch.content, |b| renderer.render(&name, b))
                    })
                } else {
                    renderer.render_for_html(&name, &ch.content).map(|page| {
                        if let Some(title) = page.title {
                            ch.name = title;
                        }
                        page.text
                    })
                };
                match rendered {
                    Ok(text) => ch.content = text,
                    Err(e) => failure = failure.take().or(Some(e)),
                }
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(book),
        }
    }
}
