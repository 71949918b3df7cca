//! The verdict functions over plain numbers, and their filing under typed
//! views.

use super::*;
use crate::context::first_touch::{Before, FirstTouch, ModeView, Modes, PhaseView};
use crate::context::latency::Stats;
use crate::context::noise::{Batch, Batches, ComparisonView, Comparisons, Levers, Noise};
use crate::context::syscall::{Op, Ops, Syscall};
use crate::context::tail::{Tail, Variant, Variants};
use crate::context::Views;

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

type Figure = Option<(f64, f64, f64)>;

/// A tail variant: p50, then p99.9, mean and maximum each as
/// (lowest repetition, merged figure, highest repetition).
fn variant(p50: f64, p999: Figure, mean: Figure, max: Figure) -> Variant {
    Variant {
        stats: Stats {
            p50: Some(p50),
            p999: p999.map(|f| f.1),
            mean: mean.map(|f| f.1),
            max: max.map(|f| f.1),
            ..Stats::default()
        },
        skipped: None,
        label: "",
        faults: None,
        faults_max: None,
        prepare_ns: None,
        p999_rep_min: p999.map(|f| f.0),
        p999_rep_max: p999.map(|f| f.2),
        mean_rep_min: mean.map(|f| f.0),
        mean_rep_max: mean.map(|f| f.2),
        max_rep_min: max.map(|f| f.0),
        max_rep_max: max.map(|f| f.2),
    }
}

fn batch(ms: f64, spread: f64) -> Batch {
    Batch {
        skipped: None,
        ms: Some(ms),
        min_ms: None,
        max_ms: None,
        spread: Some(spread),
        spread_excess: None,
        cv: None,
        migrated: None,
    }
}

fn op(ns: f64, min: f64, max: f64) -> Op {
    Op {
        stats: Stats {
            min: Some(min),
            max: Some(max),
            ..Stats::default()
        },
        ns: Some(ns),
        skipped: None,
        label: "",
        calls_per_batch: None,
        batches: None,
        detail: None,
    }
}

#[test]
fn tail_noise_and_syscall_verdicts() {
    let mut views = Views {
        noise: Some(Noise {
            floor: Some(0.01),
            comparisons: Comparisons {
                pinned_vs_unpinned: Some(ComparisonView {
                    difference: 0.005,
                    noise: 0.01,
                    inside_noise: true,
                }),
                ..Comparisons::default()
            },
            batches: Batches {
                pinned: Some(batch(10.0, 1.02)),
                unpinned: Some(batch(10.05, 2.4)),
                ..Batches::default()
            },
            ..Noise::default()
        }),
        tail: Some(Tail {
            fault_share: Some(0.004),
            variants: Variants {
                as_written: Some(variant(
                    440.0,
                    Some((2800.0, 3000.0, 3300.0)),
                    Some((449.0, 450.0, 452.0)),
                    None,
                )),
                ..Variants::default()
            },
            prefaulted: Some(variant(
                441.0,
                Some((550.0, 670.0, 810.0)),
                Some((441.0, 442.0, 443.0)),
                Some((41000.0, 60000.0, 73000.0)),
            )),
            ..Tail::default()
        }),
        syscall: Some(Syscall {
            ops: Ops {
                getpid: Some(op(138.0, 137.0, 160.0)),
                clock_gettime: Some(op(22.0, 22.0, 29.0)),
                ..Ops::default()
            },
            ..Syscall::default()
        }),
        ..Views::default()
    };
    add(&mut views);
    let t = views.tail.unwrap().verdict.unwrap();
    assert_eq!(t.p50, Some(WITHIN_NOISE));
    assert_eq!(t.p999, Some(SLOWER));
    assert_eq!(t.mean, Some(SLOWER));
    assert_eq!(t.outliers, Some(SLOWER));
    assert_eq!(t.fault_share, Some("between-p99-and-p999"));
    // 0.5% apart with a 1% floor: nothing measured; the spreads differ.
    let n = views.noise.unwrap().verdict.unwrap();
    assert_eq!(n.unpinned, Some(WITHIN_NOISE));
    assert_eq!(n.unpinned_spread, Some(SLOWER));
    let s = views.syscall.unwrap().verdict.unwrap();
    assert_eq!(s.getpid_vs_clock, Some(SLOWER));
}

