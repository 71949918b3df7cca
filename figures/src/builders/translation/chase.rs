//! The pointer chase's curves as series: a point per size with its spread
//! and what the region really had, the steps the detector found, and the
//! regimes that were skipped.

use pagewalk_model::decimal::fixed;
use pagewalk_model::{ChasePoint, Curve, Regime, RunFile, Step, StepKind};

use crate::builders::source::{role, series_name};
use crate::spec::{Point, Series};

pub(super) const NS_AXIS: &str = "ns per load (median, whiskers min to max)";
pub(super) const NS_UNIT: &str = "ns per load";

/// One series per regime that has points.
pub(super) fn curves(
    run: &RunFile,
    curves: &[Curve],
    x: fn(&ChasePoint) -> Option<f64>,
) -> Vec<Series> {
    curves
        .iter()
        .filter(|c| !c.points.is_empty())
        .map(|c| Series {
            name: format!("{}, {}", series_name(run), c.regime.label()),
            role: role(run),
            // 1 GiB pages are context: the lesson is 4 KiB against huge.
            faint: c.regime == Regime::Gigantic,
            points: c
                .points
                .iter()
                .filter_map(|p| Some(chase_point(x(p)?, p)))
                .collect(),
        })
        .collect()
}

/// The median with its spread, and what the region really had.
pub(super) fn chase_point(x: f64, p: &ChasePoint) -> Point {
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

/// The steps the detector found, said at the point where each starts (in
/// its tooltip and the data table) rather than drawn as more lines: the
/// chapter's prose gives the verdicts.
pub(super) fn note_steps(series: &mut [Series], steps: &[Step]) {
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

pub(super) fn skipped(curves: &[Curve]) -> Vec<String> {
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
