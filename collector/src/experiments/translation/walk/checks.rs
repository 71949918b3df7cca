//! What walk checks of its own premises: the chase followed its cycle,
//! `VmPTE` grew by the tables each layout needs, huge pages where asked
//! and none elsewhere, no fault timed; the walk left the L2 TLB (the widest
//! stride costs clearly more than the narrowest); the huge-page points'
//! lines fit L2 (so the baseline pays no cache miss the 4 KiB pages do
//! not).

use pagewalk_analysis::layout;
use pagewalk_model::walk::TIMES_L2_TLB;
use pagewalk_model::{Check, Regime, TlbReachUsed, WalkPoint};

use super::super::region::human;
use super::range::line_in_frame;
use super::strides::{PAGE, SMALL_STRIDES};

/// The range's first page-directory and page-upper-directory tables may
/// already exist for a neighbouring mapping.
const SHARED_TABLES_KIB: u64 = 8;
/// "Clearly more": the widest stride's median at least this many times the
/// 4 KiB stride's (and its fastest sample above the other's slowest). A
/// walk that never leaves the TLB costs the same at every stride.
const CLEARLY: f64 = 1.5;

/// The premises every layout's numbers rest on; the walk's own two
/// (it left the TLB, the baseline's lines fit L2) are [`left_tlb`] and
/// [`baseline_fits`].
pub fn checks(points: &[WalkPoint], proof: &(usize, Vec<String>)) -> Vec<Check> {
    let measured: Vec<&WalkPoint> = points.iter().filter(|p| p.ns_per_load.is_some()).collect();
    let label = |p: &WalkPoint| format!("{} {}", human(p.stride_bytes as usize), p.regime.name());
    let mut checks = vec![Check::new(
        "every timed sample landed where the cycle says",
        proof.1.is_empty() && proof.0 > 0,
        "after k loads: the page k steps on in the cycle, in every sample",
        if proof.1.is_empty() {
            format!("{} samples verified", proof.0)
        } else {
            format!("{} did not: {}", proof.1.len(), proof.1.join("; "))
        },
    )];
    let short: Vec<String> = measured
        .iter()
        .filter(|p| {
            p.page_table_kib
                .zip(p.predicted_page_table_kib)
                .is_none_or(|(got, want)| got + SHARED_TABLES_KIB < want)
        })
        .map(|p| {
            format!(
                "{}: {} KiB of {} KiB",
                label(p),
                p.page_table_kib.map_or("?".into(), |k| k.to_string()),
                p.predicted_page_table_kib.unwrap_or(0)
            )
        })
        .collect();
    checks.push(Check::new(
        "VmPTE grew by the page tables each layout needs",
        short.is_empty(),
        format!(
            "one 4 KiB table per distinct table of each level, less {SHARED_TABLES_KIB} KiB (the range's first PMD and PUD tables may be a neighbour's)"
        ),
        if short.is_empty() {
            let widest = measured
                .iter()
                .filter_map(|p| Some((p.page_table_kib?, *p)))
                .max_by_key(|(k, _)| *k);
            match widest {
                Some((k, p)) => format!("in all {}; the most, {k} KiB at {}", measured.len(), label(p)),
                None => "no point measured".into(),
            }
        } else {
            format!("short at {}", short.join(", "))
        },
    ));
    for (regime, want_huge) in [(Regime::Huge, true), (Regime::Small, false)] {
        let pts: Vec<&&WalkPoint> = measured.iter().filter(|p| p.regime == regime).collect();
        if pts.is_empty() {
            continue;
        }
        let wrong: Vec<String> = pts
            .iter()
            .filter(|p| (p.anon_huge_kib.unwrap_or(0) > 0) != want_huge)
            .map(|p| label(p))
            .collect();
        let name = if want_huge {
            "huge pages: AnonHugePages > 0 at every huge-page stride"
        } else {
            "4 KiB pages: AnonHugePages == 0 at every 4 KiB stride"
        };
        checks.push(Check::new(
            name,
            wrong.is_empty(),
            if want_huge { "> 0 kB" } else { "0 kB" },
            if wrong.is_empty() {
                format!("in all {}", pts.len())
            } else {
                format!("not at {}", wrong.join(", "))
            },
        ));
    }
    let worst = measured
        .iter()
        .filter_map(|p| Some((p.timed_minor_faults?, *p)))
        .max_by_key(|(f, _)| *f);
    if let Some((faults, p)) = worst {
        checks.push(Check::new(
            "timed loops took no page faults (RUSAGE_THREAD)",
            faults <= 2,
            "<= 2 minor faults per point",
            format!("at most {faults} (at {})", label(p)),
        ));
    }
    checks
}

