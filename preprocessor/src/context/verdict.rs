//! Verdicts: the named outcomes a chapter branches on when it interprets a
//! run (`{{#if (eq ft.verdict.hugepage_first "slower")}}`), so no template
//! compares raw numbers to pick a sentence.
//!
//! "Within noise" is always the run's own: two medians differ only when the
//! repetitions' min..max ranges do not overlap, or, when a side has a single
//! sample and so no range, when they differ by more than the A-vs-A floor of
//! the run's noise experiment. No threshold is typed in here.
//!
//! Each verdict is one function over plain numbers (unit-tested below);
//! [`add`] reads the built views and files the results under them.

use serde_json::{json, Map, Value};

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

    /// `KEY`, `KEY_min`, `KEY_max` of a view object (`small_ns`,
    /// `small_ns_min`, ...); the range is the median alone when absent.
    fn read(v: &Value, key: &str) -> Option<Measured> {
        Measured::read_as(v, key, "min", "max")
    }

    /// `KEY` with its range under `KEY_LO`, `KEY_HI` (`p999_rep_min`).
    fn read_as(v: &Value, key: &str, lo: &str, hi: &str) -> Option<Measured> {
        let median = v.get(key)?.as_f64()?;
        let end = |suffix: &str| {
            v.get(format!("{key}_{suffix}"))
                .and_then(Value::as_f64)
                .unwrap_or(median)
        };
        Some(Measured {
            median,
            min: end(lo),
            max: end(hi),
        })
    }

    /// `KEY` alone: a figure without a range.
    fn read_single(v: &Value, key: &str) -> Option<Measured> {
        v.get(key)?.as_f64().map(Measured::single)
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

/// Files every verdict under its view in `views` (the map of one source:
/// `ft`, `stair`, `tlb`, `thp`, `noise`, ...).
pub fn add(views: &mut Map<String, Value>) {
    let floor = views
        .get("noise")
        .and_then(|n| n.get("floor"))
        .and_then(Value::as_f64);
    for view in views.values_mut() {
        let reps = view.get("repetitions").and_then(Value::as_u64);
        if let Some(n) = reps {
            insert(view, "repeated", json!(n > 1));
        }
    }
    if let Some(tail) = views.get_mut("tail") {
        tail_verdicts(tail, floor);
    }
    if let Some(noise) = views.get_mut("noise") {
        noise_verdicts(noise);
    }
    if let Some(syscall) = views.get_mut("syscall") {
        syscall_verdicts(syscall, floor);
    }
    if let Some(numa) = views.get_mut("numa") {
        let one = number(numa, &["placements", "one_thread", "max_node_share"]).map(placement);
        insert(numa, "verdict", json!({ "one_thread": one }));
    }
    if let Some(ft) = views.get_mut("ft") {
        first_touch(ft, floor);
    }
    for key in ["stair", "tlb"] {
        if let Some(view) = views.get_mut(key) {
            steps(view);
        }
    }
    if let Some(stair) = views.get_mut("stair") {
        staircase(stair, floor);
    }
    if let Some(tlb) = views.get_mut("tlb") {
        tlb_reach(tlb, floor);
    }
    let check = same_config(views.get("stair"), views.get("thp"));
    if let Some(thp) = views.get_mut("thp").and_then(Value::as_object_mut) {
        thp.insert("cross_check".into(), check);
    }
    if let Some(thp) = views.get_mut("thp") {
        huge_sizes(thp, floor);
    }
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .filter(|v| !v.is_null())
}

fn number(v: &Value, path: &[&str]) -> Option<f64> {
    at(v, path)?.as_f64()
}

fn insert(v: &mut Value, key: &str, value: Value) {
    if let Some(m) = v.as_object_mut() {
        m.insert(key.into(), value);
    }
}

/// `ft.verdict` and each mode's `granted`.
fn first_touch(ft: &mut Value, floor: Option<f64>) {
    if at(ft, &["modes"]).is_none() {
        return;
    }
    let windows = number(ft, &["huge_regions"]).map(|w| w as u64);
    let phase = |mode: &str, phase: &str| {
        at(ft, &["modes", mode, phase]).and_then(|p| Measured::read(p, "ns"))
    };
    let compare =
        |a: Option<Measured>, b: Option<Measured>| json!(a.zip(b).map(|(a, b)| order(a, b, floor)));
    let touch = phase("nohugepage", "first");
    let verdict = json!({
        "hugepage_first": compare(phase("hugepage", "first"), touch),
        "default_first": compare(phase("default", "first"), touch),
        "populate": compare(phase("populate", "alloc"), touch),
        "touch_faults": number(ft, &["modes", "nohugepage", "first", "faults"])
            .zip(number(ft, &["pages"]))
            .map(|(f, p)| count_against(f, p)),
        "default_faults": number(ft, &["modes", "default", "first", "faults"])
            .zip(number(ft, &["modes", "default", "faults_predicted"]))
            .map(|(f, p)| count_against(f, p)),
        "huge_blocks": match (number(ft, &["before", "free_huge_blocks"]), windows) {
            (Some(b), Some(w)) => Value::from(huge_blocks(b as u64, w)),
            _ => Value::Null,
        },
    });
    insert(ft, "verdict", verdict);
    if let Some(modes) = ft.get_mut("modes").and_then(Value::as_object_mut) {
        for mode in modes.values_mut().filter(|m| m.is_object()) {
            let g = number(mode, &["huge_fraction"])
                .zip(windows)
                .map(|(f, w)| granted(f, w));
            insert(mode, "granted", json!(g));
        }
    }
}

fn step_list(view: &Value) -> Vec<StepAt> {
    at(view, &["steps"])
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|s| {
            Some(StepAt {
                small: s.get("regime")?.as_str()? == "small",
                x: s.get("x")?.as_f64()?,
                translation: s.get("kind")?.as_str()? == "translation",
                matched: s.get("near_kind").is_some_and(|k| !k.is_null()),
            })
        })
        .collect()
}

