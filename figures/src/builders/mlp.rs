//! The memory-level-parallelism chart: how many loads' latency `k`
//! independent chains hide, the overlap t(1)/t(k), against `k`, on linear
//! axes, with the ideal y = k drawn dashed. A curve that follows the
//! diagonal overlaps every miss; where it bends away, something ran out
//! (fill buffers, walkers), and the curve's last value, written at its
//! end, is that region's ceiling. One curve per region: past the TLB's
//! reach on 4 KiB and on huge pages, and the control inside it.
//!
//! Under it, `mlp-ratio`: what a load costs on 4 KiB pages over what it
//! costs on huge pages at each k, on a linear axis against the run's own
//! no-difference band. Above 1 at k = 1 is the walk's latency; a ratio
//! that falls as k grows says the walks overlap like the misses, one that
//! climbs says the walkers ran out before the fill buffers did.

use pagewalk_model::mlp::EXPERIMENT;
use pagewalk_model::{MlpRegion, MlpRegionResult, RunFile};

use super::points::missing_reason;
use super::translation::{ratio_chart, ratio_point};
use crate::spec::{Axis, ChartKind, ChartSpec, Point, Role, Series};

pub const NAME: &str = "mlp";
pub const RATIO: &str = "mlp-ratio";

pub fn mlp(run: &RunFile) -> ChartSpec {
    let results = run.mlp();
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let mut series = Vec::new();
    for r in results.iter().flat_map(|m| &m.regions) {
        if let Some(why) = &r.skipped {
            notes.push(format!("{} skipped: {why}", r.region.label()));
            continue;
        }
        series.push(Series {
            name: format!(
                "{} ({})",
                r.region.label(),
                super::translation::size_label(r.bytes)
            ),
            role: Role::Run,
            faint: false,
            points: overlap(r),
        });
    }
    ChartSpec {
        id: NAME.to_string(),
        title: "Memory-level parallelism: how many loads k chains overlap".to_string(),
        description: "the overlap t(1)/t(k), the single chain's time per load over the time per load with k independent pointer chains in flight, against k, with the ideal overlap y = k dashed, over a region beyond the TLB's reach and the last-level cache on 4 KiB and on huge pages, and over a region inside the TLB's reach; ranges from the repetitions".to_string(),
        kind: ChartKind::Lines,
        x: Axis::linear("independent chains in flight (k)", "chains"),
        y: Axis::linear(
            "overlap t(1)/t(k): loads' latency hidden (range: the repetitions)",
            "loads overlapped",
        )
        .with_diagonal("ideal: k chains hide k loads")
        .with_value_labels(),
        categories: Vec::new(),
        series,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
        empty_note: None,
    }
}

/// The 4 KiB region's median ns per load over the huge-page region's at
/// each chain count both measured.
pub fn mlp_ratio(run: &RunFile) -> ChartSpec {
    let region = |want: MlpRegion| {
        run.mlp()
            .into_iter()
            .flat_map(|m| &m.regions)
            .find(|r| r.region == want && r.skipped.is_none())
    };
    let points = match (region(MlpRegion::Small), region(MlpRegion::Huge)) {
        (Some(small), Some(huge)) => small
            .points
            .iter()
            .filter_map(|s| {
                let h = huge.point(s.chains)?;
                ratio_point(
                    f64::from(s.chains),
                    s.ns_per_load.median,
                    h.ns_per_load.median,
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    let note = points.is_empty().then(|| {
        missing_reason(run, EXPERIMENT).unwrap_or_else(|| {
            "no chain count has both a 4 KiB and a huge-page figure in this run".into()
        })
    });
    ratio_chart(
        run,
        RATIO.to_string(),
        "How much more a load costs on 4 KiB pages than on huge pages, by chains in flight",
        "the median ns per load over the region on 4 KiB pages divided by the median over the same size on huge pages, at each number of independent chains k, on a linear axis: above 1 at k = 1 is the page walk's latency; falling with k, the walks overlap as the misses do; rising, the walkers ran out first",
        Axis::linear("independent chains in flight (k)", "chains"),
        points,
        note,
    )
}

/// The region's overlap at each chain count: the single chain's median
/// over k chains' median, its range from k chains' slowest and fastest
/// repetition. No single-chain figure, no overlap (a gap, said why).
fn overlap(r: &MlpRegionResult) -> Vec<Point> {
    let one = r
        .point(1)
        .map(|p| p.ns_per_load.median)
        .filter(|t| *t > 0.0);
    r.points
        .iter()
        .map(|p| {
            let s = &p.ns_per_load;
            let x = f64::from(p.chains);
            match one {
                Some(t1) if s.median > 0.0 => {
                    let ranged = s.n > 1 && s.min > 0.0;
                    Point {
                        min: ranged.then(|| t1 / s.max),
                        max: ranged.then(|| t1 / s.min),
                        note: Some(format!(
                            "{} ns per load, median of {} repetitions",
                            pagewalk_model::units::significant(s.median),
                            s.n
                        )),
                        ..Point::xy(x, Some(t1 / s.median))
                    }
                }
                _ => Point {
                    note: Some("no single-chain time to compare with".into()),
                    ..Point::xy(x, None)
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::fixtures::committed;

    #[test]
    fn the_ratio_is_the_4_kib_median_over_the_huge_median_at_each_k() {
        let run = committed("example");
        let m = run.mlp().unwrap();
        let region = |want| m.regions.iter().find(|r| r.region == want).unwrap();
        let (small, huge) = (region(MlpRegion::Small), region(MlpRegion::Huge));
        let spec = mlp_ratio(&run);
        let points = &spec.series[0].points;
        assert!(points.len() > 3, "{} points", points.len());
        for p in points {
            let k = p.x.unwrap() as u32;
            let want = small.point(k).unwrap().ns_per_load.median
                / huge.point(k).unwrap().ns_per_load.median;
            assert_eq!(p.value, Some(want), "k={k}");
        }
        // Read against the run's own no-difference band around 1.
        let f = pagewalk_model::comparison::noise_floor(&run).unwrap();
        let band = spec.y.band.as_ref().unwrap();
        assert_eq!((band.low, band.high), (1.0 / (1.0 + f), 1.0 + f));
        assert_eq!(spec.x, mlp(&run).x);
    }

    #[test]
    fn overlap_is_one_chain_s_time_over_k_chains() {
        let run = committed("example");
        let m = run.mlp().unwrap();
        let spec = mlp(&run);
        assert!(spec.y.diagonal.is_some());
        let measured: Vec<_> = m.regions.iter().filter(|r| r.skipped.is_none()).collect();
        assert_eq!(spec.series.len(), measured.len());
        for (s, r) in spec.series.iter().zip(measured) {
            let t1 = r.point(1).unwrap().ns_per_load.median;
            for p in &r.points {
                let got = s
                    .points
                    .iter()
                    .find(|q| q.x == Some(f64::from(p.chains)))
                    .unwrap();
                let want = t1 / p.ns_per_load.median;
                assert_eq!(got.value, Some(want), "{} k={}", s.name, p.chains);
                if p.chains == 1 {
                    assert_eq!(got.value, Some(1.0));
                }
                // The range runs from the slowest repetition to the fastest.
                if p.ns_per_load.n > 1 {
                    assert_eq!(got.min, Some(t1 / p.ns_per_load.max));
                    assert_eq!(got.max, Some(t1 / p.ns_per_load.min));
                }
            }
        }
    }
}
