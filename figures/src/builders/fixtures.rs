//! Test fixtures for the latency charts: a small collector run with tail,
//! alloc, syscall and noise results, and R2's committed reference files.

use pagewalk_model::*;

use crate::ChartSpec;

pub fn r2(file: &str) -> RunFile {
    let path = format!("{}/../data/reference/{file}", env!("CARGO_MANIFEST_DIR"));
    read_run(std::path::Path::new(&path)).unwrap()
}

/// The committed file in `data/FOLDER/` (the example run, the example
/// inspection).
pub fn committed(folder: &str) -> RunFile {
    read_run(&committed_path(folder)).unwrap()
}

/// Where [`committed`] reads from.
pub fn committed_path(folder: &str) -> std::path::PathBuf {
    let dir = format!("{}/../data/{folder}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap_or_else(|| panic!("a json file in {dir}"))
}

/// How many points have a value: each must be drawn as one mark.
pub fn values(spec: &ChartSpec) -> usize {
    spec.series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|p| p.value.is_some())
        .count()
}

fn latency(p50: f64, p99: f64, histogram: Vec<Bucket>) -> Latency {
    Latency {
        n: Some(100),
        min_ns: Some(p50 * 0.9),
        p50_ns: Some(p50),
        p90_ns: Some(p50 * 1.1),
        p99_ns: Some(p99),
        p999_ns: Some(p99 * 3.0),
        max_ns: Some(p99 * 10.0),
        mean_ns: Some(p50 * 1.05),
        histogram,
    }
}

fn record(name: &str, results: Results) -> ExperimentRecord {
    ExperimentRecord {
        name: name.into(),
        status: Status::Ok,
        reason: None,
        duration_s: Some(0.1),
        checks: Vec::new(),
        background: None,
        results: Some(results),
    }
}

fn tail() -> TailResults {
    let variant = |variant, skipped: Option<&str>, p999| TailVariantResult {
        variant,
        skipped: skipped.map(Into::into),
        latency: skipped.is_none().then(|| {
            latency(
                440.0,
                p999 / 3.0,
                vec![
                    Bucket {
                        upto_ns: 450.0,
                        count: 990,
                    },
                    Bucket {
                        upto_ns: 600.0,
                        count: 0,
                    },
                    Bucket {
                        upto_ns: 2400.0,
                        count: 10,
                    },
                ],
            )
        }),
        hot_minor_faults: None,
        prepare_ns: None,
        repetitions: Vec::new(),
    };
    TailResults {
        region_bytes: Some(4 << 20),
        pages: Some(1024),
        iterations: Some(1000),
        bytes_per_iteration: Some(16),
        work: None,
        repetitions: Some(1),
        variants: vec![
            variant(TailVariant::AsWritten, None, 2400.0),
            variant(TailVariant::Populate, None, 560.0),
            variant(TailVariant::Mlockall, Some("not permitted"), 0.0),
        ],
    }
}

fn alloc() -> AllocResults {
    let path = |path, p50, p99| AllocPathResult {
        path,
        skipped: None,
        size_bytes: Some(64),
        pattern: None,
        ops: Some(1000),
        ops_per_batch: Some(10),
        latency: Some(latency(p50, p99, Vec::new())),
        minor_faults_per_op: Some(0.0),
        mapping_calls: Vec::new(),
        in_child: false,
    };
    AllocResults {
        paths: vec![
            path(AllocPath::Tcache, 14.0, 16.0),
            path(AllocPath::MmapForced, 9000.0, 15000.0),
            path(AllocPath::MmapPinned, 8000.0, 13000.0),
        ],
    }
}

fn syscall() -> SyscallResults {
    let op = |op, p50: Option<f64>| SyscallOpResult {
        op,
        skipped: p50.is_none().then(|| "strace is not installed".into()),
        calls_per_batch: Some(100),
        latency: p50.map(|p| latency(p, p * 1.2, Vec::new())),
        detail: None,
    };
    SyscallResults {
        ops: vec![
            op(SyscallOp::ClockGettime, Some(24.0)),
            op(SyscallOp::Getpid, Some(190.0)),
            op(SyscallOp::GetpidStrace, None),
        ],
        mitigations: Vec::new(),
        strace_version: None,
    }
}

fn noise() -> NoiseResults {
    let batch = |condition, ms: &[f64]| NoiseBatch {
        condition,
        skipped: None,
        samples_ns: ms.to_vec(),
        summary: Summary::of(ms),
        spread: Summary::of(ms).map(|s| s.spread()),
        cv: coefficient_of_variation(ms),
        migrated_runs: Some(0),
    };
    let batches = vec![
        batch(Condition::Pinned, &[100.0, 101.0]),
        batch(Condition::Unpinned, &[100.0, 150.0]),
        batch(Condition::PinnedAgain, &[100.0, 100.0]),
    ];
    let s = |i: usize| batches[i].summary.unwrap();
    let comparisons = vec![
        Comparison {
            kind: ComparisonKind::AVsA,
            a: Condition::Pinned,
            b: Condition::PinnedAgain,
            verdict: Verdict::of(&s(0), &s(2), &s(2)).unwrap(),
        },
        Comparison {
            kind: ComparisonKind::PinnedVsUnpinned,
            a: Condition::Pinned,
            b: Condition::Unpinned,
            verdict: Verdict::of(&s(0), &s(2), &s(1)).unwrap(),
        },
    ];
    NoiseResults {
        workload: None,
        rounds: Some(1000),
        longer_rounds: Some(1100),
        runs_per_batch: Some(2),
        pinned_cpu: Some(1),
        batches,
        comparisons,
        frequency: None,
        levers: None,
        hybrid_slowdown: None,
        hybrid_detail: None,
    }
}

/// A collector run with all four experiments.
pub fn run() -> RunFile {
    RunFile {
        schema_version: SCHEMA_VERSION,
        provenance: Provenance::Collector {
            collector_version: "test".into(),
            run_id: "run".into(),
            started_utc: "2026-01-01T00:00:00Z".into(),
            finished_utc: None,
            quick: true,
            command: Vec::new(),
            interrupted: false,
            signal: None,
        },
        machine: None,
        experiments: vec![
            record(tail::EXPERIMENT, Results::Tail(tail())),
            record(alloc::EXPERIMENT, Results::Alloc(alloc())),
            record(syscall::EXPERIMENT, Results::Syscall(syscall())),
            record(noise::EXPERIMENT, Results::Noise(noise())),
        ],
    }
}

/// The same run without any experiment.
pub fn empty_run() -> RunFile {
    RunFile {
        experiments: Vec::new(),
        ..run()
    }
}
