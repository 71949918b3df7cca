//! The shootdown chart: what one call that takes pages away costs with no
//! other thread, with one asleep and with one running on another CPU. One
//! group per call, one bar per case, all from zero on a linear axis: the
//! one thing to see is how much taller the running case stands.

use pagewalk_model::shootdown::EXPERIMENT;
use pagewalk_model::{RunFile, ShootdownOp, Sibling};

use super::points::{missing_reason, summary_point};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Role, Series};

pub const NAME: &str = "shootdown";

pub fn shootdown(run: &RunFile) -> ChartSpec {
    let results = run.shootdown();
    let series = Sibling::ALL
        .iter()
        .map(|&sibling| Series {
            name: sibling.label().to_string(),
            role: Role::Run,
            faint: false,
            points: match results {
                Some(r) => ShootdownOp::ALL
                    .iter()
                    .map(|&op| {
                        let cell = r.cell(op, sibling);
                        summary_point(op.name(), cell.and_then(|c| c.median_ns.as_ref()), || {
                            match cell.and_then(|c| c.skipped.as_deref()) {
                                Some(why) => format!("skipped: {why}"),
                                None => "not measured in this run".into(),
                            }
                        })
                    })
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    ChartSpec {
        id: NAME.to_string(),
        title: "Taking pages away: ns per call".to_string(),
        description: format!(
            "median nanoseconds per munmap, mprotect(PROT_READ) and madvise(MADV_DONTNEED) call of {} pages just written, with no other thread, another thread asleep, and another thread running on a second CPU; whiskers span the repetitions' medians",
            results.map_or("a few".into(), |r| r.pages_per_call.to_string())
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("call", ""),
        y: Axis::linear("ns per call (median; whiskers: the repetitions)", "ns"),
        categories: ShootdownOp::ALL
            .iter()
            .map(|op| Category::new(op.name(), op.short()))
            .collect(),
        series,
        note: missing_reason(run, EXPERIMENT),
        empty_note: None,
    }
}