/// Each step's `match`, and `step_counts.both_regimes`; an unmatched
/// step's label says what is known of it instead of naming a level nothing
/// measured.
fn steps(view: &mut Value) {
    let list = step_list(view);
    // 4 KiB-curve steps in both regimes leave the count of their kind: a
    // step no cache explains is not counted as a cache step.
    let both: Vec<String> = list
        .iter()
        .zip(
            at(view, &["steps"])
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
        .filter(|(s, _)| s.small && step_match(**s, &list) == "both-regimes")
        .filter_map(|(_, v)| Some(v.get("kind")?.as_str()?.to_string()))
        .collect();
    if let Some(counts) = view.get_mut("step_counts") {
        for kind in &both {
            if let Some(n) = counts.get(kind).and_then(Value::as_u64) {
                insert(counts, kind, json!(n.saturating_sub(1)));
            }
        }
        insert(counts, "both_regimes", json!(both.len()));
    }
    let Some(steps) = view.get_mut("steps").and_then(Value::as_array_mut) else {
        return;
    };
    let labels: Vec<Value> = steps.iter().map(|s| s["label"].clone()).collect();
    for (step, s) in steps.iter_mut().zip(&list) {
        let m = step_match(*s, &list);
        let label = match (m, s.translation) {
            ("as-other-regime", _) => counterpart(*s, &list)
                .and_then(|i| labels[i].as_str())
                .map(|l| format!("where the other curve's step is: {l}")),
            ("both-regimes", _) => Some("no known size near it".into()),
            ("unmatched", true) => Some("matches no TLB reach".into()),
            ("unmatched", false) => Some("matches no known size".into()),
            _ => None,
        };
        if let Some(label) = label {
            insert(step, "label", json!(label));
        }
        insert(step, "match", json!(m));
        // The table's words for the step, chosen here rather than by
        // nested `#if`s in two chapters.
        let curve = if s.small { "4 KiB pages" } else { "huge pages" };
        let behaved = match m {
            "both-regimes" => json!("both regimes, matches no cache size"),
            _ => step.get("kind").cloned().unwrap_or(Value::Null),
        };
        let near = match step.get("near_kind").and_then(Value::as_str) {
            Some("translation") => "TLB reach",
            Some(_) => "cache size",
            None => "(none)",
        };
        insert(step, "curve", json!(curve));
        insert(step, "behaved", behaved);
        insert(step, "near", json!(near));
    }
}

/// `stair.at.l1/l2/l3.verdict` (and `.early_step`), `.largest.small_vs_huge`
/// and `stair.verdict.l2_tlb_step`.
fn staircase(stair: &mut Value, floor: Option<f64>) {
    let list = step_list(stair);
    let points = at(stair, &["points"]).cloned().unwrap_or(Value::Null);
    let spread_at = |bytes: f64, regime: &str| {
        points
            .as_array()?
            .iter()
            .find(|p| p.get("bytes").and_then(Value::as_f64) == Some(bytes))
            .and_then(|p| Measured::read(p, &format!("{regime}_ns")))
    };
    for (level, key) in [(1, "l1"), (2, "l2"), (3, "l3"), (0, "largest")] {
        let Some(point) = stair.get_mut("at").and_then(|a| a.get_mut(key)) else {
            continue;
        };
        let Some(bytes) = number(point, &["bytes"]) else {
            continue;
        };
        if level > 0 {
            let (verdict, early) = half_point(bytes, level, &list);
            insert(point, "verdict", json!(verdict));
            insert(
                point,
                "early_step",
                json!(early.map(|x| pagewalk_figures::size_label(x as u64))),
            );
        }
        let v = spread_at(bytes, "small")
            .zip(spread_at(bytes, "huge"))
            .map(|(s, h)| order(s, h, floor));
        insert(point, "small_vs_huge", json!(v));
        for regime in ["small", "huge"] {
            spread_keys(point, regime, spread_at(bytes, regime));
        }
    }
    let max_x = number(stair, &["max_bytes"]).unwrap_or(0.0);
    let l2 = number(stair, &["cpuid", "l2_4k", "reach_bytes"]).map(|r| reach_step(r, max_x, &list));
    let least = number(stair, &["huge_fraction_min"]).map(backed);
    let mut verdict = geometry(stair);
    verdict.insert("l2_tlb_step".into(), json!(l2));
    verdict.insert("least_backed".into(), json!(least));
    insert(stair, "verdict", Value::Object(verdict));
    // The points between the L1 dTLB's reach and the L2 cache's size, and
    // R2's published levels that are a range rather than one figure.
    let gap = number(stair, &["cpuid", "l1d_4k", "reach_bytes"])
        .zip(number(stair, &["caches", "l2", "bytes"]));
    for point in stair
        .get_mut("points")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let inside = gap
            .zip(number(point, &["bytes"]))
            .map(|((reach, l2), b)| b > reach && b < l2);
        insert(point, "in_l1_tlb_gap", json!(inside));
    }
    for level in stair
        .get_mut("published")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let rising = number(level, &["ns_min"])
            .zip(number(level, &["ns_max"]))
            .map(|(lo, hi)| lo < hi);
        insert(level, "rising", json!(rising));
        let (region, latency) = (published_region(level), published_latency(level));
        insert(level, "region", json!(region));
        insert(level, "latency", json!(latency));
    }
}

