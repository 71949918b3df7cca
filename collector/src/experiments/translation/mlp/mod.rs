//! # mlp
//!
//! Premise: one dependent chase keeps one miss in flight, so its ns per
//! load is the latency. `k` chases that do not depend on each other,
//! advanced one load each per step in one thread, let the core keep up to
//! `k` misses in flight, and ns per load (elapsed / (steps x k)) falls
//! until some resource runs out: the slots that track misses, or, when
//! every load also needs a page walk, the walkers and the slots the walks'
//! own loads take. So the same chains run over a region beyond the L2
//! TLB's reach and beyond the last-level cache twice, on 4 KiB pages and
//! on huge pages, and once over a control region inside the L2 TLB's reach
//! (beyond L2 where the caches allow): `t(1) / t(k)` per region is how
//! many loads overlapped. The reach is the run's own measurement (tlb-reach
//! earlier in the run, else a probe of mlp's own; [`super::measured`]):
//! the large region is past its upper bound, the control below its lower
//! one. One random cycle ([`chains::Linked`]) through every cache line of
//! a region carries all the chains, chain `j` of `k` starting `j/k` of the
//! way along it: no chain waits on another's load, they never meet, and
//! every count runs over the same linked memory, so the repetitions of all
//! counts interleave (drift and the neighbours' load fall on each alike).
//! Checked: every chain of every sample ended on the slot the cycle says
//! (so each ran all its loads), the huge region holds huge pages
//! (`AnonHugePages`) and the 4 KiB ones none, no page fault was timed, and
//! the regions lie where they must; a size the run does not know makes
//! that last check `cannot_tell`. Each region is mapped once (`mappings:
//! 1`): the chain counts are compared within one placement, which is the
//! point of interleaving.

mod chains;
mod checks;

use pagewalk_model::{
    Geometry, MlpRegion, MlpRegionResult, MlpResults, Regime, Results, TlbReachUsed,
};

use super::region::{human, Region};
use super::{geometry, measured, unavailable, SEED};
use crate::experiments::{Env, Outcome};
use crate::{guard, interrupt, progress};
use chains::{Chains, Linked, Proof};

