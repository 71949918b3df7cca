//! Every cause proved, or not named: a sentence that names a cause or a
//! result for "this run" is written inside a verdict's branch
//! (`{{#if (eq tail.verdict.p999_cause "faults")}}`), never beside a run's
//! figures with nothing but the figure's presence to select it.
//!
//! Two checks. In the templates, a causal phrase (the list below) in a
//! sentence that prints a value of this run or branches on one, or right
//! inside a block that reads one, must sit inside a branch whose condition
//! reads a verdict; prose that teaches a mechanism, with no run value in
//! its sentence, is left alone. Over
//! the fixture matrix, a causal sentence that renders is one whose branches
//! all hold for that run: its verdict selected it.

use std::sync::Arc;

use mdbook_pagewalk::{context, DataSet, Renderer};
use serde_json::Value;

mod common;

use common::{chapters, data_dir, fixtures};

/// Phrases that state a cause or a result, lower case. Each names why
/// something happened, or that a measurement settled something.
const CAUSAL: &[&str] = &[
    "because",
    "so the extra time is",
    "the extra time is translation",
    "not the kernel",
    "the price of",
    "the fix working",
    "lost its cpu",
    "took no fault",
    "was the page faults",
    "were the page faults",
    "faults were the whole tail",
    "fell with it",
    "do not overlap",
    "measured, not noise",
    "about one per page",
    "slightly more",
    "the surplus being",
    "what walking the tables costs",
    "caused by",
    "due to",
    "the proof was",
    "proves that",
    "was not what limited",
    "the laptop's story",
    "the laptop's reason",
    "the time went elsewhere",
];

/// A condition reads a verdict when it names one of the keys
/// `context::verdict` files: `.verdict.`, and the per-item verdicts.
const VERDICT_KEYS: &[&str] = &[
    "verdict",
    "small_vs_huge",
    "granted",
    "cross_check",
    ".match",
];

/// One open block at a point of a template: its helper, its condition (the
/// text after the helper's name) and whether the point is in its `else`.
#[derive(Clone, Debug)]
struct Frame {
    helper: String,
    condition: String,
    negated: bool,
}

impl Frame {
    fn reads_a_verdict(&self) -> bool {
        matches!(self.helper.as_str(), "if" | "unless")
            && VERDICT_KEYS.iter().any(|k| self.condition.contains(k))
    }

    /// Whether the condition reads this run (not only R1's or R2's
    /// published figures).
    fn reads_this_run(&self) -> bool {
        matches!(self.helper.as_str(), "if" | "unless")
            && paths(&self.condition).iter().any(|p| this_run(p))
    }
}

/// A stretch of literal text with the blocks open around it.
#[derive(Clone, Debug)]
struct Literal {
    start: usize,
    text: String,
    frames: Vec<Frame>,
}

/// A template's literal text, each stretch with the blocks open around it.
fn literals(template: &str) -> Vec<Literal> {
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut rest = template;
    let mut at = 0;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            out.push(Literal {
                start: at,
                text: rest[..open].to_string(),
                frames: stack.clone(),
            });
        }
        let close = rest[open..]
            .find("}}")
            .map(|c| open + c + 2)
            .expect("an unclosed {{ in a chapter");
        let tag = rest[open + 2..close - 2].trim();
        if let Some(body) = tag.strip_prefix('#') {
            let body = body.trim_start_matches('*').trim_start_matches('>');
            let (helper, condition) = body.split_once(' ').unwrap_or((body, ""));
            stack.push(Frame {
                helper: helper.to_string(),
                condition: condition.to_string(),
                negated: false,
            });
        } else if tag == "else" {
            if let Some(top) = stack.last_mut() {
                top.negated = true;
            }
        } else if tag.starts_with('/') {
            stack.pop();
        }
        at += close;
        rest = &rest[close..];
    }
    out.push(Literal {
        start: at,
        text: rest.to_string(),
        frames: stack,
    });
    out
}

