//! The lab charts: what the build draws for them from `data/` (the shown
//! run and the references), and the series the page adds from the
//! browser's own results (role [`Role::Browser`]).
//!
//! [`build`] answers for every chart of the book, so a file the reader
//! loads is charted by the same code as the build: lab charts here, the
//! rest through [`pagewalk_figures::build`].

use pagewalk_figures::{
    series_name, Axis, BuildError, ChartKind, ChartSpec, Marker, MarkerKind, Point, Role, Series,
};
use pagewalk_model::{first_touch::EXPERIMENT as FIRST_TOUCH_EXPERIMENT, Mode, RunFile, Summary};

use crate::chase::ChaseReport;
use crate::first_touch::FirstTouchReport;
use crate::tlb::TlbReport;
use crate::{size_label, MIB};

pub const FIRST_TOUCH: &str = "lab-first-touch";
pub const CHASE: &str = "lab-chase";
pub const TLB_MODEL: &str = "lab-tlb-model";
/// The lab charts, as `{{lab ...}}` places them.
pub const NAMES: &[&str] = &[FIRST_TOUCH, CHASE, TLB_MODEL];

/// The note of a lab chart with nothing to draw yet; [`crate::overlay`]
/// drops it once the chart has values and puts it back when they go.
pub const NOTHING_YET: &str =
    "nothing measured yet: run the experiment above and this browser's numbers appear here";

/// Builds chart `name` from run files (`runs[0]` the shown run, the rest
/// references), with no browser results yet.
pub fn build(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    match name {
        FIRST_TOUCH => Ok(first_touch_spec(runs)),
        CHASE => Ok(chase_spec(runs)),
        TLB_MODEL => Ok(tlb_spec()),
        _ => pagewalk_figures::build(name, runs),
    }
}

fn role(run: &RunFile) -> Role {
    if run.is_reference() {
        Role::Reference
    } else {
        Role::Run
    }
}

/// A line point from a summary: the median with min/max whiskers.
fn point(x: f64, s: &Summary, note: Option<String>) -> Point {
    let spread = s.n > 1;
    Point {
        min: spread.then_some(s.min),
        max: spread.then_some(s.max),
        note,
        ..Point::xy(x, Some(s.median))
    }
}

fn with_note(spec: ChartSpec) -> ChartSpec {
    let has_values = spec
        .series
        .iter()
        .any(|s| s.points.iter().any(|p| p.value.is_some()));
    ChartSpec {
        note: (!has_values).then(|| NOTHING_YET.to_string()),
        ..spec
    }
}

/// First touch by region size: each run file's first and second pass at
/// its one size (mode `default`, plain `mmap` as an engine's memory is,
/// else `MADV_NOHUGEPAGE`), next to what the browser measures.
pub fn first_touch_spec(runs: &[&RunFile]) -> ChartSpec {
    let sources: Vec<&RunFile> = runs
        .first()
        .copied()
        .into_iter()
        .chain(
            runs.get(1..)
                .unwrap_or_default()
                .iter()
                .copied()
                .find(|r| r.is_reference() && r.experiment(FIRST_TOUCH_EXPERIMENT).is_some()),
        )
        .collect();
    let mut series = Vec::new();
    for src in sources {
        let Some(ft) = src.first_touch() else {
            continue;
        };
        let Some(mode) = [Mode::Default, Mode::Nohugepage]
            .into_iter()
            .find(|&m| ft.mode(m).is_some_and(|r| r.summary.first_pass.is_some()))
        else {
            continue;
        };
        let summary = &ft.mode(mode).expect("found above").summary;
        let x = ft.size_bytes as f64 / MIB as f64;
        let name = series_name(src);
        for (what, phase) in [
            ("first pass", &summary.first_pass),
            ("second pass", &summary.second_pass),
        ] {
            if let Some(p) = phase {
                series.push(Series {
                    name: format!("{name}: {what}, {}", mode.code()),
                    role: role(src),
                    points: vec![point(
                        x,
                        &p.ns_per_page,
                        Some(format!("{} pages", ft.pages)),
                    )],
                });
            }
        }
    }
    with_note(ChartSpec {
        id: FIRST_TOUCH.to_string(),
        title: "First touch: ns per 4 KiB page by region size".to_string(),
        description:
            "time per 4 KiB page to grow memory and to write it the first and the second time, \
                      in this browser by region size, next to the collector's runs"
                .to_string(),
        kind: ChartKind::Lines,
        x: Axis::log("region size", "MiB"),
        y: Axis::log(
            "ns per 4 KiB page (median, whiskers min to max)",
            "ns per page",
        ),
        categories: Vec::new(),
        series,
        note: None,
    })
}

