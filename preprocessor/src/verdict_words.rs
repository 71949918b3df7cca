//! The words for "no difference", in one place: every chapter that branches
//! on an order verdict (`judge::order`: slower, faster, within noise,
//! unstable, unrepeated) says why two figures could not be told apart
//! through these two helpers, so the three ways it can happen are worded
//! once and a chapter cannot forget one of them.
//!
//! - `(no_difference x)`: true for `within-noise`, `unstable` and
//!   `unrepeated`, the outcomes that claim no difference;
//! - `{{why_no_difference x}}`: the clause that says which, to follow a
//!   colon or a dash.
//!
//! Both fail the build on a value that is not an order, so they cannot be
//! pointed at another kind of verdict by mistake.

use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason, ScopedJson,
};
use pagewalk_model::judge::Order;
use serde_json::Value;

pub fn register(hb: &mut Handlebars<'static>) {
    hb.register_helper("no_difference", Box::new(NoDifference));
    hb.register_helper("why_no_difference", Box::new(why_no_difference));
}

/// Why `order` claims no difference; `None` for a difference.
pub fn why(order: Order) -> Option<&'static str> {
    match order {
        Order::Slower | Order::Faster => None,
        Order::WithinNoise => Some(
            "the gap is no larger than the run's A-vs-A floor, the most two \
             identical batches differed by on this machine",
        ),
        Order::Unstable => Some(
            "their repetitions overlap, so this run cannot tell them apart; \
             more repetitions could",
        ),
        Order::Unrepeated => {
            Some("each was measured once, so nothing shows how far either moves by itself")
        }
    }
}

/// The order a helper was given: `None` for null (no verdict).
fn order_of(h: &Helper, name: &str) -> Result<Option<Order>, RenderError> {
    let param = h
        .param(0)
        .ok_or_else(|| RenderErrorReason::Other(format!("{name} takes an order verdict")))?;
    match param.value() {
        Value::Null => Ok(None),
        v => serde_json::from_value::<Order>(v.clone()).map(Some).map_err(|_| {
            let path = param.relative_path().map_or("?", |p| p.as_str());
            RenderErrorReason::Other(format!(
                "{name}: `{path}` is {v}, not an order (slower, faster, within-noise, unstable, unrepeated)"
            ))
            .into()
        }),
    }
}

struct NoDifference;

impl HelperDef for NoDifference {
    fn call_inner<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
    ) -> Result<ScopedJson<'rc>, RenderError> {
        let none = order_of(h, "no_difference")?.is_some_and(|o| why(o).is_some());
        Ok(ScopedJson::Derived(Value::Bool(none)))
    }
}

fn why_no_difference(
    h: &Helper,
    _: &Handlebars,
    _: &Context,
    _: &mut RenderContext,
    out: &mut dyn Output,
) -> HelperResult {
    if let Some(words) = order_of(h, "why_no_difference")?.and_then(why) {
        out.write(words)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(template: &str, x: Value) -> Result<String, String> {
        let mut hb = Handlebars::new();
        register(&mut hb);
        hb.render_template(template, &serde_json::json!({ "x": x }))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_outcome_without_a_difference_has_its_words() {
        for o in Order::ALL {
            let v = serde_json::to_value(o).unwrap();
            let flag = render("{{#if (no_difference x)}}yes{{/if}}", v.clone()).unwrap();
            assert_eq!(flag == "yes", !o.is_difference(), "{o:?}");
            let words = render("{{why_no_difference x}}", v).unwrap();
            assert_eq!(words.is_empty(), o.is_difference(), "{o:?}");
        }
        assert_eq!(
            render("{{#if (no_difference x)}}yes{{/if}}", Value::Null).unwrap(),
            ""
        );
    }

    #[test]
    fn a_value_that_is_not_an_order_fails() {
        let e = render("{{#if (no_difference x)}}{{/if}}", "found".into()).unwrap_err();
        assert!(e.contains("`x` is \"found\", not an order"), "{e}");
        assert!(render("{{why_no_difference x}}", "all".into()).is_err());
    }
}
