//! `pagewalk_model::json` names the same field with the same message as
//! serde_json's reader wrapped in `serde_path_to_error` (what the model used
//! before), for every node of the committed files, each changed in every
//! way a hand-edited file goes wrong: a wrong type, null, a number too big,
//! an unknown key, a missing one.
//!
//! One difference is on purpose: inside an internally tagged enum
//! (`provenance`), serde's derive reads the fields from a buffer that
//! loses the path, so it says `provenance`; this reader names the field
//! (`provenance.run_id`). [`agrees`] allows exactly that.

use pagewalk_model::{json, RunFile};
use serde_json::{json as value, Value};

/// The committed files, long arrays cut to two items so that every node
/// can be changed in turn.
fn documents() -> Vec<(String, Value)> {
    pagewalk_model::committed::files()
        .into_iter()
        .map(|p| {
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            shorten(&mut v);
            (p.display().to_string(), v)
        })
        .collect()
}

fn shorten(v: &mut Value) {
    match v {
        Value::Array(items) => {
            items.truncate(2);
            items.iter_mut().for_each(shorten);
        }
        Value::Object(map) => map.values_mut().for_each(shorten),
        _ => {}
    }
}

/// Every node's JSON pointer.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                pointers(
                    item,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

/// What the model used to say: (field, message), or Ok.
fn before(v: &Value) -> Result<(), (Option<String>, String)> {
    serde_path_to_error::deserialize::<_, RunFile>(v.clone())
        .map(drop)
        .map_err(|e| {
            let path = e.path().to_string();
            ((path != ".").then_some(path), e.into_inner().to_string())
        })
}

/// The same result, or the same message at a field inside `provenance`
/// where serde could only name `provenance`.
fn agrees(
    now: &Result<(), (Option<String>, String)>,
    before: &Result<(), (Option<String>, String)>,
) -> bool {
    match (now, before) {
        (Err((Some(field), message)), Err((Some(old), old_message)))
            if old == "provenance" && message == old_message =>
        {
            field == old || field.starts_with("provenance.")
        }
        _ => now == before,
    }
}

fn now(v: &Value) -> Result<(), (Option<String>, String)> {
    json::from_value::<RunFile>(v)
        .map(drop)
        .map_err(|e| (e.field(), e.message().to_string()))
}

#[test]
fn every_changed_node_gets_the_same_error_as_before() {
    let replacements = [
        Value::Null,
        value!(true),
        value!(1.5),
        value!(-1),
        value!(1e300),
        value!(18446744073709551615u64),
        value!("x"),
        value!({}),
        value!({ "unknown": 1 }),
        value!([]),
        value!(["x"]),
    ];
    let mut checked = 0;
    for (name, doc) in documents() {
        assert_eq!(before(&doc), Ok(()), "{name} reads");
        let mut all = Vec::new();
        pointers(&doc, String::new(), &mut all);
        for at in &all {
            let original = doc.pointer(at).unwrap();
            for r in &replacements {
                // A struct written as an array is refused by type now; the
                // old reader read it field by field (see `json`).
                if original.is_object() && r.is_array() {
                    continue;
                }
                let mut changed = doc.clone();
                *changed.pointer_mut(at).unwrap() = r.clone();
                let (now, before) = (now(&changed), before(&changed));
                assert!(
                    agrees(&now, &before),
                    "{name}: {at} = {r}\n   now: {now:?}\nbefore: {before:?}"
                );
                checked += 1;
            }
            if let Some(map) = original.as_object() {
                for key in map.keys() {
                    let mut changed = doc.clone();
                    changed
                        .pointer_mut(at)
                        .and_then(Value::as_object_mut)
                        .unwrap()
                        .remove(key);
                    let (now, before) = (now(&changed), before(&changed));
                    assert!(
                        agrees(&now, &before),
                        "{name}: {at} without {key}\n   now: {now:?}\nbefore: {before:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} changes checked");
}

/// Parameters and specs read through `json::from_str` name the field too;
/// a file that is not JSON at all says where it stops being JSON.
#[test]
fn text_that_does_not_parse_says_where() {
    let e = json::from_str::<Vec<u32>>("[1, 2").unwrap_err();
    assert_eq!(e.field(), None);
    assert!(e.message().contains("line 1 column 5"), "{e}");
    let e = json::from_str::<Vec<u32>>("[1, -2]").unwrap_err();
    assert_eq!(e.field().as_deref(), Some("[1]"));
    assert_eq!(
        e.to_string(),
        "field `[1]`: invalid value: integer `-2`, expected u32"
    );
}
