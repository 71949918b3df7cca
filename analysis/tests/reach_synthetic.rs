//! The reach estimator on synthetic curves: machines whose TLBs and
//! caches are known, so every bound can be held to the capacity it must
//! contain.

use pagewalk_analysis::reach::{estimate, Basis, Point, Reach};
use pagewalk_analysis::rng::SplitMix64;

/// tlb-reach's page counts: four per doubling from 8.
fn ladder(most: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut octave = 8.0;
    while octave <= most {
        for q in [4.0, 5.0, 6.0, 7.0] {
            let x = octave * q / 4.0;
            if x <= most {
                out.push(x);
            }
        }
        octave *= 2.0;
    }
    out
}

/// A machine: ns per load at `pages` for a TLB of `entries` (each miss
/// adds `cost`), a cache of `lines` (past it, `cache_cost` more).
struct Machine {
    tlbs: Vec<(f64, f64)>,
    caches: Vec<(f64, f64)>,
}

impl Machine {
    fn ns(&self, pages: f64, translation: bool) -> f64 {
        let mut ns = 1.2;
        // A chase repeats one cycle: past a capacity the misses ramp
        // up over a doubling (replacement is not quite LRU) and stay.
        let miss = |cap: f64| ((pages - cap) / cap).clamp(0.0, 1.0);
        if translation {
            ns += self.tlbs.iter().map(|&(e, c)| c * miss(e)).sum::<f64>();
        }
        ns + self.caches.iter().map(|&(l, c)| c * miss(l)).sum::<f64>()
    }
}

/// Three mappings' fastest samples, each off by up to `noise`.
fn noisy(ns: f64, noise: f64, rng: &mut SplitMix64) -> Vec<f64> {
    (0..3)
        .map(|_| ns * (1.0 + noise * rng.next_u64() as f64 / u64::MAX as f64))
        .collect()
}

fn curves(m: &Machine, control_translates: bool, seed: u64) -> Vec<Point> {
    let mut rng = SplitMix64::new(seed);
    ladder(16384.0)
        .into_iter()
        .map(|x| Point {
            pages: x,
            small: noisy(m.ns(x, true), 0.03, &mut rng),
            control: Some(noisy(m.ns(x, control_translates), 0.03, &mut rng)),
        })
        .collect()
}

fn contains(r: &Reach, entries: f64) -> bool {
    r.low <= entries && r.high.is_some_and(|h| entries < h)
}

#[test]
fn both_levels_between_two_neighbouring_page_counts() {
    let l1d = 768.0;
    for (l1, l2) in [
        (64.0, 2048.0),
        (72.0, 3072.0),
        (96.0, 1536.0),
        (48.0, 4096.0),
    ] {
        let m = Machine {
            tlbs: vec![(l1, 3.0), (l2, 25.0)],
            caches: vec![(l1d, 4.0)],
        };
        for seed in 0..10 {
            let e = estimate(&curves(&m, false, seed), &[l1d]).unwrap();
            let (a, b) = (e.level(1).unwrap(), e.level(2).unwrap());
            assert!(contains(a, l1) && contains(b, l2), "{l1}/{l2}: {e:?}");
            // One rung of the ladder wide, or two where a point sits
            // right at the capacity.
            for r in [a, b] {
                assert!(r.high.unwrap() / r.low <= 1.5, "{r:?}");
                assert_eq!(r.basis, Some(Basis::Control));
            }
        }
    }
}

#[test]
fn a_host_that_splinters_huge_pages_leaves_the_l1_step_on_both_curves() {
    // The control translates too (4 KiB host pages behind it): its L1
    // dTLB step is the same height. Nothing but translation happens
    // at 64 lines, so it is still the L1 dTLB; the L1d step at 512
    // lines is the cache's.
    let m = Machine {
        tlbs: vec![(64.0, 2.0), (2048.0, 20.0)],
        caches: vec![(512.0, 3.0)],
    };
    let e = estimate(&curves(&m, true, 1), &[512.0]).unwrap();
    let l1 = e.level(1).unwrap();
    assert!(contains(l1, 64.0), "{e:?}");
    assert_eq!(l1.basis, Some(Basis::NoCacheFills));
    // Without a cache size the same step cannot be told from one.
    let e = estimate(&curves(&m, true, 1), &[]).unwrap();
    assert!(e.level(1).is_none(), "{e:?}");
}

#[test]
fn no_l2_step_by_the_largest_point_is_a_lower_bound() {
    let m = Machine {
        tlbs: vec![(64.0, 2.0), (65536.0, 20.0)],
        caches: vec![(768.0, 4.0)],
    };
    let e = estimate(&curves(&m, false, 2), &[768.0]).unwrap();
    let l2 = e.level(2).unwrap();
    assert_eq!((l2.low, l2.high, l2.basis), (16384.0, None, None));
}

#[test]
fn a_probe_does_not_take_the_l1d_for_the_l2_tlb() {
    // walk's probe: two page counts per doubling from 256, one sample
    // in each of two mappings, both curves past the L1 dTLB (1.9 ns
    // more on each: a host that splinters huge pages). Past the L1d
    // (512 lines) both climb 3 ns and the 4 KiB one 0.3 ns more (its
    // walks' lines now miss L1d too): ten times its noise, a tenth of
    // the 3.1 ns it started from.
    let m = Machine {
        tlbs: vec![(3072.0, 30.0)],
        caches: vec![(512.0, 3.0)],
    };
    let mut rng = SplitMix64::new(5);
    let mut x = 256.0;
    let mut pts = Vec::new();
    while x <= 8192.0 {
        for q in [1.0, 1.5] {
            let extra = if x * q > 512.0 { 0.3 } else { 0.0 };
            let two = |ns: f64, rng: &mut SplitMix64| noisy(ns, 0.01, rng)[..2].to_vec();
            pts.push(Point {
                pages: x * q,
                small: two(m.ns(x * q, true) + 1.9 + extra, &mut rng),
                control: Some(two(m.ns(x * q, false) + 1.9, &mut rng)),
            });
        }
        x *= 2.0;
    }
    pts.retain(|p| p.pages <= 8192.0);
    let e = estimate(&pts, &[512.0]).unwrap();
    let l2 = e.level(2).unwrap();
    assert!(contains(l2, 3072.0), "{e:?}");
    assert!(e.level(1).is_none(), "{e:?}");
}

#[test]
fn a_curve_too_thin_to_judge_is_refused() {
    let one = |x: f64| Point {
        pages: x,
        small: vec![1.0],
        control: None,
    };
    let pts: Vec<Point> = [8.0, 16.0, 32.0, 64.0].map(one).to_vec();
    assert!(estimate(&pts, &[]).unwrap_err().contains("two samples"));
    assert!(estimate(&pts[..3], &[]).is_err());
}

#[test]
fn a_step_at_a_cache_is_the_cache_even_on_4_kib_pages_alone() {
    // No control, no TLB step: the L1d's step is not a TLB.
    let m = Machine {
        tlbs: vec![],
        caches: vec![(512.0, 4.0)],
    };
    let pts: Vec<Point> = curves(&m, false, 3)
        .into_iter()
        .map(|p| Point { control: None, ..p })
        .collect();
    let e = estimate(&pts, &[512.0]).unwrap();
    assert!(e.level(1).is_none(), "{e:?}");
    assert_eq!(e.level(2).unwrap().high, None);
}
