//! The page-tables chapter's `walk` and `mlp` sections over real runs
//! (`fixtures/walk-run.json`, `fixtures/mlp-run.json`: `collector run walk`
//! and `collector run mlp` on a 2-vCPU KVM guest) and runs derived from
//! them where the opposite happened: a walk that cost nothing measurable,
//! levels that did not add, huge pages that lowered the overlap ceiling
//! and ones that did not, no huge pages granted, the experiment skipped.
//! Each sentence is the one its verdict selects, its numbers recomputed
//! here from the JSON.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};
use serde_json::Value;

const CHAPTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/page-tables.md");

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}-run.json")),
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The chapter rendered from `runs` as the reader's own, whitespace folded.
fn chapter(runs: &[&Value]) -> String {
    render(CHAPTER, "page-tables.md", runs)
}

fn render(path: &str, name: &str, runs: &[&Value]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("runs")).unwrap();
    for (i, run) in runs.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("runs/run{i}.json")),
            serde_json::to_string(run).unwrap(),
        )
        .unwrap();
    }
    let data = DataSet::load(dir.path()).unwrap();
    let template = std::fs::read_to_string(path).unwrap();
    let out = Renderer::new(Arc::new(data))
        .render(name, &template)
        .unwrap_or_else(|e| panic!("{e}"));
    out.replace('\u{a0}', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn results<'a>(run: &'a mut Value, kind: &str) -> &'a mut Value {
    run["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == kind)
        .unwrap()
        .get_mut("results")
        .unwrap()
        .get_mut(kind)
        .unwrap()
}

/// Sets a summary to `ns` +- 2%.
fn set(s: &mut Value, ns: f64) {
    s["median"] = ns.into();
    s["mean"] = ns.into();
    s["min"] = (ns * 0.98).into();
    s["max"] = (ns * 1.02).into();
}

fn walk_point<'a>(run: &'a mut Value, regime: &str, stride: u64) -> &'a mut Value {
    results(run, "walk")["points"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["regime"] == regime && p["stride_bytes"] == stride)
        .unwrap()
}

/// The point of `kind` that `pick` selects, straight from the JSON: a
/// walk point, or a region's first point (its single chain) for `mlp`.
fn raw_point<'a>(run: &'a Value, kind: &str, pick: impl Fn(&Value) -> bool) -> &'a Value {
    let r = &run["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == kind)
        .unwrap_or_else(|| panic!("no {kind} experiment in the fixture"))["results"][kind];
    let list = if kind == "walk" {
        &r["points"]
    } else {
        &r["regions"]
    };
    let found = list
        .as_array()
        .unwrap_or_else(|| panic!("no {kind} points in the fixture"))
        .iter()
        .find(|p| pick(p))
        .unwrap_or_else(|| panic!("the {kind} fixture lacks the point asked for"));
    // A region's first point is its single chain.
    if kind == "walk" {
        found
    } else {
        &found["points"][0]
    }
}

/// The raw timed samples (ns per load) of a point, not the run's summary.
fn samples(point: &Value) -> Vec<f64> {
    let v: Vec<f64> = point["samples_ns_per_load"]
        .as_array()
        .unwrap_or_else(|| panic!("no samples_ns_per_load in {point}"))
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    assert!(!v.is_empty(), "no samples in {point}");
    v
}

