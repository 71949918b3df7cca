use super::*;
use serde_json::json;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ft": {"anyOf": [{"$ref": "#/$defs/Ft"}, {"type": "null"}]},
            "list": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "free": true
        },
        "$defs": {
            "Ft": {"type": "object", "properties": {
                "verdict": {"anyOf": [{"$ref": "#/$defs/Order"}, {"type": "null"}]},
                "name": {"type": "string"}
            }},
            "Item": {"type": "object", "properties": {"x": {"type": "number"}}},
            "Order": {"type": "string", "enum": ["slower", "faster", "within-noise"]}
        }
    })
}

fn check(source: &str) -> Vec<String> {
    let schema = schema();
    let helper = |n: &str| n == "num";
    Checker::new(&schema, &helper).check(source)
}

#[test]
fn keys_and_outcomes_are_checked_in_every_branch() {
    assert!(check("{{#if (eq ft.verdict \"slower\")}}a{{else}}{{ft.name}}{{/if}}").is_empty());
    let e = check("{{#if false}}{{#if (eq ft.verdict \"slowr\")}}a{{/if}}{{/if}}");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`ft.verdict` is never \"slowr\""), "{e:?}");
    let e = check("x\n{{#unless ft}}{{ft.verdcit}}{{/unless}}");
    assert_eq!(
        e,
        ["line 2: `ft.verdcit` is not in the context (see preprocessor/TEMPLATES.md)"]
    );
    // A free-form value takes anything; a string field any literal.
    assert!(check("{{free.a.b}}{{#if (eq ft.name \"zz\")}}{{/if}}").is_empty());
}

#[test]
fn scopes_follow_each_with_and_parents() {
    assert!(check("{{#each list}}{{x}}{{this.x}}{{../ft.name}}{{@index}}{{/each}}").is_empty());
    assert_eq!(check("{{#each list}}{{y}}{{/each}}").len(), 1);
    assert!(check("{{#with ft}}{{name}}{{@root.list.length}}{{/with}}").is_empty());
    assert_eq!(check("{{#with ft}}{{list}}{{/with}}").len(), 1);
    // Helpers are not keys; their arguments are.
    assert!(check("{{num ft.name}}").is_empty());
    assert_eq!(check("{{num ft.nme}}").len(), 1);
    assert_eq!(check("{{unknownthing}}").len(), 1);
}

#[test]
fn inline_partials_are_checked_where_they_are_used() {
    let defined = "{{#*inline \"p\"}}{{x}}{{/inline}}";
    // Not used: nothing to check it against.
    assert!(check(defined).is_empty());
    assert!(check(&format!(
        "{defined}{{{{#each list}}}}{{{{> p}}}}{{{{/each}}}}"
    ))
    .is_empty());
    assert_eq!(check(&format!("{defined}{{{{> p}}}}")).len(), 1);
}
