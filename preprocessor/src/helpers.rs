//! Formatting and chart helpers for chapter templates.
//!
//! Number helpers render an honest gap (`null`) as "n/a" but fail the build
//! on a path that is not in the context at all, so a typo in a chapter
//! cannot silently print "n/a" forever.

use std::sync::Arc;

use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, PathAndJson, RenderContext, RenderError,
    RenderErrorReason,
};

pub use crate::escape::escape_text;
use crate::DataSet;
pub use format::{format_dur, format_num, format_ratio, MISSING};

thread_local! {
    /// The path of every value written as [`MISSING`] on this thread, as
    /// the chapter wrote it (relative inside `#each`/`#with`).
    static GAPS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The gaps written as "n/a" since the last call, in order: for the test
/// that holds each one to a reason (`tests/gaps.rs`).
pub fn take_gaps() -> Vec<String> {
    GAPS.with(|g| std::mem::take(&mut *g.borrow_mut()))
}

pub fn register(hb: &mut Handlebars<'static>, data: Arc<DataSet>) {
    register_text(hb, "num", num);
    register_text(hb, "dur", dur);
    register_text(hb, "ratio", ratio);
    register_text(hb, "pct", pct);
    register_text(hb, "spread", spread);
    register_text(hb, "text", text);
    register_text(hb, "code", code);
    let sources = data.clone();
    register_strings(hb, "source", "experiment names", move |_, names| {
        crate::source::source_html(&sources, names)
    });
    let checked = data.clone();
    register_named(
        hb,
        "failed_checks",
        "an experiment's name",
        move |_, name| failed_checks(&checked, name),
    );
    let machines = data.clone();
    register_named(hb, "chart", "the chart's name", move |h, name| {
        let caption = h.hash_get("caption").and_then(|c| c.value().as_str());
        chart_html(&data, name, caption)
    });
    register_named(hb, "machines", "the chart's name", move |_, name| {
        crate::machines::machines_html(&machines, name)
    });
}

/// `{{failed_checks "mlp"}}`: the premise checks experiment `name` failed
/// on the shown run, as a list under one sentence; nothing when all that
/// it made passed. The chapter that reads an experiment's numbers names
/// what may make them unfit (method.md's promise), as "your machine" does.
fn failed_checks(data: &DataSet, name: &str) -> Result<String, String> {
    if pagewalk_model::Kind::from_name(name).is_none() {
        return Err(format!("`{name}` is not an experiment"));
    }
    let failed: Vec<_> = crate::context::checks::view(data.run.as_ref())
        .failed
        .into_iter()
        .filter(|c| c.experiment == name)
        .collect();
    if failed.is_empty() {
        return Ok(String::new());
    }
    let mut out = format!(
        "\n{} premise {} of `{name}` failed on this run, so the sentences above may not fit its numbers:\n\n",
        failed.len(),
        if failed.len() == 1 { "check" } else { "checks" }
    );
    for c in failed {
        out.push_str(&format!(
            "- {}: expected {}, observed {}.\n",
            escape_text(&c.name),
            escape_text(&c.expected),
            escape_text(&c.observed)
        ));
    }
    Ok(out)
}

/// Registers `{{helper "NAME"}}`, which writes `html(h, NAME)`; `what` is
/// the string it needs (`the chart's name`). Either failure fails the build.
pub fn register_named(
    hb: &mut Handlebars<'static>,
    helper: &'static str,
    what: &'static str,
    html: impl Fn(&Helper, &str) -> Result<String, String> + Send + Sync + 'static,
) {
    register_strings(hb, helper, what, move |h, names| match names.first() {
        Some(name) => html(h, name),
        None => Err(format!("takes {what} as a string")),
    });
}

/// Registers `{{helper "A" "B" ...}}`, which writes `html(h, [A, B, ...])`;
/// every parameter must be a string (`what` names them in the error).
fn register_strings(
    hb: &mut Handlebars<'static>,
    helper: &'static str,
    what: &'static str,
    html: impl Fn(&Helper, &[&str]) -> Result<String, String> + Send + Sync + 'static,
) {
    hb.register_helper(
        helper,
        Box::new(
            move |h: &Helper,
                  _: &Handlebars,
                  _: &Context,
                  _: &mut RenderContext,
                  out: &mut dyn Output|
                  -> HelperResult {
                let names: Option<Vec<&str>> =
                    h.params().iter().map(|p| p.value().as_str()).collect();
                let names =
                    names.ok_or_else(|| err(helper, &format!("takes {what} as strings")))?;
                out.write(&html(h, &names).map_err(|e| err(helper, &e))?)?;
                Ok(())
            },
        ),
    );
}

/// `{{code value}}` (or `{{code value prefix="isolcpus="}}`): the value as
/// inline code. A Markdown code span would show character references
/// literally, so this writes `<code>` itself; Markdown still reads what
/// stands between two inline HTML tags, so the value takes the same escape
/// as every other value ([`escape_text`]), never HTML's alone. A gap is
/// "n/a" as text, not code.
fn code(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    // `prefix="isolcpus="`: literal text from the chapter, inside the span.
    let prefix = h.hash_get("prefix").and_then(|v| v.value().as_str());
    Ok(string(h, ctx, rc)?.map(|s| {
        format!(
            "<code>{}{}</code>",
            escape_text(prefix.unwrap_or("")),
            escape_text(&s)
        )
    }))
}

/// `{{text value}}`: a string (or a number, as JSON writes it) from the
/// context, escaped as every `{{value}}` is; "n/a" for a gap, where a bare
/// `{{value}}` would print nothing.
fn text(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    Ok(string(h, ctx, rc)?.map(|s| escape_text(&s)))
}

/// What a number helper writes; `None` is an honest gap.
type Text = Result<Option<String>, RenderError>;

/// Registers a value helper: it writes `text`, or for a gap "n/a" (or the
/// chapter's own words for it: `missing="not reported"`).
fn register_text(
    hb: &mut Handlebars<'static>,
    helper: &'static str,
    text: fn(&Helper, &Context, &RenderContext) -> Text,
) {
    hb.register_helper(
        helper,
        Box::new(
            move |h: &Helper,
                  _: &Handlebars,
                  ctx: &Context,
                  rc: &mut RenderContext,
                  out: &mut dyn Output|
                  -> HelperResult {
                match text(h, ctx, rc)? {
                    Some(t) => out.write(&t)?,
                    None => match h.hash_get("missing").and_then(|m| m.value().as_str()) {
                        Some(words) => out.write(&escape_text(words))?,
                        None => {
                            // Every parameter's path: a ratio is a gap when
                            // either of its two is.
                            let paths: Vec<&str> = h
                                .params()
                                .iter()
                                .filter_map(|p| p.relative_path().map(String::as_str))
                                .collect();
                            GAPS.with(|g| g.borrow_mut().push(paths.join(" / ")));
                            out.write(MISSING)?
                        }
                    },
                }
                Ok(())
            },
        ),
    );
}

/// The figure for chart `name`, built from the shown run and the
/// references; the caption defaults to the chart's title.
pub fn chart_html(data: &DataSet, name: &str, caption: Option<&str>) -> Result<String, String> {
    if data.run.is_none() {
        return Err("there is no run in data/ to chart".into());
    }
    let runs = data.chart_runs();
    let spec = pagewalk_figures::build(name, &runs).map_err(|e| e.to_string())?;
    Ok(pagewalk_figures::figure_html(
        name,
        &spec,
        caption.unwrap_or(&spec.title),
    ))
}

fn err(helper: &str, msg: &str) -> RenderError {
    RenderErrorReason::Other(format!("{{{{{helper}}}}}: {msg}")).into()
}

/// The value of parameter `i`: `Ok(None)` for an honest null, including a
/// path that runs through a null (`ft.modes.populate.first.ns` when that
/// mode has no first pass); a path not in the context at all is an error.
fn value<'a>(
    h: &'a Helper,
    ctx: &Context,
    rc: &RenderContext,
    i: usize,
) -> Result<Option<&'a serde_json::Value>, RenderError> {
    let name = h.name();
    let p: &PathAndJson = h
        .param(i)
        .ok_or_else(|| err(name, &format!("needs parameter {}", i + 1)))?;
    if p.is_value_missing() {
        let path = p.relative_path().map_or("?", |s| s.as_str());
        if honest_gap(ctx, rc, path) {
            return Ok(None);
        }
        return Err(err(
            name,
            &format!("`{path}` is not in the context (see preprocessor/TEMPLATES.md)"),
        ));
    }
    Ok(Some(p.value()).filter(|v| !v.is_null()))
}

