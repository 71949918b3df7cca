//! The allocator chart: p50 per path with a whisker to p99, log scale,
//! the reference lab machine's medians beside.

use pagewalk_model::{AllocPath, RunFile};

use super::bars::{percentile_bars, source_names, sources};
use crate::spec::{Axis, Category, ChartSpec};

pub fn alloc_latency(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let bars = percentile_bars(
        &sources,
        pagewalk_model::alloc::EXPERIMENT,
        RunFile::alloc,
        AllocPath::ALL,
        |p| Category::new(p.name(), p.label()),
        |a, p| {
            a.path(p)
                .map(|r| (r.latency.as_ref(), r.skipped.as_deref()))
        },
    );
    bars.chart(
        "alloc-latency",
        "malloc + free, by allocator path",
        || {
            format!(
            "nanoseconds per allocation and free on each path, median with a whisker to p99, {}",
            source_names(&sources)
            )
        },
        "allocator path",
        Axis::log(
            "ns per malloc + free (p50, whisker to p99; log scale)",
            "ns",
        )
        .with_whiskers("p50", "p99"),
    )
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{r2, run};
    use super::*;

    #[test]
    fn p50_with_a_p99_whisker_and_r2_medians_beside() {
        let spec = alloc_latency(&run(), Some(&r2("r2-systems-01.json")));
        let keys: Vec<&str> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "tcache",
                "bins",
                "mmap-typical",
                "mmap-forced",
                "mmap-pinned",
                "pool"
            ]
        );
        let forced = spec.series[0].at("mmap-forced").unwrap();
        assert_eq!(
            (forced.value, forced.min, forced.max),
            (Some(9000.0), Some(9000.0), Some(15000.0))
        );
        // The run lacks bins; R2 lacks the pinned path: gaps, not zeros.
        assert_eq!(spec.series[0].at("bins").unwrap().value, None);
        let r2_pinned = spec.series[1].at("mmap-pinned").unwrap();
        assert_eq!(r2_pinned.value, None);
        assert_eq!(
            spec.series[1].at("mmap-forced").unwrap().value,
            Some(4200.0)
        );
        assert_eq!(spec.y.whisker_names(), ("p50", "p99"));
    }
}
