//! The syscall-floor chart: median ns per operation with a whisker to
//! p99, log scale, the reference lab machine's figures beside.

use pagewalk_model::{RunFile, SyscallOp};

use super::bars::{percentile_bars, source_names, sources};
use crate::spec::{Axis, Category, ChartSpec};

pub fn syscall_floor(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let bars = percentile_bars(
        &sources,
        pagewalk_model::syscall::EXPERIMENT,
        RunFile::syscall,
        SyscallOp::ALL,
        |o| Category::new(o.name(), o.label()),
        |r, o| r.op(o).map(|r| (r.latency.as_ref(), r.skipped.as_deref())),
    );
    bars.chart(
        "syscall-floor",
        "The syscall floor: ns per operation",
        || {
            format!(
            "median nanoseconds per call with a whisker to p99: vDSO clock, getpid, open and close, getpid under strace, a thread wake-up; {}",
            source_names(&sources)
            )
        },
        "operation",
        Axis::log("ns per call (p50, whisker to p99; log scale)", "ns")
            .with_whiskers("p50", "p99"),
    )
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
