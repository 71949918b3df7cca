//! Address-translation charts, one module per experiment: the latency
//! staircase (`staircase`), TLB reach with the data kept in cache
//! (`tlb-reach`), and 4 KiB vs huge pages at large sizes (`thp`); here what
//! they share: chase points, curves and the machine's markers.

use pagewalk_model::decimal::fixed;
use pagewalk_model::{ChasePoint, Curve, Geometry, RunFile, Step, StepKind};

use super::{role, series_name};
use crate::spec::{Marker, MarkerKind, Point, Series};

#[cfg(test)]
mod fixtures;
mod staircase;
mod thp;
mod tlb_reach;

pub use staircase::staircase;
pub use thp::thp;
pub use tlb_reach::tlb_reach;

const NS_AXIS: &str = "ns per load (median, whiskers min to max)";
const NS_UNIT: &str = "ns per load";

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
    match p.mappings {
        Some(m) if m > 1 => notes.push(format!("median of {} samples in {m} fresh mappings", s.n)),
        _ if s.n > 1 => notes.push(format!("median of {} repetitions", s.n)),
        _ => {}
    }
    if let Some(f) = p.huge_fraction {
        notes.push(format!("{}% backed by huge pages", fixed(f * 100.0, 0)));
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

/// Markers at the cache sizes and the TLB reaches, tagged in a few letters
/// (`L1d`, `L2`, `dTLB`, `STLB`, with the page size where it is not 4 KiB)
/// and described in full for the tooltip. `cache_x` places a cache of so
/// many bytes; `tlb_x(entries, page bytes)` a TLB level.
fn geometry_markers(
    g: &Geometry,
    cache_x: impl Fn(u64) -> f64,
    tlb_x: impl Fn(u64, u64) -> u64,
) -> Vec<Marker> {
    let caches = g
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| {
            let tag = if c.level == 1 {
                "L1d".to_string()
            } else {
                format!("L{}", c.level)
            };
            Marker {
                x: cache_x(c.size_bytes),
                label: format!("{tag} cache: {}", size_label(c.size_bytes)),
                kind: MarkerKind::Cache,
                tag,
            }
        });
    let tlbs = g
        .tlbs
        .iter()
        .filter(|t| t.kind != pagewalk_model::TlbKind::Instruction)
        .map(|t| {
            let level = if t.level == 1 { "dTLB" } else { "STLB" };
            let tag = if t.page_bytes == 4096 {
                level.to_string()
            } else {
                format!("{level} {}", page_tag(t.page_bytes))
            };
            Marker {
                x: tlb_x(u64::from(t.entries), t.page_bytes) as f64,
                label: format!(
                    "{} reach: {} entries × {} = {}",
                    if t.level == 1 {
                        "L1 dTLB"
                    } else {
                        "L2 TLB (STLB)"
                    },
                    t.entries,
                    size_label(t.page_bytes),
                    size_label(u64::from(t.entries) * t.page_bytes)
                ),
                kind: MarkerKind::Tlb,
                tag,
            }
        });
    caches.chain(tlbs).collect()
}

/// `2M`, `1G`: a page size in a tag.
fn page_tag(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{}G", b >> 30),
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b => format!("{}K", b >> 10),
    }
}

/// The steps the detector found, said at the point where each starts (in
/// its tooltip and the data table) rather than drawn as more lines: the
/// chapter's prose gives the verdicts.
fn note_steps(series: &mut [Series], steps: &[Step]) {
    for s in steps {
        let kind = match s.kind {
            StepKind::Cache => "a cache level running out",
            StepKind::Translation => "translation (TLB reach)",
            StepKind::Unclassified => "unclassified",
        };
        let Some(points) = series
            .iter_mut()
            .find(|c| c.name.ends_with(s.regime.label()))
            .map(|c| &mut c.points)
        else {
            continue;
        };
        let nearest = points.iter_mut().min_by(|a, b| {
            let d = |p: &Point| (p.x.unwrap_or(f64::INFINITY) - s.at_x).abs();
            d(a).total_cmp(&d(b))
        });
        if let Some(p) = nearest {
            let step = format!("step found here: {kind}");
            p.note = Some(match p.note.take() {
                Some(n) => format!("{n}; {step}"),
                None => step,
            });
        }
    }
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
    use super::fixtures::run;
    use super::*;
    use crate::builders::fixtures::{r2, values};
    use crate::{build, render_svg, ChartSpec, Palette};

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
}