/// The premise that the walk left the L2 TLB: on 4 KiB pages the widest
/// stride measured costs clearly more than the 4 KiB stride. Within the
/// TLB's reach no stride walks, and all cost alike (the Zen 5 guest sized
/// from CPUID's 128 entries: 2.7 to 2.8 ns at every stride). Failed when
/// it did not; `cannot_tell` when no reach was measured to size from.
pub fn left_tlb(points: &[WalkPoint], pages: u64, reach: &TlbReachUsed) -> Check {
    let name = "the walk left the L2 TLB: its widest 4 KiB-page stride costs clearly more than the 4 KiB stride";
    let expected = format!(
        "median >= {CLEARLY}x the 4 KiB stride's and every sample slower than its slowest, over {pages} pages ({TIMES_L2_TLB}x the L2 TLB's {} entries, {})",
        reach.past(),
        reach.source.name()
    );
    let measured = |stride: u64| {
        points
            .iter()
            .find(|p| p.regime == Regime::Small && p.stride_bytes == stride)
            .and_then(|p| Some((p, p.ns_per_load.as_ref()?)))
    };
    let narrow = measured(PAGE);
    let wide = SMALL_STRIDES
        .iter()
        .rev()
        .filter(|&&s| s > PAGE)
        .find_map(|&s| measured(s));
    let (Some((_, n)), Some((w, ws))) = (narrow, wide) else {
        return Check::cannot_tell(
            name,
            expected,
            "the 4 KiB stride or every wider one was not measured on 4 KiB pages",
        );
    };
    let observed = format!(
        "{:.1} ns at {} against {:.1} ns at 4 KiB ({:.1}x)",
        ws.median,
        human(w.stride_bytes as usize),
        n.median,
        ws.median / n.median
    );
    if !reach.measured() {
        return Check::cannot_tell(
            name,
            expected,
            format!(
                "no L2 TLB reach could be measured ({}); {observed}",
                reach.note
            ),
        );
    }
    let clearly = ws.median >= CLEARLY * n.median && ws.min > n.max;
    Check::new(name, clearly, expected, observed)
}

