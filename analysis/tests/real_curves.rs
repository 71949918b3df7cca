//! The reach estimator on the curves of real runs: the Xeon guest whose
//! hypervisor hides CPUID's TLB leaves, the committed example, and the
//! book's fixtures.

use std::path::{Path, PathBuf};

use pagewalk_analysis::reach::{estimate, Basis, Estimate, Point, L1_MOST};
use pagewalk_model::{read_run, Regime, Results, TlbReachResults};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../preprocessor/tests/fixtures/matrix")
        .join(name)
}

fn tlb_reach(path: &Path) -> Option<TlbReachResults> {
    let run = read_run(path).unwrap_or_else(|e| panic!("{e}"));
    run.experiments.into_iter().find_map(|e| match e.results {
        Some(Results::TlbReach(t)) => Some(t),
        _ => None,
    })
}

/// As the collector reads a run: the 4 KiB curve against the huge-page
/// one (or the 1 GiB one), the data caches' capacities in lines.
fn estimate_of(t: &TlbReachResults) -> Result<Estimate, String> {
    let curve = |r: Regime| {
        t.curve(r)
            .filter(|c| !c.points.is_empty())
            .map(|c| -> Vec<(f64, Vec<f64>)> {
                c.points
                    .iter()
                    .map(|p| (p.pages.unwrap_or(0) as f64, p.levels()))
                    .collect()
            })
    };
    let small = curve(Regime::Small).unwrap_or_default();
    let control = curve(Regime::Huge).or_else(|| curve(Regime::Gigantic));
    let lines: Vec<f64> = t
        .geometry
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| c.size_bytes as f64 / 64.0)
        .collect();
    estimate(&Point::pair(&small, control.as_deref()), &lines)
}

fn levels(path: &Path) -> Estimate {
    let t = tlb_reach(path).expect("a tlb-reach record");
    estimate_of(&t).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(low, high, basis)` of a level.
fn bounds(e: &Estimate, level: u8) -> (f64, Option<f64>, Option<Basis>) {
    let r = e
        .level(level)
        .unwrap_or_else(|| panic!("no level {level}: {e:?}"));
    (r.low, r.high, r.basis)
}

/// The Xeon guest (CPUID's TLB leaves all zero). Typical-mapping levels:
/// 4 KiB pages 1.70 ns at 80 pages, 1.78 at 96 (two mappings with slow
/// samples), 3.40 at 112, while the huge-page curve stays at 1.70-1.71:
/// the L1 dTLB runs out between 80 and 112 pages, on 4 KiB pages only.
/// Then 7.87, 7.81, 8.02 ns at 896-1280 pages, 8.47 at 1536 (one mapping
/// 7.88), 9.67 at 1792 (every mapping past 9.1): the L2 TLB. The huge-page
/// curve climbs from 8 to 35 ns between 1024 and 1536 pages (the set-conflict
/// artefact of the old line offsets, `layout`), so it is no control there
/// and the step stands on the 4 KiB curve alone, far from the L1d's 768
/// lines.
#[test]
fn the_xeon_whose_cpuid_is_silent() {
    let e = levels(&fixture("intel-xeon-emr-16vcpu-kvm.json"));
    assert_eq!(bounds(&e, 1), (80.0, Some(112.0), Some(Basis::Control)));
    assert_eq!(
        bounds(&e, 2),
        (1280.0, Some(1792.0), Some(Basis::NoCacheFills))
    );
    // Past it, 4 KiB pages climb again (6144 to 8192 pages, 17 to 35 ns
    // and more) while huge pages do not: the walks' own loads.
    assert_eq!(e.beyond.len(), 1, "{e:?}");
    assert_eq!((e.beyond[0].low, e.beyond[0].high), (6144.0, Some(8192.0)));
}

/// The example run of 2026-12-02, now a fixture (AMD, CPUID: L1 64, L2 2048): all three curves,
/// 1 GiB pages too, step from 1.25 to 3.43 ns between 64 and 80 pages, far
/// inside the L1d (512 lines): the host backs the guest's huge pages with
/// 4 KiB ones, and the L1 dTLB runs out for all of them. 4 KiB pages then
/// go from 6.2 ns at 1280 pages to 14-15 at 1536 while huge pages stay at
/// 6.1-6.4: the L2 TLB holds fewer than CPUID's 2048 of this process's
/// pages.
#[test]
fn the_example_whose_host_splinters_huge_pages() {
    let e = levels(&fixture("example-20261202T032133Z-823fcb.json"));
    assert_eq!(bounds(&e, 1), (64.0, Some(80.0), Some(Basis::NoCacheFills)));
    assert_eq!(bounds(&e, 2), (1280.0, Some(1536.0), Some(Basis::Control)));
}

/// A run on this project's own kind of machine (Zen 4 guest, CPUID: L1
/// 72, L2 3072), one mapping a point: 4 KiB and huge pages both step at
/// 64-80 pages; 4 KiB pages go from 5.98 ns at 2048 pages to 10.68 at
/// 2560 and 19.28 at 4096, huge pages to 9.48 and 14.64. The 3584-page
/// point is the first whose every sample clears the noise.
#[test]
fn a_zen_4_guest() {
    let e = levels(&fixture("example-20261130T090014Z-66e994.json"));
    assert_eq!(bounds(&e, 1), (64.0, Some(80.0), Some(Basis::NoCacheFills)));
    assert_eq!(bounds(&e, 2), (2048.0, Some(3584.0), Some(Basis::Control)));
}

/// THP never: no control at all. The steps are still placed, each where
/// no data cache fills.
#[test]
fn no_control_curve() {
    let e = levels(&fixture("thp-never.json"));
    assert_eq!(bounds(&e, 1), (64.0, Some(96.0), Some(Basis::NoCacheFills)));
    assert_eq!(
        bounds(&e, 2),
        (1024.0, Some(1536.0), Some(Basis::NoCacheFills))
    );
    assert!(e.extra_noise.is_none());
}

/// Every fixture: bounds in order, each level on its side of
/// [`L1_MOST`], and no level from a step at a data cache's capacity.
#[test]
fn every_fixture_reads_sensibly() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(""))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.extend(pagewalk_model::committed::files());
    let mut read = 0;
    for f in files {
        let Some(t) = tlb_reach(&f) else { continue };
        let Ok(e) = estimate_of(&t) else { continue };
        read += 1;
        for r in e.levels.iter().chain(&e.beyond) {
            assert!(r.high.is_none_or(|h| r.low < h), "{}: {r:?}", f.display());
            let centre = r.high.map_or(r.low, |h| (r.low * h).sqrt());
            assert_eq!(r.level == 1, centre < L1_MOST, "{}: {r:?}", f.display());
        }
        let l1 = e.level(1).expect("every fixture shows its L1 dTLB");
        assert!(l1.high.unwrap() <= 128.0, "{}: {l1:?}", f.display());
    }
    assert!(read >= 15, "{read} fixtures read");
}