/// The browser's first-touch series: memory.grow, first and second pass.
pub fn first_touch_series(report: &FirstTouchReport) -> Vec<Series> {
    type Phase = fn(&crate::first_touch::FirstTouchSize) -> &Summary;
    let pick: [(&str, Phase); 3] = [
        ("memory.grow", |s| &s.grow),
        ("first pass", |s| &s.first),
        ("second pass", |s| &s.second),
    ];
    pick.iter()
        .map(|(what, f)| Series {
            name: format!("this browser: {what}"),
            role: Role::Browser,
            points: report
                .sizes
                .iter()
                .map(|s| {
                    let note = if *what == "second pass" {
                        format!("{} pages, {} repetition(s)", s.pages, s.samples.len())
                    } else {
                        format!(
                            "{} pages, {} repetition(s), one timer step = {:.2} ns per page",
                            s.pages,
                            s.samples.len(),
                            s.quantum_ns
                        )
                    };
                    let x = s.size_bytes as f64 / MIB as f64;
                    if f(s).median > 0.0 {
                        point(x, f(s), Some(note))
                    } else {
                        // Zero is not a duration: the phase ended within one
                        // tick of the coarse clock. A gap, with the bound.
                        Point {
                            note: Some(format!(
                                "under one timer step ({:.2} ns per page) in most repetitions; {note}",
                                s.quantum_ns
                            )),
                            ..Point::xy(x, None)
                        }
                    }
                })
                .collect(),
        })
        .collect()
}

/// The pointer chase by region size: the shown run's `staircase` curves
/// (4 KiB and huge pages), next to the browser's chase.
pub fn chase_spec(runs: &[&RunFile]) -> ChartSpec {
    let mut series = Vec::new();
    if let Some(run) = runs.first() {
        for curve in run
            .staircase()
            .map(|s| s.curves.as_slice())
            .unwrap_or_default()
        {
            if curve.points.is_empty() {
                continue;
            }
            series.push(Series {
                name: format!("{}: {}", series_name(run), curve.regime.label()),
                role: role(run),
                points: curve
                    .points
                    .iter()
                    .map(|p| {
                        point(
                            p.region_bytes as f64,
                            &p.ns_per_load,
                            p.loads_per_sample
                                .map(|l| format!("{} samples of {l} loads", p.ns_per_load.n)),
                        )
                    })
                    .collect(),
            });
        }
    }
    with_note(ChartSpec {
        id: CHASE.to_string(),
        title: "Pointer chase: ns per dependent load by region size".to_string(),
        description: "time per dependent load of a random pointer chase, by region size, \
                      in this browser next to the collector's staircase"
            .to_string(),
        kind: ChartKind::Lines,
        // Bytes, as the collector's `staircase` chart: the browser's series
        // are laid over that chart too when a page has it.
        x: region_axis(),
        y: Axis::log(
            "ns per dependent load (median, whiskers min to max)",
            "ns per load",
        ),
        categories: Vec::new(),
        series,
        note: None,
    })
}

pub fn chase_series(report: &ChaseReport) -> Vec<Series> {
    vec![Series {
        name: "this browser: chase".to_string(),
        role: Role::Browser,
        points: report
            .points
            .iter()
            .map(|p| {
                point(
                    p.region_bytes as f64,
                    &p.summary,
                    Some(format!(
                        "{} samples of {} loads; one timer step = {:.3} ns per load",
                        p.ns_per_load.len(),
                        p.loads_per_sample,
                        p.quantum_ns
                    )),
                )
            })
            .collect(),
    }]
}

pub fn tlb_spec() -> ChartSpec {
    with_note(ChartSpec {
        id: TLB_MODEL.to_string(),
        title: "TLB model: modelled misses by region size".to_string(),
        description: "share of the chase's loads that miss in a modelled least-recently-used TLB, by region size"
            .to_string(),
        kind: ChartKind::Lines,
        x: region_axis(),
        y: Axis {
            min: Some(0.0),
            max: Some(100.0),
            ..Axis::linear("modelled TLB misses, % of loads", "% of loads")
        },
        categories: Vec::new(),
        series: Vec::new(),
        note: None,
    })
}

/// The region-size axis of the chase and the model: bytes (as the
/// collector's `staircase` chart), over a fixed range so the two charts line
/// up one above the other and the reach marker shows before any data.
fn region_axis() -> Axis {
    Axis {
        min: Some(4096.0),
        max: Some((1u64 << 30) as f64),
        ..Axis::log("region size", "bytes")
    }
}

/// The model's reach as a marker on the x axis (bytes) of the charts it
/// belongs next to: the model's own and the chase's.
pub fn tlb_markers(report: &TlbReport) -> Vec<Marker> {
    let p = &report.params;
    vec![Marker {
        x: report.reach_bytes as f64,
        label: format!(
            "model reach {} × {} = {}",
            p.entries,
            size_label(p.page_bytes),
            size_label(report.reach_bytes)
        ),
        kind: MarkerKind::Tlb,
    }]
}

