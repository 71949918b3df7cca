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

/// Where experiment `name` is in the example, as a field path names it.
fn index_of(name: &str) -> usize {
    example()["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("the example has {name}"))
}

#[test]
fn an_experiment_recorded_twice_is_refused() {
    // Before: `collector run syscall syscall` wrote two records, and which
    // one a chapter showed was up to the order of a search.
    let i = index_of("syscall");
    let n = example()["experiments"].as_array().unwrap().len();
    let e = refused(
        |run| {
            let copy = run["experiments"][i].clone();
            run["experiments"].as_array_mut().unwrap().push(copy);
        },
        &format!("experiments[{n}].name"),
    );
    assert!(e.message.contains(&format!("experiments[{i}]")), "{e}");
}

#[test]
fn noise_ratios_are_what_the_samples_give() {
    // Before: 1e308 loaded, and the noise and your-machine pages printed
    // "cv inf%" 48 times.
    let at = format!("experiments[{}].results.noise", index_of("noise"));
    for (field, value) in [
        ("batches[0].spread", json!(1e308)),
        ("batches[0].cv", json!(1e308)),
        ("batches[0].spread", json!(0.5)),
        ("comparisons[1].verdict.difference", json!(1e308)),
        ("comparisons[1].verdict.noise", json!(1e308)),
    ] {
        refused(
            |run| {
                let noise = results(run, "noise");
                let (list, rest) = field.split_once('[').unwrap();
                let (k, rest) = rest.split_once("].").unwrap();
                let item = &mut noise[list][k.parse::<usize>().unwrap()];
                let target = rest.split('.').fold(item, |v, key| &mut v[key]);
                *target = value.clone();
            },
            &format!("{at}.{field}"),
        );
    }
    // Within the bounds but not what the samples or the medians give.
    let e = refused(
        |run| {
            let b = &mut results(run, "noise")["batches"][0];
            let s = b["spread"].as_f64().unwrap();
            b["spread"] = json!(s * 1.5);
        },
        &format!("{at}.batches[0].spread"),
    );
    assert!(e.message.contains("samples_ns give"), "{e}");
    refused(
        |run| {
            let v = &mut results(run, "noise")["comparisons"][1]["verdict"];
            let d = v["difference"].as_f64().unwrap();
            v["difference"] = json!(d * 2.0 + 0.01);
        },
        &format!("{at}.comparisons[1].verdict.difference"),
    );
    refused(
        |run| {
            let v = &mut results(run, "noise")["comparisons"][1]["verdict"];
            let inside = v["inside_noise"].as_bool().unwrap();
            v["inside_noise"] = json!(!inside);
        },
        &format!("{at}.comparisons[1].verdict.inside_noise"),
    );
}

/// Where the example's `name` experiment is, as a field path names it.
fn at_experiment(name: &str) -> String {
    let i = example()["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["name"] == name)
        .unwrap();
    format!("experiments[{i}].results.{name}")
}

/// A measured L2 TLB of 1280 to 1536 entries against CPUID's 2048 (what
/// the example's curves give).
fn measured_l2() -> Value {
    json!({
        "control": "huge",
        "tlbs": [{
            "level": 2, "page_bytes": 4096,
            "entries_low": 1280, "entries_high": 1536,
            "cpuid_entries": 2048, "figure": "cpuid-contradicted",
            "why": "measured 1280-1536 entries"
        }],
        "past_last_level": true
    })
}

#[test]
fn a_measured_tlb_has_its_bounds_in_order_and_the_figure_they_give() {
    let at = format!("{}.measured.tlbs[0]", at_experiment("tlb-reach"));
    // As measured: it loads.
    let mut run = example();
    results(&mut run, "tlb-reach")["measured"] = measured_l2();
    parse_run("x.json", &serde_json::to_string(&run).unwrap()).unwrap();
    // Bounds the wrong way round.
    let e = refused(
        |r| {
            let mut m = measured_l2();
            m["tlbs"][0]["entries_low"] = json!(1792);
            results(r, "tlb-reach")["measured"] = m;
        },
        &format!("{at}.entries_high"),
    );
    assert!(e.message.contains("below entries_low"), "{e}");
    // CPUID's 2048 is outside 1280-1536: it cannot be said to agree.
    let e = refused(
        |r| {
            let mut m = measured_l2();
            m["tlbs"][0]["figure"] = json!("agree");
            results(r, "tlb-reach")["measured"] = m;
        },
        &format!("{at}.figure"),
    );
    assert!(e.message.contains("give cpuid-contradicted"), "{e}");
    // A level that is neither the L1 dTLB nor the L2 TLB.
    refused(
        |r| {
            let mut m = measured_l2();
            m["tlbs"][0]["level"] = json!(3);
            results(r, "tlb-reach")["measured"] = m;
        },
        &format!("{at}.level"),
    );
}

#[test]
fn a_reach_used_is_no_measurement_when_cpuid_gave_it() {
    let used = |source: &str, figure: &str| {
        json!({"source": source, "entries_low": 2048, "entries_high": 2048,
               "cpuid_entries": 2048, "figure": figure, "note": "n"})
    };
    let mut run = example();
    results(&mut run, "walk")["l2_tlb"] = used("cpuid", "cpuid-only");
    parse_run("x.json", &serde_json::to_string(&run).unwrap()).unwrap();
    // CPUID's figure may not claim a measurement's agreement.
    refused(
        |r| results(r, "walk")["l2_tlb"] = used("cpuid", "agree"),
        &format!("{}.l2_tlb.figure", at_experiment("walk")),
    );
    refused(
        |r| results(r, "mlp")["l2_tlb"] = used("probe", "cpuid-only"),
        &format!("{}.l2_tlb.figure", at_experiment("mlp")),
    );
}
