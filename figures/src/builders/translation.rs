//! Address-translation charts: the latency staircase (`staircase`), TLB
//! reach with the data kept in cache (`tlb-reach`), and 4 KiB vs huge pages
//! at large sizes (`thp`).

use pagewalk_model::{
    ChasePoint, Curve, Geometry, PublishedLevel, RunFile, Step, StepKind, ThpSize,
};

use super::bars::{joined, source_names, sources};
use super::points::missing_reason;
use super::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Marker, MarkerKind, Point, Series};

const NS_AXIS: &str = "ns per load (median, whiskers min to max)";
const NS_UNIT: &str = "ns per load";

/// ns per load by region size, log-log: both page regimes of the run, the
/// reference's published levels, and markers at the run machine's cache
/// sizes, TLB reaches and the steps the detector found.
pub fn staircase(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let results = run.staircase();
    let mut series: Vec<Series> = results
        .map(|s| curves(run, &s.curves, bytes))
        .unwrap_or_default();
    let mut notes: Vec<String> = missing_reason(run, pagewalk_model::translation::STAIRCASE)
        .into_iter()
        .collect();
    if let Some((r, s)) = reference.and_then(|r| Some((r, r.staircase()?))) {
        series.push(Series {
            name: series_name(r),
            role: role(r),
            points: published_points(&s.published),
        });
        let undrawn: Vec<String> = s
            .published
            .iter()
            .filter(|l| published_points(std::slice::from_ref(l)).is_empty())
            .map(describe_level)
            .collect();
        if !undrawn.is_empty() {
            notes.push(format!(
                "{} also reports, without a size to draw it at: {}",
                series_name(r),
                undrawn.join("; ")
            ));
        }
    }
    if let Some(s) = results {
        notes.extend(skipped(&s.curves));
    }
    let markers = results.map_or_else(Vec::new, |s| {
        let mut m = geometry_markers(&s.geometry, |b| b as f64, |entries, page| entries * page);
        m.extend(step_markers(&s.steps));
        m
    });
    ChartSpec {
        id: "staircase".into(),
        title: "Latency staircase: ns per load by region size".into(),
        description: format!(
            "dependent pointer chase, ns per load against region size on log-log axes, with 4 KiB and huge pages, {}",
            source_names(&sources(run, reference))
        ),
        kind: ChartKind::Lines,
        x: Axis::log("region size", "bytes").with_markers(markers),
        y: Axis::log(NS_AXIS, NS_UNIT),
        categories: Vec::new(),
        series,
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

/// ns per load by pages touched (one line per page), both regimes, with
/// markers at the TLB entry counts and the L1d size in lines.
pub fn tlb_reach(run: &RunFile) -> ChartSpec {
    let results = run.tlb_reach();
    let mut notes: Vec<String> = missing_reason(run, pagewalk_model::translation::TLB_REACH)
        .into_iter()
        .collect();
    if let Some(t) = results {
        notes.extend(skipped(&t.curves));
        notes.push(format!(
            "the data touched stays within {} by construction",
            size_label(t.data_limit_bytes)
        ));
    }
    let markers = results.map_or_else(Vec::new, |t| {
        // A TLB runs out at its entry count in 4 KiB pages; a cache at its
        // size in 64-byte lines (one per page).
        let mut m = geometry_markers(
            &t.geometry,
            |b| (b / 64) as f64,
            |entries, page| entries * page / 4096,
        );
        m.extend(step_markers(&t.steps));
        m
    });
    ChartSpec {
        id: "tlb-reach".into(),
        title: "TLB reach: ns per load by pages touched".into(),
        description: format!(
            "one cache line per 4 KiB page, ns per load against the number of pages on log-log axes, with 4 KiB and huge pages, {}",
            series_name(run)
        ),
        kind: ChartKind::Lines,
        x: Axis::log("pages touched (one 64-byte line each)", "pages").with_markers(markers),
        y: Axis::log(NS_AXIS, NS_UNIT),
        categories: Vec::new(),
        series: results
            .map(|t| curves(run, &t.curves, |p| p.pages.map(|n| n as f64)))
            .unwrap_or_default(),
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

/// 4 KiB vs huge pages at each size, the run next to the reference; each
/// huge-page bar says how much of its region huge pages really backed.
pub fn thp(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let mut sizes: Vec<u64> = sources
        .iter()
        .filter_map(|s| s.thp())
        .flat_map(|t| {
            t.sizes
                .iter()
                .filter(|s| s.size_bytes > 0)
                .map(|s| s.size_bytes)
        })
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut series = Vec::new();
    for src in &sources {
        let Some(t) = src.thp() else { continue };
        let at = |bytes| t.sizes.iter().find(|s| s.size_bytes == bytes);
        for (regime, pick) in [
            (
                "4 KiB pages",
                (|s: &ThpSize| s.small.as_ref()) as fn(&ThpSize) -> Option<&ChasePoint>,
            ),
            ("huge pages", |s: &ThpSize| s.huge.as_ref()),
        ] {
            series.push(Series {
                name: format!("{}, {regime}", series_name(src)),
                role: role(src),
                points: sizes
                    .iter()
                    .map(|&b| {
                        let key = size_key(b);
                        match at(b).and_then(|s| Some((s, pick(s)?))) {
                            Some((_, p)) => Point {
                                category: Some(key),
                                x: None,
                                ..chase_point(0.0, p)
                            },
                            None => Point {
                                note: Some(match at(b).and_then(|s| s.skipped.clone()) {
                                    Some(why) => format!("skipped: {why}"),
                                    None => "not measured at this size".into(),
                                }),
                                ..Point::bar(key, None)
                            },
                        }
                    })
                    .collect(),
            });
        }
    }
    let notes: Vec<String> = sources
        .iter()
        .filter_map(|s| missing_reason(s, pagewalk_model::translation::THP))
        .collect();
    ChartSpec {
        id: "thp".into(),
        title: "Huge pages: ns per load, 4 KiB vs huge pages".into(),
        description: format!(
            "dependent pointer chase at each region size on 4 KiB and on huge pages, with the share actually backed by huge pages, {}",
            source_names(&sources)
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("region size", ""),
        y: Axis::linear(NS_AXIS, NS_UNIT),
        categories: sizes
            .iter()
            .map(|&b| Category::new(size_key(b), size_label(b)))
            .collect(),
        series,
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

fn bytes(p: &ChasePoint) -> Option<f64> {
    Some(p.region_bytes as f64)
}

/// One series per regime that has points.
fn curves(run: &RunFile, curves: &[Curve], x: fn(&ChasePoint) -> Option<f64>) -> Vec<Series> {
    curves
        .iter()
        .filter(|c| !c.points.is_empty())
        .map(|c| Series {
            name: format!("{}, {}", series_name(run), c.regime.label()),
            role: role(run),
            points: c
                .points
                .iter()
                .filter_map(|p| Some(chase_point(x(p)?, p)))
                .collect(),
        })
        .collect()
}

/// The median with its spread, and what the region really had.
fn chase_point(x: f64, p: &ChasePoint) -> Point {
    let s = &p.ns_per_load;
    let mut notes = Vec::new();
    if s.n > 1 {
        notes.push(format!("median of {} repetitions", s.n));
    }
    if let Some(f) = p.huge_fraction {
        notes.push(format!("{:.0}% backed by huge pages", f * 100.0));
    }
    if let Some(c) = p.collapse.as_ref().filter(|c| !c.ok) {
        notes.push(format!(
            "MADV_COLLAPSE: {}",
            c.errno.as_deref().unwrap_or("failed")
        ));
    }
    notes.extend(p.note.clone());
    Point {
        min: (s.n > 1).then_some(s.min),
        max: (s.n > 1).then_some(s.max),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        ..Point::xy(x, Some(s.median))
    }
}

/// A published level as points: a single figure at its size, a range
/// "a rising to b" at both ends. Levels without a size, or with only an
/// increment, cannot be placed.
fn published_points(levels: &[PublishedLevel]) -> Vec<Point> {
    let mut out = Vec::new();
    for l in levels {
        let Some(ns) = l.ns else { continue };
        let note = Some(format!("{} (not \"{}\")", l.actual, l.naive));
        let at = |x: u64, v: f64| Point {
            note: note.clone(),
            ..Point::xy(x as f64, Some(v))
        };
        match (l.from_bytes, l.to_bytes) {
            (Some(a), Some(b)) if a != b => {
                out.push(at(a, ns.min));
                out.push(at(b, ns.max));
            }
            (_, Some(b)) | (Some(b), None) if ns.min == ns.max => out.push(at(b, ns.min)),
            _ => {}
        }
    }
    out.sort_by(|a, b| a.x.partial_cmp(&b.x).unwrap_or(std::cmp::Ordering::Equal));
    out
}

fn describe_level(l: &PublishedLevel) -> String {
    let size = match (l.from_bytes, l.to_bytes) {
        (Some(a), None) => format!("beyond {}", size_label(a)),
        (Some(a), Some(b)) if a == b => format!("at {}", size_label(a)),
        (Some(a), Some(b)) => format!("{} to {}", size_label(a), size_label(b)),
        (None, Some(b)) => format!("up to {}", size_label(b)),
        (None, None) => String::new(),
    };
    let ns = match (l.ns, l.added_ns) {
        (Some(r), _) => format!("{} to {} ns", r.min, r.max),
        (None, Some(r)) => format!("{} to {} ns more", r.min, r.max),
        _ => String::new(),
    };
    format!("{size}, {ns} ({})", l.actual)
}

/// Markers at the cache sizes and the TLB reaches. `cache_x` places a
/// cache of so many bytes; `tlb_x(entries, page bytes)` a TLB level.
fn geometry_markers(
    g: &Geometry,
    cache_x: impl Fn(u64) -> f64,
    tlb_x: impl Fn(u64, u64) -> u64,
) -> Vec<Marker> {
    let caches = g
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| Marker {
            x: cache_x(c.size_bytes),
            label: format!(
                "{} {}",
                if c.level == 1 {
                    "L1d".into()
                } else {
                    format!("L{}", c.level)
                },
                size_label(c.size_bytes)
            ),
            kind: MarkerKind::Cache,
        });
    let tlbs = g
        .tlbs
        .iter()
        .filter(|t| t.kind != pagewalk_model::TlbKind::Instruction)
        .map(|t| Marker {
            x: tlb_x(u64::from(t.entries), t.page_bytes) as f64,
            label: format!(
                "{} {} × {}",
                if t.level == 1 { "L1 dTLB" } else { "L2 TLB" },
                t.entries,
                size_label(t.page_bytes)
            ),
            kind: MarkerKind::Tlb,
        });
    caches.chain(tlbs).collect()
}

fn step_markers(steps: &[Step]) -> Vec<Marker> {
    steps
        .iter()
        .map(|s| Marker {
            x: s.at_x,
            label: format!(
                "step ({}): {}",
                s.regime.label(),
                match s.kind {
                    StepKind::Cache => "cache",
                    StepKind::Translation => "translation",
                    StepKind::Unclassified => "unclassified",
                }
            ),
            kind: MarkerKind::Step,
        })
        .collect()
}

fn skipped(curves: &[Curve]) -> Vec<String> {
    curves
        .iter()
        .filter_map(|c| {
            Some(format!(
                "{} skipped: {}",
                c.regime.label(),
                c.skipped.as_ref()?
            ))
        })
        .collect()
}

/// `256MiB`: a stable category key.
fn size_key(bytes: u64) -> String {
    size_label(bytes).replace(' ', "")
}

/// Binary units, trimmed: `4 KiB`, `1.25 MiB`, `1 GiB`.
pub fn size_label(bytes: u64) -> String {
    pagewalk_model::units::bytes(bytes as f64)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{r2, values};
    use super::*;
    use crate::{build, render_svg, Palette, Role};
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
            huge_fraction: huge_kib.map(|k| ((k * 1024) as f64 / region_bytes as f64).min(1.0)),
            collapse: None,
            timed_minor_faults: Some(0),
            dtlb_load_misses: None,
            perf_page_faults: None,
            note: None,
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

    fn run() -> RunFile {
        let sizes = [64u64 << 10, 256 << 10, 1 << 20, 4 << 20];
        let curve = |regime, base: f64, huge| Curve {
            regime,
            skipped: None,
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
            repetitions: 2,
            seed: 1,
            data_limit_bytes: 512 << 10,
            size_note: None,
            curves: vec![
                Curve {
                    regime: Regime::Small,
                    skipped: None,
                    points: vec![
                        point(8 * 4096, 8, &[1.0, 1.1], Some(0)),
                        point(128 * 4096, 128, &[3.0, 3.2], Some(0)),
                    ],
                },
                Curve {
                    regime: Regime::Huge,
                    skipped: Some("THP enabled=never".into()),
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
            },
            machine: None,
            experiments: vec![
                record("staircase", Results::Staircase(staircase)),
                record("tlb-reach", Results::TlbReach(tlb)),
                record("thp", Results::Thp(thp)),
            ],
        }
    }

    #[test]
    fn staircase_has_both_regimes_the_reference_and_markers() {
        let (run, r2) = (run(), r2("r2-cache-02.json"));
        let spec = build("staircase", &[&run, &r2]).unwrap();
        assert_eq!(spec.kind, ChartKind::Lines);
        assert_eq!(
            (spec.x.scale, spec.y.scale),
            (crate::Scale::Log, crate::Scale::Log)
        );
        let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "this run, 4 KiB pages",
                "this run, huge pages (THP)",
                "the reference lab machine"
            ]
        );
        let reference = &spec.series[2];
        assert_eq!(reference.role, Role::Reference);
        // 48 KiB; 384 KiB -> 1.25 MiB as two points; 2 MiB.
        let xy: Vec<(f64, f64)> = reference
            .points
            .iter()
            .map(|p| (p.x.unwrap(), p.value.unwrap()))
            .collect();
        assert_eq!(
            xy,
            [
                (49152.0, 2.4),
                (393216.0, 4.0),
                (1310720.0, 12.0),
                (2097152.0, 24.0)
            ]
        );
        // The rows without a size are named, not drawn.
        let note = spec.note.as_deref().unwrap();
        assert!(note.contains("beyond 8 MiB, 128 to 184 ns"), "{note}");
        let huge = &spec.series[1].points[0];
        assert_eq!((huge.min, huge.max), (Some(1.5), Some(3.0)));
        assert!(
            huge.note
                .as_deref()
                .unwrap()
                .contains("100% backed by huge pages"),
            "{huge:?}"
        );
        let kinds: Vec<MarkerKind> = spec.x.markers.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [MarkerKind::Cache, MarkerKind::Tlb, MarkerKind::Step]
        );
        assert_eq!(spec.x.markers[1].x, 262144.0);
        assert_eq!(spec.x.markers[1].label, "L1 dTLB 64 × 4 KiB");
    }

    #[test]
    fn tlb_reach_counts_pages_and_names_a_skipped_regime() {
        let spec = tlb_reach(&run());
        assert_eq!(spec.series.len(), 1);
        let xs: Vec<f64> = spec.series[0].points.iter().map(|p| p.x.unwrap()).collect();
        assert_eq!(xs, [8.0, 128.0]);
        assert!(spec
            .note
            .as_deref()
            .unwrap()
            .contains("huge pages (THP) skipped"));
        // L1 dTLB at 64 entries; the 1 MiB L2 as 16384 lines.
        let xs: Vec<f64> = spec.x.markers.iter().map(|m| m.x).collect();
        assert_eq!(xs, [16384.0, 64.0]);
    }

    #[test]
    fn thp_bars_pair_sizes_and_say_what_was_backed() {
        let (run, r2) = (run(), r2("r2-cache-06.json"));
        let spec = build("thp", &[&run, &r2]).unwrap();
        let keys: Vec<&str> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["256MiB", "1GiB"]);
        assert_eq!(spec.series.len(), 4);
        let run_huge = &spec.series[1];
        assert_eq!(run_huge.at("256MiB").unwrap().value, Some(122.5));
        assert!(
            run_huge.at("1GiB").unwrap().value.is_none(),
            "a gap, not a zero"
        );
        let r2_huge = &spec.series[3];
        let big = r2_huge.at("1GiB").unwrap();
        assert_eq!(big.value, Some(189.0));
        let note = big.note.as_deref().unwrap();
        assert!(
            note.contains("33% backed") && note.contains("ENOMEM"),
            "{note}"
        );
    }

    #[test]
    fn charts_render_marks_and_markers() {
        let (run, r2) = (run(), r2("r2-cache-02.json"));
        for name in ["staircase", "tlb-reach", "thp"] {
            let spec = build(name, &[&run, &r2]).unwrap();
            let svg = render_svg(&spec, &Palette::light(), 720, 0);
            assert_eq!(
                svg.matches("class=\"pw-mark\"").count(),
                values(&spec),
                "{name}"
            );
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(
                ChartSpec::from_json(&json).unwrap(),
                spec,
                "{name} round-trips"
            );
        }
        assert_eq!(size_label(1280 << 10), "1.25 MiB");
        assert_eq!(size_label(1 << 30), "1 GiB");
    }

    #[test]
    fn markers_are_drawn_labelled_and_optional() {
        let spec = staircase(&run(), None);
        let svg = render_svg(&spec, &Palette::light(), 720, 0);
        // Cache, TLB and step markers all fall inside 64 KiB..4 MiB.
        assert_eq!(svg.matches("class=\"pw-marker ").count(), 3, "{svg}");
        assert!(svg.contains("aria-label=\"tlb marker: L1 dTLB 64 × 4 KiB at 256 KiB\""));
        assert!(svg.contains("class=\"pw-marker pw-marker-step\""));
        // Outside the plotted range: not drawn.
        let mut far = spec.clone();
        far.x.markers[0].x = 1e12;
        let svg = render_svg(&far, &Palette::light(), 720, 0);
        assert_eq!(svg.matches("class=\"pw-marker ").count(), 2);
        // A spec written before markers existed still reads.
        let mut json: serde_json::Value = serde_json::to_value(&spec).unwrap();
        json["x"].as_object_mut().unwrap().remove("markers");
        let old = ChartSpec::from_json(&json.to_string()).unwrap();
        assert!(old.x.markers.is_empty());
    }
}
