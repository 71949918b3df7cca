//! Verdicts: the named outcomes a chapter branches on when it interprets a
//! run (`{{#if (eq ft.verdict.hugepage_first "slower")}}`), so no template
//! compares raw numbers to pick a sentence.
//!
//! "Within noise" is always the run's own: two medians differ only when the
//! repetitions' min..max ranges do not overlap, or, when a side has a single
//! sample and so no range, when they differ by more than the A-vs-A floor of
//! the run's noise experiment. No threshold is typed in here.
//!
//! Each verdict is one function over plain numbers (unit-tested in
//! `tests.rs`); [`add`] reads the built views and files the results under
//! them, one module per topic.

pub mod first_touch;
pub mod hot_path;
pub mod mlp;
pub mod shootdown;
#[cfg(test)]
mod tests;
pub mod thp;
pub mod translation;
pub mod walk;

use super::Views;

pub const SLOWER: &str = "slower";
pub const FASTER: &str = "faster";
pub const WITHIN_NOISE: &str = "within-noise";

/// A repeated measurement: its median and the range of its repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Measured {
    /// A single figure: no range to judge by.
    pub fn single(x: f64) -> Measured {
        Measured {
            median: x,
            min: x,
            max: x,
        }
    }

    /// A median with its range, the range the median alone where absent.
    pub fn ranged(median: Option<f64>, min: Option<f64>, max: Option<f64>) -> Option<Measured> {
        let median = median?;
        Some(Measured {
            median,
            min: min.unwrap_or(median),
            max: max.unwrap_or(median),
        })
    }

    fn has_range(&self) -> bool {
        self.min < self.max
    }
}

/// `a` against `b`, for times (more is worse): `slower`, `faster` or
/// `within-noise`. With a range on either side the ranges decide; with none,
/// the A-vs-A `floor` (a fraction) does, and without a floor the medians.
pub fn order(a: Measured, b: Measured, floor: Option<f64>) -> &'static str {
    let inside = if a.has_range() || b.has_range() {
        a.min <= b.max && b.min <= a.max
    } else {
        floor.is_some_and(|f| b.median > 0.0 && (a.median / b.median - 1.0).abs() <= f)
    };
    if inside || a.median == b.median {
        WITHIN_NOISE
    } else if a.median > b.median {
        SLOWER
    } else {
        FASTER
    }
}

/// Two measurements of what should be the same thing (the same
/// configuration in two experiments): `agree` when their ranges overlap.
pub fn cross_check(a: Measured, b: Measured) -> &'static str {
    if a.min <= b.max && b.min <= a.max {
        "agree"
    } else {
        "disagree"
    }
}

/// How much of a region came in huge pages: `all` (every 2 MiB window but
/// at most the one an unaligned mapping loses), `some`, or `none`.
pub fn granted(fraction: f64, windows: u64) -> &'static str {
    let windows = windows.max(1) as f64;
    if fraction <= 0.0 {
        "none"
    } else if fraction * windows >= windows - 1.0 {
        "all"
    } else {
        "some"
    }
}

/// Free blocks of 2 MiB or more before the run against the windows the
/// region has: `plenty` when every window could have one, else `scarce`.
pub fn huge_blocks(free_blocks: u64, windows: u64) -> &'static str {
    if free_blocks >= windows {
        "plenty"
    } else {
        "scarce"
    }
}

/// A step of a curve, as the views list them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepAt {
    pub small: bool,
    pub x: f64,
    pub translation: bool,
    /// A known size (cache or TLB reach) lies within a factor of two.
    pub matched: bool,
}

/// A point measured at half of cache level `level` (1 = L1d): `on-its-level`
/// when only the steps of the smaller caches lie below it on the 4 KiB
/// curve, else `past-an-earlier-step` with the extra step's x: the data left
/// that level earlier than its size says.
pub fn half_point(x: f64, level: usize, steps: &[StepAt]) -> (&'static str, Option<f64>) {
    let below: Vec<f64> = steps
        .iter()
        .filter(|s| s.small && !s.translation && s.x < x)
        .map(|s| s.x)
        .collect();
    match below.get(level.saturating_sub(1)) {
        Some(&early) => ("past-an-earlier-step", Some(early)),
        None => ("on-its-level", None),
    }
}

