//! `{{#whose "ft" ft.modes.nohugepage.first what="first-touch"}}...{{else}}...{{/whose}}`:
//! a chapter's "Whose numbers" box.
//!
//! With results (the second parameter truthy) it writes the box's opening,
//! whose run the view `whose.<view>` comes from (`> **Whose numbers.**
//! "This run" means the example machine: CPU, kernel K`), then the block,
//! where the chapter says what is experiment-specific (a virtual machine's
//! effect, the sizes, a `--quick` run, the references), and a last line
//! only when the machine was busy enough to matter to those figures
//! (`background.verdict`, see `judge::busy`). Without, it writes
//! the box for no results (the collector's reason from `<view>.skipped`,
//! that this run's figures read `n/a`, and the command that fills them in:
//! `run=` names the experiments, `what` by default), then the `{{else}}`
//! block. Every value goes through [`escape_text`].
//!
//! | parameter | what |
//! | --- | --- |
//! | 1 | the view key (`ft`, `stair`, `tail`, ...), as under `whose` |
//! | 2 | what says the view has results (`ft.modes.nohugepage.first`) |
//! | `what=` | the results, named (`first-touch`, `per-iteration tail`) |
//! | `run=` | the experiments to run, if not `what` (`staircase tlb-reach thp`) |

use handlebars::{
    Context, Handlebars, Helper, HelperResult, JsonTruthy, Output, RenderContext, RenderError,
    RenderErrorReason, Renderable,
};
use pagewalk_model::judge::busy::Busy;
use serde_json::Value;

use crate::helpers::{escape_text, MISSING};

pub fn register(hb: &mut Handlebars<'static>) {
    hb.register_helper("whose", Box::new(whose));
}

fn err(msg: &str) -> RenderError {
    RenderErrorReason::Other(format!("{{{{#whose}}}}: {msg}")).into()
}

fn whose<'reg, 'rc>(
    h: &Helper<'rc>,
    r: &'reg Handlebars<'reg>,
    ctx: &'rc Context,
    rc: &mut RenderContext<'reg, 'rc>,
    out: &mut dyn Output,
) -> HelperResult {
    let view = h
        .param(0)
        .and_then(|p| p.value().as_str())
        .ok_or_else(|| err("takes the view's key as a string"))?;
    let root = ctx.data();
    let run = root
        .get("whose")
        .and_then(|w| w.as_object())
        .and_then(|w| w.get(view))
        .ok_or_else(|| err(&format!("`whose.{view}` is not in the context")))?;
    let results = h
        .param(1)
        .ok_or_else(|| err("takes, second, what says the view has results"))?;
    if results.is_value_missing() {
        let path = results.relative_path().map_or("?", |s| s.as_str());
        if !crate::helpers::passes_through_null(root, path) {
            return Err(err(&format!(
                "`{path}` is not in the context (see preprocessor/TEMPLATES.md)"
            )));
        }
    }
    let what = h
        .hash_get("what")
        .and_then(|w| w.value().as_str())
        .ok_or_else(|| err("takes what=\"...\", the results named"))?;
    if results.value().is_truthy(false) {
        out.write(&opening(run))?;
        if let Some(t) = h.template() {
            let body = t.renders(r, ctx, rc)?;
            out.write(body.trim_end_matches('\n'))?;
            out.write(&background(run))?;
            out.write("\n")?;
        }
    } else {
        let experiments = h
            .hash_get("run")
            .and_then(|w| w.value().as_str())
            .unwrap_or(what);
        // Written into a code span, where a character reference would show
        // as itself: only experiment names, which need no escape.
        if !experiments
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-' || c == ' ')
        {
            return Err(err("run= takes experiment names only"));
        }
        let skipped = root
            .get(view)
            .and_then(|v| v.get("skipped"))
            .and_then(Value::as_str);
        out.write(&no_results(what, skipped, experiments))?;
        if let Some(t) = h.inverse() {
            t.render(r, ctx, rc, out)?;
        }
    }
    Ok(())
}

