//! `{{#drill "ID" ...}}ANSWER{{/drill}}`: one self-test drill. The question
//! is the Markdown heading above the block; the block is its answer.
//!
//! The answer is written inside a closed `<details>`, so without JavaScript
//! it is one click (or Enter) away and nothing is lost; with
//! `theme/pagewalk-drills.js` the reader can commit a guess first and mark
//! the drill afterwards. A drill with `predict` also carries the measured
//! value of the shown run and the references, read from the context at
//! build time: the page lists them in the answer, and the script sets the
//! reader's guess beside them.
//!
//! The guess form is in the HTML, disabled, so the page does not move when
//! the script wires it up (and hidden without JavaScript, where it could
//! not work); `{{drills_progress}}`, above a chapter's first drill, is the
//! same for the progress panel.
//!
//! | hash key | what |
//! | --- | --- |
//! | `chapter`, `title` | the chapter the answer leans on (`huge-pages.md#what-this-run-got`) and its title |
//! | `experiment` | the `collector` experiment that measures it (optional) |
//! | `chart`, `chart_in` | the chart's name, and the chapter it is on when not `chapter`'s page (optional) |
//! | `predict` | `dur` (ns), `ratio` (×) or `bytes` (guessed in KiB): turns on "predict, then see" |
//! | `what` | what the reader predicts (`getpid, ns per call`) |
//! | `run`, `r1`, `r2` | context paths of the value on the shown run and each reference |
//! | `run_per`, `r1_per`, `r2_per` | optional divisors: the value is `run / run_per` (a ratio the context does not hold) |

use crate::helpers::escape_text;
use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason, Renderable,
};
use serde_json::Value;

use crate::helpers::{format_dur, format_ratio};

pub fn register(hb: &mut Handlebars<'static>) {
    hb.register_helper("drill", Box::new(drill));
    hb.register_helper("drills_progress", Box::new(progress));
}

/// `{{drills_progress}}`: the drills' progress panel, its buttons disabled
/// until `theme/pagewalk-drills.js` fills in the count and wires them.
fn progress<'reg, 'rc>(
    _: &Helper<'rc>,
    _: &'reg Handlebars<'reg>,
    _: &'rc Context,
    _: &mut RenderContext<'reg, 'rc>,
    out: &mut dyn Output,
) -> HelperResult {
    out.write(
        "<section class=\"pw-drills-progress\" aria-label=\"Your progress on the drills\">\
         <p class=\"pw-drills-count\" aria-live=\"polite\"></p>\
         <p><button type=\"button\" class=\"pw-drills-only-missed\" aria-pressed=\"false\" disabled>Only the ones I missed</button> \
         <button type=\"button\" class=\"pw-drills-reset\" disabled>Reset</button></p>\
         <p class=\"pw-drills-note\">Guesses and marks stay in this browser (localStorage); nothing leaves the page.</p>\
         </section>\n\n",
    )?;
    Ok(())
}

/// The guess form, as `theme/pagewalk-drills.js` wires it: disabled until
/// then. A predicted drill asks for a number in its unit, on the run the
/// page shows (the first of its measured values); any other for words.
fn guess_form(id: &str, predict: Option<(&Predict, &str, &str)>) -> String {
    let field = format!("pw-guess-{id}");
    let (label, input, unit) = match predict {
        Some((p, what, on)) => (
            format!("Predict {} on {}:", escape_text(what), escape_text(on)),
            format!(
                "<input type=\"number\" min=\"0\" step=\"any\" inputmode=\"decimal\" id=\"{field}\" class=\"pw-drill-field\" disabled>"
            ),
            format!(" <span class=\"pw-drill-unit\">{}</span>", p.unit),
        ),
        None => (
            "Your answer, before you look:".to_string(),
            format!("<textarea rows=\"2\" id=\"{field}\" class=\"pw-drill-field\" disabled></textarea>"),
            String::new(),
        ),
    };
    format!(
        "<form class=\"pw-drill-guess\"><label for=\"{field}\">{label}</label> {input}{unit} \
         <button type=\"submit\" class=\"pw-drill-commit\" disabled>Commit guess</button> \
         <span class=\"pw-drill-said\" aria-live=\"polite\"></span></form>\n"
    )
}

