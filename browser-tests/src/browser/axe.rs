//! axe-core in the page: the accessibility rules a screen reader, a
//! keyboard and a low-vision reader depend on, run offline in Chromium.
//! `scripts/install-tools --browser` installs the pinned axe-core into
//! `.tools/node_modules` (gitignored); [`Browser::axe`] injects its
//! `axe.min.js` into the page through WebDriver (which the page's
//! Content-Security-Policy does not govern) and runs `axe.run`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::Browser;
use crate::workspace_root;

/// Where `scripts/install-tools` puts axe-core.
pub fn axe_path() -> PathBuf {
    workspace_root().join(".tools/node_modules/axe-core/axe.min.js")
}

/// One rule axe found broken on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxeViolation {
    /// The rule id, e.g. `color-contrast`.
    pub id: String,
    /// `minor`, `moderate`, `serious` or `critical`.
    pub impact: String,
    /// How many elements break it.
    pub nodes: usize,
    /// The first of them, as a CSS selector.
    pub first: String,
    /// axe's one-line summary of the rule.
    pub help: String,
    /// Up to three of the elements, each with what axe found there (for
    /// `color-contrast`: the two colours and their ratio).
    pub examples: Vec<String>,
}

impl AxeViolation {
    /// `critical` or `serious`: what the book must have none of.
    pub fn is_severe(&self) -> bool {
        matches!(self.impact.as_str(), "critical" | "serious")
    }
}

impl std::fmt::Display for AxeViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} on {} node{} (first: {}): {}",
            self.impact,
            self.id,
            self.nodes,
            if self.nodes == 1 { "" } else { "s" },
            self.first,
            self.help
        )
    }
}

/// axe rules that a plain `axe.run` leaves out and Lighthouse 12.2.3's
/// accessibility score counts: every data cell of a table three or more
/// cells wide and tall has a header with text, a pointer target is at
/// least 24 px, and a control's visible text is part of its name.
const EXTRA_RULES: [&str; 3] = [
    "td-has-header",
    "target-size",
    "label-content-name-mismatch",
];

impl Browser {
    /// Runs axe-core on the page as it is now and returns every violation
    /// (all impacts), most severe first. Fails when axe-core is not
    /// installed, with the command that installs it.
    pub async fn axe(&self) -> Result<Vec<AxeViolation>> {
        let path = axe_path();
        let source = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "reading {} (axe-core): install it with `scripts/install-tools --browser`",
                path.display()
            )
        })?;
        // Lighthouse's accessibility score runs some of axe's experimental
        // rules too; the book is held to those as well.
        let rules = json!(EXTRA_RULES
            .iter()
            .map(|r| (r.to_string(), json!({ "enabled": true })))
            .collect::<serde_json::Map<_, _>>());
        let script = format!(
            "if (!window.axe) {{ {source}\n }}
             const r = await window.axe.run(document, {{ resultTypes: ['violations'], rules: {rules} }});
             return r.violations.map(v => ({{
               id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.length,
               first: v.nodes.length ? [].concat(v.nodes[0].target).join(' ') : '',
               examples: v.nodes.slice(0, 3).map(n => [].concat(n.target).join(' ') + ': '
                 + [...n.any, ...n.all, ...n.none].map(c => c.message).join('; ')) }}));"
        );
        let v = self.eval(&script).await.context("running axe-core")?;
        let s = |x: &Value, k: &str| x[k].as_str().unwrap_or_default().to_string();
        let mut out: Vec<AxeViolation> = v
            .as_array()
            .context("axe.run gave no list of violations")?
            .iter()
            .map(|x| AxeViolation {
                id: s(x, "id"),
                impact: s(x, "impact"),
                nodes: x["nodes"].as_u64().unwrap_or(0) as usize,
                first: s(x, "first"),
                help: s(x, "help"),
                examples: x["examples"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str().map(str::to_string))
                    .collect(),
            })
            .collect();
        let rank = |i: &str| match i {
            "critical" => 0,
            "serious" => 1,
            "moderate" => 2,
            _ => 3,
        };
        out.sort_by(|a, b| rank(&a.impact).cmp(&rank(&b.impact)).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    /// Loads `url`, waits for its charts when it has any (so axe sees
    /// them drawn in the theme), and runs [`Browser::axe`].
    pub async fn axe_page(&self, url: &str) -> Result<Vec<AxeViolation>> {
        self.goto(url).await?;
        if !self.chart_states().await?.is_empty() {
            self.wait_for_charts().await?;
        }
        self.axe().await
    }

    /// Makes `theme` the reader's chosen mdBook theme for the pages loaded
    /// next (mdBook reads it from `localStorage` before the first paint).
    /// Call it on a page of the book's origin.
    pub async fn prefer_theme(&self, theme: &str) -> Result<()> {
        self.eval_with(
            "localStorage.setItem('mdbook-theme', arguments[0]); return null;",
            vec![json!(theme)],
        )
        .await
        .context("setting mdbook-theme in localStorage")?;
        Ok(())
    }
}
