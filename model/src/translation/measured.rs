//! The TLB geometry a run measured (schema 6), beside what CPUID claims:
//! tlb-reach's curves place each level's reach between two page counts,
//! and the experiments that must run past the L2 TLB's reach (walk, mlp)
//! say which figure they sized themselves from and where it came from.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

use super::Regime;

/// How tlb-reach placed each page's one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum LineLayout {
    /// `(i * line_step) mod 64`, before schema 6: it repeats every 64
    /// pages, so on physically contiguous memory the lines use 64 sets of
    /// a larger cache (a 2048-set L2 then holds 64 x its ways of them).
    Step,
    /// `((i ^ i >> 6 ^ i >> 12) * line_step) mod 64`: on physically
    /// contiguous memory every run of pages spreads over every set
    /// (`pagewalk_analysis::layout`).
    Folded,
}

/// Why a step of the 4 KiB curve was taken for translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum ReachBasis {
    /// The 4 KiB curve rose against the control curve (huge pages): its
    /// cost over the control's rose past the noise.
    Control,
    /// The control rose with it (a host backing the guest's huge pages
    /// with 4 KiB pages) or there was none, and no data cache fills there.
    NoCacheFills,
}

/// Which figure for a TLB level the collector used, and why. Least known
/// first: the hostile-file test builds the least value of each type, and
/// the first variant is the one that follows from no bounds and no CPUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum TlbFigure {
    /// Neither measured nor claimed.
    Unknown,
    /// Measured, and CPUID's figure lies within the measured bounds.
    Agree,
    /// Measured; CPUID has no figure for this level (a hypervisor that
    /// zeroes the leaves, a vendor pagewalk does not decode).
    CpuidSilent,
    /// Measured, and CPUID's figure lies outside the bounds: the
    /// measurement is used.
    CpuidContradicted,
    /// Not measured (the curves did not show the level): CPUID's figure,
    /// unconfirmed.
    CpuidOnly,
}

impl TlbFigure {
    /// The figure for a level measured between `low` and `high` entries
    /// (`high` absent: at least `low`), or not at all, against CPUID's.
    pub fn judge(low: Option<u64>, high: Option<u64>, cpuid: Option<u32>) -> TlbFigure {
        match (low, cpuid.map(u64::from)) {
            (Some(low), Some(c)) if low <= c && high.is_none_or(|h| c <= h) => TlbFigure::Agree,
            (Some(_), Some(_)) => TlbFigure::CpuidContradicted,
            (Some(_), None) => TlbFigure::CpuidSilent,
            (None, Some(_)) => TlbFigure::CpuidOnly,
            (None, None) => TlbFigure::Unknown,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TlbFigure::Agree => "agree",
            TlbFigure::CpuidSilent => "cpuid-silent",
            TlbFigure::CpuidContradicted => "cpuid-contradicted",
            TlbFigure::CpuidOnly => "cpuid-only",
            TlbFigure::Unknown => "unknown",
        }
    }

    /// Whether the level was measured.
    pub fn measured(self) -> bool {
        matches!(
            self,
            TlbFigure::Agree | TlbFigure::CpuidSilent | TlbFigure::CpuidContradicted
        )
    }
}

/// One TLB level for 4 KiB pages: what the curves measured, what CPUID
/// says, and which the collector used.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MeasuredTlb {
    /// 1: the L1 dTLB; 2: the L2 TLB (STLB).
    pub level: u8,
    pub page_bytes: u64,
    /// The most pages at which the 4 KiB curve was still within noise of
    /// the plateau before the level's step: it held them all.
    pub entries_low: Option<u64>,
    /// The fewest at which it had clearly risen (every sample past twice
    /// the noise). Absent with `entries_low`: the curve did not step by
    /// its largest point, so the level holds at least that many.
    pub entries_high: Option<u64>,
    /// Where the 4 KiB curve was steepest.
    pub at_pages: Option<f64>,
    pub basis: Option<ReachBasis>,
    /// The 4 KiB curve's ns per load on the plateaus either side.
    pub ns_before: Option<f64>,
    pub ns_after: Option<f64>,
    /// The noise the bounds were read against, as a share of the 4 KiB
    /// level before the step (0.05 = 5%): `entries_low` is within it of
    /// the plateau, `entries_high` past it twice with every sample.
    pub noise: Option<f64>,
    /// CPUID's entries for this level and page size, when it gives any.
    pub cpuid_entries: Option<u32>,
    pub figure: TlbFigure,
    /// Why, in a sentence.
    pub why: String,
}

