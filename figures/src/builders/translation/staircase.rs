//! `staircase`: ns per load by region size, with the reference's
//! published levels and the machine's cache, TLB and step markers.

use pagewalk_model::decimal::shortest;
use pagewalk_model::{ChasePoint, PublishedLevel, RunFile};

use super::chase::{curves, note_steps, skipped, NS_AXIS, NS_UNIT};
use super::geometry::{geometry_markers, no_tlb_note, size_label};
use crate::builders::bars::{joined, source_names, sources};
use crate::builders::points::missing_reason;
use crate::builders::source::{role, series_name};
use crate::spec::{Axis, ChartKind, ChartSpec, Point, Series};

/// ns per load by region size, log-log: both page regimes of the run, the
/// reference's published levels, and markers at the run machine's cache
/// sizes and TLB reaches (the steps the detector found are said at their
/// points).
pub fn staircase(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let results = run.staircase();
    let mut series: Vec<Series> = results
        .map(|s| curves(run, &s.curves, bytes))
        .unwrap_or_default();
    if let Some(s) = results {
        note_steps(&mut series, &s.steps);
    }
    let mut notes: Vec<String> = missing_reason(run, pagewalk_model::translation::STAIRCASE)
        .into_iter()
        .collect();
    if let Some((r, s)) = reference.and_then(|r| Some((r, r.staircase()?))) {
        series.push(Series {
            name: series_name(r),
            role: role(r),
            // Another machine's staircase, for context only.
            faint: true,
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
    let markers = markers(run);
    if results.is_some() {
        notes.extend(no_tlb_note(&markers));
    }
    ChartSpec {
        id: "staircase".into(),
        title: "Latency staircase: ns per load by region size".into(),
        description: crate::builders::bars::words(|| {
            format!(
            "dependent pointer chase, ns per load against region size on log-log axes, with 4 KiB and huge pages, {}",
            source_names(&sources(run, reference))
        )
        }),
        kind: ChartKind::Lines,
        x: Axis::log("region size", "bytes").with_markers(markers),
        y: Axis::log(NS_AXIS, NS_UNIT),
        categories: Vec::new(),
        series,
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

/// The staircase's 4 KiB ÷ huge-page ratio, under it on the same axis.
pub fn staircase_ratio(run: &RunFile) -> ChartSpec {
    let results = run.staircase();
    let markers = markers(run);
    super::ratio::ratio(
        run,
        super::ratio::Above {
            id: "staircase",
            x: Axis::log("region size", "bytes").with_markers(markers),
            curves: results.map_or(&[], |s| &s.curves),
            x_of: bytes,
            note: missing_reason(run, pagewalk_model::translation::STAIRCASE),
        },
    )
}

/// The run machine's cache sizes and TLB reaches, in bytes.
fn markers(run: &RunFile) -> Vec<crate::spec::Marker> {
    run.staircase().map_or_else(Vec::new, |s| {
        geometry_markers(
            run,
            &s.geometry,
            |b| b as f64,
            |entries, page| entries * page,
        )
    })
}

fn bytes(p: &ChasePoint) -> Option<f64> {
    Some(p.region_bytes as f64)
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
    pagewalk_model::sort::heap_sort_by(&mut out, |a, b| a.x < b.x);
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
        (Some(r), _) => format!("{} to {} ns", shortest(r.min), shortest(r.max)),
        (None, Some(r)) => format!("{} to {} ns more", shortest(r.min), shortest(r.max)),
        _ => String::new(),
    };
    format!("{size}, {ns} ({})", l.actual)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::fixtures::r2;
    use crate::builders::translation::fixtures::run;
    use crate::{build, render_svg, MarkerKind, Palette, Role};

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
        // The reference is context, drawn faint and behind; the two
        // curves the lesson compares are not.
        assert!(reference.faint && !spec.series[0].faint && !spec.series[1].faint);
        let svg = crate::render_svg(&spec, &crate::Palette::light(), 720, 0);
        let behind = svg.find("<g opacity=\"0.35\">").expect("a faint group");
        let front = svg
            .find("data-series=\"this run, 4 KiB pages\"")
            .expect("the 4 KiB marks");
        assert!(
            behind < front,
            "the faint series is drawn first, underneath"
        );
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
        // Caches and TLB levels are drawn, tagged short; the detector's
        // steps are said at their points, not drawn as more lines.
        let kinds: Vec<MarkerKind> = spec.x.markers.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [MarkerKind::Cache, MarkerKind::Tlb]);
        assert_eq!(spec.x.markers[1].x, 262144.0);
        assert_eq!(spec.x.markers[1].tag, "dTLB");
        assert_eq!(
            spec.x.markers[1].label,
            "L1 dTLB reach: 64 entries × 4 KiB = 256 KiB"
        );
        let stepped: Vec<&str> = spec
            .series
            .iter()
            .flat_map(|s| &s.points)
            .filter_map(|p| p.note.as_deref())
            .filter(|n| n.contains("step found here"))
            .collect();
        assert_eq!(
            stepped.len(),
            run.staircase().unwrap().steps.len(),
            "{stepped:?}"
        );
    }

    #[test]
    fn markers_are_drawn_labelled_and_optional() {
        let spec = staircase(&run(), None);
        let svg = render_svg(&spec, &Palette::light(), 720, 0);
        // The cache and the TLB level fall inside 64 KiB..4 MiB.
        assert_eq!(svg.matches("class=\"pw-marker ").count(), 2, "{svg}");
        assert!(svg.contains(
            "aria-label=\"tlb marker: L1 dTLB reach: 64 entries × 4 KiB = 256 KiB at 256 KiB\""
        ));
        // The plot shows the tag; the full words are the tooltip's.
        assert!(svg.contains(">dTLB</text>"), "{svg}");
        assert!(!svg.contains(">L1 dTLB reach"), "{svg}");
        assert!(!svg.contains("pw-marker-step"));
        // Outside the plotted range: not drawn.
        let mut far = spec.clone();
        far.x.markers[0].x = 1e12;
        let svg = render_svg(&far, &Palette::light(), 720, 0);
        assert_eq!(svg.matches("class=\"pw-marker ").count(), 1);
        // A spec written before markers existed still reads.
        let mut json: serde_json::Value = serde_json::to_value(&spec).unwrap();
        json["x"].as_object_mut().unwrap().remove("markers");
        let old = ChartSpec::from_json(&json.to_string()).unwrap();
        assert!(old.x.markers.is_empty());
    }
}
