//! No chart says an error as the system wrote it. Every chart from every
//! run file the repository holds (the preprocessor's fixtures and the
//! example run), and from runs whose every recorded reason is raw, has its
//! notes, its drawing (the legend) and its data table free of OS errors,
//! raw system calls and install hints: [`build`] puts every note in a
//! reader's words, whichever builder quoted the reason.

use std::path::{Path, PathBuf};

use pagewalk_model::{parse_run, read_run, RunFile};
use serde_json::Value;

use crate::*;

use pagewalk_model::reason::RAW_MARKERS as RAW;

fn json_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The published references, as the book passes them after the run.
fn references() -> Vec<RunFile> {
    json_in(&root().join("data/reference"))
        .iter()
        .map(|p| read_run(p).unwrap())
        .collect()
}

/// Every chart of `run` (with the references) whose text holds one of
/// [`RAW`], named with what it holds.
fn raw_in_charts(run: &RunFile, references: &[RunFile]) -> Vec<String> {
    let mut runs = vec![run];
    runs.extend(references);
    let mut found = Vec::new();
    for &name in CHART_NAMES {
        // An `inspect-*` chart without an inspection file: nothing to draw.
        let Ok(spec) = build(name, &runs) else {
            continue;
        };
        let notes = spec.note.iter().chain(&spec.empty_note).chain(
            spec.series
                .iter()
                .flat_map(|s| s.points.iter().flat_map(|p| &p.note)),
        );
        let text: Vec<String> = notes
            .cloned()
            .chain([
                spec_json(&spec),
                render_svg(&spec, &Palette::light(), STATIC_WIDTH, 0),
                render_svg(&spec, &Palette::light(), STATIC_NARROW_WIDTH, 0),
                table_html(&spec),
            ])
            .collect();
        for raw in RAW {
            if let Some(t) = text.iter().find(|t| t.contains(raw)) {
                let at = t.find(raw).unwrap();
                let from = t[..at].char_indices().rev().nth(80).map_or(0, |(i, _)| i);
                found.push(format!("{name}: {raw:?} in …{}…", &t[from..at + raw.len()]));
            }
        }
    }
    found
}

#[test]
fn no_recorded_run_puts_an_error_in_a_chart() {
    let references = references();
    let mut files = json_in(&root().join("preprocessor/tests/fixtures/matrix"));
    files.extend(json_in(&root().join("preprocessor/tests/fixtures")));
    files.extend(json_in(&root().join("data/example")));
    assert!(files.len() >= 10, "only {} run files", files.len());
    for file in files {
        let run = read_run(&file).unwrap();
        let found = raw_in_charts(&run, &references);
        assert!(
            found.is_empty(),
            "{}:\n{}",
            file.display(),
            found.join("\n")
        );
    }
}

/// An error as a collector could record it, and an install hint after it.
const RAW_REASON: &str = "mmap failed: Cannot allocate memory (os error 12); install the tool with apt-get install strace, or pass --reserve-hugepages";

/// Every `skipped` reason in `v` made [`RAW_REASON`]; how many there were.
fn raw_reasons(v: &mut Value) -> usize {
    match v {
        Value::Object(map) => {
            let mut n = 0;
            for (key, value) in map.iter_mut() {
                if key == "skipped" && value.is_string() {
                    *value = RAW_REASON.into();
                    n += 1;
                } else {
                    n += raw_reasons(value);
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(raw_reasons).sum(),
        _ => 0,
    }
}

#[test]
fn a_raw_reason_reaches_no_chart_whichever_builder_quotes_it() {
    let references = references();
    let matrix = root().join("preprocessor/tests/fixtures/matrix");
    // THP off: skipped first-touch modes, staircase and tlb-reach curves,
    // thp sizes, walk points and mlp regions. The Xeon guest: getpid under
    // strace. Each builder quotes its reason its own way.
    for fixture in ["thp-never.json", "intel-xeon-emr-16vcpu-kvm.json"] {
        let text = std::fs::read_to_string(matrix.join(fixture)).unwrap();
        let mut json: Value = serde_json::from_str(&text).unwrap();
        assert!(raw_reasons(&mut json) > 0, "{fixture}: nothing skipped");
        // Experiments with no results at all: the chart's note says why.
        for e in json["experiments"].as_array_mut().unwrap() {
            if matches!(e["name"].as_str(), Some("tail" | "alloc" | "noise")) {
                e["status"] = "skipped".into();
                e["reason"] = RAW_REASON.into();
                e.as_object_mut().unwrap().remove("results");
                e["checks"] = Value::Array(Vec::new());
            }
            if e["name"] == "shootdown" {
                e["status"] = "failed".into();
                e["reason"] = "no PMU (perf_event_open(PERF_COUNT_HW_CPU_CYCLES, user only) failed: No such file or directory (os error 2))".into();
                e.as_object_mut().unwrap().remove("results");
                e["checks"] = Value::Array(Vec::new());
            }
        }
        let run = parse_run(fixture, &json.to_string()).unwrap();
        let found = raw_in_charts(&run, &references);
        assert!(found.is_empty(), "{fixture}:\n{}", found.join("\n"));
        // And the reason is still said, in words.
        let said: Vec<String> = CHART_NAMES
            .iter()
            .filter_map(|name| build(name, &[&run]).ok())
            .map(|spec| spec_json(&spec))
            .collect();
        for words in [
            "mmap failed: out of memory",
            "no hardware counters are exposed to this system (no PMU)",
        ] {
            assert!(
                said.iter().any(|s| s.contains(words)),
                "{fixture}: {words:?} in no chart"
            );
        }
    }
}