/// The numeric value of parameter `i`; `Ok(None)` for an honest gap.
fn number(
    h: &Helper,
    ctx: &Context,
    rc: &RenderContext,
    i: usize,
) -> Result<Option<f64>, RenderError> {
    value(h, ctx, rc, i)?
        .map(|v| {
            v.as_f64()
                .ok_or_else(|| err(h.name(), &format!("expected a number, found {v}")))
        })
        .transpose()
}

/// The first parameter as text: a string as it is, anything else as JSON
/// writes it; `Ok(None)` for an honest gap.
fn string(h: &Helper, ctx: &Context, rc: &RenderContext) -> Result<Option<String>, RenderError> {
    Ok(value(h, ctx, rc, 0)?.map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    }))
}

/// Whether a path that found no value stops at a null (an honest gap)
/// rather than at a key that does not exist (a typo). Inside `#each` or
/// `#with` a path is relative to the block's value, as Handlebars reads it;
/// `@root.` starts from the top.
fn honest_gap(ctx: &Context, rc: &RenderContext, path: &str) -> bool {
    let (scope, rest) = scope(ctx, rc, path);
    passes_through_null(scope, rest)
}

/// Where a path starts (the block's value inside `#each`/`#with`, the top
/// for `@root.`) and the rest of it.
fn scope<'a, 'p>(
    ctx: &'a Context,
    rc: &'a RenderContext,
    path: &'p str,
) -> (&'a serde_json::Value, &'p str) {
    if let Some(rest) = path.strip_prefix("@root.") {
        return (ctx.data(), rest);
    }
    let rest = path.strip_prefix("this.").unwrap_or(path);
    // `#each` keeps its position as a path of keys and indices.
    let scope = rc.block().and_then(|b| match b.base_value() {
        Some(v) => Some(v),
        None => b
            .base_path()
            .iter()
            .try_fold(ctx.data(), |v, k| match k.parse::<usize>() {
                Ok(i) if v.is_array() => v.get(i),
                _ => v.get(k.as_str()),
            }),
    });
    (scope.unwrap_or(ctx.data()), rest)
}