/// Who a measured value belongs to: the hash key and how the page names it
/// (the run's name comes from `run.kind`).
const REFERENCES: [(&str, &str); 2] = [
    ("r1", "the reference laptop (R1)"),
    ("r2", "the reference lab machine (R2)"),
];

fn drill<'reg, 'rc>(
    h: &Helper<'rc>,
    r: &'reg Handlebars<'reg>,
    ctx: &'rc Context,
    rc: &mut RenderContext<'reg, 'rc>,
    out: &mut dyn Output,
) -> HelperResult {
    let id = h
        .param(0)
        .and_then(|p| p.value().as_str())
        .ok_or_else(|| err("takes the drill's id as a string"))?;
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(err(&format!(
            "id `{id}`: use lowercase letters, digits and `-`"
        )));
    }
    let text = |key: &str| h.hash_get(key).and_then(|v| v.value().as_str());
    let chapter = text("chapter").ok_or_else(|| err(&format!("{id}: needs chapter=")))?;
    let title = text("title").ok_or_else(|| err(&format!("{id}: needs title=")))?;
    let predict = match text("predict") {
        None => None,
        Some(kind) => Some(Predict::new(kind).ok_or_else(|| {
            err(&format!(
                "{id}: predict=`{kind}` is not one of dur, ratio, bytes"
            ))
        })?),
    };

    let mut open = format!(
        "<div class=\"pw-drill\" id=\"drill-{id}\" data-drill=\"{id}\"{}>\n\n",
        predict.as_ref().map_or(String::new(), |p| format!(
            " data-predict=\"{}\" data-unit=\"{}\" data-scale=\"{}\" data-what=\"{}\"",
            p.kind,
            p.unit,
            p.scale,
            escape_text(text("what").unwrap_or("the value"))
        ))
    );
    // Markdown links, so mdBook points them at the right page in the
    // chapter pages and in print.html alike.
    let mut links = vec![format!("[Chapter: {}]({chapter})", title)];
    if let Some(chart) = text("chart") {
        let page = text("chart_in").unwrap_or(chapter.split('#').next().unwrap_or(chapter));
        // The chart's name in words: `first-touch-ns-per-page` reads
        // "first touch ns per page".
        let words = chart.replace('-', " ");
        links.push(format!("[Chart: {words}]({page}#chart-{chart})"));
    }
    if let Some(exp) = text("experiment") {
        links.push(format!(
            "Experiment: <code>collector run {}</code>",
            escape_text(exp)
        ));
    }
    // Its own block, so Markdown reads the links inside it.
    open.push_str(&format!(
        "<div class=\"pw-drill-links\">\n\n{}\n\n</div>\n\n",
        links.join(" · ")
    ));
    let on = ctx
        .data()
        .pointer("/run/kind")
        .and_then(Value::as_str)
        .unwrap_or("this run");
    let what = text("what").unwrap_or("the value");
    open.push_str(&guess_form(id, predict.as_ref().map(|p| (p, what, on))));
    open.push_str("<details class=\"pw-drill-answer\">\n<summary>Answer</summary>\n\n");
    if let Some(p) = &predict {
        open.push_str(&measured(h, ctx, id, p)?);
    }
    out.write(&open)?;
    if let Some(t) = h.template() {
        t.render(r, ctx, rc, out)?;
    }
    out.write("\n\n</details>\n</div>\n\n")?;
    Ok(())
}

/// How a predicted figure is typed and shown.
struct Predict {
    kind: &'static str,
    /// The unit the reader types the guess in.
    unit: &'static str,
    /// Guess × scale = the value's own unit (KiB typed, bytes stored).
    scale: u32,
}

