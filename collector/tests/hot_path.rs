//! The experiments of `Group::HotPath` (tail, alloc, syscall, noise, numa)
//! end to end in their `--quick` form: each writes its results, the file
//! loads through the model, and the premises it checked hold. No timing is
//! asserted: these machines are shared.

use std::path::{Path, PathBuf};
use std::process::Command;

use pagewalk_model::{
    read_run, AllocPath, CountMethod, ExperimentRecord, Group, Kind, RunFile, Stat, Status,
    SyscallOp, TailVariant,
};

fn quick_run(names: &[&str], dir: &Path) -> (RunFile, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_collector"))
        .args(["run", "--quick", "--out", dir.to_str().unwrap()])
        .args(names)
        .output()
        .expect("run collector");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file: PathBuf = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a run file");
    (read_run(&file).expect("loads through the model"), stdout)
}

fn record<'a>(run: &'a RunFile, name: &str) -> &'a ExperimentRecord {
    run.experiment(name)
        .unwrap_or_else(|| panic!("{name} missing"))
}

fn assert_checks_pass(e: &ExperimentRecord) {
    let failed: Vec<_> = e.failed_checks().collect();
    assert!(failed.is_empty(), "{}: {failed:?}", e.name);
}

#[test]
fn hot_path_experiments_run_quick_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = Group::HotPath.kinds().map(Kind::name).collect();
    let (run, stdout) = quick_run(&names, dir.path());

    // tail: every iteration timed, faults where the premise says.
    let e = record(&run, "tail");
    assert_eq!(e.status, Status::Ok);
    assert_checks_pass(e);
    let tail = run.tail().unwrap();
    let written = tail.variant(TailVariant::AsWritten).unwrap();
    let latency = written.latency.as_ref().unwrap();
    assert_eq!(latency.n, tail.iterations);
    assert!(Stat::ALL.iter().all(|&s| latency.get(s).is_some()));
    assert!(!latency.histogram.is_empty());
    let populate = tail.variant(TailVariant::Populate).unwrap();
    assert!(populate.hot_minor_faults.unwrap().max <= 16.0);
    assert!(written.hot_minor_faults.unwrap().min >= tail.pages.unwrap() as f64);
    // mlockall either ran or says why not.
    let ml = tail.variant(TailVariant::Mlockall).unwrap();
    assert!(ml.skipped.is_some() || ml.latency.is_some());

    // alloc: every path measured; the forced path maps afresh every time.
    let e = record(&run, "alloc");
    assert_eq!(e.status, Status::Ok);
    assert_checks_pass(e);
    let alloc = run.alloc().unwrap();
    for path in AllocPath::ALL {
        let p = alloc.path(path).unwrap();
        assert!(p.skipped.is_none(), "{path:?}: {:?}", p.skipped);
        assert!(p.latency.as_ref().unwrap().p99_ns.is_some());
    }
    let forced = alloc.path(AllocPath::MmapForced).unwrap();
    assert!(forced.minor_faults_per_op.unwrap() >= 0.99);
    assert!(forced
        .mapping_calls
        .iter()
        .any(|c| c.method == CountMethod::Faults));
    assert!(alloc.path(AllocPath::MmapPinned).unwrap().in_child);

    // syscall: the batched operations always run; strace only when present.
    let e = record(&run, "syscall");
    assert_eq!(e.status, Status::Ok);
    let sys = run.syscall().unwrap();
    for op in [
        SyscallOp::ClockGettime,
        SyscallOp::Getpid,
        SyscallOp::OpenClose,
        SyscallOp::Wakeup,
    ] {
        assert!(sys.op(op).unwrap().latency.is_some(), "{op:?}");
    }
    let traced = sys.op(SyscallOp::GetpidStrace).unwrap();
    let have_strace = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join("strace").is_file());
    assert_eq!(traced.latency.is_some(), have_strace, "{traced:?}");
    assert_eq!(traced.skipped.is_some(), !have_strace);

    // noise: four batches, the comparisons, the levers.
    let e = record(&run, "noise");
    assert_eq!(e.status, Status::Ok);
    assert_checks_pass(e);
    let noise = run.noise().unwrap();
    assert_eq!(noise.batches.len(), 4);
    assert_eq!(noise.comparisons.len(), 3);
    assert!(noise.levers.as_ref().unwrap().allowed_cpus.is_some());

    // numa: skipped on one node with the topology kept, or placed on several.
    let e = record(&run, "numa");
    let numa = run.numa().expect("topology kept either way");
    match numa.nodes.len() {
        1 => {
            assert_eq!(e.status, Status::Skipped);
            assert!(e.reason.as_deref().unwrap().contains("one NUMA node"));
        }
        _ => {
            assert_eq!(e.status, Status::Ok);
            assert_eq!(numa.placements.len(), 2);
        }
    }

    for line in ["p99.9", "forced mmap", "getpid", "A vs A", "numa:"] {
        assert!(stdout.contains(line), "summary lacks {line:?}:\n{stdout}");
    }
}

#[test]
fn probes_are_hidden_but_answer() {
    let out = Command::new(env!("CARGO_BIN_EXE_collector"))
        .args([
            "probe",
            "alloc",
            "tcache",
            "--batches",
            "2",
            "--per-batch",
            "10",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["latency"]["n"], 2);
    let help = Command::new(env!("CARGO_BIN_EXE_collector"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&help.stdout).contains("probe"));
}
