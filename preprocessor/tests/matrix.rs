//! The book built from each recorded run in `tests/fixtures/matrix/`
//! (`scripts/record-fixtures`: THP always, madvise and never, pinned, not
//! root, under a 64 MiB memory limit), the labelled synthetic runs derived from them
//! (`scripts/synthesize-fixtures`, `SYNTHETIC.md`) and the example run:
//! every chapter renders, and each verdict-driven sentence is the one
//! its verdict selects, with the sentences for the other outcomes absent.

use std::sync::Arc;

use mdbook_pagewalk::{context, DataSet, Renderer};
use serde_json::Value;

mod common;

use common::{chapters, data_dir, fixtures};

/// Every chapter, rendered. Whitespace is folded so a sentence can be
/// found across lines.
fn book(renderer: &Renderer) -> Vec<(String, String)> {
    chapters()
        .into_iter()
        .map(|(name, template)| {
            let text = renderer
                .render(&name, &template)
                .unwrap_or_else(|e| panic!("{e}"));
            (name, text.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

fn page<'a>(pages: &'a [(String, String)], name: &str) -> &'a str {
    &pages.iter().find(|(n, _)| n == name).unwrap().1
}

/// The key of a sentence shown for any order without a difference.
const NO_DIFFERENCE: &str = "no-difference";

/// On `page`, the sentence for `verdict` is present and those for the other
/// outcomes are absent; with no verdict, none of them is there.
#[track_caller]
fn selects(
    run: &str,
    pages: &[(String, String)],
    name: &str,
    verdict: &Value,
    sentences: &[(&str, &str)],
) {
    let text = page(pages, name);
    for (outcome, sentence) in sentences {
        // One sentence stands for every order that claims no difference
        // (within noise, unstable, unrepeated): the reason follows it.
        let chosen = match *outcome {
            NO_DIFFERENCE => matches!(
                verdict.as_str(),
                Some("within-noise" | "unstable" | "unrepeated")
            ),
            o => verdict.as_str() == Some(o),
        };
        assert_eq!(
            text.contains(sentence),
            chosen,
            "{run}, {name}: verdict {verdict}, sentence for {outcome:?} {}",
            if chosen { "missing" } else { "present" }
        );
    }
}

#[test]
fn each_run_selects_its_own_sentences() {
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let dir = data_dir(&fixture);
        let data = Arc::new(DataSet::load(dir.path()).unwrap());
        assert!(data.own, "{run}: the fixture is not the run shown");
        let ctx = context::build(&data);
        let pages = book(&Renderer::new(data));

        // NUMA placement: only where the run had two nodes (the synthetic
        // two-node run); elsewhere the chapter says why it was skipped.
        selects(
            &run,
            &pages,
            "numa.md",
            &ctx["numa"]["verdict"]["one_thread"],
            &[
                ("one-node", "the node of the thread that wrote it"),
                ("spread", "of the pages ended up on the fullest node"),
            ],
        );
        if run == "synthetic-numa.json" {
            assert_eq!(ctx["numa"]["verdict"]["one_thread"], "one-node", "{run}");
        }

        // The walk counter at the largest region: only where the run could
        // open it (the synthetic PMU run); elsewhere the chapter says why not.
        selects(
            &run,
            &pages,
            "page-tables.md",
            &ctx["stair"]["verdict"]["walks"],
            &[
                ("parts", "The counter parts the way the latency curves do"),
                ("both", "Huge pages walked nearly as often as 4 KiB pages"),
                ("neither", "Neither page size walked the page tables there"),
            ],
        );
        if run.starts_with("synthetic-pmu") {
            assert_eq!(ctx["stair"]["verdict"]["walks"], "parts", "{run}");
        }

        // The first touch with MADV_HUGEPAGE, unless THP is off (then the
        // chapter says so instead) or the mode did not run.
        let never = ctx["run"]["machine"]["thp_enabled"] == "never";
        let huge = if never {
            &Value::Null
        } else {
            &ctx["ft"]["verdict"]["hugepage_first"]
        };
        selects(
            &run,
            &pages,
            "first-touch.md",
            huge,
            &[
                ("slower", "slower, as on the reference laptop"),
                (
                    "faster",
                    "This run shows the opposite of the reference laptop",
                ),
                (
                    NO_DIFFERENCE,
                    "On this run the advice made no difference the run can show",
                ),
            ],
        );
        // Why it was slower: the laptop's reason (no free 2 MiB blocks) or not.
        let blocks = if huge == "slower" {
            &ctx["ft"]["verdict"]["huge_blocks"]
        } else {
            &Value::Null
        };
        selects(
            &run,
            &pages,
            "first-touch.md",
            blocks,
            &[
                ("scarce", "That is too few to go round"),
                ("plenty", "That is enough for every window"),
            ],
        );
        selects(
            &run,
            &pages,
            "introduction.md",
            &ctx["ft"]["verdict"]["hugepage_first"],
            &[
                ("slower", "the advice made the first touch slower as well"),
                ("faster", "the advice made the first touch faster"),
                (
                    NO_DIFFERENCE,
                    "made no difference to the first touch that the run can show",
                ),
            ],
        );
        selects(
            &run,
            &pages,
            "tlb-reach.md",
            &ctx["tlb"]["verdict"]["rise"],
            &[
                ("translation", "Only the 4 KiB curve measurably rose"),
                ("shared", "Both curves measurably rose"),
                ("none", "chase did not get measurably slower"),
                ("unclear", "whether the huge-page curve rose with it"),
            ],
        );
        selects(
            &run,
            &pages,
            "drills.md",
            &ctx["stair"]["verdict"]["l2_tlb_step"],
            &[
                ("found", "did find a translation step there"),
                (
                    "none",
                    "found no translation step within a factor of two of that size",
                ),
                (
                    "off-chart",
                    "stops short of that size, so the step is not on its curve",
                ),
            ],
        );
        selects(
            &run,
            &pages,
            "hot-path-faults.md",
            &ctx["tail"]["verdict"]["p999"],
            &[
                ("slower", "each repetition's p99.9 lay between"),
                ("faster", "It went the wrong way"),
                (NO_DIFFERENCE, "did not move by anything this run can show"),
            ],
        );
        // The glance page and the proof drills read the same verdicts.
        let glance = "your-machine.md";
        selects(
            &run,
            &pages,
            glance,
            &ctx["ft"]["verdict"]["hugepage_first"],
            &[
                ("slower", "and slower on first touch than 4 KiB pages"),
                ("faster", "and faster on first touch than 4 KiB pages"),
                (NO_DIFFERENCE, "and not measurably different on first touch"),
            ],
        );
        selects(
            &run,
            &pages,
            glance,
            &ctx["tlb"]["verdict"]["rise"],
            &[
                (
                    "translation",
                    "only the 4 KiB curve rose: a translation cost",
                ),
                ("shared", "both curves rose, so not translation alone"),
                ("none", "no measurable rise past the L2 TLB's reach"),
                ("unclear", "the huge-page curve's repetitions cannot say"),
            ],
        );
        selects(
            &run,
            &pages,
            glance,
            &ctx["syscall"]["verdict"]["getpid_vs_clock"],
            &[
                ("slower", "the clock stayed in user space"),
                (NO_DIFFERENCE, "could not be told apart ("),
                ("faster", "the clock source is the first suspect"),
            ],
        );
        selects(
            &run,
            &pages,
            glance,
            &ctx["noise"]["verdict"]["unpinned"],
            &[
                ("slower", "unpinned runs were slower than pinned ones"),
                ("faster", "unpinned runs were faster than pinned ones"),
                (NO_DIFFERENCE, "pinning made no measurable difference ("),
            ],
        );
        selects(
            &run,
            &pages,
            "drills.md",
            &ctx["tail"]["verdict"]["fault_share"],
            &[
                ("above-p99", "so p99 already sees it"),
                ("between-p99-and-p999", "so p99.9 sees it and p99 does not"),
                ("below-p999", "so even p99.9 may miss it"),
            ],
        );
        // 1 GiB pages against THP at the largest region, where they ran.
        selects(
            &run,
            &pages,
            "huge-pages.md",
            &ctx["stair"]["gigantic"]["vs_huge"],
            &[
                (
                    NO_DIFFERENCE,
                    "The gigabyte pages made no difference this run can show",
                ),
                ("faster", "The gigabyte pages were faster than 2 MiB pages"),
                ("slower", "The gigabyte pages were slower than 2 MiB pages"),
            ],
        );
        let gigantic = &ctx["stair"]["gigantic"];
        assert_eq!(
            page(&pages, "huge-pages.md").contains("has no 1 GiB curve on this run"),
            gigantic["skipped"].is_string(),
            "{run}: a missing 1 GiB curve is said with its reason"
        );
        // Placement against repetition on the 4 KiB staircase.
        selects(
            &run,
            &pages,
            "method.md",
            &ctx["stair"]["placement"]["typical"],
            &[
                (
                    "between-larger",
                    "Placement moved the typical point more than repetition did",
                ),
                (
                    "within-larger",
                    "Repetition moved the typical point more than placement did",
                ),
            ],
        );
        // Raw error text stays in the run file, out of running prose, and
        // out of every chart: its notes, its legend, its data table and the
        // spec the page redraws it from.
        for (name, text) in &pages {
            assert!(
                !text.contains("(os error"),
                "{run}, {name}: a raw error string in the prose"
            );
            assert!(
                !text.contains("apt-get install"),
                "{run}, {name}: an install instruction in the prose"
            );
            for chart in charts(text) {
                for raw in RAW_IN_CHARTS {
                    assert!(
                        !chart.contains(raw),
                        "{run}, {name}: {raw:?} in a chart:\n{chart}"
                    );
                }
            }
        }
        // A step no cache explains is never called a cache step by name.
        for step in ctx["stair"]["steps"].as_array().unwrap() {
            if step["match"] == "both-regimes" {
                assert!(
                    page(&pages, "staircases.md").contains("both regimes, matches no cache size"),
                    "{run}: a step in both regimes is not labelled as one"
                );
            }
        }
    }
}

use pagewalk_model::reason::RAW_MARKERS as RAW_IN_CHARTS;

/// The charts in a chapter: each `<figure class="pw-chart">` block, with
/// its drawing, data table and spec.
fn charts(page: &str) -> Vec<&str> {
    page.split("<figure class=\"pw-chart\"")
        .skip(1)
        .map(|rest| rest.split("</figure>").next().unwrap_or(rest))
        .collect()
}

/// A verdict's value, or null where `shown` says the chapter does not
/// reach the sentences at all.
fn when(shown: bool, verdict: &Value) -> &Value {
    if shown {
        verdict
    } else {
        &Value::Null
    }
}

/// What a ratio below 1 means, before each translation ratio chart: a
/// run whose dTLB-miss counter opened points at those counts; one whose
/// counter did not says it does not record why. Read from the run file's
/// own `counters.dtlb_load_misses.available`, and the matrix holds both.
#[test]
fn each_ratio_lead_names_only_the_counter_its_run_has() {
    let mut seen = std::collections::BTreeSet::new();
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let file: Value = serde_json::from_slice(&std::fs::read(&fixture).unwrap()).unwrap();
        let dir = data_dir(&fixture);
        let pages = book(&Renderer::new(Arc::new(DataSet::load(dir.path()).unwrap())));
        for (experiment, chapter) in [
            ("staircase", "staircases.md"),
            ("tlb-reach", "tlb-reach.md"),
        ] {
            let opened = file["experiments"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["name"] == experiment)
                .map(|e| &e["results"][experiment]["counters"]["dtlb_load_misses"]["available"]);
            let Some(opened) = opened.and_then(Value::as_bool) else {
                continue;
            };
            seen.insert(opened);
            let text = page(&pages, chapter);
            let counts = text.contains("dTLB-miss counts show whether more walks were part of it");
            let silent = text.contains("and the run does not record why");
            assert!(
                counts == opened && silent != opened,
                "{run}: {chapter}: counter opened {opened}, but the lead says counts {counts}, no record {silent}"
            );
        }
    }
    assert_eq!(
        seen.len(),
        2,
        "the matrix lacks a run with the other counter state"
    );
}