/// A published level's region in words: `about 48 KiB`, `4 KiB to 32 KiB`,
/// `beyond 8 MiB`, `up to 32 KiB`; null when it gives neither end.
fn published_region(level: &Value) -> Option<String> {
    let text = |k: &str| at(level, &[k]).and_then(Value::as_str);
    match (text("from"), text("to")) {
        (Some(from), Some(_)) if level.get("from_bytes") == level.get("to_bytes") => {
            Some(format!("about {from}"))
        }
        (Some(from), Some(to)) => Some(format!("{from} to {to}")),
        (Some(from), None) => Some(format!("beyond {from}")),
        (None, Some(to)) => Some(format!("up to {to}")),
        (None, None) => None,
    }
}

/// A published level's ns per load in words: one figure (`12.0`), a range
/// (`12.0 rising to 24.0`), or what it adds (`15 to 100 more than the level
/// before`); null when it gives none.
fn published_latency(level: &Value) -> Option<String> {
    use crate::helpers::{format_num, MISSING};
    // A zero is no figure, as the chapter's `#if` used to read it.
    let figure = |k: &str| number(level, &[k]).filter(|x| *x != 0.0);
    let show = |k: &str, d| number(level, &[k]).map_or(MISSING.into(), |x| format_num(x, d));
    if let Some(lo) = figure("ns_min") {
        let one = number(level, &["ns_max"]) == Some(lo);
        Some(if one {
            format_num(lo, 1)
        } else {
            format!("{} rising to {}", format_num(lo, 1), show("ns_max", 1))
        })
    } else if figure("added_ns_min").is_some() {
        Some(format!(
            "{} to {} more than the level before",
            show("added_ns_min", 0),
            show("added_ns_max", 0)
        ))
    } else {
        None
    }
}

