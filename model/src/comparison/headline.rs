//! The headline figures of a run: the numbers a chapter quotes, each with
//! the conditions it was measured under and its own repetition spread, so
//! two runs can be compared figure by figure.

use crate::first_touch::Phase;
use crate::judge::Repeated;
use crate::latency::Latency;
use crate::run::{Results, RunFile, Status};
use crate::stats::Summary;
use crate::translation::{ChasePoint, Curve};

/// One number of one run. Every figure is a time: lower is faster.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub experiment: String,
    /// Stable across runs (`nohugepage first pass`), so the same figure
    /// is found in another run.
    pub name: String,
    /// As the book's charts name it (`MADV_NOHUGEPAGE, first pass`), for
    /// the page's verdict table.
    pub label: String,
    pub unit: &'static str,
    /// Sizes and modes it was measured with. Two figures whose conditions
    /// differ measured different things and are not compared.
    pub conditions: String,
    pub value: f64,
    /// Its repetitions, as the judge reads them.
    pub repeated: Repeated,
    /// What a repetition is here (`3 repetitions`, `3 fresh mappings`),
    /// for the basis a reader sees.
    pub repeated_by: String,
}

/// Every headline figure of `run`, experiment by experiment.
pub fn figures(run: &RunFile) -> Vec<Figure> {
    let mut out = Vec::new();
    for e in &run.experiments {
        let Some(results) = e.results.as_ref().filter(|_| e.status == Status::Ok) else {
            continue;
        };
        let mut add = Adder {
            experiment: &e.name,
            out: &mut out,
        };
        match results {
            Results::FirstTouch(r) => {
                let cond = format!("{}, stride {}", size(r.size_bytes), size(r.stride_bytes));
                for m in r.modes.iter().filter(|m| m.skipped.is_none()) {
                    for phase in [Phase::FirstPass, Phase::SecondPass] {
                        if let Some(p) = m.summary.phase(phase) {
                            let name = format!("{} {}", m.mode.name(), phase.label());
                            let label = format!("{}, {}", m.mode.code(), phase.label());
                            add.summary(name, Some(label), "ns/page", &cond, &p.ns_per_page);
                        }
                    }
                }
            }
            Results::Staircase(r) => {
                let stride = r
                    .stride_bytes
                    .map_or("stride ?".into(), |s| format!("stride {}", size(s)));
                add.curves(&r.curves, &stride);
            }
            // The folded offsets (schema 6) put other lines in other sets:
            // a condition of their own.
            Results::TlbReach(r) => {
                let layout = match r.line_layout() {
                    crate::LineLayout::Step => "",
                    crate::LineLayout::Folded => ", folded",
                };
                add.curves(&r.curves, &format!("line step {}{layout}", r.line_step))
            }
            Results::Thp(r) => {
                for (which, s) in ends(&r.sizes) {
                    for (regime, point) in [("4 KiB pages", &s.small), ("huge pages", &s.huge)] {
                        if let Some(p) = point {
                            let name = format!("{regime}, {which} region");
                            add.chase(name, &size(s.size_bytes), p);
                        }
                    }
                }
            }
            Results::Tail(r) => {
                let cond = format!(
                    "{}, {} iterations",
                    r.region_bytes.map_or("region ?".into(), size),
                    r.iterations.map_or("?".into(), |n| n.to_string())
                );
                for v in r.variants.iter().filter(|v| v.skipped.is_none()) {
                    let reps = |f: fn(&crate::tail::TailRepetition) -> f64| {
                        Repeated::of(&v.repetitions.iter().map(f).collect::<Vec<_>>())
                    };
                    let (name, label) = (v.variant.name(), v.variant.label());
                    if let Some(r) = reps(|r| r.mean_ns) {
                        let label = Some(format!("{label}, mean"));
                        add.values(format!("{name} mean"), label, "ns", &cond, r);
                    }
                    if let Some(r) = reps(|r| r.p999_ns) {
                        let label = Some(format!("{label}, p99.9"));
                        add.values(format!("{name} p99.9"), label, "ns", &cond, r);
                    }
                }
            }
            Results::Alloc(r) => {
                for p in r.paths.iter().filter(|p| p.skipped.is_none()) {
                    let cond = format!(
                        "{}, {} ops per batch",
                        p.size_bytes.map_or("size ?".into(), size),
                        p.ops_per_batch.map_or("?".into(), |n| n.to_string())
                    );
                    add.latency(p.path.name(), p.path.label(), &cond, p.latency.as_ref());
                }
            }
            Results::Syscall(r) => {
                for o in r.ops.iter().filter(|o| o.skipped.is_none()) {
                    let cond = o.calls_per_batch.map_or("calls per batch ?".into(), |n| {
                        format!("{n} calls per batch")
                    });
                    add.latency(o.op.name(), o.op.label(), &cond, o.latency.as_ref());
                }
            }
            Results::Shootdown(r) => {
                let cond = format!("{} pages per call", r.pages_per_call);
                for c in r.cells.iter().filter(|c| c.skipped.is_none()) {
                    if let Some(s) = &c.median_ns {
                        let name = format!("{} {}", c.op.name(), c.sibling.name());
                        let label = format!("{}, {}", c.op.label(), c.sibling.label());
                        add.summary(name, Some(label), "ns per call", &cond, s);
                    }
                }
            }
            Results::Walk(r) => {
                for p in r.points.iter().filter(|p| p.skipped.is_none()) {
                    if let Some(s) = &p.ns_per_load {
                        let name = format!("{}, stride {}", p.regime.label(), size(p.stride_bytes));
                        let cond = format!("{} pages, random order", p.pages);
                        add.summary(name, None, "ns/load", &cond, s);
                    }
                }
            }
            Results::Mlp(r) => {
                for region in r.regions.iter().filter(|g| g.skipped.is_none()) {
                    let cond = format!("{}, stride {}", size(region.bytes), size(r.stride_bytes));
                    for (_, p) in ends(&region.points) {
                        let name = format!("{}, {} chains", region.region.label(), p.chains);
                        add.summary(name, None, "ns/load", &cond, &p.ns_per_load);
                    }
                }
            }
            Results::Noise(r) => {
                let cond = r
                    .rounds
                    .map_or("rounds ?".into(), |n| format!("{n} rounds"));
                for b in &r.batches {
                    let (name, label) = (b.condition.name(), b.condition.label());
                    let label = Some(label.into());
                    match (Repeated::of(&b.samples_ns), &b.summary) {
                        (Some(r), _) => add.values(name.into(), label, "ns per run", &cond, r),
                        (None, Some(s)) => add.summary(name.into(), label, "ns per run", &cond, s),
                        (None, None) => {}
                    }
                }
            }
            Results::Numa(r) => {
                for p in &r.placements {
                    let cond = format!("{}, {} threads", size(r.region_bytes), p.threads);
                    let name = p.placement.name().into();
                    let one = Repeated::single(p.touch_ns);
                    add.push(name, None, "ns", cond, one, "one run".into());
                }
            }
            // A watched process, not a benchmark: nothing to hold against
            // another run.
            Results::Inspect(_) => {}
        }
    }
    out
}