impl Predict {
    fn new(kind: &str) -> Option<Predict> {
        Some(match kind {
            "dur" => Predict {
                kind: "dur",
                unit: "ns",
                scale: 1,
            },
            "ratio" => Predict {
                kind: "ratio",
                unit: "×",
                scale: 1,
            },
            "bytes" => Predict {
                kind: "bytes",
                unit: "KiB",
                scale: 1024,
            },
            _ => return None,
        })
    }

    fn text(&self, v: f64) -> String {
        match self.kind {
            "dur" => format_dur(v),
            "ratio" => format_ratio(v),
            _ => pagewalk_figures::size_label(v.round() as u64),
        }
    }
}

/// The measured values as a list in the answer: readable without
/// JavaScript, and what the script reads (`data-value`) to set a guess
/// beside them. The run is always listed ("not measured" when absent); a
/// reference only when the drill names a path for it.
fn measured(h: &Helper, ctx: &Context, id: &str, p: &Predict) -> Result<String, RenderError> {
    let kind = ctx
        .data()
        .pointer("/run/kind")
        .and_then(Value::as_str)
        .unwrap_or("this run");
    let mut items = String::new();
    let mut who = vec![("run", kind)];
    who.extend(REFERENCES);
    for (key, name) in who {
        if key != "run" && h.hash_get(key).is_none() {
            continue;
        }
        let value = value_of(h, ctx, id, key)?;
        let shown = value.map_or_else(|| "not measured".to_string(), |v| p.text(v));
        let data = value.map_or(String::new(), |v| format!(" data-value=\"{v}\""));
        items.push_str(&format!(
            "<li data-who=\"{key}\"{data}><span class=\"pw-drill-who\">{}</span>: <span class=\"pw-drill-value\">{}</span></li>\n",
            escape_text(name),
            escape_text(&shown)
        ));
    }
    Ok(format!(
        "<ul class=\"pw-drill-measured\" aria-label=\"Measured values\">\n{items}</ul>\n\n"
    ))
}

/// `KEY` (divided by `KEY_per` when given): `None` for an honest gap; a
/// path that is not in the context fails the build.
fn value_of(h: &Helper, ctx: &Context, id: &str, key: &str) -> Result<Option<f64>, RenderError> {
    let number = |k: &str| -> Result<Option<f64>, RenderError> {
        let Some(p) = h.hash_get(k) else {
            return Ok(None);
        };
        if p.is_value_missing() {
            let path = p.relative_path().map_or("?", |s| s.as_str());
            if !crate::helpers::passes_through_null(ctx.data(), path) {
                return Err(err(&format!(
                    "{id}: `{path}` is not in the context (see preprocessor/TEMPLATES.md)"
                )));
            }
            return Ok(None);
        }
        match p.value() {
            Value::Null => Ok(None),
            v => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| err(&format!("{id}: {k}= is not a number: {v}"))),
        }
    };
    let per = format!("{key}_per");
    let v = number(key)?;
    if h.hash_get(&per).is_none() {
        return Ok(v);
    }
    Ok(match (v, number(&per)?) {
        (Some(a), Some(b)) if b != 0.0 => Some(a / b),
        _ => None,
    })
}

fn err(msg: &str) -> RenderError {
    RenderErrorReason::Other(format!("{{{{#drill}}}}: {msg}")).into()
}

#[cfg(test)]
mod tests {
    use handlebars::Handlebars;
    use serde_json::json;

