//! Every JSON file committed under `data/` must load with this build's model:
//! a transcription typo or a stale example run fails here, not in the book.

use std::path::Path;

#[test]
fn committed_data_files_load() {
    let files = pagewalk_model::committed::files();
    for path in &files {
        let run = pagewalk_model::read_run(path).unwrap_or_else(|e| panic!("{e}"));
        let folder = path.parent().and_then(|d| d.file_name()).unwrap();
        assert_eq!(
            run.is_reference(),
            folder == "reference",
            "{} is in the wrong folder",
            path.display()
        );
    }
    assert!(
        files.len() >= 5,
        "only {} committed data files",
        files.len()
    );
}

#[test]
fn reference_first_touch_arithmetic_closes() {
    // R1's default-THP row: 262,144 pages minus 511 small pages per granted
    // huge page equals the faults it reported.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/reference/r1-first-touch.json");
    let run = pagewalk_model::read_run(&path).unwrap();
    let ft = run.first_touch().expect("R1 has first-touch figures");
    let default = ft.mode(pagewalk_model::Mode::Default).unwrap();
    let first = default.samples[0].first_pass.as_ref().unwrap();
    let huge = first.thp.unwrap().thp_fault_alloc as u64;
    assert_eq!(first.minor_faults, Some(ft.pages - 511 * huge));
}

/// The example run was written before findings existed: which allocator
/// call `resize(n, 0)` reached is read as a finding, never a failed check.
#[test]
fn an_older_files_allocator_path_checks_read_as_findings() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    for entry in std::fs::read_dir(dir).unwrap() {
        let run = pagewalk_model::read_run(&entry.unwrap().path()).unwrap();
        let Some(ft) = run.experiment("first-touch") else {
            continue;
        };
        assert!(
            ft.failed_checks()
                .all(|c| !pagewalk_model::first_touch::is_allocator_path_check(&c.name)),
            "{:?}",
            ft.failed_checks().collect::<Vec<_>>()
        );
        if run.schema_version < 3 {
            assert!(
                ft.findings().count() >= 1,
                "the Rust forms' paths are findings"
            );
        }
    }
}

/// Reading a committed file and writing it back loses nothing and writes
/// no `null` for an absent field. (The model may add what a hand-written
/// reference file leaves to its defaults, an empty list or `false`.)
#[test]
fn committed_files_write_back_without_loss_or_nulls() {
    use serde_json::Value;
    /// Every value of `a` is in `b` at the same place; `path` names it.
    fn contained(a: &Value, b: &Value, path: &str) -> Result<(), String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                x.iter().try_for_each(|(k, v)| match y.get(k) {
                    Some(w) => contained(v, w, &format!("{path}.{k}")),
                    None => Err(format!("{path}.{k} lost")),
                })
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(i, (v, w))| contained(v, w, &format!("{path}[{i}]"))),
            _ if a == b => Ok(()),
            _ => Err(format!("{path}: {a} became {b}")),
        }
    }
    /// A field written as `null` (a `null` inside a list is data: an
    /// unknown entry, as in `buddyinfo`).
    fn has_null(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.values().any(|x| x.is_null() || has_null(x)),
            Value::Array(a) => a.iter().any(has_null),
            _ => false,
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    for dir in ["example", "reference"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let original: Value = serde_json::from_str(&text).unwrap();
            let back =
                serde_json::to_value(pagewalk_model::parse_run("x", &text).unwrap()).unwrap();
            contained(&original, &back, "").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!has_null(&back), "{}: a null was written", path.display());
        }
    }
}

/// The Intel Xeon guest's run (schema 5, CPUID silent about its TLBs):
/// the two mlp premises that depended on an L2 TLB reach it never had read
/// as checks it could not make, not as failures.
#[test]
fn premises_on_an_unknown_reach_read_as_not_checked() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../preprocessor/tests/fixtures/matrix/intel-xeon-emr-16vcpu-kvm.json");
    let run = pagewalk_model::read_run(&path).unwrap();
    let mlp = run.experiment("mlp").unwrap();
    let on_reach: Vec<_> = mlp
        .checks
        .iter()
        .filter(|c| c.name.contains("L2 TLB's reach"))
        .collect();
    assert_eq!(on_reach.len(), 2, "{:?}", mlp.checks);
    for c in on_reach {
        assert!(!c.passed, "{c:?}");
        assert!(
            c.cannot_tell.as_deref().unwrap().contains("not known"),
            "{c:?}"
        );
    }
    // Every other check is as recorded.
    let failed: Vec<_> = run
        .experiments
        .iter()
        .flat_map(|e| e.checks.iter())
        .filter(|c| !c.passed && c.cannot_tell.is_none() && !c.finding)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}