struct Adder<'a> {
    experiment: &'a str,
    out: &'a mut Vec<Figure>,
}

impl Adder<'_> {
    /// `label`: the book's name for it, when `name` is not that already.
    fn push(
        &mut self,
        name: String,
        label: Option<String>,
        unit: &'static str,
        conditions: String,
        repeated: Repeated,
        repeated_by: String,
    ) {
        self.out.push(Figure {
            experiment: self.experiment.to_string(),
            label: label.unwrap_or_else(|| name.clone()),
            name,
            unit,
            conditions,
            value: repeated.median,
            repeated,
            repeated_by,
        });
    }

    /// The median of repetitions whose values the file kept.
    fn values(
        &mut self,
        name: String,
        label: Option<String>,
        unit: &'static str,
        conditions: &str,
        r: Repeated,
    ) {
        let by = repetitions(r.n);
        self.push(name, label, unit, conditions.into(), r, by);
    }

    /// The median of repetitions known by their summary.
    fn summary(
        &mut self,
        name: String,
        label: Option<String>,
        unit: &'static str,
        conditions: &str,
        s: &Summary,
    ) {
        self.values(name, label, unit, conditions, Repeated::summary(s));
    }

    /// A chase point, judged by its mappings ([`ChasePoint::repeated`]).
    fn chase(&mut self, name: String, conditions: &str, p: &ChasePoint) {
        let (repeated, by) = (p.repeated(), p.repeated_by());
        self.push(name, None, "ns/load", conditions.into(), repeated, by);
    }

    /// The p50 of a per-batch distribution; the batches are the
    /// repetitions, known by their range.
    fn latency(&mut self, name: &str, label: &str, conditions: &str, l: Option<&Latency>) {
        let Some(l) = l else {
            return;
        };
        let Some(p50) = l.p50_ns else {
            return;
        };
        let (min, max) = (l.min_ns.unwrap_or(p50), l.max_ns.unwrap_or(p50));
        let n = match (l.n, l.min_ns, l.max_ns) {
            (Some(n), Some(_), Some(_)) => n as usize,
            _ => 1,
        };
        self.push(
            format!("{name} p50"),
            Some(format!("{label}, p50")),
            "ns",
            conditions.into(),
            Repeated::range(p50, min, max, n),
            format!("{n} batches"),
        );
    }

    /// The first and last point of each curve: the flat start (caches, TLB
    /// hit) and the far end (every level missed), the two numbers a
    /// staircase is quoted by.
    fn curves(&mut self, curves: &[Curve], conditions: &str) {
        for c in curves.iter().filter(|c| c.skipped.is_none()) {
            for (which, p) in ends(&c.points) {
                let name = format!("{}, {which} region", c.regime.label());
                let cond = format!("{}, {conditions}", point_size(p));
                self.chase(name, &cond, p);
            }
        }
    }
}

