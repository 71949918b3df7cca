//! The shape most bar charts share: the run and its reference as sources,
//! the categories some source reports, one series per source with a point
//! per category, and a note naming each source that lacks the experiment.

use pagewalk_model::{Latency, RunFile};

use super::points::{missing_reason, percentile_point};
use super::source::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Series};

/// The run, then the reference if there is one: the order of the series.
pub fn sources<'a>(run: &'a RunFile, reference: Option<&'a RunFile>) -> Vec<&'a RunFile> {
    std::iter::once(run).chain(reference).collect()
}

/// The sources' legend names for a chart's description, e.g. "this run
/// and the reference lab machine".
pub fn source_names(sources: &[&RunFile]) -> String {
    sources
        .iter()
        .map(|s| series_name(s))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// A chart's words that only a reader of the page meets (its
/// description): written by the build; skipped in wasm, where the lab's
/// worker builds a chart only to lay a dropped file's series over the
/// page's own and the module has a budget (`scripts/build-wasm`).
pub fn words(text: impl FnOnce() -> String) -> String {
    if cfg!(target_arch = "wasm32") {
        String::new()
    } else {
        text()
    }
}

/// A chart's note: `notes` joined with `sep`, or none when there are none.
pub fn joined(notes: &[String], sep: &str) -> Option<String> {
    (!notes.is_empty()).then(|| notes.join(sep))
}

/// Those of `all` that at least one source `has`, in `all`'s order: a
/// category no source reports would be an empty group.
pub fn reported<'a, R: 'a, C: Copy>(
    all: impl IntoIterator<Item = C>,
    sources: &[&'a RunFile],
    results: impl Fn(&'a RunFile) -> Option<&'a R>,
    has: impl Fn(&R, C) -> bool,
) -> Vec<C> {
    all.into_iter()
        .filter(|&c| {
            sources
                .iter()
                .any(|&s| results(s).is_some_and(|r| has(r, c)))
        })
        .collect()
}

/// What [`category_bars`] builds; the rest of the spec is the chart's own.
pub struct Bars {
    pub categories: Vec<Category>,
    pub series: Vec<Series>,
    pub note: Option<String>,
}

impl Bars {
    /// The bar chart `id` of these bars: `groups` names the category axis,
    /// `y` is the value axis.
    pub fn chart(
        self,
        id: &str,
        title: &str,
        description: impl FnOnce() -> String,
        groups: &str,
        y: Axis,
    ) -> ChartSpec {
        ChartSpec {
            id: id.to_string(),
            title: title.to_string(),
            description: words(description),
            kind: ChartKind::Bars,
            x: Axis::linear(groups, ""),
            y,
            categories: self.categories,
            series: self.series,
            note: self.note,
            empty_note: None,
        }
    }
}

/// [`category_bars`] of p50 with a whisker to p99 for those of `all` some
/// source reports; `row` finds a category's latency and skip reason in a
/// source's results (`None`: not reported).
pub fn percentile_bars<'a, R: 'a, C: Copy>(
    sources: &[&'a RunFile],
    experiment: &str,
    results: impl Fn(&'a RunFile) -> Option<&'a R>,
    all: impl IntoIterator<Item = C>,
    category: impl Fn(C) -> Category,
    row: impl Fn(&R, C) -> Option<(Option<&Latency>, Option<&str>)>,
) -> Bars {
    let reported = reported(all, sources, &results, |r, c| row(r, c).is_some());
    category_bars(
        sources,
        experiment,
        results,
        &reported,
        &category,
        |r, c| {
            let row = row(r, c);
            percentile_point(
                &category(c).key,
                row.and_then(|(latency, _)| latency),
                row.and_then(|(_, skipped)| skipped),
            )
        },
    )
}

/// One series per source with `point(results, c)` for each of
/// `categories` (a gap with its reason where the source lacks one). A
/// source without `results` gets an empty series, and the note says why
/// it has no results of `experiment`.
pub fn category_bars<'a, R: 'a, C: Copy>(
    sources: &[&'a RunFile],
    experiment: &str,
    results: impl Fn(&'a RunFile) -> Option<&'a R>,
    categories: &[C],
    category: impl Fn(C) -> Category,
    point: impl Fn(&R, C) -> Point,
) -> Bars {
    let series = sources
        .iter()
        .map(|&src| Series {
            name: series_name(src),
            role: role(src),
            faint: false,
            points: match results(src) {
                Some(r) => categories.iter().map(|&c| point(r, c)).collect(),
                None => Vec::new(),
            },
        })
        .collect();
    let notes: Vec<String> = sources
        .iter()
        .filter_map(|s| missing_reason(s, experiment))
        .collect();
    Bars {
        categories: categories.iter().map(|&c| category(c)).collect(),
        series,
        note: joined(&notes, "; "),
    }
}
