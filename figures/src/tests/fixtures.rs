//! A first-touch run made here (three modes, one skipped) and a published
//! reference with a mode the run lacks.

use pagewalk_model::{
    ExperimentRecord, FirstTouchResults, Mode, ModeResult, PhaseSample, Provenance, Results,
    RunFile, Sample, Status,
};

use crate::ChartSpec;

fn phase(ns_per_page: f64, faults: u64) -> PhaseSample {
    PhaseSample {
        wall_ns: ns_per_page * 1000.0,
        ns_per_page,
        minor_faults: Some(faults),
        major_faults: None,
        thp: None,
    }
}

fn sample(alloc_faults: u64, first_ns: f64, first_faults: u64) -> Sample {
    Sample {
        allocation: Some(phase(1.0, alloc_faults)),
        first_pass: Some(phase(first_ns, first_faults)),
        second_pass: Some(phase(2.0, 0)),
        rss_kib: None,
        anon_huge_pages_kib: None,
        allocator_calls: None,
    }
}

fn file(provenance: Provenance, modes: Vec<ModeResult>) -> RunFile {
    RunFile {
        schema_version: 1,
        provenance,
        machine: None,
        experiments: vec![ExperimentRecord {
            name: "first-touch".into(),
            status: Status::Ok,
            reason: None,
            duration_s: None,
            checks: vec![],
            background: None,
            results: Some(Results::FirstTouch(FirstTouchResults {
                requested_bytes: 4096 * 1000,
                size_bytes: 4096 * 1000,
                size_note: None,
                stride_bytes: 4096,
                pages: 1000,
                repetitions: 3,
                memory_before: None,
                modes,
                stated: Default::default(),
            })),
        }],
    }
}

pub(super) fn run() -> RunFile {
    file(
        Provenance::Collector {
            collector_version: "0.1.0".into(),
            run_id: "r-1".into(),
            started_utc: "2026-11-30T08:00:00Z".into(),
            finished_utc: None,
            quick: true,
            command: vec![],
            interrupted: false,
            signal: None,
        },
        vec![
            ModeResult::from_samples(
                Mode::Nohugepage,
                vec![
                    sample(0, 250.5, 1000),
                    sample(0, 300.0, 1000),
                    sample(0, 200.25, 1001),
                ],
            ),
            ModeResult::from_samples(Mode::Hugepage, vec![sample(0, 12.0, 2), sample(0, 14.0, 2)]),
            ModeResult::skipped(Mode::Populate, "no memory"),
        ],
    )
}

pub(super) fn reference() -> RunFile {
    let mut samples = vec![sample(0, 180.0, 0)];
    samples[0].first_pass.as_mut().unwrap().minor_faults = None;
    file(
        Provenance::Reference {
            source_id: "R1".into(),
            name: "the reference laptop".into(),
            conditions: "c".into(),
            note: "n".into(),
        },
        vec![
            ModeResult::from_samples(Mode::Nohugepage, samples),
            ModeResult::from_samples(Mode::Calloc, vec![sample(0, 90.0, 0)]),
        ],
    )
}

pub(super) fn value(spec: &ChartSpec, series: usize, key: &str) -> Option<f64> {
    spec.series[series].at(key).and_then(|p| p.value)
}
