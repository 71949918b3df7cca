//! The allocator chart: p50 per path with a whisker to p99, log scale,
//! the reference lab machine's medians beside.

use pagewalk_model::{AllocPath, RunFile};

use super::points::{missing_reason, percentile_point};
use super::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Series};

pub fn alloc_latency(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources: Vec<&RunFile> = std::iter::once(run).chain(reference).collect();
    let paths: Vec<AllocPath> = AllocPath::ALL
        .into_iter()
        .filter(|&p| {
            sources
                .iter()
                .any(|s| s.alloc().and_then(|a| a.path(p)).is_some())
        })
        .collect();
    let series = sources
        .iter()
        .map(|src| Series {
            name: series_name(src),
            role: role(src),
            points: match src.alloc() {
                Some(a) => paths
                    .iter()
                    .map(|&p| {
                        let r = a.path(p);
                        percentile_point(
                            p.name(),
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
        .filter_map(|s| missing_reason(s, pagewalk_model::alloc::EXPERIMENT))
        .collect();
    ChartSpec {
        id: "alloc-latency".to_string(),
        title: "malloc + free, by allocator path".to_string(),
        description: format!(
            "nanoseconds per allocation and free on each path, median with a whisker to p99, {}",
            sources
                .iter()
                .map(|s| series_name(s))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        kind: ChartKind::Bars,
        x: Axis::linear("allocator path", ""),
        y: Axis::log(
            "ns per malloc + free (p50, whisker to p99; log scale)",
            "ns",
        )
        .with_whiskers("p50", "p99"),
        categories: paths
            .into_iter()
            .map(|p| Category {
                key: p.name().to_string(),
                label: p.label().to_string(),
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
