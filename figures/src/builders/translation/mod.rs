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
    if s.n > 1 {
        notes.push(format!("median of {} repetitions", s.n));
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