fn repetitions(n: usize) -> String {
    match n {
        1 => "1 repetition".into(),
        n => format!("{n} repetitions"),
    }
}

fn point_size(p: &ChasePoint) -> String {
    match p.pages {
        Some(pages) => format!("{} ({pages} pages)", size(p.region_bytes)),
        None => size(p.region_bytes),
    }
}

/// `("smallest", first)` and `("largest", last)`; one entry when they are
/// the same element.
fn ends<T>(items: &[T]) -> Vec<(&'static str, &T)> {
    match items {
        [] => vec![],
        [only] => vec![("only", only)],
        [first, .., last] => vec![("smallest", first), ("largest", last)],
    }
}

/// Exact sizes (`64 MiB`, `36864 B`): rounding could hide the very
/// difference that makes two figures incomparable.
pub fn size(bytes: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_exact() {
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(1 << 30), "1 GiB");
        assert_eq!(size(36 << 10), "36 KiB");
        assert_eq!(size((1 << 20) + 1), "1048577 B");
    }

    #[test]
    fn ends_of_a_list() {
        assert!(ends::<u8>(&[]).is_empty());
        assert_eq!(ends(&[1]), vec![("only", &1)]);
        assert_eq!(ends(&[1, 2, 3]), vec![("smallest", &1), ("largest", &3)]);
    }

    #[test]
    fn a_chase_over_fresh_mappings_is_repeated_by_its_mappings() {
        let samples = vec![100.0, 101.0, 130.0, 131.0, 100.0, 102.0];
        let mut p = ChasePoint {
            mappings: Some(3),
            ..ChasePoint::of_samples(1 << 30, &samples)
        };
        let figure = |p: &ChasePoint| {
            let mut out = Vec::new();
            let mut add = Adder {
                experiment: "staircase",
                out: &mut out,
            };
            add.chase("x".into(), "1 GiB", p);
            out.remove(0)
        };
        // Mapping medians 100.5, 130.5 and 101; the value stays the
        // median of all six samples (101.5).
        let f = figure(&p);
        assert_eq!(f.repeated.values, vec![100.5, 130.5, 101.0]);
        assert_eq!(f.value, 101.5);
        assert_eq!(f.repeated_by, "3 fresh mappings' medians");
        // One mapping: every sample is a repetition, as before schema 5.
        p.mappings = None;
        let f = figure(&p);
        assert_eq!(f.repeated.values, samples);
        assert_eq!(f.repeated_by, "6 repetitions");
        assert_eq!(f.repeated, p.repeated(), "the figure is the judge's input");
    }
}
