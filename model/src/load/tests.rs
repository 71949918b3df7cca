use super::*;

const GOOD: &str = r#"{
  "schema_version": 1,
  "provenance": {"kind": "reference", "source_id": "R1", "name": "the reference laptop",
                 "conditions": "c", "note": "n"},
  "experiments": [
    {"name": "first-touch", "status": "skipped", "reason": "no memory"}
  ]
}"#;

fn error(text: &str) -> ModelError {
    parse_run("data/x.json", text).unwrap_err()
}

#[test]
fn good_file_parses() {
    let run = parse_run("x", GOOD).unwrap();
    assert!(run.is_reference());
    assert_eq!(run.experiments[0].status, Status::Skipped);
}

#[test]
fn a_check_that_could_not_be_made_cannot_have_passed() {
    let with = |passed: bool| {
        GOOD.replace(
            r#""reason": "no memory"}"#,
            &format!(
                r#""reason": "no memory", "checks": [{{"name": "n", "passed": {passed}, "expected": "e", "observed": "o", "cannot_tell": "not root"}}]}}"#
            ),
        )
    };
    let run = parse_run("x", &with(false)).unwrap();
    assert_eq!(run.experiments[0].unchecked().count(), 1);
    assert_eq!(run.experiments[0].failed_checks().count(), 0);
    let e = error(&with(true));
    assert_eq!(
        e.field.as_deref(),
        Some("experiments[0].checks[0].cannot_tell")
    );
}

#[test]
fn newer_schema_is_named_as_newer() {
    let e = error(&GOOD.replace("\"schema_version\": 1", "\"schema_version\": 99"));
    assert_eq!(e.field.as_deref(), Some("schema_version"));
    assert!(e.message.contains("newer"), "{e}");
    assert!(e
        .to_string()
        .starts_with("data/x.json: field `schema_version`"));
}

#[test]
fn missing_schema_version() {
    let e = error(r#"{"experiments": []}"#);
    assert_eq!(e.field.as_deref(), Some("schema_version"));
}

#[test]
fn wrong_type_names_the_nested_field() {
    let e = error(&GOOD.replace("\"status\": \"skipped\"", "\"status\": 3"));
    assert_eq!(e.field.as_deref(), Some("experiments[0].status"), "{e}");
}

#[test]
fn missing_required_field_is_named() {
    let e = error(&GOOD.replace("\"source_id\": \"R1\", ", ""));
    assert_eq!(e.field.as_deref(), Some("provenance"), "{e}");
    assert!(e.message.contains("source_id"), "{e}");
}

#[test]
fn skipped_needs_a_reason() {
    let e = error(&GOOD.replace(", \"reason\": \"no memory\"", ""));
    assert_eq!(e.field.as_deref(), Some("experiments[0].reason"));
}

#[test]
fn ok_needs_results() {
    let e = error(&GOOD.replace("\"skipped\", \"reason\": \"no memory\"", "\"ok\""));
    assert_eq!(e.field.as_deref(), Some("experiments[0].results"));
}

#[test]
fn not_json_has_no_field() {
    let e = error("{ nope");
    assert_eq!(e.field, None);
    assert!(e.message.contains("not valid JSON"));
}

#[test]
fn numbers_read_back_bit_for_bit() {
    // Values the default serde_json parser reads one ulp off.
    for v in [
        0.9954109191894531_f64,
        0.00019200642903645834,
        2140.756450653076,
    ] {
        let back: f64 = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        assert_eq!(back.to_bits(), v.to_bits(), "{v}");
    }
}