/// The sentence before the first-touch faults chart names, for each phase,
/// the modes whose faults it carries; recomputed here from the run file
/// (the median minor faults of allocation against the first pass), in the
/// study's order, not from the context the sentence was written from.
#[test]
fn each_run_says_where_its_own_faults_land() {
    use mdbook_pagewalk::escape::escape_text;
    use pagewalk_model::{read_run, Mode, Phase};
    // Where `resize(n, 0)` faulted: at allocation in most runs, in the
    // first pass where the compiler made the fill a zeroed allocation
    // (memory-limit.json); the matrix must hold both.
    let mut resize_zero = std::collections::BTreeSet::new();
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let file = read_run(&fixture).unwrap();
        let Some(ft) = file.first_touch() else {
            continue;
        };
        let dir = data_dir(&fixture);
        let pages = book(&Renderer::new(Arc::new(DataSet::load(dir.path()).unwrap())));
        let text = page(&pages, "first-touch.md");
        let (mut alloc, mut first) = (Vec::new(), Vec::new());
        for &m in Mode::ALL.iter() {
            let Some(r) = ft.mode(m) else { continue };
            let faults = |p: Phase| r.summary.phase(p)?.minor_faults.as_ref().map(|s| s.median);
            if let (Some(a), Some(f)) = (faults(Phase::Allocation), faults(Phase::FirstPass)) {
                if m == Mode::ResizeZero {
                    resize_zero.insert(a > f);
                }
                let codes = if a > f { &mut alloc } else { &mut first };
                codes.push(format!("<code>{}</code>", escape_text(m.code())));
            }
        }
        for (lead, codes) in [
            ("In this run the allocation carries it for ", &alloc),
            ("The first pass carries it for ", &first),
        ] {
            let said = text.find(lead).map(|at| {
                let rest = &text[at + lead.len()..];
                &rest[..rest
                    .find(".\n")
                    .or_else(|| rest.find(". "))
                    .unwrap_or(rest.len())]
            });
            let want = match codes.len() {
                0 => None,
                1 => Some(codes[0].clone()),
                n => Some(format!(
                    "{} and {}",
                    codes[..n - 1].join(", "),
                    codes[n - 1]
                )),
            };
            assert_eq!(said.map(str::to_string), want, "{run}: \"{lead}...\"");
        }
    }
    assert_eq!(
        resize_zero.len(),
        2,
        "no run where resize(n, 0) faulted in the other phase"
    );
}