/// What a step's position says: `matches` a known size; for a step that
/// stayed put with the page size, `as-other-regime` (no known size near,
/// but the other page regime's step within a factor of two matches one) or
/// `both-regimes` (that step matches nothing either: not translation, and
/// no cache explains it); else `unmatched`.
pub fn step_match(step: StepAt, steps: &[StepAt]) -> &'static str {
    match counterpart(step, steps).map(|i| steps[i]) {
        _ if step.matched => "matches",
        _ if step.translation => "unmatched",
        Some(o) if o.matched => "as-other-regime",
        Some(_) => "both-regimes",
        None => "unmatched",
    }
}

/// The same bend on the other page regime's curve: the nearest step there,
/// less than a factor of two away, whose own nearest step here is `step`
/// (so one bend is never paired with two).
fn counterpart(step: StepAt, steps: &[StepAt]) -> Option<usize> {
    let nearest = |s: StepAt| {
        steps
            .iter()
            .enumerate()
            .filter(|(_, o)| o.small != s.small)
            .map(|(i, o)| (i, (o.x / s.x).ln().abs()))
            .filter(|&(_, d)| d < 2f64.ln())
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    };
    let i = nearest(step)?;
    (nearest(steps[i]).map(|j| steps[j]) == Some(step)).then_some(i)
}

/// Whether the 4 KiB curve has a translation step within a factor of two of
/// a TLB `reach`: `found`, `none`, or `off-chart` when the largest point
/// measured (`max_x`) is below half the reach.
pub fn reach_step(reach: f64, max_x: f64, steps: &[StepAt]) -> &'static str {
    if max_x < reach / 2.0 {
        "off-chart"
    } else if steps
        .iter()
        .any(|s| s.small && s.translation && s.x >= reach / 2.0 && s.x <= reach * 2.0)
    {
        "found"
    } else {
        "none"
    }
}

/// Why a curve rose between two points, from whether each regime rose
/// (`order` of the later point against the earlier): `translation` when
/// only the 4 KiB curve rose, `shared` when the huge-page curve rose too,
/// `none` when the 4 KiB curve did not rise.
pub fn rise_cause(small: &str, huge: &str) -> &'static str {
    match (small, huge) {
        (SLOWER, SLOWER) => "shared",
        (SLOWER, _) => "translation",
        _ => "none",
    }
}

/// Where a fault share falls among the tail percentiles: `above-p99` (more
/// than one iteration in a hundred faults, so p99 is a faulting one),
/// `between-p99-and-p999`, or `below-p999` (fewer than one in a thousand).
pub fn percentile_band(fault_share: f64) -> &'static str {
    if fault_share > 0.01 {
        "above-p99"
    } else if fault_share >= 0.001 {
        "between-p99-and-p999"
    } else {
        "below-p999"
    }
}

/// A count against the count expected (faults against pages or against
/// the huge-page prediction): `as-expected`, `more` or `fewer`. Counts are
/// exact, so there is no noise to allow for.
pub fn count_against(counted: f64, expected: f64) -> &'static str {
    if counted > expected {
        "more"
    } else if counted < expected {
        "fewer"
    } else {
        "as-expected"
    }
}

/// The least-backed huge region: `none` (no huge page at all), `some` or
/// `all`.
pub fn backed(fraction: f64) -> &'static str {
    if fraction <= 0.0 {
        "none"
    } else if fraction >= 1.0 {
        "all"
    } else {
        "some"
    }
}

/// Where one thread's first touch put its pages: `one-node` when every page
/// placed is on the fullest node, else `spread`.
pub fn placement(max_node_share: f64) -> &'static str {
    if max_node_share >= 1.0 {
        "one-node"
    } else {
        "spread"
    }
}

