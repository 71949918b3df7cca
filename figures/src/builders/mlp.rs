//! The memory-level-parallelism chart: ns per load against the number of
//! independent chains, one line per region, both axes logarithmic. A line
//! that halves with each doubling is overlapping every miss; where it
//! flattens, something ran out.

use pagewalk_model::mlp::EXPERIMENT;
use pagewalk_model::RunFile;

use super::points::missing_reason;
use crate::spec::{Axis, ChartKind, ChartSpec, Point, Role, Series};

pub const NAME: &str = "mlp";

pub fn mlp(run: &RunFile) -> ChartSpec {
    let results = run.mlp();
    let mut notes: Vec<String> = missing_reason(run, EXPERIMENT).into_iter().collect();
    let series = results.map_or_else(Vec::new, |m| {
        m.regions
            .iter()
            .filter_map(|r| {
                if let Some(why) = &r.skipped {
                    notes.push(format!("{} skipped: {why}", r.region.label()));
                    return None;
                }
                Some(Series {
                    name: format!(
                        "{} ({})",
                        r.region.label(),
                        super::translation::size_label(r.bytes)
                    ),
                    role: Role::Run,
                    points: r
                        .points
                        .iter()
                        .map(|p| {
                            let s = &p.ns_per_load;
                            Point {
                                min: (s.n > 1).then_some(s.min),
                                max: (s.n > 1).then_some(s.max),
                                note: (s.n > 1).then(|| format!("median of {} repetitions", s.n)),
                                ..Point::xy(f64::from(p.chains), Some(s.median))
                            }
                        })
                        .collect(),
                })
            })
            .collect()
    });
    ChartSpec {
        id: NAME.to_string(),
        title: "Memory-level parallelism: ns per load by chains in flight".to_string(),
        description: "median nanoseconds per load against the number of independent pointer chains advanced together in one thread, on log-log axes, over a region beyond the TLB's reach and the last-level cache on 4 KiB and on huge pages, and over a region inside the TLB's reach; whiskers span the repetitions".to_string(),
        kind: ChartKind::Lines,
        x: Axis::log("independent chains", "chains"),
        y: Axis::log("ns per load (median; whiskers: the repetitions)", "ns"),
        categories: Vec::new(),
        series,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
        empty_note: None,
    }
}