/// The median of the samples, computed here.
fn median_of(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `(min, max)` of the samples.
fn range_of(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// Median ns per load of the point `pick` selects, from its raw samples.
fn median(run: &Value, kind: &str, pick: impl Fn(&Value) -> bool) -> f64 {
    median_of(samples(raw_point(run, kind, pick)))
}

/// `48 ns` as the chapter prints durations under a microsecond.
fn ns(x: f64) -> String {
    format!("{x:.0} ns")
}

const KIB4: u64 = 4096;
const KIB32: u64 = 32 << 10;
const MIB2: u64 = 2 << 20;
const GIB: u64 = 1 << 30;

const SHARED_COST: &str = "Where neighbouring entries share lines, a walk added";
const SHARED_NONE: &str = "this run could not tell a walk from no walk";
const NO_LEVELS: &str = "None of the three steps outward cost measurably more";

/// `2,048`: counts as the chapter prints them.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The recorded walk, unmodified. Every figure the section prints is
/// recomputed here from the points' raw `samples_ns_per_load` (medians,
/// ranges and differences written out in this file; neither the run's
/// summaries nor the preprocessor's view), and each sentence expected is
/// the one this fixture's data calls for, the data checked for it first.
#[test]
fn the_recorded_walk_says_what_each_stride_cost() {
    const FIX: &str = "fixtures/walk-run.json";
    let run = fixture("walk");
    let page = chapter(&[&run]);
    let walk = &run["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "walk")
        .unwrap_or_else(|| panic!("{FIX}: no walk experiment"))["results"]["walk"];
    let raw = |regime: &str, stride: u64| {
        samples(raw_point(&run, "walk", |p| {
            p["regime"] == regime && p["stride_bytes"] == stride
        }))
    };
    let strides = [
        (KIB4, "4 KiB"),
        (KIB32, "32 KiB"),
        (MIB2, "2 MiB"),
        (GIB, "1 GiB"),
    ];
    let small: Vec<Vec<f64>> = strides.iter().map(|&(s, _)| raw("small", s)).collect();
    let small_ns: Vec<f64> = small.iter().map(|s| median_of(s.clone())).collect();
    let huge4k = raw("huge", KIB4);
    let base = median_of(huge4k.clone());
    for (s, (_, label)) in small.iter().zip(strides) {
        assert!(
            s.len() >= 3,
            "{FIX}: the small {label} point has {} samples; a range needs several",
            s.len()
        );
    }
    let compared = std::cell::Cell::new(0);
    // `figures`: how many numbers computed here `text` holds.
    let expect = |what: &str, text: &str, figures: usize| {
        assert!(
            page.contains(text),
            "{FIX}: {what}: the page should say {text:?}:\n{page}"
        );
        compared.set(compared.get() + figures);
    };

    // The table: each stride's median, its extra over the no-walk baseline
    // (the huge-page 4 KiB stride), the huge-page median where it ran, and
    // the page tables grown.
    for (i, &(stride, label)) in strides.iter().enumerate() {
        let extra = small_ns[i] - base;
        assert!(
            extra >= 0.0,
            "{FIX}: small {label} ({} ns) should lie above the baseline ({base} ns)",
            small_ns[i]
        );
        let huge = if stride == KIB32 {
            "not run".to_string()
        } else {
            ns(median_of(raw("huge", stride)))
        };
        let kib = raw_point(&run, "walk", |p| {
            p["regime"] == "small" && p["stride_bytes"] == stride
        })["page_table_kib"]
            .as_u64()
            .unwrap_or_else(|| panic!("{FIX}: small {label}: no page_table_kib"));
        let tables = if kib < 1024 {
            format!("{kib} KiB")
        } else {
            format!("{:.1} MiB", kib as f64 / 1024.0)
        };
        expect(
            &format!("table row {label}: median, extra over the baseline, huge pages, page tables"),
            &format!(
                "| {label} | {} | {} | {huge} | {tables} |",
                ns(small_ns[i]),
                ns(extra)
            ),
            if stride == KIB32 { 3 } else { 4 },
        );
    }

    // The 4 KiB stride against the baseline: in this run one huge-page
    // repetition took 107 ns, so the baseline's range reaches over the
    // 4 KiB pages' and the two cannot be told apart.
    let (small_lo, small_hi) = range_of(&small[0]);
    let (huge_lo, huge_hi) = range_of(&huge4k);
    assert!(
        huge_hi >= small_lo && huge_lo <= small_hi,
        "{FIX}: the 4 KiB stride's repetitions ({small_lo}..{small_hi} ns on 4 KiB pages, \
         {huge_lo}..{huge_hi} ns on huge pages) were expected to overlap"
    );
    // The sentence that says so, up to its full stop, names both medians.
    let at = page
        .find(SHARED_NONE)
        .unwrap_or_else(|| panic!("{FIX}: overlapping ranges, yet no {SHARED_NONE:?}:\n{page}"));
    let sentence = &page[at..at + page[at..].find(". ").unwrap_or(page.len() - at)];
    for (what, figure) in [
        ("4 KiB pages", small_ns[0]),
        ("huge pages, the baseline", base),
    ] {
        assert!(
            sentence.contains(&format!("({})", ns(figure))),
            "{FIX}: the shared-line sentence should give the 4 KiB stride's median on {what}, \
             {}: {sentence:?}",
            ns(figure)
        );
        compared.set(compared.get() + 1);
    }
    assert!(
        !page.contains(SHARED_COST),
        "{FIX}: overlapping ranges, yet the page claims a cost:\n{page}"
    );

    // Every level outward cost more: each stride's fastest repetition is
    // slower than the previous stride's slowest.
    for i in 1..strides.len() {
        let (_, before_hi) = range_of(&small[i - 1]);
        let (lo, _) = range_of(&small[i]);
        assert!(
            lo > before_hi,
            "{FIX}: small {}: fastest {lo} ns should beat the slowest {before_hi} ns at {}",
            strides[i].1,
            strides[i - 1].1
        );
    }
    expect(
        "own line (32 KiB), the 4 KiB pages' median",
        &format!(
            "Giving every entry its own line cost {} per access, more than at 4 KiB",
            ns(small_ns[1])
        ),
        1,
    );
    expect(
        "own page table (2 MiB), the 4 KiB pages' median",
        &format!("A page table per page raised it to {},", ns(small_ns[2])),
        1,
    );
    // The 1 GiB stride's extra over the baseline against the 4 KiB one's.
    let times = (small_ns[3] - base) / (small_ns[0] - base);
    expect(
        "own page directory (1 GiB), median and extra as a multiple of the 4 KiB stride's",
        &format!(
            "A page directory per page raised it again, to {}, so the extra over the baseline was \
             {times:.1}× that of the walk whose entries shared lines",
            ns(small_ns[3])
        ),
        2,
    );
    assert!(!page.contains(NO_LEVELS), "{FIX}: {page}");

    // Huge pages: 512 of them fit the L2 TLB's 2048 entries for 2 MiB pages,
    // whose reach (entries x 2 MiB) is what passing it would need.
    let huge_pages = walk["huge_pages"].as_u64().expect("huge_pages");
    let entries_2m = walk["l2_tlb_entries_2m"]
        .as_u64()
        .expect("l2_tlb_entries_2m");
    assert!(
        huge_pages <= entries_2m,
        "{FIX}: {huge_pages} huge pages, {entries_2m} entries"
    );
    expect(
        "huge pages within the L2 TLB, their medians at 2 MiB and 1 GiB",
        &format!(
            "this experiment cannot show a walk without it here: its {} huge pages all fit the \
             L2 TLB's {} entries for 2 MiB pages, so those loads take no walk at all ({} at 2 MiB \
             apart, {} at 1 GiB)",
            thousands(huge_pages),
            thousands(entries_2m),
            ns(median_of(raw("huge", MIB2))),
            ns(median_of(raw("huge", GIB)))
        ),
        4,
    );
    expect(
        "memory to pass the 2 MiB reach",
        &format!(
            "would need more than {} GiB of memory",
            entries_2m * MIB2 / GIB
        ),
        1,
    );
    expect(
        "pages visited and the L2 TLB's 4 KiB entries",
        &format!(
            "It loads one pointer from each of {} pages, four times as many as the L2 TLB holds \
             for 4 KiB pages ({} entries)",
            thousands(walk["pages"].as_u64().expect("pages")),
            thousands(walk["l2_tlb_entries"].as_u64().expect("l2_tlb_entries"))
        ),
        2,
    );
    assert!(
        compared.get() >= 28,
        "{FIX}: only {} figures compared",
        compared.get()
    );

    // The counters' raw error stays out of the sentence; its reason is said.
    assert!(
        page.contains(
            "On this run none could be opened: no hardware counters are exposed to this system"
        ),
        "{page}"
    );
    assert!(!page.contains("skipped: no PMU"), "{page}");
    assert!(page.contains("two-dimensional walk"));
}

#[test]
fn a_walk_within_noise_and_levels_that_add_nothing() {
    let mut run = fixture("walk");
    for (regime, stride) in [
        ("small", KIB4),
        ("huge", KIB4),
        ("small", KIB32),
        ("small", MIB2),
        ("small", GIB),
    ] {
        set(
            &mut walk_point(&mut run, regime, stride)["ns_per_load"],
            50.0,
        );
    }
    let page = chapter(&[&run]);
    assert!(page.contains(SHARED_NONE), "{page}");
    assert!(page.contains(NO_LEVELS), "{page}");
    assert!(!page.contains(SHARED_COST));
    assert!(!page.contains("Giving every entry its own line cost"));
    assert!(!page.contains("A page directory per page raised it again"));
}

#[test]
fn a_walk_that_costs_says_how_much() {
    let mut run = fixture("walk");
    set(
        &mut walk_point(&mut run, "small", KIB4)["ns_per_load"],
        60.0,
    );
    set(&mut walk_point(&mut run, "huge", KIB4)["ns_per_load"], 30.0);
    let page = chapter(&[&run]);
    assert!(
        page.contains(SHARED_COST) && !page.contains(SHARED_NONE),
        "{page}"
    );
    assert!(
        page.contains("a walk added 30 ns to each access on this run (60 ns against 30 ns"),
        "{page}"
    );
}

fn mlp_region<'a>(run: &'a mut Value, region: &str) -> &'a mut Value {
    results(run, "mlp")["regions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["region"] == region)
        .unwrap()
}

/// ns per load of `region` at each chain count from `ns(k)`.
fn set_curve(run: &mut Value, region: &str, ns: impl Fn(f64) -> f64) {
    for p in mlp_region(run, region)["points"].as_array_mut().unwrap() {
        let k = p["chains"].as_f64().unwrap();
        set(&mut p["ns_per_load"], ns(k));
    }
}

const LOWER: &str = "Translation lowered the ceiling on this run";
const SAME: &str = "On this run the walks did not lower the ceiling";
const HIGHER: &str = "On this run 4 KiB pages overlapped more loads at their best";
const NOT_HIDDEN: &str = "the overlap did not hide the walks";

#[test]
fn huge_pages_that_overlap_more_lower_the_ceiling_of_4k() {
    let mut run = fixture("mlp");
    // 4 KiB pages stop at 4 loads in flight; huge pages reach 16.
    set_curve(&mut run, "small", |k| 160.0 / k.min(4.0));
    set_curve(&mut run, "huge", |k| 130.0 / k.min(16.0));
    let page = chapter(&[&run]);
    assert!(page.contains(LOWER), "{page}");
    assert!(!page.contains(SAME) && !page.contains(HIGHER));
    // Best overlaps 4.0 (at 4 chains) and 16.0 (at 16): 4.0 times.
    assert!(
        page.contains("overlapped 4.0 loads on 4 KiB pages (4 chains)"),
        "{page}"
    );
    assert!(
        page.contains("against 16.0 on huge pages (16 chains), 4.0 times"),
        "{page}"
    );
    assert!(page.contains(NOT_HIDDEN));
    // At 32 chains: 40 ns against 8.13 ns, 4.92 times; one chain 1.23 times.
    assert!(page.contains("4.92 times"), "{page}");
    assert!(page.contains("one chain alone paid 1.23 times"), "{page}");
}

#[test]
fn huge_pages_with_no_gain_in_overlap() {
    let mut run = fixture("mlp");
    set_curve(&mut run, "small", |k| 160.0 / k.min(16.0));
    set_curve(&mut run, "huge", |k| 160.0 / k.min(16.0));
    let page = chapter(&[&run]);
    assert!(page.contains(SAME), "{page}");
    assert!(!page.contains(LOWER) && !page.contains(HIGHER) && !page.contains(NOT_HIDDEN));
    assert!(page.contains("this run cannot tell 4 KiB pages from huge pages per load"));
}

#[test]
fn no_huge_pages_granted_says_nothing_about_translation() {
    let mut run = fixture("mlp");
    set_curve(&mut run, "small", |k| 160.0 / k.min(4.0));
    set_curve(&mut run, "huge", |k| 130.0 / k.min(16.0));
    let huge = mlp_region(&mut run, "huge");
    huge["anon_huge_kib"] = 0.into();
    huge["huge_fraction"] = 0.0.into();
    let page = chapter(&[&run]);
    assert!(
        page.contains("granted the huge region no huge pages"),
        "{page}"
    );
    assert!(!page.contains(LOWER) && !page.contains(SAME) && !page.contains(NOT_HIDDEN));
}

#[test]
fn the_recorded_mlp_run_renders_one_ceiling_sentence() {
    let run = fixture("mlp");
    let page = chapter(&[&run]);
    let hits = [LOWER, SAME, HIGHER]
        .iter()
        .filter(|s| page.contains(*s))
        .count();
    assert_eq!(hits, 1, "{page}");
    let one = median(&run, "mlp", |r| r["region"] == "small");
    assert!(one > 0.0);
}

#[test]
fn skipped_experiments_give_their_reason() {
    let mut run = fixture("mlp");
    let e = run["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "mlp")
        .unwrap();
    e["status"] = "skipped".into();
    e["reason"] = "needs 64 MiB".into();
    e.as_object_mut().unwrap().remove("results");
    let page = chapter(&[&run]);
    assert!(
        page.contains("(the collector reported: needs 64 MiB)"),
        "{page}"
    );
    assert!(!page.contains(LOWER) && !page.contains(SAME) && !page.contains(HIGHER));
}

/// The drills and the TLB-reach chapter cite both measurements from the
/// same verdicts.
#[test]
fn drills_and_tlb_reach_cite_the_runs() {
    let (walk, mut mlp) = (fixture("walk"), fixture("mlp"));
    set_curve(&mut mlp, "small", |k| 160.0 / k.min(16.0));
    set_curve(&mut mlp, "huge", |k| 130.0 / k.min(16.0));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/");
    let drills = render(&format!("{dir}drills.md"), "drills.md", &[&walk, &mlp]);
    assert!(
        drills.contains("the ceiling was the same both ways (16.0 and 16.0"),
        "{drills}"
    );
    let small = median(&walk, "walk", |p| {
        p["regime"] == "small" && p["stride_bytes"] == GIB
    });
    assert!(
        drills.contains(&format!("and {} with them 1 GiB apart", ns(small))),
        "{drills}"
    );
    // The sentence sits in the tlb-reach results: the example run has them.
    let example = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut example: Value =
        serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    // Its own mlp, newer than the fixture's, would be the one shown.
    example["experiments"]
        .as_array_mut()
        .unwrap()
        .retain(|e| e["name"] != "mlp");
    let reach = render(
        &format!("{dir}tlb-reach.md"),
        "tlb-reach.md",
        &[&example, &mlp],
    );
    // 32 chains: 160/16 = 10 ns against 130/16 = 8.13 ns, 1.23 times.
    assert!(
        reach.contains("a load on 4 KiB pages still cost 1.23 times one on huge pages, against 1.23 times with a single chain"),
        "{reach}"
    );
}

/// The Intel guest's case: huge pages at the 4 KiB stride slower than 4 KiB
/// pages, beyond the spread. The book said the two were "within the spread
/// of their repetitions" and printed "-16 ns" above the baseline.
#[test]
fn a_baseline_slower_than_the_walk_is_said_and_never_subtracted() {
    let mut run = fixture("walk");
    set(
        &mut walk_point(&mut run, "small", KIB4)["ns_per_load"],
        18.0,
    );
    set(&mut walk_point(&mut run, "huge", KIB4)["ns_per_load"], 35.0);
    set(
        &mut walk_point(&mut run, "small", KIB32)["ns_per_load"],
        27.0,
    );
    let page = chapter(&[&run]);
    assert!(
        page.contains("the baseline was the slower of the two"),
        "{page}"
    );
    assert!(
        !page.contains(SHARED_NONE) && !page.contains(SHARED_COST),
        "{page}"
    );
    // Both stride rows under the baseline say so instead of a negative figure.
    assert_eq!(page.matches("none: below it").count(), 2, "{page}");
    for negative in ["-17 ns", "-8 ns", "−17 ns"] {
        assert!(!page.contains(negative), "{negative}: {page}");
    }
}

/// Every outcome of every step outward has its sentence: a level that cost
/// no more, between two that did, is said, not dropped.
#[test]
fn a_level_within_noise_between_two_that_cost_is_said() {
    let mut run = fixture("walk");
    set(
        &mut walk_point(&mut run, "small", KIB32)["ns_per_load"],
        60.0,
    );
    set(
        &mut walk_point(&mut run, "small", MIB2)["ns_per_load"],
        60.0,
    );
    set(
        &mut walk_point(&mut run, "small", GIB)["ns_per_load"],
        150.0,
    );
    let page = chapter(&[&run]);
    assert!(
        page.contains(
            "A page table per page (60 ns) cost nothing measurable over the 32 KiB stride"
        ),
        "{page}"
    );
    assert!(
        page.contains("A page directory per page raised it again, to 150 ns"),
        "{page}"
    );
}