/// The charts the model's reach is drawn on.
pub const TLB_MARKED: &[&str] = &[TLB_MODEL, CHASE];

pub fn tlb_series(report: &TlbReport) -> Vec<Series> {
    let p = &report.params;
    vec![Series {
        name: format!(
            "model: {} entries × {} pages, reach {}",
            p.entries,
            size_label(p.page_bytes),
            size_label(report.reach_bytes)
        ),
        role: Role::Browser,
        points: report
            .points
            .iter()
            .map(|t| Point {
                note: Some(format!("{} pages of {}", t.pages, size_label(p.page_bytes))),
                ..Point::xy(t.region_bytes as f64, Some(t.miss_rate * 100.0))
            })
            .collect(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chase::{ChaseParams, ChasePoint};
    use crate::{TimerInfo, KIB};

    fn example() -> RunFile {
        pagewalk_model::read_run(&crate::example_run_path()).unwrap()
    }

    #[test]
    fn first_touch_shows_the_runs_one_size() {
        let run = example();
        let spec = build(FIRST_TOUCH, &[&run]).unwrap();
        assert!(spec.note.is_none());
        assert_eq!(spec.series.len(), 2, "{:?}", spec.series);
        let ft = run.first_touch().unwrap();
        let x = ft.size_bytes as f64 / MIB as f64;
        let fp = &ft.mode(Mode::Default).unwrap().summary.first_pass;
        assert_eq!(spec.series[0].points[0].x, Some(x));
        assert_eq!(
            spec.series[0].points[0].value,
            Some(fp.as_ref().unwrap().ns_per_page.median)
        );
        assert!(spec.series.iter().all(|s| s.role == Role::Run));
        assert!(spec.series[0].name.starts_with("this run: first pass"));
    }

    #[test]
    fn empty_lab_charts_say_why() {
        for name in NAMES {
            let spec = build(name, &[]).unwrap();
            assert_eq!(spec.note.as_deref(), Some(NOTHING_YET), "{name}");
            assert_eq!(spec.id, *name);
        }
        assert!(build("first-touch-faults", &[&example()]).is_ok());
        assert!(build("no-such-chart", &[]).is_err());
    }

    #[test]
    fn a_phase_under_one_timer_tick_is_a_gap_not_zero() {
        use crate::first_touch::{FirstTouchParams, FirstTouchSample, FirstTouchSize};
        let s = |v: f64| Summary::of(&[v]).unwrap();
        let report = FirstTouchReport {
            params: FirstTouchParams {
                sizes_mib: vec![16],
                repetitions: 1,
                memory_cap_mib: 64,
                time_cap_s: 1.0,
            },
            timer: TimerInfo {
                resolution_ns: 100_000.0,
                readings: 10,
                cross_origin_isolated: false,
            },
            sizes: vec![FirstTouchSize {
                size_bytes: 16 * MIB,
                pages: 4096,
                samples: vec![FirstTouchSample {
                    grow_ns: 0.0,
                    first_ns: 250.0,
                    second_ns: 2.0,
                    second_passes: 40,
                }],
                grow: s(0.0),
                first: s(250.0),
                second: s(2.0),
                quantum_ns: 100_000.0 / 4096.0,
            }],
            plan_note: None,
            stopped: None,
            error: None,
        };
        let series = first_touch_series(&report);
        assert_eq!(series.len(), 3);
        let grow = &series[0].points[0];
        assert_eq!(grow.value, None);
        assert!(
            grow.note
                .as_deref()
                .unwrap()
                .contains("under one timer step (24.41 ns"),
            "{grow:?}"
        );
        assert_eq!(series[1].points[0].value, Some(250.0));
    }

    #[test]
    fn chase_series_has_one_point_per_size() {
        let summary = Summary::of(&[2.0, 3.0]).unwrap();
        let report = ChaseReport {
            params: ChaseParams {
                max_kib: 32,
                samples: 2,
                time_cap_s: 1.0,
                seed: 1,
            },
            timer: TimerInfo {
                resolution_ns: 100_000.0,
                readings: 10,
                cross_origin_isolated: false,
            },
            points: [16, 32]
                .map(|k| ChasePoint {
                    region_bytes: k * KIB,
                    slots: k * KIB / 64,
                    loads_per_sample: 1_000_000,
                    ns_per_load: vec![2.0, 3.0],
                    summary,
                    quantum_ns: 0.1,
                })
                .to_vec(),
            stopped: None,
            error: None,
        };
        let s = chase_series(&report);
        assert_eq!(s[0].role, Role::Browser);
        let xs: Vec<_> = s[0].points.iter().map(|p| p.x.unwrap()).collect();
        assert_eq!(xs, vec![16384.0, 32768.0]);
        assert_eq!(s[0].points[0].value, Some(2.5));
        assert_eq!(
            (s[0].points[0].min, s[0].points[0].max),
            (Some(2.0), Some(3.0))
        );
    }
}
