//! Renders chapter templates against one loaded data set: the one path
//! `mdbook build` ([`crate::Pagewalk`]) and the book re-rendered in the
//! browser (wasm-book) both take.

use std::sync::Arc;

use anyhow::{Error, Result};
use handlebars::Handlebars;

use crate::data::DataSet;
use crate::{context, diagram, drill, helpers, lab, search, tables, template_check};
use crate::{verdict_words, whose};

/// One chapter as the HTML renderer gets it.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedChapter {
    /// The chapter's Markdown, numbers filled in.
    pub text: String,
    /// The sidebar's and the page's name for a chapter whose title is a
    /// template ([`rendered_title`]); `None` keeps the SUMMARY's.
    pub title: Option<String>,
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

    /// Renders one chapter for the HTML renderer: `mdbook build` and the
    /// book re-rendered in the browser from a reader's run (wasm-book)
    /// both call this, so a page reads the same either way.
    pub fn render_for_html(&self, chapter: &str, template: &str) -> Result<RenderedChapter> {
        let text = self.render(chapter, template)?;
        // Search reads the chapter's prose, not its figures; a table's
        // numbers keep their units.
        let text = search::mark_non_prose(&tables::keep_numbers_whole(&text));
        Ok(RenderedChapter {
            title: rendered_title(template, &text),
            text,
        })
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