/// The context paths an expression or a tag reads (`ft.verdict.x`,
/// `@root.whose.ft.kind`), leaving out strings, numbers and helper names.
fn paths(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_string = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        let w = std::mem::take(word);
        let helper = matches!(
            w.as_str(),
            "eq" | "ne"
                | "or"
                | "and"
                | "not"
                | "lt"
                | "gt"
                | "num"
                | "dur"
                | "ratio"
                | "pct"
                | "spread"
                | "text"
                | "code"
                | "else"
                | "this"
        );
        if !w.is_empty()
            && !helper
            && w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '@')
            && !w.contains('=')
        {
            out.push(w);
        }
    };
    for c in expr.chars() {
        if c == '"' {
            in_string = !in_string;
            word.clear();
        } else if in_string {
        } else if c.is_whitespace() || c == '(' || c == ')' {
            flush(&mut word, &mut out);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A path that reads this run rather than a published source.
fn this_run(path: &str) -> bool {
    let p = path.strip_prefix("@root.").unwrap_or(path);
    !(p.starts_with("r1.") || p.starts_with("r2.") || p == "r1" || p == "r2")
}

/// Whether a stretch of template reads this run: a value helper or a bare
/// `{{path}}` whose path is not R1's or R2's, or an `{{#if}}` on one.
fn reads_this_run(sentence: &str) -> bool {
    let mut rest = sentence;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}").map(|c| open + c) else {
            break;
        };
        let tag = rest[open + 2..close].trim();
        rest = &rest[close + 2..];
        if let Some(cond) = tag.strip_prefix("#if ").or(tag.strip_prefix("#unless ")) {
            if paths(cond).iter().any(|p| this_run(p)) {
                return true;
            }
            continue;
        }
        if tag.starts_with(['#', '/', '>', '!']) || tag == "else" {
            continue;
        }
        let mut words = tag.split_whitespace();
        let first = words.next().unwrap_or("");
        let value = match first {
            "num" | "dur" | "ratio" | "pct" | "spread" | "text" | "code" => words.next(),
            // `{{chart ...}}`, `{{source ...}}`, drills and labs print no run
            // value into the prose.
            _ if tag.contains(' ') || tag.contains('"') => None,
            path => Some(path),
        };
        if value.is_some_and(this_run) {
            return true;
        }
    }
    false
}

/// Where a sentence or a clause ends: a full stop, semicolon, question or
/// exclamation mark before a space or a line break, or a blank line.
const ENDS: &[&str] = &[". ", ".\n", "; ", ";\n", "? ", "?\n", "! ", "!\n", "\n\n"];

/// The sentence (or clause, after a semicolon) around byte `at`.
fn sentence(template: &str, at: usize) -> &str {
    let start = ENDS
        .iter()
        .filter_map(|e| template[..at].rfind(e).map(|i| i + e.len()))
        .max()
        .unwrap_or(0);
    let end = ENDS
        .iter()
        .filter_map(|e| template[at..].find(e).map(|i| at + i + 1))
        .min()
        .unwrap_or(template.len());
    &template[start..end]
}

