//! `TEMPLATES.md`'s list of context keys is generated from the typed views
//! in `src/context/` (their JSON schema, `context::schema()`, carries every
//! field's doc comment). This test fails when the committed list differs
//! from the code, and says how to rewrite it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

const BEGIN: &str = "<!-- BEGIN GENERATED KEYS";
const END: &str = "<!-- END GENERATED KEYS -->";
const COMMAND: &str = "UPDATE_TEMPLATES=1 cargo test -p mdbook-pagewalk --test templates_doc";

#[test]
fn templates_md_lists_the_context_keys_of_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("TEMPLATES.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (start, end) = match (text.find(BEGIN), text.find(END)) {
        (Some(s), Some(e)) if s < e => (s, e + END.len()),
        _ => panic!("TEMPLATES.md has no `{BEGIN} ... {END}` section"),
    };
    let wanted = format!(
        "{BEGIN}: `{COMMAND}` rewrites this part from the doc comments in preprocessor/src/context/ -->\n\n{}\n{END}",
        key_list(&serde_json::to_value(mdbook_pagewalk::context::schema()).unwrap())
    );
    if text[start..end] == wanted {
        return;
    }
    if std::env::var_os("UPDATE_TEMPLATES").is_some() {
        let updated = format!("{}{wanted}{}", &text[..start], &text[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "preprocessor/TEMPLATES.md lists other context keys than the views in src/context/ define \
         (a field or its doc comment changed). Rewrite the list with:\n\n    {COMMAND}\n"
    );
}

/// A struct's properties by name: the order of a `serde_json` map depends
/// on whether another crate in the build turned on its `preserve_order`
/// feature (`cargo test --workspace` does), and the list must not.
fn sorted(def: &Value) -> Vec<(&String, &Value)> {
    let mut props: Vec<(&String, &Value)> = def["properties"]
        .as_object()
        .expect("a view is an object")
        .iter()
        .collect();
    props.sort_by(|a, b| a.0.cmp(b.0));
    props
}

/// One table per view struct, depth first from the top level (a struct's
/// parts follow it), each under the first path where it appears and with
/// every other path where it does.
fn key_list(schema: &Value) -> String {
    let mut uses = BTreeMap::<String, Vec<String>>::new();
    walk(schema, &mut BTreeSet::new(), &mut |path, name, _| {
        uses.entry(name.to_string())
            .or_default()
            .push(path.to_string());
        true
    });
    let mut out = String::new();
    walk(schema, &mut BTreeSet::new(), &mut |path, name, def| {
        let first = &uses[name][0];
        if path != first {
            return false;
        }
        if path.is_empty() {
            out.push_str("### The top level\n\n");
        } else {
            out.push_str(&format!("### `{path}` ({name})\n\n"));
        }
        if let Some(d) = def["description"].as_str() {
            out.push_str(&format!("{}\n\n", one_line(d)));
        }
        let others: Vec<String> = uses[name][1..].iter().map(|p| format!("`{p}`")).collect();
        if !others.is_empty() {
            out.push_str(&format!("Also at {}.\n\n", others.join(", ")));
        }
        out.push_str("| key | value | what it is |\n| --- | --- | --- |\n");
        for (key, prop) in sorted(def) {
            let (kind, _, _) = describe(schema, prop);
            let what = prop["description"]
                .as_str()
                .map(one_line)
                .unwrap_or_default();
            out.push_str(&format!(
                "| `{key}` | {kind} | {} |\n",
                what.replace('|', "\\|")
            ));
        }
        out.push('\n');
        true
    });
    out.trim_end().to_string() + "\n"
}

/// Visits every struct the context reaches, depth first, as `visit(path,
/// name, definition)`; a struct's parts are visited when `visit` says so,
/// once per (path, name) on any one branch.
fn walk(
    schema: &Value,
    seen: &mut BTreeSet<String>,
    visit: &mut dyn FnMut(&str, &str, &Value) -> bool,
) {
    fn go(
        schema: &Value,
        path: String,
        name: String,
        seen: &mut BTreeSet<String>,
        visit: &mut dyn FnMut(&str, &str, &Value) -> bool,
    ) {
        let def = if name.is_empty() {
            schema
        } else {
            &schema["$defs"][name.as_str()]
        };
        let label = if name.is_empty() {
            "Context"
        } else {
            name.as_str()
        };
        if !visit(&path, label, def) || !seen.insert(name.clone()) {
            return;
        }
        // The published sources' views (`r1`, `r2`) last: they are the
        // shown run's structs again, best documented under the run's path.
        let mut props = sorted(def);
        props.sort_by_key(|(_, p)| describe(schema, p).1.as_deref() == Some("Views"));
        for (key, prop) in props {
            let (_, target, list) = describe(schema, prop);
            if let Some(target) = target {
                let key = if list {
                    format!("{key}[]")
                } else {
                    key.clone()
                };
                let sub = if path.is_empty() {
                    key
                } else {
                    format!("{path}.{key}")
                };
                go(schema, sub, target, seen, visit);
            }
        }
    }
    go(schema, String::new(), String::new(), seen, visit);
}

/// A property's value in words, the struct it leads to, and whether that
/// struct is a list's item. A verdict's outcome type (`Order`) is a value,
/// not a struct: its words are listed (`one of `slower`, `faster``).
fn describe(schema: &Value, prop: &Value) -> (String, Option<String>, bool) {
    if let Some(r) = prop["$ref"].as_str() {
        let name = r.trim_start_matches("#/$defs/").to_string();
        if let Some(words) = outcomes(&schema["$defs"][name.as_str()]) {
            return (format!("one of {}", words.join(", ")), None, false);
        }
        return (format!("`{name}`"), Some(name), false);
    }
    if let Some(any) = prop["anyOf"].as_array() {
        let inner = any.iter().find(|v| v["type"] != "null").unwrap();
        let (kind, target, list) = describe(schema, inner);
        let or = if kind.starts_with("one of ") {
            ", or"
        } else {
            " or"
        };
        return (format!("{kind}{or} null"), target, list);
    }
    let types: Vec<&str> = match &prop["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let nullable = types.contains(&"null");
    let (kind, target, list) = match types.iter().find(|t| **t != "null") {
        Some(&"array") => {
            let (item, target, _) = describe(schema, &prop["items"]);
            (format!("list of {item}"), target, true)
        }
        Some(&"object") => ("map of text".to_string(), None, false),
        Some(&"string") => ("text".to_string(), None, false),
        Some(&"boolean") => ("true or false".to_string(), None, false),
        Some(&"integer") => ("integer".to_string(), None, false),
        Some(&"number") => ("number".to_string(), None, false),
        _ => ("any".to_string(), None, false),
    };
    let kind = if nullable {
        format!("{kind} or null")
    } else {
        kind
    };
    (kind, target, list)
}

/// The words an outcome type serializes as, each as code, from its schema
/// (`enum`, or `oneOf` with a `const` per documented variant); `None` for
/// anything else.
fn outcomes(def: &Value) -> Option<Vec<String>> {
    let words: Option<Vec<String>> = match (def["enum"].as_array(), def["oneOf"].as_array()) {
        (Some(list), _) => list
            .iter()
            .map(|w| w.as_str().map(str::to_string))
            .collect(),
        (None, Some(list)) => list
            .iter()
            .map(|b| b["const"].as_str().map(str::to_string))
            .collect(),
        (None, None) => None,
    };
    words
        .filter(|w| !w.is_empty())
        .map(|w| w.iter().map(|w| format!("`{w}`")).collect())
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every object in a built context has exactly the keys its struct's
/// schema lists (each present, null where absent; none undocumented), for
/// the shown run and the references alike, on the committed example run.
#[test]
fn the_built_context_has_exactly_the_documented_keys() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let dir = tempfile::tempdir().unwrap();
    for sub in ["example", "reference", "example-inspection"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(data.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.path().join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    let set = mdbook_pagewalk::DataSet::load(dir.path()).unwrap();
    let context = mdbook_pagewalk::context::build(&set);
    let schema = serde_json::to_value(mdbook_pagewalk::context::schema()).unwrap();
    let mut checked = 0;
    same_keys(&schema, &schema, &context, "", &mut checked);
    assert!(checked > 500, "only {checked} objects checked");
}

fn same_keys(schema: &Value, def: &Value, value: &Value, path: &str, checked: &mut usize) {
    // Resolve a reference, and an `anyOf` with null (an `Option`).
    if let Some(r) = def["$ref"].as_str() {
        let name = r.trim_start_matches("#/$defs/");
        return same_keys(schema, &schema["$defs"][name], value, path, checked);
    }
    if let Some(any) = def["anyOf"].as_array() {
        if value.is_null() {
            return;
        }
        let inner = any.iter().find(|v| v["type"] != "null").unwrap();
        return same_keys(schema, inner, value, path, checked);
    }
    match value {
        Value::Object(map) => {
            let Some(props) = def["properties"].as_object() else {
                return; // a map of text (`ft.stated`)
            };
            let documented: BTreeSet<&String> = props.keys().collect();
            let present: BTreeSet<&String> = map.keys().collect();
            assert_eq!(present, documented, "the keys at `{path}`");
            *checked += 1;
            for (key, v) in map {
                let sub = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                same_keys(schema, &props[key], v, &sub, checked);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                same_keys(schema, &def["items"], v, &format!("{path}[{i}]"), checked);
            }
        }
        _ => {}
    }
}
