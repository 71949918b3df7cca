//! The page reads chart specs with `pagewalk_model::json` (the derived
//! `FromJson`); serde's derive on the same types is the specification.
//! Every chart built from the committed runs reads back equal to what was
//! written, and every node of those specs changed to a wrong type, null or
//! removed gets the same message from both readers (serde's own reader
//! cannot name the field; the message is the same).

use pagewalk_figures::{build, ChartSpec, CHART_NAMES};
use pagewalk_model::{json, read_run, RunFile};
use serde_json::{json as value, Value};

fn runs() -> Vec<RunFile> {
    pagewalk_model::committed::files()
        .iter()
        .map(|p| read_run(p).unwrap())
        .collect()
}

fn specs() -> Vec<ChartSpec> {
    let runs = runs();
    let all: Vec<&RunFile> = runs.iter().collect();
    CHART_NAMES
        .iter()
        .filter_map(|name| build(name, &all).ok())
        .collect()
}

fn ours(v: &Value) -> Result<ChartSpec, String> {
    json::from_value::<ChartSpec>(v).map_err(|e| e.message().to_string())
}

fn serdes(v: &Value) -> Result<ChartSpec, String> {
    serde_json::from_value::<ChartSpec>(v.clone()).map_err(|e| e.to_string())
}

fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate().take(2) {
                pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                pointers(item, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn every_chart_reads_back_as_written() {
    let specs = specs();
    assert!(specs.len() >= 12, "only {} charts built", specs.len());
    for spec in &specs {
        let written = serde_json::to_value(spec).unwrap();
        assert_eq!(ours(&written).as_ref(), Ok(spec), "{}", spec.id);
        assert_eq!(
            ChartSpec::from_json(&written.to_string()).as_ref(),
            Ok(spec)
        );
    }
}

#[test]
fn a_changed_node_gets_serdes_message() {
    let mut checked = 0;
    for spec in specs().iter().take(8) {
        let written = serde_json::to_value(spec).unwrap();
        let mut all = Vec::new();
        pointers(&written, String::new(), &mut all);
        for at in &all {
            for r in [
                Value::Null,
                value!(true),
                value!(-1),
                value!(1.5),
                value!("x"),
                value!({}),
            ] {
                let mut changed = written.clone();
                *changed.pointer_mut(at).unwrap() = r.clone();
                let (a, b) = (ours(&changed), serdes(&changed));
                // serde's message ends with where its own reader was; ours
                // names the field instead.
                let b = b.map_err(|m| m.split(" at line ").next().unwrap().to_string());
                assert_eq!(a, b, "{}: {at} = {r}", spec.id);
                checked += 1;
            }
            let (parent, key) = at.rsplit_once('/').unwrap_or(("", ""));
            if let Some(map) = written.pointer(parent).and_then(Value::as_object) {
                if map.contains_key(key) {
                    let mut changed = written.clone();
                    changed
                        .pointer_mut(parent)
                        .unwrap()
                        .as_object_mut()
                        .unwrap()
                        .remove(key);
                    let (a, b) = (ours(&changed), serdes(&changed));
                    let b = b.map_err(|m| m.split(" at line ").next().unwrap().to_string());
                    assert_eq!(a, b, "{}: without {at}", spec.id);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked}");
}