/// The premise of the huge-page baseline: the same lines as the 4 KiB
/// pages', in the same data-cache situation. On a huge page the layout
/// alone picks each line's set (where the host backs it with a huge page
/// too), so no L2 set may get more lines than it has ways, or the baseline
/// would pay L3 for what the 4 KiB pages find in L2. `sets`: `(level,
/// number_of_sets, ways)` from sysfs.
pub fn baseline_fits(points: &[WalkPoint], sets: &[(u8, u64, u64)]) -> Check {
    let name = "the huge-page points' lines fit every L2 set, however the huge pages are placed (by construction)";
    let expected =
        "at most the L2's ways in any set (sysfs), from each line's place in its 2 MiB frame";
    let huge: Vec<&WalkPoint> = points
        .iter()
        .filter(|p| p.regime == Regime::Huge && p.ns_per_load.is_some())
        .collect();
    let Some(&(_, n, ways)) = sets
        .iter()
        .find(|(level, n, _)| *level == 2 && n.is_power_of_two() && *n <= 1 << 15)
    else {
        return Check::cannot_tell(name, expected, "sysfs gives no L2 set count");
    };
    if huge.is_empty() {
        return Check::cannot_tell(name, expected, "no huge-page point was measured");
    }
    let worst = huge
        .iter()
        .map(|p| {
            let lines = (0..p.pages).map(|i| line_in_frame(i, p.stride_bytes));
            (layout::most_in_one_set(lines, n), *p)
        })
        .max_by_key(|(most, _)| *most);
    let (most, p) = worst.expect("a huge-page point");
    Check::new(
        name,
        most <= ways,
        expected,
        format!(
            "L2: {n} sets of {ways} ways; at most {most} lines in one (at {} huge pages, {} pages)",
            human(p.stride_bytes as usize),
            p.pages
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{ReachSource, Summary, TlbFigure};

    fn point(stride: u64, samples: &[f64]) -> WalkPoint {
        WalkPoint {
            ns_per_load: Summary::of(samples),
            samples_ns_per_load: samples.to_vec(),
            ..super::super::empty(Regime::Small, stride, 8192)
        }
    }

    fn reach(source: ReachSource) -> TlbReachUsed {
        TlbReachUsed {
            source,
            entries_low: 1792,
            entries_high: Some(2048),
            cpuid_entries: None,
            figure: TlbFigure::CpuidSilent,
            note: "test".into(),
        }
    }

    #[test]
    fn a_walk_that_stayed_in_the_tlb_fails_and_an_unsized_one_cannot_tell() {
        // The Xeon run: 18-20 ns at 4 KiB, 87-227 at 1 GiB.
        let xeon = [
            point(PAGE, &[19.8, 18.1, 18.2, 18.8, 18.5]),
            point(1 << 30, &[227.3, 116.5, 102.6, 92.2, 87.2]),
        ];
        let c = left_tlb(&xeon, 8192, &reach(ReachSource::TlbReach));
        assert!(c.passed, "{c:?}");
        assert!(
            c.observed.contains("102.6 ns at 1 GiB against 18.5 ns"),
            "{}",
            c.observed
        );
        // The Zen 5 guest sized from CPUID's 128 entries: 2.7-2.8 ns
        // at every stride.
        let zen5 = [
            point(PAGE, &[2.7, 2.8, 2.7]),
            point(1 << 21, &[2.8, 2.7, 2.8]),
        ];
        let c = left_tlb(&zen5, 512, &reach(ReachSource::Probe));
        assert!(!c.passed && c.cannot_tell.is_none(), "{c:?}");
        // Sized from an assumption: the same numbers cannot tell.
        let c = left_tlb(&zen5, 512, &reach(ReachSource::Assumed));
        assert!(
            c.cannot_tell
                .as_deref()
                .unwrap()
                .contains("no L2 TLB reach"),
            "{c:?}"
        );
        // Slower, but not clearly: a sample of the wide stride overlaps.
        let close = [point(PAGE, &[10.0, 12.0]), point(1 << 30, &[11.5, 20.0])];
        assert!(!left_tlb(&close, 8192, &reach(ReachSource::Probe)).passed);
    }

    #[test]
    fn huge_page_baselines_fit_l2_where_the_old_lines_did_not() {
        let mut p = point(PAGE, &[30.0]);
        p.regime = Regime::Huge;
        // This machine's L2: 1 MiB, 8-way, 2048 sets; 8192 lines, 4 a set.
        let c = baseline_fits(std::slice::from_ref(&p), &[(1, 64, 8), (2, 2048, 8)]);
        assert!(c.passed, "{c:?}");
        assert!(
            c.observed.contains("at most 4 lines in one"),
            "{}",
            c.observed
        );
        // A 16384-page walk on a 512 KiB, 8-way L2 (1024 sets): 16 a set.
        p.pages = 16384;
        assert!(!baseline_fits(std::slice::from_ref(&p), &[(2, 1024, 8)]).passed);
        assert!(baseline_fits(&[p], &[]).cannot_tell.is_some());
    }
}