/// Whether each TLB reach (4 KiB pages) falls short of the cache level
/// after it: `l1_reach_below_l2`, `l2_reach_below_l3` (null when unknown).
/// Where it does, the data can sit in that cache while translations run out.
fn geometry(view: &Value) -> Map<String, Value> {
    let below = |tlb: &str, cache: &str| {
        number(view, &["cpuid", tlb, "reach_bytes"])
            .zip(number(view, &["caches", cache, "bytes"]))
            .map(|(reach, size)| reach < size)
    };
    let mut m = Map::new();
    m.insert("l1_reach_below_l2".into(), json!(below("l1d_4k", "l2")));
    m.insert("l2_reach_below_l3".into(), json!(below("l2_4k", "l3")));
    m
}

/// `REGIME_ns_min`, `REGIME_ns_max` on a point picked out under `at`, so a
/// chapter can print the spread beside the median it compares.
fn spread_keys(point: &mut Value, regime: &str, m: Option<Measured>) {
    insert(point, &format!("{regime}_ns_min"), json!(m.map(|m| m.min)));
    insert(point, &format!("{regime}_ns_max"), json!(m.map(|m| m.max)));
}

/// `tlb.verdict`: did each curve rise from the last point within the L2 TLB
/// to the largest count, and what that says.
fn tlb_reach(tlb: &mut Value, floor: Option<f64>) {
    let points = at(tlb, &["points"]).and_then(Value::as_array).cloned();
    // The point each `tlb.at` entry names, by its page count.
    let picked: Vec<(&str, Option<Value>)> = ["few", "l1", "l2", "beyond"]
        .into_iter()
        .map(|key| {
            let found = number(tlb, &["at", key, "pages"]).and_then(|pages| {
                points
                    .as_ref()?
                    .iter()
                    .find(|p| p.get("pages").and_then(Value::as_f64) == Some(pages))
                    .cloned()
            });
            (key, found)
        })
        .collect();
    let point = |key: &str| picked.iter().find(|(k, _)| *k == key)?.1.clone();
    let rose = |regime: &str| {
        let key = format!("{regime}_ns");
        let (from, to) = (point("l2")?, point("beyond")?);
        if from == to {
            return None;
        }
        Some(order(
            Measured::read(&to, &key)?,
            Measured::read(&from, &key)?,
            floor,
        ))
    };
    let (small, huge) = (rose("small"), rose("huge"));
    let cause = small.zip(huge).map(|(s, h)| rise_cause(s, h));
    let mut verdict = geometry(tlb);
    verdict.insert("beyond_small".into(), json!(small));
    verdict.insert("beyond_huge".into(), json!(huge));
    verdict.insert("rise".into(), json!(cause));
    insert(tlb, "verdict", Value::Object(verdict));
    for (key, found) in &picked {
        let Some(target) = tlb.get_mut("at").and_then(|a| a.get_mut(*key)) else {
            continue;
        };
        if target.is_object() {
            for regime in ["small", "huge"] {
                let m = found
                    .as_ref()
                    .and_then(|p| Measured::read(p, &format!("{regime}_ns")));
                spread_keys(target, regime, m);
            }
        }
    }
}

/// `tail.verdict`: as written against the pre-faulted headline, each
/// statistic against the spread of its repetitions where they were kept.
fn tail_verdicts(tail: &mut Value, floor: Option<f64>) {
    let (Some(written), Some(pre)) = (
        at(tail, &["variants", "as_written"]).cloned(),
        at(tail, &["prefaulted"]).cloned(),
    ) else {
        return;
    };
    let reps = |v: &Value, key: &str| Measured::read_as(v, key, "rep_min", "rep_max");
    let compare =
        |a: Option<Measured>, b: Option<Measured>| json!(a.zip(b).map(|(a, b)| order(a, b, floor)));
    let band = number(tail, &["fault_share"]).map(percentile_band);
    let faults = number(&written, &["faults"])
        .zip(number(tail, &["pages"]))
        .map(|(f, p)| count_against(f, p));
    let verdict = json!({
        "p50": compare(Measured::read_single(&written, "p50"), Measured::read_single(&pre, "p50")),
        "p999": compare(reps(&written, "p999"), reps(&pre, "p999")),
        "mean": compare(reps(&written, "mean"), reps(&pre, "mean")),
        "outliers": compare(reps(&pre, "max"), reps(&written, "p999")),
        "fault_share": band,
        "faults": faults,
    });
    insert(tail, "verdict", verdict);
}

