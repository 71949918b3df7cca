//! `tlb.measured`: the TLB geometry the run's own curves give, beside what
//! CPUID claims, and which figure the book uses. The collector records it
//! from schema 6 on; for a run recorded before, the book reads it off the
//! same curves with the same function (`pagewalk_analysis::measured::of_run`,
//! which the charts' TLB markers use too), so a reader whose CPUID is
//! silent still learns the sizes their machine has.

use pagewalk_model::{MeasuredGeometry, MeasuredTlb, TlbFigure, TlbReachResults};
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::size;

const PAGE: u64 = 4096;

/// The measured geometry.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Measured {
    /// True when the run file recorded it (schema 6); false when the book read it off the file's curves at build time (an older run); null without tlb-reach curves.
    pub recorded: Option<bool>,
    /// The L1 dTLB, 4 KiB pages; null when neither measured nor claimed.
    pub l1: Option<Level>,
    /// The L2 TLB (Intel's STLB), 4 KiB pages.
    pub l2: Option<Level>,
    /// Both levels as table rows, L1 first.
    pub rows: Vec<Level>,
    /// True when any level was measured.
    pub any: Option<bool>,
    /// True when CPUID reported no level that was measured here: the measurement is the only figure.
    pub cpuid_silent: Option<bool>,
    /// True when CPUID's figure for some level lies outside the measured bounds.
    pub cpuid_contradicted: Option<bool>,
    /// Why the curves could not be read at all, when they could not.
    pub not_read: Option<String>,
    /// Whether the 4 KiB curve stepped past the L2 TLB, in words.
    pub note: Option<String>,
}

/// One TLB level.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Level {
    /// `L1 dTLB` or `L2 TLB`.
    pub label: &'static str,
    /// The measured entries as text: `80–112`, `at least 2,048`; null when the curves did not show the level.
    pub entries: Option<String>,
    /// What those entries map with 4 KiB pages: `320–448 KiB`.
    pub reach: Option<String>,
    /// The entries the book reads this level by: CPUID's where the measurement confirms it (or is all there is), else the fewest the measurement allows (the most pages still within noise); null when neither says.
    pub used_entries: Option<u64>,
    /// `used_entries` × 4 KiB, bytes: the reach the book reads this level by (a drill's answer).
    pub used_reach_bytes: Option<u64>,
    /// CPUID's entries for this level as text (`3,072`), when it gives any.
    pub cpuid: Option<String>,
    /// `agree`, `cpuid-silent`, `cpuid-contradicted`, `cpuid-only`, `unknown`.
    pub figure: &'static str,
    /// The figure the book reads this level by, and why, as text (`2,048–2,560 entries, measured (CPUID's 3,072 does not fit the curves)`).
    pub used: String,
    /// The collector's sentence on why.
    pub why: String,
}

pub fn view(t: &TlbReachResults) -> Measured {
    let (geometry, recorded) = pagewalk_analysis::measured::of_run(t);
    of(&geometry, recorded)
}

fn of(m: &MeasuredGeometry, recorded: bool) -> Measured {
    let level = |n: u8| m.tlb(n).map(|t| level(n, t));
    let (l1, l2) = (level(1), level(2));
    let rows: Vec<Level> = [l1.clone(), l2.clone()].into_iter().flatten().collect();
    let figures: Vec<TlbFigure> = m.tlbs.iter().map(|t| t.figure).collect();
    Measured {
        recorded: Some(recorded),
        any: Some(figures.iter().any(|f| f.measured())),
        cpuid_silent: Some(
            figures.iter().any(|f| f.measured())
                && figures.iter().all(|f| {
                    !matches!(
                        f,
                        TlbFigure::Agree | TlbFigure::CpuidContradicted | TlbFigure::CpuidOnly
                    )
                }),
        ),
        cpuid_contradicted: Some(figures.contains(&TlbFigure::CpuidContradicted)),
        l1,
        l2,
        rows,
        not_read: m.not_read.clone(),
        note: m.note.clone(),
    }
}

fn level(n: u8, t: &MeasuredTlb) -> Level {
    let group = pagewalk_model::units::count;
    let entries = match (t.entries_low, t.entries_high) {
        (Some(l), Some(h)) => Some(format!("{}–{}", group(l as f64), group(h as f64))),
        (Some(l), None) => Some(format!("at least {}", group(l as f64))),
        _ => None,
    };
    let reach = match (t.entries_low, t.entries_high) {
        (Some(l), Some(h)) => Some(format!("{}–{}", size(l * PAGE), size(h * PAGE))),
        (Some(l), None) => Some(format!("at least {}", size(l * PAGE))),
        _ => None,
    };
    let cpuid = t.cpuid_entries.map(|c| group(f64::from(c)));
    let (used, used_entries) = match (t.figure, &entries, &cpuid) {
        (TlbFigure::Agree, Some(e), Some(c)) => (
            format!("CPUID's {c}, which the measured {e} confirm"),
            t.cpuid_entries.map(u64::from),
        ),
        (TlbFigure::CpuidSilent, Some(e), _) => (
            format!("{e} entries, measured (CPUID gives none)"),
            t.entries_low,
        ),
        (TlbFigure::CpuidContradicted, Some(e), Some(c)) => (
            format!("{e} entries, measured (CPUID's {c} does not fit the curves)"),
            t.entries_low,
        ),
        (TlbFigure::CpuidOnly, _, Some(c)) => (
            format!("CPUID's {c}, unconfirmed (the curves did not show this level)"),
            t.cpuid_entries.map(u64::from),
        ),
        _ => ("unknown".into(), None),
    };
    Level {
        label: if n == 1 { "L1 dTLB" } else { "L2 TLB" },
        entries,
        reach,
        used_entries,
        used_reach_bytes: used_entries.map(|e| e * PAGE),
        cpuid: cpuid.clone(),
        figure: t.figure.name(),
        used,
        why: t.why.clone(),
    }
}