/// What tlb-reach's curves say about the TLBs (schema 6).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MeasuredGeometry {
    /// The curve the 4 KiB one was set against: `huge`, or `gigantic`
    /// where THP could not run; absent when there was none.
    pub control: Option<Regime>,
    /// Why the curves could not be read at all; then every level is
    /// CPUID's or unknown.
    pub not_read: Option<String>,
    /// The L1 dTLB and the L2 TLB, for 4 KiB pages.
    #[serde(default)]
    pub tlbs: Vec<MeasuredTlb>,
    /// Whether the 4 KiB curve stepped past the last level (the L2 TLB)
    /// by its largest point, and if not, why it went no further.
    pub past_last_level: bool,
    pub note: Option<String>,
    /// The raw CPUID leaves the TLB figures come from (or do not).
    pub cpuid: Option<CpuidLeaves>,
}

impl MeasuredGeometry {
    pub fn tlb(&self, level: u8) -> Option<&MeasuredTlb> {
        self.tlbs.iter().find(|t| t.level == level)
    }
}

/// CPUID as the collector read it, registers raw: what shows a
/// hypervisor's silence (leaf 0x2 pointing at leaf 0x18, and leaf 0x18
/// all zeros) or an odd claim (AMD 0x80000006 EBX `0x60804040`: 128 L2
/// dTLB entries).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct CpuidLeaves {
    pub vendor: String,
    /// Leaf 0 EAX and leaf 0x80000000 EAX.
    pub max_basic_leaf: u32,
    pub max_extended_leaf: u32,
    /// Leaf 0x2's descriptor bytes, the iteration count and registers
    /// marked invalid left out: 0xff "no cache descriptors here, see leaf
    /// 4", 0xfe "no TLB descriptors here, see leaf 0x18". Absent past the
    /// highest basic leaf.
    pub leaf_0x2_descriptors: Option<Vec<u8>>,
    /// EAX, EBX, ECX, EDX of leaf 0x18 subleaf 0 and of the AMD leaves,
    /// where the highest leaf reaches them.
    pub leaf_0x18: Option<Vec<u32>>,
    pub leaf_0x80000005: Option<Vec<u32>>,
    pub leaf_0x80000006: Option<Vec<u32>>,
    pub leaf_0x80000019: Option<Vec<u32>>,
}

/// Where an experiment's L2 TLB reach came from. Least known first (see
/// [`TlbFigure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum ReachSource {
    /// Neither: an assumption, said so.
    Assumed,
    /// CPUID's figure: the curves did not show the level.
    Cpuid,
    /// The experiment's own quick probe: tlb-reach's chase at two page
    /// counts per doubling, one sample in each of two mappings.
    Probe,
    /// tlb-reach, earlier in the same run.
    TlbReach,
}

impl ReachSource {
    pub fn name(self) -> &'static str {
        match self {
            ReachSource::TlbReach => "tlb-reach",
            ReachSource::Probe => "probe",
            ReachSource::Cpuid => "cpuid",
            ReachSource::Assumed => "assumed",
        }
    }
}

/// The L2 TLB reach (4 KiB entries) an experiment sized itself from.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TlbReachUsed {
    pub source: ReachSource,
    /// The bounds: below `entries_low` pages every translation stays in
    /// the TLB, past `entries_high` every page misses. Equal for a figure
    /// that is not a measurement; `entries_high` absent when only a lower
    /// bound was measured.
    pub entries_low: u64,
    pub entries_high: Option<u64>,
    pub cpuid_entries: Option<u32>,
    pub figure: TlbFigure,
    /// How it was found, in a sentence.
    pub note: String,
}

impl TlbReachUsed {
    /// Entries past which every page misses: the upper bound, or the lower
    /// one where that is all there is.
    pub fn past(&self) -> u64 {
        self.entries_high.unwrap_or(self.entries_low)
    }

