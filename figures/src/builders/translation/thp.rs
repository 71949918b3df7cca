//! `thp`: 4 KiB vs huge pages at each large size, the run next to the
//! reference, each huge-page bar saying how much huge pages really backed.

use pagewalk_model::{ChasePoint, RunFile, ThpSize};

use super::chase::{chase_point, NS_AXIS, NS_UNIT};
use super::geometry::{size_key, size_label};
use crate::builders::bars::{joined, source_names, sources};
use crate::builders::points::missing_reason;
use crate::builders::source::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Series};

/// 4 KiB vs huge pages at each size, the run next to the reference; each
/// huge-page bar says how much of its region huge pages really backed.
pub fn thp(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let mut sizes: Vec<u64> = sources
        .iter()
        .filter_map(|s| s.thp())
        .flat_map(|t| {
            t.sizes
                .iter()
                .filter(|s| s.size_bytes > 0)
                .map(|s| s.size_bytes)
        })
        .collect();
    pagewalk_model::sort::heap_sort_by(&mut sizes, |a, b| a < b);
    sizes.dedup();
    let mut series = Vec::new();
    for src in &sources {
        let Some(t) = src.thp() else { continue };
        let at = |bytes| t.sizes.iter().find(|s| s.size_bytes == bytes);
        for (regime, pick) in [
            (
                "4 KiB pages",
                (|s: &ThpSize| s.small.as_ref()) as fn(&ThpSize) -> Option<&ChasePoint>,
            ),
            ("huge pages", |s: &ThpSize| s.huge.as_ref()),
        ] {
            series.push(Series {
                name: format!("{}, {regime}", series_name(src)),
                role: role(src),
                faint: false,
                points: sizes
                    .iter()
                    .map(|&b| {
                        let key = size_key(b);
                        match at(b).and_then(|s| Some((s, pick(s)?))) {
                            Some((_, p)) => Point {
                                category: Some(key),
                                x: None,
                                ..chase_point(0.0, p)
                            },
                            None => Point {
                                note: Some(match at(b).and_then(|s| s.skipped.clone()) {
                                    Some(why) => format!("skipped: {why}"),
                                    None => "not measured at this size".into(),
                                }),
                                ..Point::bar(key, None)
                            },
                        }
                    })
                    .collect(),
            });
        }
    }
    let notes: Vec<String> = sources
        .iter()
        .filter_map(|s| missing_reason(s, pagewalk_model::translation::THP))
        .collect();
    ChartSpec {
        id: "thp".into(),
        title: "Huge pages: ns per load, 4 KiB vs huge pages".into(),
        description: crate::builders::bars::words(|| {
            format!(
            "dependent pointer chase at each region size on 4 KiB and on huge pages, with the share actually backed by huge pages, {}",
            source_names(&sources)
        )
        }),
        kind: ChartKind::Bars,
        x: Axis::linear("region size", ""),
        y: Axis::linear(NS_AXIS, NS_UNIT),
        categories: sizes
            .iter()
            .map(|&b| Category::new(size_key(b), size_label(b)))
            .collect(),
        series,
        note: joined(&notes, ". "),
        empty_note: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::build;
    use crate::builders::fixtures::r2;
    use crate::builders::translation::fixtures::run;

    #[test]
    fn thp_bars_pair_sizes_and_say_what_was_backed() {
        let (run, r2) = (run(), r2("r2-cache-06.json"));
        let spec = build("thp", &[&run, &r2]).unwrap();
        let keys: Vec<&str> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["256MiB", "1GiB"]);
        assert_eq!(spec.series.len(), 4);
        let run_huge = &spec.series[1];
        assert_eq!(run_huge.at("256MiB").unwrap().value, Some(122.5));
        assert!(
            run_huge.at("1GiB").unwrap().value.is_none(),
            "a gap, not a zero"
        );
        let r2_huge = &spec.series[3];
        let big = r2_huge.at("1GiB").unwrap();
        assert_eq!(big.value, Some(189.0));
        let note = big.note.as_deref().unwrap();
        assert!(
            note.contains("33% backed") && note.contains("ENOMEM"),
            "{note}"
        );
    }
}
