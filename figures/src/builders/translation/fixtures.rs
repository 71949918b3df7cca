//! A run with staircase, tlb-reach and thp results small enough to check
//! by hand, for the translation charts' tests.

use pagewalk_model::*;

fn point(region_bytes: u64, pages: u64, ns: &[f64], huge_kib: Option<u64>) -> ChasePoint {
    ChasePoint {
        region_bytes,
        pages: Some(pages),
        slots: Some(region_bytes / 64),
        loads_per_sample: Some(1000),
        samples_ns_per_load: ns.to_vec(),
        ns_per_load: Summary::of(ns).unwrap(),
        anon_huge_kib: huge_kib,
        kernel_page_kib: None,
        huge_fraction: huge_kib.map(|k| ((k * 1024) as f64 / region_bytes as f64).min(1.0)),
        collapse: None,
        timed_minor_faults: Some(0),
        dtlb_load_misses: None,
        perf_page_faults: None,
        note: None,
        mappings: None,
        frames_moved_fraction: None,
    }
}

fn geometry() -> Geometry {
    Geometry {
        tlb_source: "test".into(),
        tlbs: vec![TlbLevel {
            level: 1,
            kind: TlbKind::Data,
            page_bytes: 4096,
            entries: 64,
            associativity: None,
        }],
        caches: vec![CacheLevel {
            level: 2,
            kind: "Unified".into(),
            size_bytes: 1 << 20,
        }],
    }
}

pub fn run() -> RunFile {
    let sizes = [64u64 << 10, 256 << 10, 1 << 20, 4 << 20];
    let curve = |regime, base: f64, huge| Curve {
        regime,
        skipped: None,
        pages_from: None,
        step_min_rise: None,
        points: sizes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                point(
                    b,
                    b / 4096,
                    &[base * (i + 1) as f64, base * (i + 2) as f64],
                    huge,
                )
            })
            .collect(),
    };
    let step = Step {
        regime: Regime::Small,
        at_x: 300e3,
        from_x: 256e3,
        to_x: 1e6,
        ns_before: 2.0,
        ns_after: 8.0,
        kind: StepKind::Translation,
        matches: Some("L1 dTLB reach (64 × 4 KiB = 256 KiB)".into()),
        matches_kind: Some(StepKind::Translation),
    };
    let staircase = StaircaseResults {
        requested_max_bytes: Some(4 << 20),
        max_bytes: Some(4 << 20),
        size_note: None,
        stride_bytes: Some(64),
        repetitions: Some(2),
        seed: Some(1),
        curves: vec![
            curve(Regime::Small, 2.0, Some(0)),
            curve(Regime::Huge, 1.5, Some(4096)),
        ],
        steps: vec![step],
        geometry: geometry(),
        agreement: vec![],
        counters: None,
        published: vec![],
    };
    let tlb = TlbReachResults {
        line_step: 13,
        line_layout: None,
        measured: None,
        repetitions: 2,
        seed: 1,
        data_limit_bytes: 512 << 10,
        size_note: None,
        curves: vec![
            Curve {
                regime: Regime::Small,
                skipped: None,
                pages_from: None,
                step_min_rise: None,
                points: vec![
                    point(8 * 4096, 8, &[1.0, 1.1], Some(0)),
                    point(128 * 4096, 128, &[3.0, 3.2], Some(0)),
                ],
            },
            Curve {
                regime: Regime::Huge,
                skipped: Some("THP enabled=never".into()),
                pages_from: None,
                step_min_rise: None,
                points: vec![],
            },
        ],
        steps: vec![],
        geometry: geometry(),
        agreement: vec![],
        counters: None,
    };
    let thp = ThpResults {
        settings: ThpSettings {
            enabled: Some("madvise".into()),
            defrag: None,
            khugepaged_defrag: None,
            max_ptes_none: None,
            shrink_underused: None,
            sizes: None,
        },
        repetitions: Some(2),
        memory_before: None,
        sizes: vec![ThpSize {
            requested_bytes: 256 << 20,
            size_bytes: 256 << 20,
            size_note: None,
            small: Some(point(256 << 20, 65536, &[150.0, 160.0], Some(0))),
            huge: Some(point(256 << 20, 65536, &[120.0, 125.0], Some(256 << 10))),
            skipped: None,
        }],
        hugetlb: None,
        counters: None,
    };
    let record = |name: &str, results| ExperimentRecord {
        name: name.into(),
        status: Status::Ok,
        reason: None,
        duration_s: Some(1.0),
        checks: vec![],
        background: None,
        results: Some(results),
    };
    RunFile {
        schema_version: SCHEMA_VERSION,
        provenance: Provenance::Collector {
            collector_version: "0.1.0".into(),
            run_id: "r".into(),
            started_utc: "2026-11-30T00:00:00Z".into(),
            finished_utc: None,
            quick: true,
            command: vec![],
            interrupted: false,
            signal: None,
        },
        machine: None,
        experiments: vec![
            record("staircase", Results::Staircase(staircase)),
            record("tlb-reach", Results::TlbReach(tlb)),
            record("thp", Results::Thp(thp)),
        ],
    }
}
