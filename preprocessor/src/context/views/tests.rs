//! [`Views::judge`] files each view's verdicts with the run's noise: the
//! floor of this source's `noise` view and each view's own repetitions.

use pagewalk_model::judge::counts::{NoneOrSome, PerPage, PercentileBand};
use pagewalk_model::judge::pages::{Backed, HugeBlocks};
use pagewalk_model::judge::tail::P999Cause;
use pagewalk_model::judge::{Basis, Order};

use super::Views;
use crate::context::first_touch::{Before, FirstTouch, ModeView, Modes};
use crate::context::noise::{Batch, Batches, ComparisonView, Comparisons, Noise};
use crate::context::syscall::{Op, Ops, Syscall};
use crate::context::tail::{Tail, Variant, Variants};

#[test]
fn tail_noise_and_syscall_verdicts() {
    // Six runs a batch (ns). Pinned: within 0.3% of 10 ms. Unpinned: a
    // median 0.5% above it, each run far further from it than any pinned
    // run is from its own.
    let pinned = [9.97e6, 9.99e6, 9.995e6, 10.005e6, 10.01e6, 10.03e6];
    let unpinned = [8.0e6, 9.0e6, 10.0e6, 10.1e6, 11.0e6, 24.0e6];
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
                pinned: Some(Batch::of_runs(10.0, 1.006, &pinned)),
                unpinned: Some(Batch::of_runs(10.05, 3.0, &unpinned)),
                ..Batches::default()
            },
            ..Noise::default()
        }),
        tail: Some(Tail {
            repetitions: Some(3),
            fault_share: Some(0.004),
            variants: Variants {
                as_written: Some(Variant::of_figures(
                    440.0,
                    Some((2800.0, 3000.0, 3300.0)),
                    Some((449.0, 450.0, 452.0)),
                    None,
                )),
                ..Variants::default()
            },
            prefaulted: Some(Variant::of_figures(
                441.0,
                Some((550.0, 670.0, 810.0)),
                Some((441.0, 442.0, 443.0)),
                Some((41000.0, 60000.0, 73000.0)),
            )),
            ..Tail::default()
        }),
        syscall: Some(Syscall {
            ops: Ops {
                getpid: Some(Op::of_batches(5, 138.0, 137.0, 160.0)),
                clock_gettime: Some(Op::of_batches(5, 22.0, 22.0, 29.0)),
                ..Ops::default()
            },
            ..Syscall::default()
        }),
        ..Views::default()
    };
    views.judge();
    let t = views.tail.unwrap().verdict.unwrap();
    // p50 is a single figure a side, 0.2% apart: inside the 1% floor.
    assert_eq!(t.p50, Some(Order::WithinNoise));
    // Three repetitions a side, ranges apart, beyond the floor.
    assert_eq!(t.p999, Some(Order::Slower));
    assert_eq!(t.mean, Some(Order::Slower));
    assert_eq!(t.outliers, Some(Order::Slower));
    assert_eq!(t.fault_share, Some(PercentileBand::BetweenP99AndP999));
    // Medians 0.5% apart with a 1% floor: nothing measured, though the
    // runs overlap too much for the rank test anyway. Their scatter does
    // not overlap at all: every unpinned run sits further from its median
    // than any pinned run does from its own.
    let n = views.noise.unwrap().verdict.unwrap();
    assert_eq!(n.unpinned, Some(Order::WithinNoise));
    assert_eq!(n.unpinned_spread, Some(Order::Slower));
    // Five batches a side, ranges apart.
    let s = views.syscall.unwrap().verdict.unwrap();
    assert_eq!(s.getpid_vs_clock, Some(Order::Slower));
}

#[test]
fn add_files_verdicts_under_the_views() {
    let mut views = Views {
        noise: Some(Noise {
            floor: Some(0.02),
            ..Noise::default()
        }),
        ft: Some(FirstTouch {
            // The ranges below stand for three repetitions each.
            repetitions: Some(3),
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
                nohugepage: Some(ModeView::of_first_pass(1000.0, 10.0, 0.0)),
                hugepage: Some(ModeView::of_first_pass(4500.0, 100.0, 1.0)),
                ..Modes::default()
            }),
            ..FirstTouch::default()
        }),
        ..Views::default()
    };
    views.judge();
    let ft = views.ft.unwrap();
    let v = ft.verdict.unwrap();
    assert_eq!(v.hugepage_first, Some(Order::Slower));
    assert_eq!(v.populate, None);
    assert_eq!(v.huge_blocks, Some(HugeBlocks::Plenty));
    assert_eq!(v.hugepage_first_basis, Some(Basis::Ranges));
    // No fault count, no verdict on it.
    assert_eq!(v.touch_per_page, None);
    let modes = ft.modes.unwrap();
    assert_eq!(modes.hugepage.unwrap().granted, Some(Backed::All));
    assert_eq!(modes.nohugepage.unwrap().granted, Some(Backed::None));
}

#[test]
fn the_cause_verdicts_are_filed_from_the_counters() {
    let written = Variant {
        faults: Some(258.0),
        ..Variant::of_figures(440.0, Some((2800.0, 3000.0, 3300.0)), None, None)
    };
    let mut views = Views {
        tail: Some(Tail {
            // The p99.9 ranges below stand for three repetitions each.
            repetitions: Some(3),
            pages: Some(256),
            fault_share: Some(0.004),
            prefault_faults_max: Some(3.0),
            variants: Variants {
                as_written: Some(written),
                ..Variants::default()
            },
            prefaulted: Some(Variant::of_figures(
                441.0,
                Some((550.0, 670.0, 810.0)),
                None,
                None,
            )),
            ..Tail::default()
        }),
        ..Views::default()
    };
    views.judge();
    let t = views.tail.unwrap().verdict.unwrap();
    assert_eq!(t.per_page, Some(PerPage::AboutOnePerPage));
    assert_eq!(t.prefaulted_faults, Some(NoneOrSome::Some));
    assert_eq!(t.p999_cause, Some(P999Cause::Faults));
}
