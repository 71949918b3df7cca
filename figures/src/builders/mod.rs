//! Chart specs built from run files: the only place that decides what a
//! chart shows. The preprocessor (and the page, for files a reader loads)
//! calls [`build`] by chart name; each experiment's charts live in their own
//! module.

use std::fmt;

use pagewalk_model::{Kind, RunFile};

use crate::spec::ChartSpec;

mod alloc;
mod bars;
mod buddyinfo;
mod first_touch;
#[cfg(test)]
pub(crate) mod fixtures;
mod inspect;
pub mod lab;
mod mlp;
mod noise;
mod noise_split;
mod points;
mod shootdown;
mod source;
mod syscall;
mod tail;
mod translation;
mod walk;

pub use alloc::alloc_latency;
pub use buddyinfo::buddyinfo;
pub use first_touch::{first_touch_faults, first_touch_ns_per_page};
pub use inspect::{
    inspect_faults, inspect_huge_pages, inspect_run_queue, inspect_switches, inspection_in,
};
pub use mlp::mlp;
pub use noise::noise_spread;
pub use shootdown::shootdown;
pub use source::series_name;
pub use syscall::syscall_floor;
pub use tail::{tail_histogram, tail_percentiles};
pub use translation::{size_label, staircase, staircase_ratio, thp, tlb_reach, tlb_reach_ratio};
pub use walk::walk;

use source::reference_for;

/// Every chart drawn from an experiment's results, as used in
/// `{{chart "NAME"}}`; [`build`] also knows the [`lab`] charts.
pub const CHART_NAMES: &[&str] = &[
    "first-touch-ns-per-page",
    "first-touch-faults",
    buddyinfo::NAME,
    "tail-histogram",
    "tail-percentiles",
    "alloc-latency",
    "syscall-floor",
    shootdown::NAME,
    "noise-spread",
    noise_split::RUNS,
    noise_split::DETECT,
    "staircase",
    "staircase-ratio",
    "tlb-reach",
    "tlb-reach-ratio",
    "thp",
    walk::NAME,
    mlp::NAME,
    mlp::RATIO,
    inspect::FAULTS,
    inspect::SWITCHES,
    inspect::RUN_QUEUE,
    inspect::HUGE_PAGES,
];