/// The chain counts: 1 is the latency; 32 is past what current cores keep
/// in flight from one thread.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// One pointer per cache line.
const STRIDE: usize = 64;
const PAGE: u64 = 4096;
const KIB: u64 = 1024;
const MIB: u64 = 1 << 20;
/// The large region is at least this many times the last-level cache and
/// the L2 TLB's 4 KiB reach (a full run; `--quick` takes the larger of the
/// two, once).
const BEYOND: u64 = 2;
/// Used when sysfs does not say.
const UNKNOWN_LLC: u64 = 32 * MIB;
const FULL_REPS: u32 = 5;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let sizes = Sizes::of(&geometry::read(), measured::l2_reach(env, "mlp"));
    let wanted = if s.quick {
        sizes.large_quick()
    } else {
        sizes.large()
    };
    let requested = s.size.unwrap_or(wanted);
    let allowance = match guard::allow_now(requested)? {
        Ok(a) => a,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let large = allowance.bytes;
    // The region, and one position per slot (the order of each cycle).
    if let Err(why) = guard::fits(footprint(large)) {
        return Ok(Outcome::Skipped(why));
    }
    let control = sizes.control();
    let repetitions = s.reps_or(FULL_REPS);
    let sample_ns = if s.quick { 1e6 } else { 8e6 };
    let runnable: Vec<(MlpRegion, Regime, u64)> = [
        (MlpRegion::Small, Regime::Small, large),
        (MlpRegion::Huge, Regime::Huge, large),
        (MlpRegion::Control, Regime::Small, control),
    ]
    .into_iter()
    .collect();
    let bar = progress::bar(runnable.len() as u64 * u64::from(repetitions), "mlp");
    let mut proof = Proof::default();
    let mut regions = Vec::new();
    for (which, regime, bytes) in runnable {
        let mut result = MlpRegionResult {
            region: which,
            skipped: unavailable(regime, &env.machine.thp),
            bytes,
            anon_huge_kib: None,
            huge_fraction: None,
            note: Some(sizes.describe(which, bytes)),
            points: Vec::new(),
        };
        if result.skipped.is_none() && !interrupt::requested() {
            let region = Region::map(bytes as usize, regime)?;
            let linked = Linked::link(&region);
            // After the first touch: THP's MADV_COLLAPSE where asked.
            let _ = region.collapse();
            let mut chains: Vec<Chains> = CHAINS
                .iter()
                .map(|&k| linked.chains(k as usize, sample_ns))
                .collect();
            // Repetitions outside, chain counts inside: drift and the
            // neighbours' load spread over every count alike.
            'reps: for _ in 0..repetitions {
                for c in chains.iter_mut() {
                    if interrupt::requested() {
                        break 'reps;
                    }
                    bar.set_message(format!("{} x{}", which.name(), c.k));
                    linked.sample(c, &mut proof, which.name());
                }
                bar.inc(1);
            }
            result.points = chains
                .into_iter()
                .filter(|c| !c.samples.is_empty())
                .map(Chains::point)
                .collect();
            result.anon_huge_kib = region.anon_huge_kib();
            result.huge_fraction = result
                .anon_huge_kib
                .map(|k| (k as f64 * 1024.0 / region.window() as f64).min(1.0));
        }
        regions.push(result);
    }
    bar.finish_and_clear();
    let checks = checks::checks(&regions, &proof, &sizes, large, control);
    Ok(Outcome::Done {
        results: Results::Mlp(MlpResults {
            mappings: Some(1),
            chains: CHAINS.to_vec(),
            stride_bytes: STRIDE as u64,
            repetitions,
            seed: SEED,
            l2_tlb_reach_bytes: Some(sizes.reach_past()),
            l2_tlb: Some(sizes.reach.clone()),
            l2_bytes: sizes.l2,
            llc_bytes: sizes.llc,
            size_note: allowance.note,
            regions,
        }),
        checks,
    })
}

/// The most memory held at once: the region (plus the alignment of a huge
/// one), the cycle and each position's slot.
fn footprint(region: u64) -> u64 {
    let slots = region / STRIDE as u64;
    region + 2 * MIB + slots * 3 * std::mem::size_of::<usize>() as u64
}

/// The sizes that decide the regions: the L2 TLB's reach as measured (or,
/// said so, not), the caches from sysfs.
struct Sizes {
    reach: TlbReachUsed,
    l2: Option<u64>,
    llc: Option<u64>,
}

impl Sizes {
    fn of(g: &Geometry, reach: TlbReachUsed) -> Sizes {
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
    fn reach_past(&self) -> u64 {
        self.reach.past() * PAGE
    }

    /// Bytes below which every 4 KiB page stays in it.
    fn reach_inside(&self) -> u64 {
        self.reach.entries_low * PAGE
    }

    /// Past both the last-level cache and the L2 TLB's reach by [`BEYOND`].
    fn large(&self) -> u64 {
        let need = self.llc.unwrap_or(UNKNOWN_LLC).max(self.reach_past());
        (need * BEYOND).next_multiple_of(guard::GRANULE)
    }

    /// Just past the larger of the two: `--quick`.
    fn large_quick(&self) -> u64 {
        let need = self.llc.unwrap_or(UNKNOWN_LLC).max(self.reach_past());
        (need + need / 4).next_multiple_of(guard::GRANULE)
    }

    /// Half the L2 TLB's reach below its lower bound (room for the
    /// program's own pages), whole 64 KiB, at least 256 KiB.
    fn control(&self) -> u64 {
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

    fn describe(&self, region: MlpRegion, bytes: u64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{ReachSource, TlbFigure};

    pub(super) fn reach(low: u64, high: Option<u64>, source: ReachSource) -> TlbReachUsed {
        TlbReachUsed {
            source,
            entries_low: low,
            entries_high: high,
            cpuid_entries: Some(2048),
            figure: TlbFigure::judge(Some(low), high, Some(2048)),
            note: "test".into(),
        }
    }

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
