//! Values no machine can produce are refused with the field named, so the
//! book never prints them as measured (issue 18, item 11), and a data file
//! that is not a regular file is refused without blocking (item 3).
//! Each case starts from the committed example run, which loads, and
//! changes one thing.

use pagewalk_model::{committed, parse_run, read_run, ModelError};
use serde_json::{json, Value};

fn example() -> Value {
    let path = committed::files()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("/example/"))
        .expect("the committed example run");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The example with `edit` applied; the error it gets, which must name
/// `field`.
fn refused(edit: impl FnOnce(&mut Value), field: &str) -> ModelError {
    let mut run = example();
    edit(&mut run);
    let text = serde_json::to_string(&run).unwrap();
    let e = parse_run("x.json", &text).expect_err("an impossible value loaded");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    e
}

/// Where the example's staircase is among its experiments, as a field path
/// names it (`experiments[7].results.staircase`).
fn staircase_at() -> String {
    let i = example()["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["name"] == "staircase")
        .expect("the example has a staircase");
    format!("experiments[{i}].results.staircase")
}

/// The experiment `name`'s results object.
fn results<'a>(run: &'a mut Value, name: &str) -> &'a mut Value {
    let e = run["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == name)
        .unwrap();
    &mut e["results"][name]
}

#[test]
fn the_example_itself_loads() {
    let text = serde_json::to_string(&example()).unwrap();
    parse_run("x.json", &text).unwrap();
}

#[test]
fn durations_in_seconds_are_times() {
    for bad in [json!(-1.0), json!(1.7e308)] {
        refused(
            |r| r["experiments"][1]["duration_s"] = bad,
            "experiments[1].duration_s",
        );
    }
}

#[test]
fn a_fraction_is_between_0_and_1() {
    let at = format!("{}.curves[0].points[0].huge_fraction", staircase_at());
    let at = at.as_str();
    for bad in [json!(-1.0), json!(1.7e308), json!(1.5)] {
        let b = bad.clone();
        refused(
            |r| results(r, "staircase")["curves"][0]["points"][0]["huge_fraction"] = b,
            at,
        );
    }
}

#[test]
fn pages_fit_the_size_they_count() {
    for bad in [json!(1e15), json!(u64::MAX), json!(262_145)] {
        refused(
            |r| results(r, "first-touch")["pages"] = bad,
            "experiments[0].results.first-touch.pages",
        );
    }
    // A chase point's pages hold at least one pointer each.
    let at = format!("{}.curves[0].points[0].pages", staircase_at());
    let at = at.as_str();
    refused(
        |r| {
            let p = &mut results(r, "staircase")["curves"][0]["points"][0];
            let most = p["region_bytes"].as_u64().unwrap() / 8;
            p["pages"] = json!(most + 1);
        },
        at,
    );
}

#[test]
fn repetitions_are_at_most_what_is_kept_and_at_least_the_samples() {
    refused(
        |r| results(r, "first-touch")["repetitions"] = json!(4_294_967_295u64),
        "experiments[0].results.first-touch.repetitions",
    );
    let e = refused(
        |r| results(r, "first-touch")["repetitions"] = json!(2),
        "experiments[0].results.first-touch.modes[0].samples",
    );
    assert!(e.message.contains("more than the repetitions"), "{e}");
}

#[test]
fn a_summary_summarises_something_in_order() {
    let at = "experiments[0].results.first-touch.modes[0].summary.allocation.wall_ns";
    fn wall(r: &mut Value) -> &mut Value {
        &mut results(r, "first-touch")["modes"][0]["summary"]["allocation"]["wall_ns"]
    }
    let e = refused(|r| wall(r)["n"] = json!(0), at);
    assert!(e.message.contains("at least one"), "{e}");
    let e = refused(
        |r| {
            let w = wall(r);
            let max = w["max"].as_f64().unwrap();
            w["min"] = json!(max * 2.0);
        },
        at,
    );
    assert!(e.message.contains("not in order"), "{e}");
}

#[test]
fn a_chase_spans_something() {
    refused(
        |r| results(r, "staircase")["curves"][0]["points"][0]["region_bytes"] = json!(0),
        &format!("{}.curves[0].points[0].region_bytes", staircase_at()),
    );
}

#[test]
fn a_run_from_the_future_would_shadow_every_later_run() {
    let e = refused(
        |r| r["provenance"]["started_utc"] = json!("9999-12-31T00:00:00Z"),
        "provenance.started_utc",
    );
    assert!(e.message.contains("more than a day after"), "{e}");
    refused(
        |r| r["provenance"]["finished_utc"] = json!("2000-01-01T00:00:00Z"),
        "provenance.finished_utc",
    );
}

#[test]
fn a_key_given_twice_is_refused_with_its_path() {
    let text = serde_json::to_string(&example()).unwrap();
    let twice = text.replacen("{", "{\"schema_version\":99,", 1);
    let e = parse_run("x.json", &twice).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("schema_version"), "{e}");
    let twice = text.replacen(
        "\"status\":\"ok\"",
        "\"status\":\"failed\",\"status\":\"ok\"",
        1,
    );
    let e = parse_run("x.json", &twice).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("experiments[0].status"), "{e}");
    assert!(e.message.contains("twice"), "{e}");
}

#[test]
fn a_bad_key_is_named_by_the_object_that_holds_it() {
    let e = refused(|r| r["machine"]["cpu"][""] = json!(1), "machine.cpu");
    assert!(e.message.contains("\"\""), "{e}");
}

#[test]
fn a_long_string_as_the_version_is_not_echoed_whole() {
    let e = refused(
        |r| r["schema_version"] = json!("9".repeat(100_000)),
        "schema_version",
    );
    assert!(e.to_string().len() < 200, "{}", e.to_string().len());
}

#[test]
fn a_named_pipe_is_passed_over_without_blocking() {
    let dir = tempfile_dir();
    let fifo = dir.join("f.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Before the fix the open blocked until a writer came: run it on a
    // thread and give it far longer than an open takes.
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || tx.send(read_run(&path)).unwrap());
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("reading a FIFO blocked");
    let e = got.unwrap_err();
    assert!(e.message.contains("named pipe"), "{e}");
    // A link to a stream (the test's own stdout or a terminal) likewise.
    let link = dir.join("l.json");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let e = read_run(&link).unwrap_err();
    assert!(e.message.contains("not a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pagewalk-model-test-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir(&dir).unwrap();
    dir
}
