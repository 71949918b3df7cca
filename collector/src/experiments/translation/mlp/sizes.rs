//! The sizes mlp's regions are cut to: the large region past the
//! last-level cache and the L2 TLB's reach, the control region inside the
//! reach, the memory both hold at once, and the words that say where each
//! lies.

use pagewalk_model::{Geometry, MlpRegion, TlbReachUsed};

use super::super::region::human;
use super::chains::STRIDE;
use crate::guard;

const PAGE: u64 = 4096;
const KIB: u64 = 1024;
const MIB: u64 = 1 << 20;
/// The large region is at least this many times the last-level cache and
/// the L2 TLB's 4 KiB reach (a full run; `--quick` takes the larger of the
/// two, once).
const BEYOND: u64 = 2;
/// Used when sysfs does not say.
const UNKNOWN_LLC: u64 = 32 * MIB;

/// The most memory held at once: the region (plus the alignment of a huge
/// one), the cycle and each position's slot.
pub fn footprint(region: u64) -> u64 {
    let slots = region / STRIDE as u64;
    region + 2 * MIB + slots * 3 * std::mem::size_of::<usize>() as u64
}

/// The sizes that decide the regions: the L2 TLB's reach as measured (or,
/// said so, not), the caches from sysfs.
pub struct Sizes {
    pub reach: TlbReachUsed,
    pub l2: Option<u64>,
    pub llc: Option<u64>,
}

impl Sizes {
    pub fn of(g: &Geometry, reach: TlbReachUsed) -> Sizes {
        let llc = g
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .max_by_key(|c| c.level)
            .map(|c| c.size_bytes);
        Sizes {
            reach,
            l2: g.data_cache(2).map(|c| c.size_bytes),
            llc,
        }
    }

    /// Bytes past which every 4 KiB page misses the L2 TLB.
    pub fn reach_past(&self) -> u64 {
        self.reach.past() * PAGE
    }

    /// Bytes below which every 4 KiB page stays in it.
    pub fn reach_inside(&self) -> u64 {
        self.reach.entries_low * PAGE
    }

    /// Past both the last-level cache and the L2 TLB's reach by [`BEYOND`].
    pub fn large(&self) -> u64 {
        let need = self.llc.unwrap_or(UNKNOWN_LLC).max(self.reach_past());
        (need * BEYOND).next_multiple_of(guard::GRANULE)
    }

    /// Just past the larger of the two: `--quick`.
    pub fn large_quick(&self) -> u64 {
        let need = self.llc.unwrap_or(UNKNOWN_LLC).max(self.reach_past());
        (need + need / 4).next_multiple_of(guard::GRANULE)
    }

    /// Half the L2 TLB's reach below its lower bound (room for the
    /// program's own pages), whole 64 KiB, at least 256 KiB.
    pub fn control(&self) -> u64 {
        (self.reach_inside() / 2 / (64 * KIB) * (64 * KIB)).max(256 * KIB)
    }

    /// The reach in words: its bounds and where they came from.
    fn reach_words(&self) -> String {
        let r = &self.reach;
        let bounds = match r.entries_high {
            Some(h) if h != r.entries_low => format!(
                "{} to {}",
                human(self.reach_inside() as usize),
                human((h * PAGE) as usize)
            ),
            Some(_) => human(self.reach_inside() as usize),
            None => format!("at least {}", human(self.reach_inside() as usize)),
        };
        format!("the L2 TLB's 4 KiB reach ({bounds}, {})", r.source.name())
    }

    pub fn describe(&self, region: MlpRegion, bytes: u64) -> String {
        let reach = self.reach_words();
        match region {
            MlpRegion::Small | MlpRegion::Huge => format!(
                "{}: beyond {reach} and the last-level cache ({})",
                human(bytes as usize),
                self.llc.map_or("unknown".into(), |b| human(b as usize))
            ),
            MlpRegion::Control => {
                let caches = match self.l2 {
                    Some(l2) if bytes > l2 => {
                        format!(
                            "beyond L2 ({}), so served by the caches past it",
                            human(l2 as usize)
                        )
                    }
                    Some(l2) => format!(
                        "inside L2 too ({}): this machine's L2 covers the L2 TLB's reach",
                        human(l2 as usize)
                    ),
                    None => "L2's size unknown".into(),
                };
                format!("{}: inside {reach}; {caches}", human(bytes as usize))
            }
        }
    }
}

/// A reach of `low` to `high` entries from `source` (CPUID: 2048), for
/// the tests here and in [`super::checks`].
#[cfg(test)]
pub(super) fn reach(
    low: u64,
    high: Option<u64>,
    source: pagewalk_model::ReachSource,
) -> TlbReachUsed {
    TlbReachUsed {
        source,
        entries_low: low,
        entries_high: high,
        cpuid_entries: Some(2048),
        figure: pagewalk_model::TlbFigure::judge(Some(low), high, Some(2048)),
        note: "test".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::ReachSource;

    #[test]
    fn regions_follow_the_measured_reach() {
        // 1280 to 1536 entries measured (the example): past 6 MiB, below
        // 5 MiB.
        let s = Sizes {
            reach: reach(1280, Some(1536), ReachSource::TlbReach),
            l2: Some(512 * KIB),
            llc: Some(32 * MIB),
        };
        assert_eq!(s.reach_past(), 6 * MIB);
        assert_eq!(s.large(), 64 * MIB);
        assert_eq!(s.large_quick(), 40 * MIB);
        assert_eq!(s.control(), 2560 * KIB);
        let d = s.describe(MlpRegion::Control, s.control());
        assert!(d.contains("(5 MiB to 6 MiB, tlb-reach)"), "{d}");
        assert!(d.contains("beyond L2"), "{d}");
        // A reach past the last-level cache sets the large region.
        let wide = Sizes {
            reach: reach(16384, Some(32768), ReachSource::Probe),
            l2: Some(32 * MIB),
            llc: Some(32 * MIB),
        };
        assert_eq!(wide.large(), 256 * MIB);
        assert!(wide
            .describe(MlpRegion::Control, wide.control())
            .contains("inside L2 too"));
    }
}
