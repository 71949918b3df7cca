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
mod sizes;

use pagewalk_model::{MlpRegion, MlpRegionResult, MlpResults, Regime, Results};

use super::chase::SEED;
use super::region::{unavailable, Region};
use super::{geometry, measured};
use crate::experiments::{Env, Outcome};
use crate::{guard, interrupt, progress};
use chains::{Chains, Linked, Proof, CHAINS, STRIDE};
use sizes::{footprint, Sizes};

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
