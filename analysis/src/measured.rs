//! A run's TLB geometry read off its own curves: tlb-reach's 4 KiB curve
//! against its control places each level's reach between two page counts
//! ([`crate::reach`]), set beside what CPUID claims. The collector records
//! it (schema 6); the book computes it the same way for a run recorded
//! before the collector did, so both say the same of the same curves.

use std::borrow::Cow;

use pagewalk_model::{
    CpuidLeaves, Curve, Geometry, MeasuredGeometry, MeasuredTlb, ReachBasis, Regime, TlbFigure,
    TlbReachResults,
};

use crate::reach::{self, Basis, Estimate, Point};

const PAGE: u64 = 4096;

/// The 4 KiB curve against its control (huge pages, else 1 GiB pages),
/// as [`reach::estimate`] reads them; the control used, if any.
pub fn estimate(
    curves: &[Curve],
    geometry: &Geometry,
) -> (Option<Regime>, Result<Estimate, String>) {
    let levels = |regime: Regime| {
        curves
            .iter()
            .find(|c| c.regime == regime && c.skipped.is_none() && !c.points.is_empty())
            .map(|c| -> Vec<(f64, Vec<f64>)> {
                c.points
                    .iter()
                    .filter_map(|p| Some((p.pages? as f64, p.levels())))
                    .collect()
            })
    };
    let Some(small) = levels(Regime::Small) else {
        return (None, Err("no 4 KiB curve was measured".into()));
    };
    let control = [Regime::Huge, Regime::Gigantic]
        .into_iter()
        .find_map(|r| Some((r, levels(r)?)));
    let points = Point::pair(&small, control.as_ref().map(|(_, c)| c.as_slice()));
    let used = control
        .map(|(r, _)| r)
        .filter(|_| points.iter().all(|p| p.control.is_some()));
    let lines: Vec<f64> = geometry
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| (c.size_bytes / 64) as f64)
        .collect();
    (used, reach::estimate(&points, &lines))
}

/// What `curves` measured of the L1 dTLB and the L2 TLB, against CPUID.
/// `limit` names what kept the ladder from going further (for the note
/// when the curve did not step past the L2 TLB).
pub fn record(
    curves: &[Curve],
    geometry: &Geometry,
    cpuid: Option<CpuidLeaves>,
    limit: &str,
) -> MeasuredGeometry {
    let (control, estimate) = estimate(curves, geometry);
    let largest = curves
        .iter()
        .find(|c| c.regime == Regime::Small)
        .and_then(|c| c.points.iter().filter_map(|p| p.pages).max());
    let tlbs = [1, 2]
        .map(|level| tlb(level, estimate.as_ref().ok(), control, geometry))
        .to_vec();
    let l2 = tlbs.iter().find(|t| t.level == 2);
    let past = l2.is_some_and(|t| t.entries_high.is_some());
    let note = match (&estimate, l2.and_then(|t| t.entries_high)) {
        (Err(_), _) => None,
        (Ok(_), Some(high)) => Some(format!(
            "the 4 KiB curve stepped past the L2 TLB by {high} pages"
        )),
        (Ok(_), None) => Some(format!(
            "the 4 KiB curve did not step past the L2 TLB by {} pages, the most {limit} allows",
            largest.unwrap_or(0)
        )),
    };
    MeasuredGeometry {
        control,
        not_read: estimate.err(),
        tlbs,
        past_last_level: past,
        note,
        cpuid,
    }
}

/// A run's measured geometry, for the book's text and its charts alike:
/// as the run recorded it (schema 6, `true`), else read off its curves
/// here with [`record`], as the collector would have (`false`). An older
/// run's raw CPUID leaves were not kept, hence `None`.
pub fn of_run(t: &TlbReachResults) -> (Cow<'_, MeasuredGeometry>, bool) {
    match &t.measured {
        Some(m) => (Cow::Borrowed(m), true),
        None => (
            Cow::Owned(record(&t.curves, &t.geometry, None, "the run's settings")),
            false,
        ),
    }
}

/// One level: the estimate's bounds, CPUID's figure, which is used and why.
pub fn tlb(level: u8, e: Option<&Estimate>, control: Option<Regime>, g: &Geometry) -> MeasuredTlb {
    let r = e.and_then(|e| e.level(level));
    let cpuid = g.data_tlb(level, PAGE).map(|t| t.entries);
    let low = r.map(|r| r.low as u64);
    let high = r.and_then(|r| r.high).map(|h| h as u64);
    let figure = TlbFigure::judge(low, high, cpuid);
    let name = if level == 1 { "L1 dTLB" } else { "L2 TLB" };
    let bounds = match (low, high) {
        (Some(l), Some(h)) => format!("{l}-{h} entries"),
        (Some(l), None) => format!("at least {l} entries (no step by the largest point)"),
        _ => String::new(),
    };
    let seen = match r.and_then(|r| r.basis) {
        Some(Basis::Control) => " (a step on 4 KiB pages only)".to_string(),
        Some(Basis::NoCacheFills) if control.is_some() => format!(
            " (a step on {} too, where no data cache fills: their translations take 4 KiB entries as well)",
            control.map_or("", |r| r.label())
        ),
        Some(Basis::NoCacheFills) => " (where no data cache fills)".into(),
        None => String::new(),
    };
    let why = match figure {
        TlbFigure::Agree => format!(
            "measured {bounds}{seen}; CPUID's {} lies within",
            cpuid.unwrap_or(0)
        ),
        TlbFigure::CpuidSilent => format!(
            "measured {bounds}{seen}; CPUID gives no {name} figure ({})",
            g.tlb_source
        ),
        TlbFigure::CpuidContradicted => {
            let c = cpuid.unwrap_or(0);
            let how = match (low, high) {
                (Some(l), _) if u64::from(c) < l => {
                    format!("but {l} pages still fit: it claims too few")
                }
                (_, Some(h)) => format!(
                    "but the curve had risen by {h} pages: this process's pages get fewer entries than it counts"
                ),
                _ => "which the curves contradict".into(),
            };
            format!("measured {bounds}{seen}; CPUID says {c}, {how}; the measurement is used")
        }
        TlbFigure::CpuidOnly => format!(
            "the curves did not show the {name}; CPUID's {}, unconfirmed",
            cpuid.unwrap_or(0)
        ),
        TlbFigure::Unknown => {
            format!("the curves did not show the {name}, and CPUID gives no figure")
        }
    };
    MeasuredTlb {
        level,
        page_bytes: PAGE,
        entries_low: low,
        entries_high: high,
        at_pages: r.and_then(|r| r.at),
        basis: r.and_then(|r| r.basis).map(|b| match b {
            Basis::Control => ReachBasis::Control,
            Basis::NoCacheFills => ReachBasis::NoCacheFills,
        }),
        ns_before: r.map(|r| r.ns_before),
        ns_after: r.map(|r| r.ns_after),
        noise: r.map(|r| r.noise),
        cpuid_entries: cpuid,
        figure,
        why,
    }
}
