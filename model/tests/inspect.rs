//! `collector inspect` files: a real one (a sleeping process watched on
//! the example machine) loads, and each rule the model adds is enforced
//! with the field named. Its symptoms are the book's table, row by row.

use std::path::Path;

use pagewalk_model::inspect::{Presence, Symptom};
use pagewalk_model::parse_run;
use serde_json::Value;

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect-sleep.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn field_of_error(v: &Value) -> String {
    let e = parse_run("inspect.json", &v.to_string()).expect_err("must be refused");
    e.field.unwrap_or_default()
}

#[test]
fn a_real_inspection_loads() {
    let run = parse_run("inspect.json", &fixture().to_string()).unwrap_or_else(|e| panic!("{e}"));
    let r = run.inspect().expect("inspect results");
    assert_eq!(r.verdicts.len(), Symptom::ALL.len());
    assert_eq!(
        r.verdict(Symptom::FirstTouchFaults).unwrap().verdict,
        Presence::Absent
    );
}

#[test]
fn each_rule_names_its_field() {
    let at = "experiments[0].results.inspect";
    let mut v = fixture();
    v["experiments"][0]["name"] = "first-touch".into();
    assert_eq!(field_of_error(&v), "experiments[0].name");

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["command"] = "x\u{1b}[2J".into();
    assert_eq!(field_of_error(&v), format!("{at}.command"));

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["verdicts"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert_eq!(field_of_error(&v), format!("{at}.verdicts"));

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["verdicts"][2]["reason"] = " ".into();
    assert_eq!(field_of_error(&v), format!("{at}.verdicts[2].reason"));

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["samples"][1]["t_s"] = (-1.0).into();
    assert_eq!(field_of_error(&v), format!("{at}.samples[1].t_s"));

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["samples"][2]["t_s"] = 0.0.into();
    assert_eq!(field_of_error(&v), format!("{at}.samples"));

    let mut v = fixture();
    v["experiments"][0]["results"]["inspect"]["verdicts"][0]["verdict"] = "maybe".into();
    assert!(field_of_error(&v).contains("verdict"));
}

/// The chapter links of `book/symptoms.md`'s table, in order: inspect gives
/// one verdict per row, linking where the row links, except on the rows
/// that say a process's `/proc` cannot show them.
#[test]
fn one_symptom_per_row_of_the_book_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/symptoms.md");
    let text = std::fs::read_to_string(path).unwrap();
    let links: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| what") && !l.starts_with("| ---"))
        .filter(|l| !l.contains("`collector inspect` has no verdict for it"))
        .filter_map(|row| {
            let cause = row.split(" | ").nth(1)?;
            cause.split("](").nth(1)?.split(')').next()
        })
        .collect();
    let ours: Vec<&str> = Symptom::ALL.iter().map(|s| s.chapter()).collect();
    assert_eq!(links, ours);
}

/// A schema 3 inspection, from before the shootdown row, still reads: the
/// row it lacks is "cannot tell", in its place. A schema 4 file must have it.
#[test]
fn an_inspection_from_before_the_shootdown_row_still_reads() {
    let mut v = fixture();
    v["schema_version"] = 3.into();
    let verdicts = v["experiments"][0]["results"]["inspect"]["verdicts"]
        .as_array_mut()
        .unwrap();
    verdicts.retain(|x| x["symptom"] != "shootdowns");
    assert_eq!(verdicts.len(), Symptom::ALL.len() - 1);
    let run = parse_run("old.json", &v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let r = run.inspect().unwrap();
    let symptoms: Vec<Symptom> = r.verdicts.iter().map(|x| x.symptom).collect();
    assert_eq!(symptoms, Symptom::ALL);
    let added = r.verdict(Symptom::Shootdowns).unwrap();
    assert_eq!(added.verdict, Presence::CannotTell);
    assert!(added.reason.contains("schema 3"), "{}", added.reason);

    v["schema_version"] = 4.into();
    assert_eq!(
        field_of_error(&v),
        "experiments[0].results.inspect.verdicts"
    );
}