/// `> **Whose numbers.** "This run" means KIND: CPU, kernel K`.
fn opening(run: &Value) -> String {
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map_or(MISSING.to_string(), escape_text)
    };
    let machine = run.get("machine");
    format!(
        "> **Whose numbers.** \"This run\" means {}: {}, kernel {}",
        text(run.get("kind")),
        text(machine.and_then(|m| m.get("cpu"))),
        text(machine.and_then(|m| m.get("kernel"))),
    )
}

/// The box's last line, only when the machine was busy enough to matter
/// to the figures (`background.verdict`, filed in Rust by
/// `judge::busy`): the sentence that names what was high. A quiet machine
/// gets no line; the method page lists every experiment's figures.
fn background(run: &Value) -> String {
    let Some(b) = run.get("background").filter(|b| !b.is_null()) else {
        return String::new();
    };
    let busy = b.get("verdict") == serde_json::to_value(Busy::Busy).ok().as_ref();
    match b.get("busy").and_then(Value::as_str).filter(|_| busy) {
        Some(sentence) => format!(
            "\n> {} ([how busy the machine was](noise.md#how-busy-the-machine-was)).",
            escape_text(sentence.trim_end_matches('.'))
        ),
        None => String::new(),
    }
}

/// The box's words for a view with no results.
fn no_results(what: &str, skipped: Option<&str>, experiments: &str) -> String {
    // The view's reason, in a reader's words already (`reason::in_words`).
    let reported = skipped
        .filter(|s| !s.is_empty())
        .map_or(String::new(), |s| {
            format!(" (the collector reported: {})", escape_text(s))
        });
    format!(
        "> **Whose numbers.** This build has no {} results{reported}. The \"this run\"\n\
         > figures read `n/a` and the sentences that would interpret them are left\n\
         > out. Run `cargo run --release -p collector -- run {experiments}` and\n\
         > rebuild to see your own machine.\n",
        escape_text(what)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_escapes_the_run_and_says_n_a_for_a_gap() {
        let run = serde_json::json!({
            "kind": "your machine",
            "machine": {"cpu": "AMD [x](y)", "kernel": "6.8.0"},
        });
        assert_eq!(
            opening(&run),
            "> **Whose numbers.** \"This run\" means your machine: AMD &#91;x&#93;&#40;y&#41;, kernel 6.8.0"
        );
        let bare = serde_json::json!({"kind": "the example machine", "machine": null});
        assert!(opening(&bare).ends_with("machine: n/a, kernel n/a"));
    }

    #[test]
    fn the_box_ends_with_a_line_only_when_the_machine_was_busy() {
        let quiet = serde_json::json!({"background": {"verdict": "quiet", "busy": null}});
        assert_eq!(background(&quiet), "");
        assert_eq!(background(&serde_json::json!({"background": null})), "");
        let busy = serde_json::json!({"background": {
            "verdict": "busy",
            "busy": "While this ran, the hypervisor took 7% of the CPU time for others (steal): its timings may vary more.",
        }});
        assert_eq!(
            background(&busy),
            "\n> While this ran, the hypervisor took 7% of the CPU time for others &#40;steal&#41;: \
             its timings may vary more ([how busy the machine was](noise.md#how-busy-the-machine-was))."
        );
    }

    #[test]
    fn no_results_names_the_reason_and_the_command() {
        let text = no_results("first-touch", Some("no <perf>"), "first-touch");
        assert!(text.contains("no first-touch results (the collector reported: no &lt;perf&gt;)."));
        assert!(text.contains("`cargo run --release -p collector -- run first-touch`"));
        assert!(!no_results("tail", None, "tail").contains("reported"));
        // No reason recorded: no empty parentheses.
        assert!(!no_results("tail", Some(""), "tail").contains("reported"));
    }
}
