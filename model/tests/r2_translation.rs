//! R2's address-translation labs (cache/02, cache/06) load as reference
//! files and hold what was transcribed: ranges as explicit min and max,
//! the TLB geometry R2 states, and nothing R2 did not report.

mod common;

use common::reference;
use pagewalk_model::TlbKind;

#[test]
fn cache_02_staircase_levels_and_geometry() {
    let run = reference("r2-cache-02.json");
    let s = run.staircase().expect("R2 cache/02 has staircase figures");
    assert!(
        s.curves.is_empty() && s.steps.is_empty(),
        "R2 gives levels, not curves"
    );
    assert_eq!(s.repetitions, None);
    // "4 rising to 12" from ~384 KiB to 1.25 MiB.
    let dtlb = s
        .published
        .iter()
        .find(|l| l.actual.contains("L1 dTLB"))
        .unwrap();
    assert_eq!(
        (dtlb.from_bytes, dtlb.to_bytes),
        (Some(384 << 10), Some(1280 << 10))
    );
    let ns = dtlb.ns.unwrap();
    assert_eq!((ns.min, ns.max), (4.0, 12.0));
    // "+15 to +100" is relative, so it has no absolute figure.
    let stlb = s
        .published
        .iter()
        .find(|l| l.actual.contains("STLB"))
        .unwrap();
    assert!(stlb.ns.is_none());
    assert_eq!(stlb.added_ns.map(|r| (r.min, r.max)), Some((15.0, 100.0)));
    // L1 dTLB 96 entries, STLB 2048 entries, 4 KiB pages: 384 KiB and 8 MiB.
    let l1 = s.geometry.data_tlb(1, 4096).unwrap();
    let l2 = s.geometry.data_tlb(2, 4096).unwrap();
    assert_eq!((l1.entries, l1.reach_bytes()), (96, 384 << 10));
    assert_eq!(
        (l2.entries, l2.reach_bytes(), l2.kind),
        (2048, 8 << 20, TlbKind::Unified)
    );
    assert!(s.geometry.caches.is_empty(), "R2 gives no cache sizes");
}

#[test]
fn cache_06_huge_pages_at_two_sizes() {
    let run = reference("r2-cache-06.json");
    let t = run.thp().expect("R2 cache/06 has thp figures");
    let ns = |p: &Option<pagewalk_model::ChasePoint>| p.as_ref().unwrap().ns_per_load.median;
    let [medium, large] = &t.sizes[..] else {
        panic!("two sizes")
    };
    assert_eq!((ns(&medium.small), ns(&medium.huge)), (147.0, 130.0));
    assert_eq!((ns(&large.small), ns(&large.huge)), (226.0, 189.0));
    let huge = large.huge.as_ref().unwrap();
    assert!((huge.huge_fraction.unwrap() - 1.0 / 3.0).abs() < 0.01);
    let collapse = huge.collapse.as_ref().unwrap();
    assert_eq!(
        (collapse.ok, collapse.errno.as_deref()),
        (false, Some("ENOMEM"))
    );
    assert!(
        medium.huge.as_ref().unwrap().huge_fraction.is_none(),
        "not reported"
    );
    assert!(t.hugetlb.is_none());
}
