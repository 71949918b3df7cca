//! An experiment's name must match its results: a record named `staircase`
//! holding first-touch results would put one experiment's numbers under
//! another's chapter. Every experiment of the example run, renamed, must be
//! refused with the field named.

use std::path::Path;

use pagewalk_model::parse_run;
use serde_json::Value;

fn example() -> (String, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("an example run in data/example");
    let text = std::fs::read_to_string(&path).unwrap();
    let value = serde_json::from_str(&text).unwrap();
    (text, value)
}

#[test]
fn every_experiment_renamed_is_refused() {
    let (text, value) = example();
    parse_run("example.json", &text).expect("the example run loads as committed");
    let names: Vec<String> = value["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    let mut checked = 0;
    for (i, experiment) in value["experiments"].as_array().unwrap().iter().enumerate() {
        if experiment.get("results").is_none_or(Value::is_null) {
            continue;
        }
        // Another experiment's name, so only the name/results pairing is wrong.
        let other = &names[(i + 1) % names.len()];
        let mut renamed = value.clone();
        renamed["experiments"][i]["name"] = Value::from(other.as_str());
        let Err(e) = parse_run("renamed.json", &renamed.to_string()) else {
            panic!("{} renamed to {other} was accepted", names[i]);
        };
        assert_eq!(
            e.field.as_deref(),
            Some(format!("experiments[{i}].name").as_str()),
            "{e}"
        );
        checked += 1;
    }
    // First touch, the three translation experiments and the five on the
    // hot path: each family's check is exercised.
    assert!(checked >= 9, "only {checked} experiments had results");
}