fn fold(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Each causal phrase in the template, with the blocks open around it and
/// whether it speaks of this run.
struct Cause {
    phrase: &'static str,
    line: usize,
    /// The literal words around the phrase, folded: what renders of it.
    words: String,
    frames: Vec<Frame>,
    about_this_run: bool,
}

fn causes(template: &str) -> Vec<Cause> {
    let mut out = Vec::new();
    for lit in literals(template) {
        let lower = lit.text.to_lowercase();
        for &phrase in CAUSAL {
            for (i, _) in lower.match_indices(phrase) {
                let at = lit.start + i;
                let innermost = lit
                    .frames
                    .iter()
                    .rev()
                    .find(|f| matches!(f.helper.as_str(), "if" | "unless"));
                let about_this_run = reads_this_run(sentence(template, at))
                    || innermost.is_some_and(Frame::reads_this_run);
                out.push(Cause {
                    phrase,
                    line: template[..at].lines().count().max(1),
                    words: fold(&lit.text),
                    frames: lit.frames.clone(),
                    about_this_run,
                });
            }
        }
    }
    out
}

/// A causal phrase about this run outside every verdict branch.
fn unproved(template: &str) -> Vec<String> {
    causes(template)
        .into_iter()
        .filter(|c| c.about_this_run && !c.frames.iter().any(Frame::reads_a_verdict))
        .map(|c| format!("line {}: \"{}\"", c.line, c.phrase))
        .collect()
}

#[test]
fn no_chapter_names_a_cause_for_this_run_outside_a_verdict() {
    let mut found = Vec::new();
    for (name, template) in chapters() {
        for u in unproved(&template) {
            found.push(format!("{name} {u}"));
        }
    }
    assert!(
        found.is_empty(),
        "causal phrases about this run outside a verdict branch (put each in \
         the branch of the verdict that proves it, or drop it):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_cause_moved_out_of_its_verdict() {
    let inside = "{{#if (eq tail.verdict.p999_cause \"faults\")}}It was the page\n\
                  faults: {{num tail.pages}} pages.{{/if}}\n";
    assert!(unproved(inside).is_empty());
    let outside = "{{#if tail.pages}}It was the page faults: {{num tail.pages}}\n\
                   pages.{{/if}}\n";
    assert_eq!(unproved(outside), ["line 1: \"was the page faults\""]);
    // An else branch of a verdict is selected by that verdict too.
    let other = "{{#if (eq x.verdict.y \"a\")}}A.{{else}}Slightly more:\n\
                 {{num x.n}}.{{/if}}\n";
    assert!(unproved(other).is_empty());
    // Teaching a mechanism, with no run value in its sentence: left alone.
    let general = "A fault costs time because the kernel must zero the page.\n\
                   This run wrote {{num ft.pages}} pages.\n";
    assert!(unproved(general).is_empty());
    // R1's figures are not this run's.
    let published = "Slow because it compacted: {{num r1.ft.pages}}.\n";
    assert!(unproved(published).is_empty());
    let this_run = "Slow because it compacted: {{num ft.pages}}.\n";
    assert_eq!(unproved(this_run), ["line 1: \"because\""]);
}

/// The value at a context path; `None` when it cannot be read from the
/// top (relative to an `#each` item).
fn lookup<'a>(ctx: &'a Value, path: &str) -> Option<&'a Value> {
    let path = path.strip_prefix("@root.").unwrap_or(path);
    let mut v = ctx;
    for key in path.split('.') {
        v = match v {
            Value::Null => return Some(&Value::Null),
            Value::Object(m) => m.get(key)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Handlebars truthiness.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Tokens of a condition: `(`, `)`, strings (quoted), words.
fn tokens(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_string = false;
    for c in expr.chars() {
        if in_string {
            cur.push(c);
            if c == '"' {
                out.push(std::mem::take(&mut cur));
                in_string = false;
            }
        } else if c == '"' {
            cur.push(c);
            in_string = true;
        } else if c == '(' || c == ')' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if c.is_whitespace() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A condition's value for `ctx`: `None` when it cannot be read here (a
/// relative path, a helper this test does not know).
fn eval(tokens: &[String], i: &mut usize, ctx: &Value) -> Option<Value> {
    let t = tokens.get(*i)?.clone();
    *i += 1;
    if t == "(" {
        let helper = tokens.get(*i)?.clone();
        *i += 1;
        let mut args = Vec::new();
        while tokens.get(*i).map(String::as_str) != Some(")") {
            args.push(eval(tokens, i, ctx));
        }
        *i += 1;
        let args: Option<Vec<Value>> = args.into_iter().collect();
        let args = args?;
        return Some(Value::Bool(match (helper.as_str(), args.as_slice()) {
            ("eq", [a, b]) => a == b || (a.as_f64().is_some() && a.as_f64() == b.as_f64()),
            ("ne", [a, b]) => a != b,
            ("not", [a]) => !truthy(a),
            ("or", args) => args.iter().any(truthy),
            ("and", args) => args.iter().all(truthy),
            _ => return None,
        }));
    }
    if let Some(s) = t.strip_prefix('"') {
        return Some(Value::String(s.trim_end_matches('"').to_string()));
    }
    if let Ok(n) = t.parse::<f64>() {
        return Some(serde_json::json!(n));
    }
    lookup(ctx, &t).cloned()
}

/// Whether every block around a cause lets it render for `ctx`; `None`
/// when one cannot be evaluated here.
fn selected(frames: &[Frame], ctx: &Value) -> Option<bool> {
    let mut all = true;
    for f in frames {
        let holds = match f.helper.as_str() {
            "if" | "unless" => {
                let toks = tokens(&f.condition);
                let v = truthy(&eval(&toks, &mut 0, ctx)?);
                v == (f.helper == "if")
            }
            // Inside `#each`, `#with`, an inline partial or a drill, paths
            // are relative: not evaluated here.
            _ => return None,
        };
        all &= holds != f.negated;
    }
    Some(all)
}

/// Over the matrix: each causal sentence that renders on a run is one whose
/// verdict (and every block around it) selects it for that run.
#[test]
fn a_rendered_cause_is_the_one_its_verdict_selects() {
    let templates = chapters();
    let mut checked = 0;
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let dir = data_dir(&fixture);
        let data = Arc::new(DataSet::load(dir.path()).unwrap());
        let ctx = context::build(&data);
        let renderer = Renderer::new(data);
        for (name, template) in &templates {
            let page = fold(&renderer.render(name, template).unwrap());
            let all = causes(template);
            for cause in all
                .iter()
                .filter(|c| c.frames.iter().any(Frame::reads_a_verdict))
            {
                // The literal words around the phrase, as long a stretch as
                // holds the phrase: what of this branch shows if it renders.
                let words = &cause.words;
                if words.len() < cause.phrase.len() + 12 || !page.contains(words.as_str()) {
                    continue;
                }
                // The same words may stand in more than one branch: one of
                // them must hold.
                let verdicts: Vec<Option<bool>> = all
                    .iter()
                    .filter(|c| &c.words == words)
                    .map(|c| selected(&c.frames, &ctx))
                    .collect();
                if verdicts.contains(&None) {
                    continue;
                }
                checked += 1;
                assert!(
                    verdicts.contains(&Some(true)),
                    "{run}, {name} line {}: \"{}\" renders, but its verdict does not select it",
                    cause.line,
                    cause.phrase
                );
            }
        }
    }
    assert!(checked > 20, "only {checked} rendered causes were checked");
}
