//! The series the page adds to the lab charts from the browser's own
//! results (role [`Role::Browser`]), and the TLB model's reach as a marker.
//! What the build draws for these charts from `data/` is
//! [`pagewalk_figures::lab`]'s, re-exported here with [`build`], which
//! answers for every chart of the book.

pub use pagewalk_figures::build;
pub use pagewalk_figures::lab::{CHASE, FIRST_TOUCH, NAMES, NOTHING_YET, TLB_MODEL};

use pagewalk_figures::lab::median_point as point;
use pagewalk_figures::{Marker, MarkerKind, Point, Role, Series};
use pagewalk_model::decimal::fixed;
use pagewalk_model::Summary;

use crate::chase::ChaseReport;
use crate::first_touch::FirstTouchReport;
use crate::tlb::TlbReport;
use crate::{size_label, MIB};

/// The browser's first-touch series: memory.grow, first and second pass.
/// A phase with no value at any size (memory.grow, which a coarse clock
/// often cannot see at all) is not drawn, where its legend entry would
/// hold only its gaps: it comes back in the second list, with its reason,
/// for the page to say once.
pub fn first_touch_series(report: &FirstTouchReport) -> (Vec<Series>, Vec<String>) {
    type Phase = fn(&crate::first_touch::FirstTouchSize) -> &Summary;
    let pick: [(&str, Phase); 3] = [
        ("memory.grow", |s| &s.grow),
        ("first pass", |s| &s.first),
        ("second pass", |s| &s.second),
    ];
    let mut drawn = Vec::new();
    let mut left_off = Vec::new();
    for (what, f) in pick {
        let points: Vec<Point> = report
            .sizes
            .iter()
            .map(|s| {
                let note = if what == "second pass" {
                    format!("{} pages, {} repetition(s)", s.pages, s.samples.len())
                } else {
                    format!(
                        "{} pages, {} repetition(s), one timer step = {} ns per page",
                        s.pages,
                        s.samples.len(),
                        fixed(s.quantum_ns, 2)
                    )
                };
                let x = s.size_bytes as f64 / MIB as f64;
                // A timed phase is read off a coarse clock: zero, or one
                // tick, is not a duration but a bound (the phase ended
                // within a tick). The second pass is an average over many
                // passes, so any positive figure is one.
                let floor = if what == "second pass" {
                    0.0
                } else {
                    s.quantum_ns
                };
                if f(s).median > floor {
                    point(x, f(s), Some(note))
                } else {
                    Point {
                        note: Some(format!(
                            "at most one timer step ({} ns per page) in most repetitions; {note}",
                            fixed(s.quantum_ns, 2)
                        )),
                        ..Point::xy(x, None)
                    }
                }
            })
            .collect();
        if !points.is_empty() && points.iter().all(|p| p.value.is_none()) {
            left_off.push(format!(
                "{what}, at most one timer step in most repetitions at every size"
            ));
            continue;
        }
        drawn.push(Series {
            name: format!("this browser: {what}"),
            role: Role::Browser,
            faint: false,
            points,
        });
    }
    (drawn, left_off)
}

pub fn chase_series(report: &ChaseReport) -> Vec<Series> {
    vec![Series {
        name: "this browser: chase".to_string(),
        role: Role::Browser,
        faint: false,
        points: report
            .points
            .iter()
            .map(|p| {
                point(
                    p.region_bytes as f64,
                    &p.summary,
                    Some(format!(
                        "{} samples of {} loads; one timer step = {} ns per load",
                        p.ns_per_load.len(),
                        p.loads_per_sample,
                        fixed(p.quantum_ns, 3)
                    )),
                )
            })
            .collect(),
    }]
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
        // The key under the plot calls this line style "TLB reach".
        tag: "model TLB reach".into(),
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
        faint: false,
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

    /// The model's reach is drawn, in bytes as the x axis, on the charts
    /// it belongs next to.
    #[test]
    fn the_model_reach_is_a_marker_on_the_lab_charts() {
        let report = crate::tlb::run(&crate::tlb::TlbParams {
            entries: 64,
            page_bytes: 4096,
            max_kib: 1024,
            seed: 1,
        });
        let markers = tlb_markers(&report);
        for name in TLB_MARKED {
            let mut spec = build(name, &[]).unwrap();
            pagewalk_figures::overlay::set_x_markers(&mut spec, markers.clone());
            assert_eq!(spec.x.markers.len(), 1);
            assert_eq!(spec.x.markers[0].x, 262144.0, "{name}");
            assert!(spec.x.markers[0].label.contains("64 × 4 KiB = 256 KiB"));
            let svg =
                pagewalk_figures::render_svg(&spec, &pagewalk_figures::Palette::light(), 720, 0);
            assert!(svg.contains("pw-marker"), "{name}: the marker is not drawn");
        }
    }

    /// A first-touch report of 16 and 32 MiB, one repetition each, whose
    /// memory.grow took `grow` ns at each size.
    fn first_touch_report(grow: [f64; 2]) -> FirstTouchReport {
        use crate::first_touch::{FirstTouchParams, FirstTouchSample, FirstTouchSize};
        let s = |v: f64| Summary::of(&[v]).unwrap();
        let size = |mib: u64, grow_ns: f64| FirstTouchSize {
            size_bytes: mib * MIB,
            pages: mib * 256,
            samples: vec![FirstTouchSample {
                grow_ns,
                first_ns: 250.0,
                second_ns: 2.0,
                second_passes: 40,
            }],
            grow: s(grow_ns),
            first: s(250.0),
            second: s(2.0),
            quantum_ns: 100_000.0 / (mib * 256) as f64,
        };
        FirstTouchReport {
            params: FirstTouchParams {
                sizes_mib: vec![16, 32],
                repetitions: 1,
                memory_cap_mib: 64,
                time_cap_s: 1.0,
            },
            timer: TimerInfo {
                resolution_ns: 100_000.0,
                readings: 10,
                cross_origin_isolated: false,
            },
            sizes: vec![size(16, grow[0]), size(32, grow[1])],
            plan_note: None,
            stopped: None,
            error: None,
        }
    }

    #[test]
    fn a_phase_under_one_timer_tick_is_a_gap_not_zero() {
        let (series, left_off) = first_touch_series(&first_touch_report([0.0, 50.0]));
        assert_eq!(series.len(), 3);
        assert!(left_off.is_empty(), "{left_off:?}");
        let grow = &series[0].points[0];
        assert_eq!(grow.value, None);
        assert!(
            grow.note
                .as_deref()
                .unwrap()
                .contains("at most one timer step (24.41 ns"),
            "{grow:?}"
        );
        assert_eq!(series[0].points[1].value, Some(50.0));
        assert_eq!(series[1].points[0].value, Some(250.0));
    }

    /// A phase the clock never saw is not a series of gaps in the legend:
    /// it is left off and named once, with its reason.
    #[test]
    fn a_phase_with_no_value_at_any_size_is_left_off_and_named() {
        let (series, left_off) = first_touch_series(&first_touch_report([0.0, 0.0]));
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["this browser: first pass", "this browser: second pass"]
        );
        assert_eq!(
            left_off,
            ["memory.grow, at most one timer step in most repetitions at every size"]
        );
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