    /// Whether the figure is a measurement of this run.
    pub fn measured(&self) -> bool {
        matches!(self.source, ReachSource::TlbReach | ReachSource::Probe)
    }
}

/// `(field, message)` of the first rule a value breaks.
type Checked = Result<(), (String, String)>;

impl MeasuredGeometry {
    /// Each level once, 1 or 2, its bounds in order and its figure the one
    /// its bounds and CPUID's give.
    pub(crate) fn check(&self) -> Checked {
        for (i, t) in self.tlbs.iter().enumerate() {
            let at = |f: &str| format!("measured.tlbs[{i}].{f}");
            if !(1..=2).contains(&t.level) {
                return Err((
                    at("level"),
                    format!(
                        "is {}; the levels measured are 1 (L1 dTLB) and 2 (L2 TLB)",
                        t.level
                    ),
                ));
            }
            if self.tlbs[..i].iter().any(|o| o.level == t.level) {
                return Err((
                    at("level"),
                    format!("is {} twice; each level is listed once", t.level),
                ));
            }
            bounds_in_order(t.entries_low, t.entries_high).map_err(|(f, m)| (at(&f), m))?;
            figure_follows(t.figure, t.entries_low, t.entries_high, t.cpuid_entries)
                .map_err(|m| (at("figure"), m))?;
        }
        Ok(())
    }
}

impl TlbReachUsed {
    /// Bounds in order and not zero; a measurement's figure follows its
    /// bounds and CPUID's, and a figure taken from CPUID or assumed is no
    /// measurement's. Fields as the results name it: `l2_tlb`.
    pub(crate) fn check(&self) -> Checked {
        let at = |f: &str| format!("l2_tlb.{f}");
        bounds_in_order(Some(self.entries_low), self.entries_high).map_err(|(f, m)| (at(&f), m))?;
        if self.entries_low == 0 {
            return Err((
                at("entries_low"),
                "is 0; a TLB holds at least one entry".into(),
            ));
        }
        let measured = self.measured();
        figure_follows(
            self.figure,
            measured.then_some(self.entries_low),
            self.entries_high.filter(|_| measured),
            self.cpuid_entries,
        )
        .map_err(|m| (at("figure"), m))
    }
}

fn bounds_in_order(low: Option<u64>, high: Option<u64>) -> Checked {
    match (low, high) {
        (Some(l), Some(h)) if l > h => Err((
            "entries_high".into(),
            format!("is {h}, below entries_low ({l}); the bounds are low then high"),
        )),
        (None, Some(_)) => Err((
            "entries_high".into(),
            "is set without entries_low; a level measured has a lower bound".into(),
        )),
        _ => Ok(()),
    }
}

fn figure_follows(
    figure: TlbFigure,
    low: Option<u64>,
    high: Option<u64>,
    cpuid: Option<u32>,
) -> Result<(), String> {
    let expected = TlbFigure::judge(low, high, cpuid);
    if figure == expected {
        return Ok(());
    }
    Err(format!(
        "is {}, but the bounds and CPUID's figure give {}",
        figure.name(),
        expected.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_follow_the_bounds() {
        use TlbFigure::*;
        // 64..80 measured: CPUID's 64 and 80 agree, 56 and 96 do not.
        assert_eq!(TlbFigure::judge(Some(64), Some(80), Some(64)), Agree);
        assert_eq!(TlbFigure::judge(Some(64), Some(80), Some(80)), Agree);
        assert_eq!(
            TlbFigure::judge(Some(64), Some(80), Some(56)),
            CpuidContradicted
        );
        assert_eq!(
            TlbFigure::judge(Some(64), Some(80), Some(96)),
            CpuidContradicted
        );
        // The Zen 5 guest's 128-entry claim against a reach past 2048.
        assert_eq!(
            TlbFigure::judge(Some(2048), None, Some(128)),
            CpuidContradicted
        );
        assert_eq!(TlbFigure::judge(Some(2048), None, Some(4096)), Agree);
        assert_eq!(TlbFigure::judge(Some(80), Some(112), None), CpuidSilent);
        assert_eq!(TlbFigure::judge(None, None, Some(2048)), CpuidOnly);
        assert_eq!(TlbFigure::judge(None, None, None), Unknown);
        assert!(Agree.measured() && !CpuidOnly.measured());
    }
}
