//! The syscall-floor chart: median ns per operation with a whisker to
//! p99, log scale, the reference lab machine's figures beside.

use pagewalk_model::{RunFile, SyscallOp};

use super::bars::{category_bars, reported, source_names, sources};
use super::points::percentile_point;
use crate::spec::{Axis, Category, ChartKind, ChartSpec};

pub fn syscall_floor(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let ops = reported(SyscallOp::ALL, &sources, RunFile::syscall, |r, o| {
        r.op(o).is_some()
    });
    let bars = category_bars(
        &sources,
        pagewalk_model::syscall::EXPERIMENT,
        RunFile::syscall,
        &ops,
        |o| Category::new(o.name(), o.label()),
        |r, o| {
            let r = r.op(o);
            percentile_point(
                o.name(),
                r.and_then(|r| r.latency.as_ref()),
                r.and_then(|r| r.skipped.as_deref()),
            )
        },
    );
    ChartSpec {
        id: "syscall-floor".to_string(),
        title: "The syscall floor: ns per operation".to_string(),
        description: format!(
            "median nanoseconds per call with a whisker to p99: vDSO clock, getpid, open and close, getpid under strace, a thread wake-up; {}",
            source_names(&sources)
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("operation", ""),
        y: Axis::log("ns per call (p50, whisker to p99; log scale)", "ns")
            .with_whiskers("p50", "p99"),
        categories: bars.categories,
        series: bars.series,
        note: bars.note,
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{r2, run};
    use super::*;

    #[test]
    fn operations_with_r2_beside_and_strace_gap_explained() {
        let spec = syscall_floor(&run(), Some(&r2("r2-systems-02.json")));
        assert_eq!(spec.categories.len(), 5);
        let traced = spec.series[0].at("getpid-strace").unwrap();
        assert_eq!(traced.value, None);
        assert!(traced
            .note
            .as_deref()
            .unwrap()
            .contains("strace is not installed"));
        assert_eq!(
            spec.series[1].at("getpid-strace").unwrap().value,
            Some(23_600.0)
        );
        assert_eq!(spec.series[0].at("getpid").unwrap().max, Some(228.0));
    }
}
