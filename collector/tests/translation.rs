//! The address-translation experiments for real, in quick form: the file
//! loads, every point has its samples, and the premise checks are there.

use std::path::Path;
use std::process::Command;

use pagewalk_model::{read_run, Regime, Status};

fn quick_run(dir: &Path, args: &[&str]) -> pagewalk_model::RunFile {
    let out = Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(["run", "--quick", "--out", dir.to_str().unwrap()])
        .args(args)
        .output()
        .expect("run collector");
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a run file");
    read_run(&file).unwrap()
}

fn check_names(run: &pagewalk_model::RunFile, name: &str) -> Vec<String> {
    let e = run.experiment(name).unwrap();
    assert_eq!(e.status, Status::Ok, "{:?}", e.reason);
    e.checks.iter().map(|c| c.name.clone()).collect()
}

#[test]
fn staircase_and_tlb_reach_run_quick() {
    let dir = tempfile::tempdir().unwrap();
    let run = quick_run(dir.path(), &["staircase", "tlb-reach", "--size", "8M"]);

    let s = run.staircase().expect("staircase results");
    assert_eq!(s.max_bytes, Some(8 << 20));
    let small = s.curve(Regime::Small).unwrap();
    assert!(small.points.len() >= 10, "{}", small.points.len());
    assert_eq!(small.points[0].region_bytes, 4096);
    for p in &small.points {
        // --quick: one sample in each of two fresh mappings.
        assert_eq!(p.mappings, Some(2));
        assert_eq!(p.samples_ns_per_load.len(), 2);
        assert_eq!(p.by_mapping().len(), 2);
        assert!(p.ns_per_load.median > 0.0 && p.loads_per_sample.unwrap() > 0);
        assert_eq!(p.slots.unwrap() * 64, p.region_bytes);
    }
    assert!(s.counters.is_some());
    assert!(!s.geometry.tlb_source.is_empty());
    // Without --reserve-hugepages and with the 1 GiB pool empty (or no
    // pdpe1gb), the 1 GiB curve says why it is missing; never invented.
    let gigantic = s.curve(Regime::Gigantic).unwrap();
    assert!(
        gigantic.skipped.is_some() == gigantic.points.is_empty(),
        "{gigantic:?}"
    );
    let names = check_names(&run, "staircase");
    assert!(names.iter().any(|n| n.contains("permutation")), "{names:?}");
    assert!(
        names.iter().any(|n| n.contains("fresh mapping")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.contains("page faults")), "{names:?}");
    let verified = run
        .experiment("staircase")
        .unwrap()
        .checks
        .iter()
        .find(|c| c.name.contains("permutation"))
        .unwrap();
    assert!(verified.passed, "{verified:?}");

    let t = run.tlb_reach().expect("tlb-reach results");
    let small = t.curve(Regime::Small).unwrap();
    assert_eq!(small.points[0].pages, Some(8));
    assert!(small
        .points
        .iter()
        .all(|p| p.pages.unwrap() * 64 <= t.data_limit_bytes));
    let names = check_names(&run, "tlb-reach");
    assert!(
        names.iter().any(|n| n.contains("within half of L2")),
        "{names:?}"
    );
}

#[test]
fn thp_runs_quick_and_reports_hugetlb_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let run = quick_run(dir.path(), &["thp", "--size", "8M"]);
    let t = run.thp().expect("thp results");
    assert_eq!(t.sizes.len(), 2);
    assert_eq!(t.sizes[0].size_bytes, 2 << 20);
    assert!(t.sizes.iter().all(|s| s.small.is_some()));
    let h = t.hugetlb.as_ref().expect("a hugetlb attempt");
    assert!(!h.outcome.is_empty());
    // The collector never reserved pages on its own.
    assert!(h.reserved.is_none());
    if h.nr_hugepages == 0 {
        assert!(
            !h.mapped && h.outcome.contains("no huge pages reserved"),
            "{h:?}"
        );
    }
    let names = check_names(&run, "thp");
    assert!(names.iter().any(|n| n.contains("permutation")), "{names:?}");
}