/// The charts drawn from each experiment kind's results. Exhaustive: a new
/// kind in the model's list does not compile until its charts (or none)
/// are named here; a test holds [`CHART_NAMES`] to exactly these.
pub fn charts_of(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::FirstTouch => &[
            "first-touch-ns-per-page",
            "first-touch-faults",
            buddyinfo::NAME,
        ],
        Kind::Tail => &["tail-histogram", "tail-percentiles"],
        Kind::Alloc => &["alloc-latency"],
        Kind::Syscall => &["syscall-floor"],
        Kind::Shootdown => &[shootdown::NAME],
        Kind::Noise => &["noise-spread", noise_split::RUNS, noise_split::DETECT],
        Kind::Staircase => &["staircase", "staircase-ratio"],
        Kind::TlbReach => &["tlb-reach", "tlb-reach-ratio"],
        Kind::Thp => &["thp"],
        Kind::Walk => &[walk::NAME],
        Kind::Mlp => &[mlp::NAME, mlp::RATIO],
        // NUMA placement is told in a table, not a chart.
        Kind::Numa => &[],
        Kind::Inspect => &[
            inspect::FAULTS,
            inspect::SWITCHES,
            inspect::RUN_QUEUE,
            inspect::HUGE_PAGES,
        ],
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    UnknownChart(String),
    /// The chart needs a run and none was given.
    NoRun(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::UnknownChart(name) => write!(
                f,
                "unknown chart `{name}` (known: {}, {})",
                CHART_NAMES.join(", "),
                lab::NAMES.join(", ")
            ),
            BuildError::NoRun(name) => {
                write!(f, "chart `{name}` needs a run file and none was given")
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Builds the chart `name`: the one place that knows every chart's name.
/// `runs[0]` is the run the chapter shows (the reader's own or the example
/// run); the rest are published references, and each chart picks the one
/// that reports its experiment. The `inspect-*` charts draw the `collector
/// inspect` file among `runs`; the [`lab`] charts need no run. Every
/// chart's notes come out in a reader's words ([`points::notes_in_words`]).
pub fn build(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    built(name, runs).map(points::notes_in_words)
}

/// The chart `name` as its builder makes it.
fn built(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    match overlaid(name, runs) {
        Err(BuildError::UnknownChart(_)) => build_rest(name, runs),
        built => built,
    }
}

/// The charts a dropped run file is laid over (the compare page's and the
/// labs'), built as [`build`] builds them, notes in a reader's words. The
/// lab's worker reads dropped files with this alone, so it links these
/// builders and no others.
pub fn build_overlaid(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    overlaid(name, runs).map(points::notes_in_words)
}

fn overlaid(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    let run = || first_run(name, runs);
    let references = runs.get(1..).unwrap_or_default();
    match name {
        "first-touch-ns-per-page" => Ok(first_touch_ns_per_page(
            run()?,
            reference_for(references, pagewalk_model::first_touch::EXPERIMENT),
        )),
        "first-touch-faults" => Ok(first_touch_faults(run()?)),
        "tail-percentiles" => Ok(tail_percentiles(
            run()?,
            reference_for(references, pagewalk_model::tail::EXPERIMENT),
        )),
        "alloc-latency" => Ok(alloc_latency(
            run()?,
            reference_for(references, pagewalk_model::alloc::EXPERIMENT),
        )),
        "syscall-floor" => Ok(syscall_floor(
            run()?,
            reference_for(references, pagewalk_model::syscall::EXPERIMENT),
        )),
        "noise-spread" => Ok(noise_spread(
            run()?,
            reference_for(references, pagewalk_model::noise::EXPERIMENT),
        )),
        "staircase" => Ok(staircase(
            run()?,
            reference_for(references, pagewalk_model::translation::STAIRCASE),
        )),
        "tlb-reach" => Ok(tlb_reach(run()?)),
        "thp" => Ok(thp(
            run()?,
            reference_for(references, pagewalk_model::translation::THP),
        )),
        lab::FIRST_TOUCH => Ok(lab::first_touch(runs)),
        lab::CHASE => Ok(lab::chase(runs)),
        lab::TLB_MODEL => Ok(lab::tlb_model()),
        _ => Err(BuildError::UnknownChart(name.to_string())),
    }
}

/// `runs[0]`, the run the chart shows.
fn first_run<'a>(name: &str, runs: &[&'a RunFile]) -> Result<&'a RunFile, BuildError> {
    runs.first()
        .copied()
        .ok_or_else(|| BuildError::NoRun(name.to_string()))
}

/// Every other chart: [`build`] for the charts no file is dropped on.
fn build_rest(name: &str, runs: &[&RunFile]) -> Result<ChartSpec, BuildError> {
    let run = || first_run(name, runs);
    let references = runs.get(1..).unwrap_or_default();
    let inspected = || inspection_in(runs).ok_or_else(|| BuildError::NoRun(name.to_string()));
    match name {
        buddyinfo::NAME => Ok(buddyinfo(
            run()?,
            reference_for(references, pagewalk_model::first_touch::EXPERIMENT),
        )),
        "tail-histogram" => Ok(tail_histogram(run()?)),
        shootdown::NAME => Ok(shootdown(run()?)),
        noise_split::RUNS => Ok(noise_split::noise_runs(run()?)),
        noise_split::DETECT => Ok(noise_split::noise_detect(run()?)),
        "staircase-ratio" => Ok(staircase_ratio(run()?)),
        "tlb-reach-ratio" => Ok(tlb_reach_ratio(run()?)),
        walk::NAME => Ok(walk(run()?)),
        mlp::NAME => Ok(mlp(run()?)),
        mlp::RATIO => Ok(mlp::mlp_ratio(run()?)),
        // A `collector inspect` file, wherever it is in `runs`.
        inspect::FAULTS => Ok(inspect_faults(inspected()?)),
        inspect::SWITCHES => Ok(inspect_switches(inspected()?)),
        inspect::RUN_QUEUE => Ok(inspect_run_queue(inspected()?)),
        inspect::HUGE_PAGES => Ok(inspect_huge_pages(inspected()?)),
        _ => Err(BuildError::UnknownChart(name.to_string())),
    }
}
