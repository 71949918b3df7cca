//! The 4 KiB ÷ huge-page ratio under a translation chart (`staircase-ratio`,
//! `tlb-reach-ratio`): the chapter's own discriminator drawn. On log-log
//! axes the two curves look like one line; their ratio on a linear axis is
//! flat at 1 where translation costs nothing and rises as a bump where
//! 4 KiB pages run out of TLB reach while huge pages do not (a cache level
//! running out lifts both curves and leaves the ratio flat). Same x axis
//! and markers as the chart above it; the band is the run's own A-vs-A
//! noise around 1.

use pagewalk_model::comparison::noise_floor;
use pagewalk_model::{ChasePoint, Curve, Regime, RunFile};

use crate::spec::{Axis, ChartKind, ChartSpec, Point, Role, Series};

/// What the ratio chart of a translation chart shares with it.
pub(super) struct Above<'a> {
    pub id: &'a str,
    pub x: Axis,
    pub curves: &'a [Curve],
    pub x_of: fn(&ChasePoint) -> Option<f64>,
    pub note: Option<String>,
}

pub(super) fn ratio(run: &RunFile, above: Above) -> ChartSpec {
    let curve = |r: Regime| above.curves.iter().find(|c| c.regime == r);
    let points = match (curve(Regime::Small), curve(Regime::Huge)) {
        (Some(small), Some(huge)) => points(small, huge, above.x_of),
        _ => Vec::new(),
    };
    let note = if points.is_empty() {
        Some(above.note.unwrap_or_else(|| {
            "no size has both a 4 KiB and a huge-page figure in this run".into()
        }))
    } else {
        above.note
    };
    ratio_chart(
        run,
        format!("{}-ratio", above.id),
        "How much more a load costs on 4 KiB pages than on huge pages",
        "the ratio of the median ns per load on 4 KiB pages to that on huge pages at each size both measured, on a linear axis under the same sizes as the chart above: flat at 1 where translation costs nothing, a bump where 4 KiB pages run out of TLB reach",
        above.x,
        points,
        note,
    )
}

/// A chart of one 4 KiB ÷ huge-page ratio against `x`, on a linear axis
/// read against the run's own no-difference band: the translation charts'
/// panels and the mlp chart's.
pub(crate) fn ratio_chart(
    run: &RunFile,
    id: String,
    title: &str,
    description: &str,
    x: Axis,
    points: Vec<Point>,
    note: Option<String>,
) -> ChartSpec {
    ChartSpec {
        id,
        title: title.into(),
        description: description.into(),
        kind: ChartKind::Lines,
        x,
        y: no_difference_band(
            Axis::linear("4 KiB ÷ huge pages, median ns per load", "×"),
            run,
        ),
        categories: Vec::new(),
        series: vec![Series {
            name: "4 KiB ÷ huge pages".into(),
            role: Role::Run,
            faint: false,
            points,
        }],
        note,
        empty_note: None,
    }
}

/// The ratio of two medians at `x`, both in its note; `None` where the
/// quotient means nothing (no huge-page time, no 4 KiB one).
pub(crate) fn ratio_point(x: f64, small: f64, huge: f64) -> Option<Point> {
    (huge > 0.0 && small.is_finite()).then(|| Point {
        note: Some(format!(
            "{} ns against {} ns",
            pagewalk_model::units::significant(small),
            pagewalk_model::units::significant(huge)
        )),
        ..Point::xy(x, Some(small / huge))
    })
}

/// `y` with the band a ratio reads against: 1× give or take the run's own
/// A-vs-A noise, where the two sides do not differ.
pub(crate) fn no_difference_band(y: Axis, run: &RunFile) -> Axis {
    match noise_floor(run).filter(|f| f.is_finite() && *f >= 0.0) {
        Some(f) => y.with_band(
            1.0 / (1.0 + f),
            1.0 + f,
            format!(
                "1× give or take the run's A-vs-A noise ({}%): no difference",
                pagewalk_model::units::significant(f * 100.0)
            ),
        ),
        None => y,
    }
}

/// The ratio of the medians at each x both curves measured. No range: the
/// extremes' ratios (slowest over fastest) would stretch the axis far
/// past what the medians show; the two medians are in the note.
fn points(small: &Curve, huge: &Curve, x_of: fn(&ChasePoint) -> Option<f64>) -> Vec<Point> {
    small
        .points
        .iter()
        .filter_map(|s| {
            let x = x_of(s)?;
            let h = huge.points.iter().find(|h| x_of(h) == Some(x))?;
            ratio_point(x, s.ns_per_load.median, h.ns_per_load.median)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::builders::fixtures::committed;
    use pagewalk_model::Regime;

    #[test]
    fn the_ratio_is_the_medians_quotient_at_shared_sizes() {
        let run = committed("example");
        let t = run.tlb_reach().unwrap();
        let spec = crate::build("tlb-reach-ratio", &[&run]).unwrap();
        let curve = |r: Regime| t.curves.iter().find(|c| c.regime == r).unwrap();
        let (small, huge) = (curve(Regime::Small), curve(Regime::Huge));
        let mut checked = 0;
        for p in &spec.series[0].points {
            let x = p.x.unwrap();
            let at = |c: &pagewalk_model::Curve| {
                c.points
                    .iter()
                    .find(|q| q.pages.map(|n| n as f64) == Some(x))
                    .unwrap()
                    .ns_per_load
                    .median
            };
            assert_eq!(p.value, Some(at(small) / at(huge)));
            checked += 1;
        }
        assert!(checked > 10, "{checked}");
        // The no-difference band is the run's A-vs-A floor around 1.
        let f = pagewalk_model::comparison::noise_floor(&run).unwrap();
        let band = spec.y.band.as_ref().unwrap();
        assert_eq!((band.low, band.high), (1.0 / (1.0 + f), 1.0 + f));
        // Same x axis and markers as the chart above it.
        let above = crate::build("tlb-reach", &[&run]).unwrap();
        assert_eq!(spec.x, above.x);
    }
}
