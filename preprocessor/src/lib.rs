//! The mdBook preprocessor behind pagewalk's chapters.
//!
//! Each chapter is a Handlebars template. [`Pagewalk`] loads the runs in
//! `data/` ([`data`]), turns them into the template context ([`context`]),
//! and renders every chapter with the formatting and chart helpers
//! ([`helpers`]). See `TEMPLATES.md` for the context chapters can use.

pub mod context;
pub mod data;
pub mod diagram;
pub mod doctest;
pub mod drill;
pub mod escape;
pub mod helpers;
pub mod lab;
pub mod machines;
pub mod search;
pub mod source;
pub mod tables;
pub mod template_check;
pub mod verdict_words;
pub mod whose;

use std::path::PathBuf;
use std::sync::Arc;

use handlebars::Handlebars;
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::errors::{Error, Result};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use pagewalk_model::display::{quoted_for_terminal, MAX_LINE_CHARS};

pub use data::DataSet;

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
                let rendered = renderer.render(&name, &ch.content).and_then(|text| {
                    if for_rustdoc {
                        doctest::code_blocks_in_place(&ch.content, |b| renderer.render(&name, b))
                    } else {
                        // Search reads the chapter's prose, not its
                        // figures; a table's numbers keep their units.
                        Ok(search::mark_non_prose(&tables::keep_numbers_whole(&text)))
                    }
                });
                match rendered {
                    Ok(text) => {
                        if let Some(title) = rendered_title(&ch.content, &text) {
                            ch.name = title;
                        }
                        ch.content = text
                    }
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

/// A chapter whose title is itself a template (`# {{#if run.own}}Your
/// machine{{else}}The example machine{{/if}} at a glance`) is named in the
/// sidebar and the page title as it renders, so the book never calls the
/// example "your machine". The rendered title is the first line as
/// rendered; one with an escaped character keeps the SUMMARY's name
/// (mdBook escapes names itself, and would show the reference).
fn rendered_title(template: &str, rendered: &str) -> Option<String> {
    let first = template.lines().next()?;
    if !(first.starts_with("# ") && first.contains("{{")) {
        return None;
    }
    let title = rendered.lines().next()?.strip_prefix("# ")?.trim();
    (!title.is_empty() && !title.contains(['&', '<'])).then(|| title.to_string())
}

/// Renders chapter templates against one loaded [`DataSet`].
pub struct Renderer {
    hb: Handlebars<'static>,
    context: serde_json::Value,
    /// The context's JSON schema: every chapter is checked against it.
    schema: serde_json::Value,
    /// Names found to be helpers (or not), so each is probed once.
    helpers: std::sync::Mutex<std::collections::HashMap<String, bool>>,
}

impl Renderer {
    pub fn new(data: Arc<DataSet>) -> Renderer {
        let mut hb = Handlebars::new();
        // Every `{{value}}` is text, never markup, whoever wrote the run
        // file; helpers (charts, labs, `code`) write their own safe HTML.
        hb.register_escape_fn(helpers::escape_text);
        // Every helper is registered here, so helper modules only use the
        // shared registration functions in `helpers`, never each other.
        helpers::register(&mut hb, data.clone());
        lab::register(&mut hb, data.clone());
        drill::register(&mut hb);
        diagram::register(&mut hb);
        whose::register(&mut hb);
        verdict_words::register(&mut hb);
        Renderer {
            hb,
            context: context::build(&data),
            schema: serde_json::to_value(context::schema()).expect("a schema is JSON"),
            helpers: Default::default(),
        }
    }

    /// Every key of `template` the views do not have and every comparison
    /// with an outcome its verdict never takes, each as `line N: ...`.
    pub fn check(&self, template: &str) -> Vec<String> {
        // The schema and the helpers are the same for every renderer of
        // this build, so a template checked once is checked for the
        // process (tests render the same chapters for many runs).
        static CHECKED: std::sync::OnceLock<
            std::sync::Mutex<std::collections::HashMap<String, Vec<String>>>,
        > = std::sync::OnceLock::new();
        let checked = CHECKED.get_or_init(Default::default);
        if let Some(found) = checked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(template)
        {
            return found.clone();
        }
        let found = self.check_uncached(template);
        checked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(template.to_string(), found.clone());
        found
    }

    fn check_uncached(&self, template: &str) -> Vec<String> {
        let is_helper = |name: &str| {
            let mut known = self.helpers.lock().unwrap_or_else(|e| e.into_inner());
            *known
                .entry(name.to_string())
                .or_insert_with(|| template_check::helper_probe(&self.hb, name))
        };
        template_check::Checker::new(&self.schema, &is_helper).check(template)
    }

    /// Renders one chapter; errors name the chapter and the line. A key
    /// the views do not have, or a verdict compared with an outcome it
    /// never takes, fails before anything renders ([`template_check`]).
    pub fn render(&self, chapter: &str, template: &str) -> Result<String> {
        let problems = self.check(template);
        if !problems.is_empty() {
            return Err(Error::msg(format!("{chapter}: {}", problems.join("; "))));
        }
        self.hb
            .render_template(template, &self.context)
            .map_err(|e| Error::msg(format!("{chapter}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::rendered_title;

    #[test]
    fn a_templated_title_names_the_chapter_as_it_renders() {
        let template =
            "# {{#if run.own}}Your machine{{else}}The example machine{{/if}} at a glance\n\nText";
        assert_eq!(
            rendered_title(template, "# The example machine at a glance\n\nText").as_deref(),
            Some("The example machine at a glance")
        );
        // A plain title is the SUMMARY's business.
        assert_eq!(rendered_title("# Huge pages\n", "# Huge pages\n"), None);
        assert_eq!(rendered_title("# {{x}}\n", "# a &#42; b\n"), None);
    }
}