#[test]
fn lever_rows_say_set_not_set_or_nothing_recorded() {
    let levers = Levers {
        cpuset_detail: Some("no cpuset controller".into()),
        allowed_cpus: Some("0-3".into()),
        isolcpus: Some("2-3".into()),
        rcu_nocbs: Some(String::new()),
        irq_default_affinity: Some("f".into()),
        sched_fifo_permitted: Some(false),
        cpuset_partitions: Some(true),
        ..Levers::default()
    };
    let rows = hot_path::lever_rows(&levers);
    let cell = |i: usize| (rows[i].value.as_deref(), rows[i].state);
    assert_eq!(cell(0), (Some("0-3"), None));
    assert_eq!(cell(1), (None, Some("not permitted")));
    assert_eq!(cell(2), (Some("2-3"), Some("set")));
    assert_eq!(cell(3), (None, Some("not set")));
    assert_eq!(cell(4), (None, Some("not set")));
    assert_eq!(cell(5), (Some("f"), None));
    assert_eq!(cell(7), (None, Some("available")));
    // Nothing recorded (R2, a skipped experiment): no state is claimed.
    for row in hot_path::lever_rows(&Levers::default()) {
        assert!(row.value.is_none() && row.state.is_none(), "{}", row.lever);
    }
}

fn phase(ns: f64, spread: f64) -> PhaseView {
    PhaseView {
        ms: 0.0,
        wall_ns: 0.0,
        ns,
        ns_min: ns - spread,
        ns_max: ns + spread,
        faults: None,
    }
}

fn mode(first: PhaseView, huge_fraction: f64) -> ModeView {
    ModeView {
        skipped: None,
        alloc: None,
        first: Some(first),
        second: None,
        anon_huge_kib: None,
        anon_huge_mib: None,
        huge_fraction: Some(huge_fraction),
        huge_pages: None,
        faults_predicted: None,
        rerun: None,
        thp_alloc: None,
        thp_fallback: None,
        calls: None,
        granted: None,
    }
}

#[test]
fn add_files_verdicts_under_the_views() {
    let mut views = Views {
        noise: Some(Noise {
            floor: Some(0.02),
            ..Noise::default()
        }),
        ft: Some(FirstTouch {
            huge_regions: Some(4),
            before: Some(Before {
                mem_free_mib: 0,
                mem_available_mib: 0,
                swap_free_mib: None,
                mem_free_kib: 0,
                mem_available_kib: 0,
                swap_free_kib: None,
                free_order0: 0,
                free_huge_blocks: 100,
            }),
            modes: Some(Modes {
                nohugepage: Some(mode(phase(1000.0, 10.0), 0.0)),
                hugepage: Some(mode(phase(4500.0, 100.0), 1.0)),
                ..Modes::default()
            }),
            ..FirstTouch::default()
        }),
        ..Views::default()
    };
    add(&mut views);
    let ft = views.ft.unwrap();
    let v = ft.verdict.unwrap();
    assert_eq!(v.hugepage_first, Some("slower"));
    assert_eq!(v.populate, None);
    assert_eq!(v.huge_blocks, Some("plenty"));
    assert_eq!(v.hugepage_first_basis, Some("ranges"));
    // No fault count, no verdict on it.
    assert_eq!(v.touch_per_page, None);
    let modes = ft.modes.unwrap();
    assert_eq!(modes.hugepage.unwrap().granted, Some("all"));
    assert_eq!(modes.nohugepage.unwrap().granted, Some("none"));
}

#[test]
fn basis_says_what_decided_an_order() {
    // A spread on either side: the ranges are the evidence.
    assert_eq!(
        basis(m(5.0, 6.0, 7.0), Measured::single(2.0), None),
        "ranges"
    );
    assert_eq!(
        basis(m(1.0, 2.0, 5.0), m(3.0, 4.0, 6.0), Some(0.1)),
        "ranges"
    );
    // One sample each ("ran from 6 to 6"): only the A-vs-A floor can judge.
    let (a, b) = (Measured::single(6.0), Measured::single(2.0));
    assert_eq!(basis(a, b, Some(0.1)), "floor");
    assert_eq!(basis(a, b, None), "medians");
}