/// Each sentence that names a cause or a result for this run is the one
/// its verdict selects, and the matrix holds runs where the other outcome
/// happens (the labelled synthetic ones where no recorded run does).
#[test]
fn each_cause_is_the_one_its_verdict_proves() {
    let mut seen: Vec<(&str, String)> = Vec::new();
    for fixture in fixtures() {
        let run = fixture.file_name().unwrap().to_string_lossy().to_string();
        let dir = data_dir(&fixture);
        let data = Arc::new(DataSet::load(dir.path()).unwrap());
        let ctx = context::build(&data);
        let pages = book(&Renderer::new(data));
        let ft = &ctx["ft"]["verdict"];
        let tail = &ctx["tail"]["verdict"];
        let mut note = |key: &'static str, v: &Value| {
            if let Some(v) = v.as_str() {
                seen.push((key, v.to_string()));
            }
        };

        // What decided the advice's first-touch verdict: ranges that do not
        // overlap, or one sample each held against the A-vs-A floor.
        let never = ctx["run"]["machine"]["thp_enabled"] == "never";
        let decided = ["slower", "faster"].map(|o| !never && ft["hugepage_first"] == o);
        let ranges = if decided[0] {
            "The ranges do not overlap, so the difference"
        } else {
            "ranges that do not overlap)"
        };
        selects(
            &run,
            &pages,
            "first-touch.md",
            when(decided.contains(&true), &ft["hugepage_first_basis"]),
            &[
                ("ranges", ranges),
                (
                    "floor",
                    "Each mode ran once, so there is no spread of repetitions",
                ),
                (
                    "medians",
                    "Each mode ran once and this run has no A-vs-A floor",
                ),
            ],
        );
        note("ft.hugepage_first_basis", &ft["hugepage_first_basis"]);

        // One fault per page, about one (the surplus no more than the same
        // loop took over present pages), or more.
        selects(
            &run,
            &pages,
            "first-touch.md",
            &ft["touch_per_page"],
            &[
                ("exact", "pages: exactly one per page"),
                (
                    "about-one-per-page",
                    "about one per page, the few extra no more than the second pass",
                ),
                (
                    "more",
                    "so something besides the region faulted during the pass",
                ),
            ],
        );
        note("ft.touch_per_page", &ft["touch_per_page"]);
        selects(
            &run,
            &pages,
            "hot-path-faults.md",
            &tail["per_page"],
            &[
                ("exact", "pages, exactly one per page"),
                (
                    "about-one-per-page",
                    "about one per page: the few extra are no more than a pre-faulted",
                ),
                (
                    "more",
                    "more extra than any pre-faulted repetition's loop took",
                ),
                ("fewer", "so some pages took no fault in the loop"),
            ],
        );
        note("tail.per_page", &tail["per_page"]);

        // The outliers that survived pre-faulting: no fault only when the
        // counter read zero.
        selects(
            &run,
            &pages,
            "hot-path-faults.md",
            when(tail["outliers"] == "slower", &tail["prefaulted_faults"]),
            &[
                (
                    "none",
                    "The fault counter read zero in every pre-faulted repetition",
                ),
                ("some", "pre-faulted loop still took up to"),
            ],
        );
        assert!(
            !page(&pages, "hot-path-faults.md").contains("lost its CPU"),
            "{run}: the CPU named as lost with no counter to say so"
        );
        note("tail.prefaulted_faults", &tail["prefaulted_faults"]);

        // The p99.9 was the faults only where the counter and the
        // percentile both moved.
        selects(
            &run,
            &pages,
            "noise.md",
            &tail["p999_cause"],
            &[
                (
                    "faults",
                    "was the page faults, and the proof was the fault counter",
                ),
                ("not-faults", "on that run the faults did not set the p99.9"),
                (
                    "unproved",
                    "The fault counter does not settle what set the p99.9",
                ),
            ],
        );
        note("tail.p999_cause", &tail["p999_cause"]);

        // The gap at the largest region: translation, not the kernel, only
        // with no timed fault and the walk counter parting the page sizes.
        let stair = &ctx["stair"];
        selects(
            &run,
            &pages,
            "page-tables.md",
            when(
                stair["counters"]["faults"] == true,
                &stair["verdict"]["extra_time"],
            ),
            &[
                ("faults-in-it", "caught the kernel inside the timed loads"),
                (
                    "translation",
                    "the extra time is translation, not the kernel",
                ),
                (
                    "not-the-kernel",
                    "so none of the extra time is the kernel's",
                ),
                ("no-extra", "not one timed sample took a minor fault. "),
            ],
        );
        note("stair.extra_time", &stair["verdict"]["extra_time"]);

        // The fix working: only when no node holds more than one share.
        selects(
            &run,
            &pages,
            "numa.md",
            &ctx["numa"]["verdict"]["parallel"],
            &[
                ("even", "that spread is the fix working"),
                ("uneven", "on this run the fix did not fully work"),
            ],
        );
        note("numa.parallel", &ctx["numa"]["verdict"]["parallel"]);

        // Two-dimensional walks priced only where the gap is measured.
        selects(
            &run,
            &pages,
            "virtual-machines.md",
            when(
                ctx["run"]["machine"]["vm"] == true,
                &stair["at"]["largest"]["small_vs_huge"],
            ),
            &[
                (
                    "slower",
                    "that gap is where the price of two-dimensional walks shows",
                ),
                (NO_DIFFERENCE, "there is no gap to put down to nested walks"),
                ("faster", "which nested walks cannot explain"),
            ],
        );
        note("stair.largest", &stair["at"]["largest"]["small_vs_huge"]);
        note("stair.gigantic", &stair["gigantic"]["vs_huge"]);
        let g = &stair["gigantic"];
        let curve = if g["recorded"] != true {
            "not-recorded"
        } else if g["skipped"].is_string() {
            "skipped"
        } else {
            "measured"
        };
        note("stair.gigantic_curve", &Value::from(curve));
        note("stair.placement", &stair["placement"]["typical"]);
    }
    // Each cause and its opposite both happen somewhere in the matrix.
    for (key, outcomes) in [
        ("ft.hugepage_first_basis", &["ranges", "floor"][..]),
        (
            "ft.touch_per_page",
            &["exact", "about-one-per-page", "more"],
        ),
        ("tail.per_page", &["exact", "about-one-per-page", "more"]),
        ("tail.prefaulted_faults", &["none", "some"]),
        ("tail.p999_cause", &["faults", "not-faults"]),
        (
            "stair.extra_time",
            &["faults-in-it", "translation", "not-the-kernel", "no-extra"],
        ),
        ("numa.parallel", &["even", "uneven"]),
        ("stair.largest", &["slower", NO_DIFFERENCE]),
        ("stair.gigantic", &["faster", NO_DIFFERENCE, "slower"]),
        (
            "stair.gigantic_curve",
            &["not-recorded", "skipped", "measured"],
        ),
        ("stair.placement", &["between-larger", "within-larger"]),
    ] {
        for outcome in outcomes {
            assert!(
                seen.iter().any(|(k, v)| k == &key
                    && (v == outcome
                        || (*outcome == NO_DIFFERENCE
                            && matches!(v.as_str(), "within-noise" | "unstable" | "unrepeated")))),
                "no run in the matrix has {key} = {outcome}"
            );
        }
    }
}
