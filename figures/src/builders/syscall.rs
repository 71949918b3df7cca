//! The syscall-floor chart: median ns per operation with a whisker to
//! p99, log scale, the reference lab machine's figures beside.

use pagewalk_model::{RunFile, SyscallOp};

use super::points::{missing_reason, percentile_point};
use super::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Series};

pub fn syscall_floor(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources: Vec<&RunFile> = std::iter::once(run).chain(reference).collect();
    let ops: Vec<SyscallOp> = SyscallOp::ALL
        .into_iter()
        .filter(|&o| {
            sources
                .iter()
                .any(|s| s.syscall().and_then(|r| r.op(o)).is_some())
        })
        .collect();
    let series = sources
        .iter()
        .map(|src| Series {
            name: series_name(src),
            role: role(src),
            points: match src.syscall() {
                Some(r) => ops
                    .iter()
                    .map(|&o| {
                        let r = r.op(o);
                        percentile_point(
                            o.name(),
                            r.and_then(|r| r.latency.as_ref()),
                            r.and_then(|r| r.skipped.as_deref()),
                        )
                    })
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    let notes: Vec<String> = sources
        .iter()
        .filter_map(|s| missing_reason(s, pagewalk_model::syscall::EXPERIMENT))
        .collect();
    ChartSpec {
        id: "syscall-floor".to_string(),
        title: "The syscall floor: ns per operation".to_string(),
        description: format!(
            "median nanoseconds per call with a whisker to p99: vDSO clock, getpid, open and close, getpid under strace, a thread wake-up; {}",
            sources
                .iter()
                .map(|s| series_name(s))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("operation", ""),
        y: Axis::log("ns per call (p50, whisker to p99; log scale)", "ns")
            .with_whiskers("p50", "p99"),
        categories: ops
            .into_iter()
            .map(|o| Category {
                key: o.name().to_string(),
                label: o.label().to_string(),
            })
            .collect(),
        series,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
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