#[test]
fn per_page_allows_only_what_the_same_code_faulted_anyway() {
    assert_eq!(per_page(16384.0, 16384.0, 0.0), "exact");
    // Two extra, and the pass over present memory took three: the rest of
    // the thread, not the region.
    assert_eq!(per_page(16386.0, 16384.0, 3.0), "about-one-per-page");
    assert_eq!(per_page(16387.0, 16384.0, 3.0), "about-one-per-page");
    // Beyond the allowance, or with none, it is more.
    assert_eq!(per_page(16388.0, 16384.0, 3.0), "more");
    assert_eq!(per_page(16385.0, 16384.0, 0.0), "more");
    // No allowance makes a shortfall one per page.
    assert_eq!(per_page(16000.0, 16384.0, 1000.0), "fewer");
}

#[test]
fn none_or_some_and_split() {
    assert_eq!(none_or_some(0.0), "none");
    assert_eq!(none_or_some(1.0), "some");
    // Two nodes, 16384 pages: a node may hold 8192 and no more.
    assert_eq!(split(0.5, 16384, 2), "even");
    assert_eq!(split(8193.0 / 16384.0, 16384, 2), "uneven");
    assert_eq!(split(0.75, 16384, 2), "uneven");
    // An odd count rounds a share up.
    assert_eq!(split(2.0 / 3.0, 3, 2), "even");
    assert_eq!(split(1.0, 3, 2), "uneven");
}

#[test]
fn the_p999_is_the_faults_only_when_the_counter_and_the_percentile_both_move() {
    use super::hot_path::p999_cause;
    let band = "between-p99-and-p999";
    assert_eq!(p999_cause(SLOWER, band, 256.0, 0.0), "faults");
    // The faults went, the p99.9 stayed (or rose): something else sets it.
    assert_eq!(p999_cause(WITHIN_NOISE, band, 256.0, 0.0), "not-faults");
    assert_eq!(p999_cause(FASTER, band, 256.0, 0.0), "not-faults");
    // The counter did not fall, or faults are rarer than the percentile.
    assert_eq!(p999_cause(SLOWER, band, 256.0, 256.0), "unproved");
    assert_eq!(p999_cause(SLOWER, "below-p999", 256.0, 0.0), "unproved");
}

#[test]
fn extra_time_is_translation_only_with_both_counters() {
    use super::translation::extra_time;
    assert_eq!(extra_time(Some(SLOWER), 0, Some("parts")), "translation");
    assert_eq!(extra_time(Some(SLOWER), 0, None), "not-the-kernel");
    assert_eq!(extra_time(Some(SLOWER), 0, Some("both")), "not-the-kernel");
    // A fault inside a timed sample: the kernel is in the time.
    assert_eq!(extra_time(Some(SLOWER), 2, Some("parts")), "faults-in-it");
    assert_eq!(extra_time(Some(WITHIN_NOISE), 2, None), "faults-in-it");
    // No gap to explain.
    assert_eq!(extra_time(Some(WITHIN_NOISE), 0, Some("parts")), "no-extra");
    assert_eq!(extra_time(Some(FASTER), 0, None), "no-extra");
    assert_eq!(extra_time(None, 0, None), "no-extra");
}

#[test]
fn the_cause_verdicts_are_filed_from_the_counters() {
    let written = Variant {
        faults: Some(258.0),
        ..variant(440.0, Some((2800.0, 3000.0, 3300.0)), None, None)
    };
    let mut views = Views {
        tail: Some(Tail {
            pages: Some(256),
            fault_share: Some(0.004),
            prefault_faults_max: Some(3.0),
            variants: Variants {
                as_written: Some(written),
                ..Variants::default()
            },
            prefaulted: Some(variant(441.0, Some((550.0, 670.0, 810.0)), None, None)),
            ..Tail::default()
        }),
        ..Views::default()
    };
    add(&mut views);
    let t = views.tail.unwrap().verdict.unwrap();
    assert_eq!(t.per_page, Some("about-one-per-page"));
    assert_eq!(t.prefaulted_faults, Some("some"));
    assert_eq!(t.p999_cause, Some("faults"));
}