    fn render(template: &str) -> Result<String, String> {
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        super::register(&mut hb);
        let ctx = json!({
            "run": {"kind": "your machine"},
            "syscall": {"ops": {"getpid": {"ns": 95.25}}, "gone": null},
            "r2": {"syscall": {"ops": {"getpid": {"ns": 70.0}}}},
            "ft": {"a": 300.0, "b": 100.0}
        });
        hb.render_template(template, &ctx)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn answer_is_collapsed_and_linked() {
        let html = render(
            "{{#drill \"x\" chapter=\"syscalls.md\" title=\"The syscall floor\" chart=\"syscall-floor\" experiment=\"syscall\"}}Because.{{/drill}}",
        )
        .unwrap();
        assert!(html.contains("<details class=\"pw-drill-answer\">"));
        assert!(!html.contains("<details class=\"pw-drill-answer\" open"));
        assert!(html.contains("[Chapter: The syscall floor](syscalls.md)"));
        assert!(html.contains("(syscalls.md#chart-syscall-floor)"));
        assert!(html.contains("<code>collector run syscall</code>"));
        assert!(html.contains("\n\nBecause.\n\n</details>"));
        // The guess form is in the page before the answer, disabled.
        let form = html.find("<form class=\"pw-drill-guess\">").unwrap();
        assert!(form < html.find("<details").unwrap());
        assert!(html.contains(
            "<label for=\"pw-guess-x\">Your answer, before you look:</label> \
             <textarea rows=\"2\" id=\"pw-guess-x\" class=\"pw-drill-field\" disabled></textarea> \
             <button type=\"submit\" class=\"pw-drill-commit\" disabled>"
        ));
    }

    #[test]
    fn predicted_values_come_from_the_context() {
        let html = render(
            "{{#drill \"g\" chapter=\"s.md\" title=\"S\" predict=\"dur\" what=\"getpid\" run=syscall.ops.getpid.ns r2=r2.syscall.ops.getpid.ns}}A{{/drill}}",
        )
        .unwrap();
        assert!(html.contains("data-predict=\"dur\""));
        assert!(html.contains("<li data-who=\"run\" data-value=\"95.25\"><span class=\"pw-drill-who\">your machine</span>: <span class=\"pw-drill-value\">95 ns</span>"));
        assert!(html.contains("data-who=\"r2\" data-value=\"70\""));
        assert!(!html.contains("data-who=\"r1\""));
        assert!(html.contains(
            "<label for=\"pw-guess-g\">Predict getpid on your machine:</label> \
             <input type=\"number\" min=\"0\" step=\"any\" inputmode=\"decimal\" id=\"pw-guess-g\" class=\"pw-drill-field\" disabled> \
             <span class=\"pw-drill-unit\">ns</span>"
        ));
    }

    #[test]
    fn a_ratio_divides_and_a_gap_is_not_measured() {
        let html = render(
            "{{#drill \"r\" chapter=\"s.md\" title=\"S\" predict=\"ratio\" run=ft.a run_per=ft.b r2=syscall.gone.x}}A{{/drill}}",
        )
        .unwrap();
        assert!(html.contains("data-who=\"run\" data-value=\"3\""));
        assert!(html.contains("3.0×"));
        assert!(html.contains("<li data-who=\"r2\"><span class=\"pw-drill-who\">the reference lab machine &#40;R2&#41;</span>: <span class=\"pw-drill-value\">not measured</span>"));
    }

    #[test]
    fn typos_and_bad_ids_fail_the_build() {
        let typo = render(
            "{{#drill \"t\" chapter=\"s.md\" title=\"S\" predict=\"dur\" run=syscall.ops.getpdi.ns}}A{{/drill}}",
        );
        assert!(typo.unwrap_err().contains("getpdi"));
        assert!(render("{{#drill \"Bad Id\" chapter=\"s.md\" title=\"S\"}}A{{/drill}}").is_err());
        assert!(render("{{#drill \"x\" title=\"S\"}}A{{/drill}}").is_err());
        assert!(render(
            "{{#drill \"x\" chapter=\"s.md\" title=\"S\" predict=\"pages\" run=ft.a}}A{{/drill}}"
        )
        .is_err());
    }
}