/// How [`order`] decided between `a` and `b`: `ranges` when either side
/// has a spread of repetitions (so the ranges overlapping or not is the
/// evidence), `floor` when both are single figures held against the A-vs-A
/// floor, `medians` when there is no floor either (nothing says whether a
/// gap is noise).
pub fn basis(a: Measured, b: Measured, floor: Option<f64>) -> &'static str {
    if a.has_range() || b.has_range() {
        "ranges"
    } else if floor.is_some() {
        "floor"
    } else {
        "medians"
    }
}

/// A fault count against the pages that should each fault once: `exact`;
/// `about-one-per-page` when it passes the pages by no more than
/// `allowance`, the faults the same code took over memory that was already
/// present (so the surplus is the rest of the thread faulting, not the
/// region); `more` beyond that; `fewer` when some page took no fault of its
/// own. Counts are exact and the allowance is the run's own, so no
/// tolerance is typed in.
pub fn per_page(faults: f64, pages: f64, allowance: f64) -> &'static str {
    if faults == pages {
        "exact"
    } else if faults < pages {
        "fewer"
    } else if faults - pages <= allowance {
        "about-one-per-page"
    } else {
        "more"
    }
}

/// An exact count that should be zero: `none` or `some`.
pub fn none_or_some(count: f64) -> &'static str {
    if count > 0.0 {
        "some"
    } else {
        "none"
    }
}

/// Where one thread per node, each writing its own share, put the pages:
/// `even` when no node holds more than one share (`pages / nodes`, rounded
/// up), else `uneven` (some thread's pages went to another node than its
/// own). Pages are counted, so this is exact.
pub fn split(max_node_share: f64, pages: u64, nodes: u64) -> &'static str {
    let fullest = (max_node_share * pages as f64).round() as u64;
    if fullest <= pages.div_ceil(nodes.max(1)) {
        "even"
    } else {
        "uneven"
    }
}

/// Files every verdict under its view in `views` (one source's views).
pub fn add(views: &mut Views) {
    let floor = views.noise.as_ref().and_then(|n| n.floor);
    let repeated = |n: Option<u32>| n.map(|n| n > 1);
    if let Some(v) = views.ft.as_mut() {
        v.repeated = repeated(v.repetitions);
    }
    if let Some(v) = views.stair.as_mut() {
        v.repeated = repeated(v.repetitions);
    }
    if let Some(v) = views.tlb.as_mut() {
        v.repeated = repeated(v.repetitions);
    }
    if let Some(v) = views.thp.as_mut() {
        v.repeated = repeated(v.repetitions);
    }
    if let Some(v) = views.tail.as_mut() {
        v.repeated = repeated(v.repetitions);
        hot_path::tail(v, floor);
    }
    if let Some(noise) = views.noise.as_mut() {
        hot_path::noise(noise);
    }
    if let Some(syscall) = views.syscall.as_mut() {
        hot_path::syscall(syscall, floor);
    }
    if let Some(numa) = views.numa.as_mut() {
        hot_path::numa(numa);
    }
    if let Some(sd) = views.sd.as_mut() {
        shootdown::add(sd, floor);
    }
    if let Some(ft) = views.ft.as_mut() {
        first_touch::add(ft, floor);
    }
    if let Some(stair) = views.stair.as_mut() {
        stair.gigantic.judge(floor);
        translation::steps(&mut stair.steps, &mut stair.step_counts);
        translation::staircase(stair, floor);
    }
    if let Some(tlb) = views.tlb.as_mut() {
        translation::steps(&mut tlb.steps, &mut tlb.step_counts);
        translation::tlb_reach(tlb, floor);
    }
    if let Some(w) = views.walk.as_mut() {
        walk::add(w, floor);
    }
    if let Some(m) = views.mlp.as_mut() {
        mlp::add(m, floor);
    }
    if let Some(thp) = views.thp.as_mut() {
        thp.cross_check = thp::cross_check(views.stair.as_ref(), thp);
        thp::sizes(thp, floor);
    }
}