/// The value at `path` as a chapter reads it: `Some(None)` for a gap (a
/// null, or a path through one), `None` when a key does not exist.
fn lookup<'a>(
    ctx: &'a Context,
    rc: &'a RenderContext,
    path: &str,
) -> Option<Option<&'a serde_json::Value>> {
    let (mut v, rest) = scope(ctx, rc, path);
    for key in rest.split('.') {
        match v {
            serde_json::Value::Null => return Some(None),
            serde_json::Value::Object(map) => v = map.get(key)?,
            _ => return None,
        }
    }
    Some(Some(v).filter(|v| !v.is_null()))
}

/// Walks `path` from the root: true when it stops at a null before its end
/// (an honest gap), false when a key does not exist (a typo).
pub(crate) fn passes_through_null(root: &serde_json::Value, path: &str) -> bool {
    let mut v = root;
    for key in path.split('.') {
        match v {
            serde_json::Value::Null => return true,
            serde_json::Value::Object(map) => match map.get(key) {
                Some(next) => v = next,
                None => return false,
            },
            _ => return false,
        }
    }
    v.is_null()
}

/// The optional decimals parameter of `num` and `pct` (default 0).
fn decimals(h: &Helper) -> usize {
    h.param(1).and_then(|p| p.value().as_u64()).unwrap_or(0) as usize
}