#[test]
fn one_preempted_clock_batch_does_not_hide_a_3x_gap() {
    // Quick runs on an Intel guest: getpid 105 ns (batches 104-114 up to
    // p90), clock_gettime 27 ns with one batch the host preempted at 433 ns.
    let batches = |n: u64, ns: f64, min: f64, p90: f64, max: f64| {
        let mut o = op(ns, min, max);
        o.stats.n = Some(n);
        o.stats.p90 = Some(p90);
        o
    };
    let judge = |getpid: Op, clock: Op| {
        let mut s = Syscall {
            ops: Ops {
                getpid: Some(getpid),
                clock_gettime: Some(clock),
                ..Ops::default()
            },
            ..Syscall::default()
        };
        hot_path::syscall(&mut s, None);
        s.verdict.unwrap().getpid_vs_clock
    };
    let getpid = || batches(30, 105.2, 104.2, 113.5, 2114.7);
    assert_eq!(
        judge(getpid(), batches(30, 27.2, 26.7, 28.5, 433.1)),
        Some(SLOWER)
    );
    // Its 90th percentile inside getpid's range: within noise.
    assert_eq!(
        judge(getpid(), batches(30, 27.2, 26.7, 110.0, 433.1)),
        Some(WITHIN_NOISE)
    );
    // Five batches: every one counts, the slowest included.
    assert_eq!(
        judge(
            batches(5, 105.2, 104.2, 113.5, 2114.7),
            batches(5, 27.2, 26.7, 28.5, 433.1)
        ),
        Some(WITHIN_NOISE)
    );
}

/// `stair.verdict.curves` and the widest gap: the curves part only where the
/// 4 KiB chase is slower beyond both ranges, and the widest such point is
/// named (the Intel guest: 12.0 against 5.8 ns at half of L2, with no step
/// the detector called translation).
#[test]
fn the_curves_part_only_where_4k_pages_are_slower_beyond_the_spread() {
    use crate::context::staircase::{Picked, StairPoint, Staircase};
    use crate::context::translation::Chase;
    let point = |bytes: u64, small: (f64, f64, f64), huge: (f64, f64, f64)| StairPoint {
        bytes,
        size: format!("{bytes} B"),
        chase: Chase {
            small_ns_min: Some(small.0),
            small_ns: Some(small.1),
            small_ns_max: Some(small.2),
            huge_ns_min: Some(huge.0),
            huge_ns: Some(huge.1),
            huge_ns_max: Some(huge.2),
            ..Chase::default()
        },
        huge_fraction: None,
        in_l1_tlb_gap: None,
        picked: Picked::default(),
    };
    let judge = |points: Vec<StairPoint>| {
        let mut s = Staircase {
            points,
            ..Staircase::default()
        };
        translation::staircase(&mut s, None);
        (
            s.verdict.unwrap().curves,
            s.widest_gap.map(|p| p.bytes),
            s.widest_gap_ratio,
        )
    };
    let (curves, at, ratio) = judge(vec![
        point(1 << 16, (1.6, 1.7, 1.8), (1.6, 1.7, 1.8)),
        point(1 << 20, (11.0, 12.0, 13.0), (5.5, 5.8, 6.1)),
        point(1 << 22, (20.0, 25.0, 30.0), (18.0, 20.0, 26.0)),
    ]);
    assert_eq!((curves, at), (Some("apart"), Some(1 << 20)));
    assert!((ratio.unwrap() - 12.0 / 5.8).abs() < 1e-9);
    // Overlapping ranges everywhere, or huge pages the slower: together.
    let (curves, at, _) = judge(vec![
        point(1 << 20, (5.0, 6.0, 9.0), (5.5, 5.8, 6.1)),
        point(1 << 22, (18.0, 19.0, 20.0), (30.0, 31.0, 32.0)),
    ]);
    assert_eq!((curves, at), (Some("together"), None));
    // No point with both curves: no verdict at all.
    assert_eq!(judge(Vec::new()).0, None);
}