/// `noise.verdict`: unpinned against pinned, medians and spreads, held
/// against the A-vs-A floor of the comparison itself.
fn noise_verdicts(noise: &mut Value) {
    let floor = number(noise, &["comparisons", "pinned_vs_unpinned", "noise"]);
    let batch = |k: &str, key: &str| number(noise, &["batches", k, key]).map(Measured::single);
    let compare = |key: &str| {
        json!(batch("unpinned", key)
            .zip(batch("pinned", key))
            .map(|(a, b)| order(a, b, floor)))
    };
    let verdict = json!({"unpinned": compare("ms"), "unpinned_spread": compare("spread")});
    insert(noise, "verdict", verdict);
    if let Some(levers) = noise.get_mut("levers") {
        let rows = lever_rows(levers);
        insert(levers, "rows", rows);
    }
}

/// `noise.levers.rows`, one per lever in the chapter's order:
/// `{lever, value, state}`, the value read (a CPU list, a mask) or else the
/// lever's state in words a chapter prints as they are (`permitted`,
/// `not set`, `available`); both null when the source recorded no levers
/// (no cgroup detail).
fn lever_rows(levers: &Value) -> Value {
    let recorded = at(levers, &["cpuset_detail"])
        .and_then(Value::as_str)
        .is_some_and(|d| !d.is_empty());
    let text = |key: &str| {
        at(levers, &[key])
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let flag = |key: &str, yes: &'static str, no: &'static str| {
        let on = at(levers, &[key]).and_then(Value::as_bool) == Some(true);
        recorded.then_some(if on { yes } else { no })
    };
    let param = |key: &str| {
        let state = if text(key).is_some() {
            "set"
        } else {
            "not set"
        };
        (text(key), recorded.then_some(state))
    };
    let row = |lever: &str, (value, state): (Option<&str>, Option<&str>)| json!({"lever": lever, "value": value, "state": state});
    let mask = text("irq_default_affinity").filter(|_| recorded);
    json!([
        row("taskset", (text("allowed_cpus"), None)),
        row(
            "SCHED_FIFO",
            (
                None,
                flag("sched_fifo_permitted", "permitted", "not permitted")
            )
        ),
        row("isolcpus=", param("isolcpus")),
        row("nohz_full=", param("nohz_full")),
        row("rcu_nocbs=", param("rcu_nocbs")),
        row("/proc/irq/default_smp_affinity", (mask, None)),
        row("irqaffinity=", param("irqaffinity")),
        row(
            "cpuset partitions",
            (
                None,
                flag("cpuset_partitions", "available", "not available")
            )
        ),
    ])
}

/// `syscall.verdict.getpid_vs_clock`: a real syscall against the vDSO
/// clock, over the spread of their batches.
fn syscall_verdicts(syscall: &mut Value, floor: Option<f64>) {
    let op = |k: &str| at(syscall, &["ops", k]).and_then(|o| Measured::read_single(o, "ns"));
    let ranged = |k: &str| {
        let o = at(syscall, &["ops", k])?;
        Some(Measured {
            median: o.get("ns")?.as_f64()?,
            min: o.get("min").and_then(Value::as_f64)?,
            max: o.get("max").and_then(Value::as_f64)?,
        })
    };
    let pick = |k: &str| ranged(k).or_else(|| op(k));
    let v = pick("getpid")
        .zip(pick("clock_gettime"))
        .map(|(a, b)| order(a, b, floor));
    insert(syscall, "verdict", json!({ "getpid_vs_clock": v }));
}

/// `thp.sizes[].small_vs_huge` and `.granted`, also under `medium`, `large`.
fn huge_sizes(thp: &mut Value, floor: Option<f64>) {
    let one = |s: &mut Value| {
        let v = Measured::read(s, "small_ns")
            .zip(Measured::read(s, "huge_ns"))
            .map(|(a, b)| order(a, b, floor));
        let windows = number(s, &["bytes"]).map(|b| (b / (2u64 << 20) as f64) as u64);
        let g = number(s, &["huge_fraction"])
            .zip(windows)
            .map(|(f, w)| granted(f, w));
        insert(s, "small_vs_huge", json!(v));
        insert(s, "granted", json!(g));
    };
    if let Some(sizes) = thp.get_mut("sizes").and_then(Value::as_array_mut) {
        sizes.iter_mut().for_each(one);
    }
    for key in ["medium", "large"] {
        if let Some(s) = thp.get_mut(key).filter(|s| s.is_object()) {
            one(s);
        }
    }
}

/// `thp.cross_check`: the staircase's 4 KiB point at the size of the first
/// `thp` region, against the `thp` experiment's own 4 KiB figure there.
fn same_config(stair: Option<&Value>, thp: Option<&Value>) -> Value {
    let found = (|| {
        let size = thp.and_then(|t| at(t, &["medium"]))?;
        let bytes = number(size, &["bytes"])?;
        let point = stair
            .and_then(|s| at(s, &["points"]))?
            .as_array()?
            .iter()
            .find(|p| p.get("bytes").and_then(Value::as_f64) == Some(bytes))?;
        let (a, b) = (
            Measured::read(point, "small_ns")?,
            Measured::read(size, "small_ns")?,
        );
        Some(json!({
            "size": size.get("size"),
            "stair_ns": a.median, "stair_ns_min": a.min, "stair_ns_max": a.max,
            "thp_ns": b.median, "thp_ns_min": b.min, "thp_ns_max": b.max,
            "verdict": cross_check(a, b),
        }))
    })();
    found.unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(min: f64, median: f64, max: f64) -> Measured {
        Measured { median, min, max }
    }

    #[test]
    fn order_reads_the_ranges_both_ways_and_overlap_is_noise() {
        assert_eq!(order(m(5.0, 6.0, 7.0), m(1.0, 2.0, 3.0), None), SLOWER);
        assert_eq!(order(m(1.0, 2.0, 3.0), m(5.0, 6.0, 7.0), None), FASTER);
        // Medians apart, ranges overlapping: the run's own spread covers it.
        assert_eq!(
            order(m(1.0, 2.0, 5.0), m(3.0, 4.0, 6.0), None),
            WITHIN_NOISE
        );
        // A floor does not override ranges that do not overlap.
        assert_eq!(
            order(m(10.1, 10.2, 10.3), m(10.0, 10.0, 10.0), Some(0.5)),
            SLOWER
        );
    }

    #[test]
    fn single_figures_fall_back_to_the_a_vs_a_floor() {
        let (a, b) = (Measured::single(103.0), Measured::single(100.0));
        assert_eq!(order(a, b, Some(0.05)), WITHIN_NOISE);
        assert_eq!(order(a, b, Some(0.01)), SLOWER);
        assert_eq!(order(b, a, Some(0.01)), FASTER);
        // No spread and no floor: only the medians are left.
        assert_eq!(order(a, b, None), SLOWER);
        assert_eq!(order(a, a, None), WITHIN_NOISE);
    }

    #[test]
    fn cross_check_agrees_only_on_overlap() {
        assert_eq!(
            cross_check(m(170.0, 176.0, 180.0), m(178.0, 200.0, 220.0)),
            "agree"
        );
        assert_eq!(
            cross_check(m(170.0, 176.0, 180.0), m(200.0, 216.0, 230.0)),
            "disagree"
        );
    }

    #[test]
    fn granted_counts_windows() {
        assert_eq!(granted(1.0, 512), "all");
        // An unaligned mapping loses one window and still got all it could.
        assert_eq!(granted(511.0 / 512.0, 512), "all");
        assert_eq!(granted(100.0 / 512.0, 512), "some");
        assert_eq!(granted(0.0, 512), "none");
    }

    #[test]
    fn huge_blocks_plenty_or_scarce() {
        assert_eq!(huge_blocks(2, 512), "scarce");
        assert_eq!(huge_blocks(512, 512), "plenty");
        assert_eq!(huge_blocks(9000, 512), "plenty");
    }

    fn step(small: bool, x: f64, translation: bool, matched: bool) -> StepAt {
        StepAt {
            small,
            x,
            translation,
            matched,
        }
    }

    #[test]
    fn half_point_sees_an_early_step() {
        let mib = 1048576.0;
        let l1 = step(true, 0.036 * mib, false, true);
        let l2 = step(true, 1.1 * mib, false, true);
        let early = step(true, 4.7 * mib, false, false);
        let tlb = step(true, 0.5 * mib, true, false);
        // Half of a 32 MiB L3 after the L1, L2 and an unexplained step.
        let steps = [l1, tlb, l2, early];
        assert_eq!(
            half_point(16.0 * mib, 3, &steps),
            ("past-an-earlier-step", Some(4.7 * mib))
        );
        // Without it, the point is on its level; a translation step below
        // does not move the data out of a cache.
        assert_eq!(
            half_point(16.0 * mib, 3, &[l1, tlb, l2]),
            ("on-its-level", None)
        );
        assert_eq!(half_point(0.5 * mib, 2, &steps), ("on-its-level", None));
    }

    #[test]
    fn a_step_in_both_regimes_near_no_known_size() {
        let mib = 1048576.0;
        let small = step(true, 887.0 * mib, false, false);
        let huge = step(false, 900.0 * mib, false, false);
        let alone = step(true, 108.0 * mib, true, false);
        let moved = step(false, 150.0 * mib, true, false);
        let known = step(true, 1.1 * mib, false, true);
        let beside_known = step(false, 1.2 * mib, false, false);
        let all = [small, huge, alone, moved, known, beside_known];
        assert_eq!(step_match(small, &all), "both-regimes");
        assert_eq!(step_match(huge, &all), "both-regimes");
        assert_eq!(step_match(alone, &all), "unmatched");
        assert_eq!(step_match(known, &all), "matches");
        assert_eq!(step_match(beside_known, &all), "as-other-regime");
        // The other curve's step near it is already paired with a closer
        // step here: no counterpart, so nothing is borrowed from it.
        let far = step(true, 2.3 * mib, false, false);
        let paired = [known, beside_known, far];
        assert_eq!(step_match(far, &paired), "unmatched");
    }

    #[test]
    fn reach_step_found_none_or_off_chart() {
        let mib = 1048576.0;
        let reach = 12.0 * mib;
        let near = [step(true, 14.0 * mib, true, true)];
        let far = [step(true, 108.0 * mib, true, false)];
        assert_eq!(reach_step(reach, 1024.0 * mib, &near), "found");
        assert_eq!(reach_step(reach, 1024.0 * mib, &far), "none");
        // A cache step near the reach is not a TLB step.
        let cache = [step(true, 12.0 * mib, false, true)];
        assert_eq!(reach_step(reach, 1024.0 * mib, &cache), "none");
        assert_eq!(reach_step(reach, 4.0 * mib, &near), "off-chart");
    }

    #[test]
    fn rise_cause_needs_the_huge_curve_flat() {
        assert_eq!(rise_cause(SLOWER, WITHIN_NOISE), "translation");
        assert_eq!(rise_cause(SLOWER, FASTER), "translation");
        assert_eq!(rise_cause(SLOWER, SLOWER), "shared");
        assert_eq!(rise_cause(WITHIN_NOISE, SLOWER), "none");
        assert_eq!(rise_cause(FASTER, WITHIN_NOISE), "none");
    }

    #[test]
    fn counts_and_backing() {
        assert_eq!(count_against(262144.0, 262144.0), "as-expected");
        assert_eq!(count_against(262145.0, 262144.0), "more");
        assert_eq!(count_against(512.0, 262144.0), "fewer");
        assert_eq!(backed(0.0), "none");
        assert_eq!(backed(0.4), "some");
        assert_eq!(backed(1.0), "all");
    }

    #[test]
    fn percentile_band_and_placement() {
        assert_eq!(percentile_band(1.0 / 256.0), "between-p99-and-p999");
        assert_eq!(percentile_band(1.0 / 16.0), "above-p99");
        assert_eq!(percentile_band(1.0 / 4096.0), "below-p999");
        assert_eq!(placement(1.0), "one-node");
        assert_eq!(placement(0.97), "spread");
    }

    #[test]
    fn tail_noise_and_syscall_verdicts() {
        let mut views = json!({
            "noise": {
                "floor": 0.01,
                "comparisons": {"pinned_vs_unpinned": {"noise": 0.01}},
                "batches": {"pinned": {"ms": 10.0, "spread": 1.02}, "unpinned": {"ms": 10.05, "spread": 2.4}},
            },
            "tail": {
                "fault_share": 0.004,
                "variants": {"as_written": {"p50": 440.0, "p999": 3000.0, "p999_rep_min": 2800.0, "p999_rep_max": 3300.0,
                                            "mean": 450.0, "mean_rep_min": 449.0, "mean_rep_max": 452.0}},
                "prefaulted": {"p50": 441.0, "p999": 670.0, "p999_rep_min": 550.0, "p999_rep_max": 810.0,
                               "mean": 442.0, "mean_rep_min": 441.0, "mean_rep_max": 443.0,
                               "max": 60000.0, "max_rep_min": 41000.0, "max_rep_max": 73000.0},
            },
            "syscall": {"ops": {"getpid": {"ns": 138.0, "min": 137.0, "max": 160.0},
                                "clock_gettime": {"ns": 22.0, "min": 22.0, "max": 29.0}}},
        });
        add(views.as_object_mut().unwrap());
        let t = &views["tail"]["verdict"];
        assert_eq!(t["p50"], WITHIN_NOISE);
        assert_eq!(t["p999"], SLOWER);
        assert_eq!(t["mean"], SLOWER);
        assert_eq!(t["outliers"], SLOWER);
        assert_eq!(t["fault_share"], "between-p99-and-p999");
        // 0.5% apart with a 1% floor: nothing measured; the spreads differ.
        assert_eq!(views["noise"]["verdict"]["unpinned"], WITHIN_NOISE);
        assert_eq!(views["noise"]["verdict"]["unpinned_spread"], SLOWER);
        assert_eq!(views["syscall"]["verdict"]["getpid_vs_clock"], SLOWER);
    }

    #[test]
    fn lever_rows_say_set_not_set_or_nothing_recorded() {
        let levers = json!({
            "cpuset_detail": "no cpuset controller", "allowed_cpus": "0-3",
            "isolcpus": "2-3", "nohz_full": null, "rcu_nocbs": "", "irqaffinity": null,
            "irq_default_affinity": "f", "sched_fifo_permitted": false, "cpuset_partitions": true,
        });
        let rows = lever_rows(&levers);
        let cell = |i: usize| (rows[i]["value"].clone(), rows[i]["state"].clone());
        assert_eq!(cell(0), (json!("0-3"), Value::Null));
        assert_eq!(cell(1), (Value::Null, json!("not permitted")));
        assert_eq!(cell(2), (json!("2-3"), json!("set")));
        assert_eq!(cell(3), (Value::Null, json!("not set")));
        assert_eq!(cell(4), (Value::Null, json!("not set")));
        assert_eq!(cell(5), (json!("f"), Value::Null));
        assert_eq!(cell(7), (Value::Null, json!("available")));
        // Nothing recorded (R2, a skipped experiment): no state is claimed.
        let rows = lever_rows(&json!({"cpuset_detail": null, "isolcpus": null}));
        for row in rows.as_array().unwrap() {
            assert!(row["value"].is_null() && row["state"].is_null(), "{row}");
        }
    }

    #[test]
    fn add_files_verdicts_under_the_views() {
        let mut views = json!({
            "noise": {"floor": 0.02},
            "ft": {
                "huge_regions": 4, "before": {"free_huge_blocks": 100},
                "modes": {
                    "nohugepage": {"first": {"ns": 1000.0, "ns_min": 990.0, "ns_max": 1010.0}, "huge_fraction": 0.0},
                    "hugepage": {"first": {"ns": 4500.0, "ns_min": 4400.0, "ns_max": 4600.0}, "huge_fraction": 1.0},
                    "populate": null,
                }
            }
        });
        add(views.as_object_mut().unwrap());
        let ft = &views["ft"];
        assert_eq!(ft["verdict"]["hugepage_first"], "slower");
        assert_eq!(ft["verdict"]["populate"], Value::Null);
        assert_eq!(ft["verdict"]["huge_blocks"], "plenty");
        assert_eq!(ft["modes"]["hugepage"]["granted"], "all");
        assert_eq!(ft["modes"]["nohugepage"]["granted"], "none");
    }
}