/// `{{num x}}`, `{{num x 1}}`, `{{num x 1 unit="ms"}}`: grouped digits,
/// the unit after a space; "n/a" alone for a gap.
fn num(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    let unit = h.hash_get("unit").and_then(|u| u.value().as_str());
    Ok(number(h, ctx, rc, 0)?.map(|x| {
        let n = format_num(x, decimals(h));
        match unit {
            Some(u) => format!("{n} {}", escape_text(u)),
            None => n,
        }
    }))
}

fn dur(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    Ok(number(h, ctx, rc, 0)?.map(format_dur))
}

fn ratio(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    Ok(match (number(h, ctx, rc, 0)?, number(h, ctx, rc, 1)?) {
        (Some(a), Some(b)) if b != 0.0 => Some(format_ratio(a / b)),
        _ => None,
    })
}

/// `{{spread x.small_ns 1 unit="ns"}}`: a median and the spread of its
/// repetitions, read from `small_ns_min` and `small_ns_max` beside it
/// (`3.0 ns (2.9 to 3.4)`); "n/a" alone when the median is a gap.
fn spread(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    let Some(median) = number(h, ctx, rc, 0)? else {
        return Ok(None);
    };
    let path = h
        .param(0)
        .and_then(|p| p.relative_path())
        .ok_or_else(|| err("spread", "takes the path of a median"))?;
    let d = decimals(h);
    let end = |suffix: &str| -> Result<String, RenderError> {
        let key = format!("{path}_{suffix}");
        match lookup(ctx, rc, &key) {
            Some(v) => Ok(v
                .and_then(serde_json::Value::as_f64)
                .map_or(MISSING.to_string(), |x| format_num(x, d))),
            None => Err(err(
                "spread",
                &format!("`{key}` is not in the context (see preprocessor/TEMPLATES.md)"),
            )),
        }
    };
    let unit = h.hash_get("unit").and_then(|u| u.value().as_str());
    let m = format_num(median, d);
    let m = unit.map_or(m.clone(), |u| format!("{m} {}", escape_text(u)));
    Ok(Some(format!("{m} ({} to {})", end("min")?, end("max")?)))
}

fn pct(h: &Helper, ctx: &Context, rc: &RenderContext) -> Text {
    number(h, ctx, rc, 0)?
        .map(|x| {
            let percent = x * 100.0;
            // A share past f64's range (1e307 is a valid number, times 100
            // it is not) is refused, never printed as "inf%".
            if !percent.is_finite() {
                return Err(err(
                    "pct",
                    &format!(
                        "{x} as a percentage is not a finite number; a chapter never prints one"
                    ),
                ));
            }
            Ok(format!(
                "{}%",
                format_num(percent, pct_decimals(percent, decimals(h)))
            ))
        })
        .transpose()
}

/// `decimals`, or more for a share that is not zero but would print as
/// one (an A-vs-A floor of 0.0024% is not "0.0%"), up to four.
fn pct_decimals(percent: f64, decimals: usize) -> usize {
    let mut d = decimals;
    while d < 4 && percent != 0.0 && (percent.abs() * 10f64.powi(d as i32)).round() == 0.0 {
        d += 1;
    }
    d
}

#[cfg(test)]
#[test]
fn a_small_share_is_not_printed_as_zero() {
    assert_eq!(pct_decimals(0.0024, 1), 3);
    assert_eq!(format_num(0.0024, pct_decimals(0.0024, 1)), "0.002");
    assert_eq!(pct_decimals(2.4, 1), 1);
    assert_eq!(pct_decimals(0.0, 1), 1);
    assert_eq!(pct_decimals(1e-9, 1), 4);
}

mod format;
#[cfg(test)]
mod tests;
