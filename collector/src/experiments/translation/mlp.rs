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
//! many loads overlapped. One random cycle ([`cycle`]) through every cache
//! line of a region carries all the chains, chain `j` of `k` starting
//! `j/k` of the way along it: no chain waits on another's load, they never
//! meet, and every count runs over the same linked memory, so the
//! repetitions of all counts interleave (drift and the neighbours' load
//! fall on each alike). Checked: every chain of every sample ended on the
//! slot the cycle says (so each ran all its loads), the huge region holds
//! huge pages (`AnonHugePages`) and the 4 KiB ones none, and no page fault
//! was timed. Each region is mapped once (`mappings: 1`): the chain counts
//! are compared within one placement, which is the point of interleaving.

use std::hint::black_box;
use std::time::Instant;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{
    Check, Geometry, MlpPoint, MlpRegion, MlpRegionResult, MlpResults, Regime, Results, Summary,
};

use super::region::{human, Region};
use super::{geometry, unavailable, SEED};
use crate::experiments::{Env, Outcome};
use crate::faults::Faults;
use crate::{guard, interrupt, progress};

/// The chain counts: 1 is the latency; 32 is past what current cores keep
/// in flight from one thread.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// One pointer per cache line.
const STRIDE: usize = 64;
const KIB: u64 = 1024;
const MIB: u64 = 1 << 20;
/// The large region is at least this many times the last-level cache and
/// the L2 TLB's 4 KiB reach (a full run; `--quick` takes the larger of the
/// two, once).
const BEYOND: u64 = 2;
/// Used when sysfs or CPUID do not say.
const UNKNOWN_LLC: u64 = 32 * MIB;
const UNKNOWN_L2_TLB_REACH: u64 = 8 * MIB;
const FULL_REPS: u32 = 5;
/// Steps of every chain before timing (at most a lap).
const WARM_STEPS: u64 = 1 << 14;
/// Steps per timed sample, whatever the calibration says.
const SAMPLE_STEPS: (u64, u64) = (1_000, 1 << 30);

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let geometry = geometry::read();
    let sizes = Sizes::of(&geometry);
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
    let checks = checks(&regions, &proof, &sizes, large, control);
    Ok(Outcome::Done {
        results: Results::Mlp(MlpResults {
            mappings: Some(1),
            chains: CHAINS.to_vec(),
            stride_bytes: STRIDE as u64,
            repetitions,
            seed: SEED,
            l2_tlb_reach_bytes: sizes.l2_tlb_reach,
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

/// The sizes that decide the regions, from CPUID and sysfs.
struct Sizes {
    l2_tlb_reach: Option<u64>,
    l2: Option<u64>,
    llc: Option<u64>,
}

impl Sizes {
    fn of(g: &Geometry) -> Sizes {
        let llc = g
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .max_by_key(|c| c.level)
            .map(|c| c.size_bytes);
        Sizes {
            l2_tlb_reach: g.data_tlb(2, 4096).map(|t| t.reach_bytes()),
            l2: g.data_cache(2).map(|c| c.size_bytes),
            llc,
        }
    }

    /// Past both the last-level cache and the L2 TLB's reach by [`BEYOND`].
    fn large(&self) -> u64 {
        let need = self
            .llc
            .unwrap_or(UNKNOWN_LLC)
            .max(self.l2_tlb_reach.unwrap_or(UNKNOWN_L2_TLB_REACH));
        (need * BEYOND).next_multiple_of(guard::GRANULE)
    }

    /// Just past the larger of the two: `--quick`.
    fn large_quick(&self) -> u64 {
        let need = self
            .llc
            .unwrap_or(UNKNOWN_LLC)
            .max(self.l2_tlb_reach.unwrap_or(UNKNOWN_L2_TLB_REACH));
        (need + need / 4).next_multiple_of(guard::GRANULE)
    }

    /// Half the L2 TLB's 4 KiB reach (room for the program's own pages),
    /// whole 64 KiB, at least 256 KiB.
    fn control(&self) -> u64 {
        let reach = self.l2_tlb_reach.unwrap_or(UNKNOWN_L2_TLB_REACH);
        (reach / 2 / (64 * KIB) * (64 * KIB)).max(256 * KIB)
    }

    fn describe(&self, region: MlpRegion, bytes: u64) -> String {
        let reach = self
            .l2_tlb_reach
            .map_or("the L2 TLB's reach (unknown)".into(), |r| {
                format!("the L2 TLB's 4 KiB reach ({})", human(r as usize))
            });
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

/// What the chains' samples proved, gathered as they ran.
#[derive(Debug, Default)]
struct Proof {
    /// Chain-samples that ended where the cycle says.
    verified: usize,
    mismatches: Vec<String>,
    /// The most minor faults one sample took.
    faults: u64,
}

/// One random cycle ([`cycle`]) through every slot of a region, one
/// pointer per cache line, linked in address order (so the link is also
/// the first touch).
struct Linked<'a> {
    region: &'a Region,
    /// `order[t]`: the slot `t` steps after slot 0.
    order: Vec<usize>,
}

/// `k` chains on a [`Linked`] cycle: chain `j` starts `j * n / k` steps
/// along it. No chain's address depends on another's load, and moving in
/// lockstep `n / k` apart they never meet, so each is a random chase of its
/// own while every count runs over the same memory, and the repetitions of
/// all counts can interleave.
struct Chains {
    k: usize,
    p: Vec<*const usize>,
    /// Steps every chain has taken.
    taken: u64,
    steps_per_sample: u64,
    samples: Vec<f64>,
}

impl<'a> Linked<'a> {
    fn link(region: &'a Region) -> Linked<'a> {
        let n = region.len / STRIDE;
        assert!(
            n >= 2 * *CHAINS.last().unwrap() as usize,
            "room for every chain"
        );
        let next = cycle(n, SEED);
        let base = region.start;
        for (i, &j) in next.iter().enumerate() {
            // SAFETY: i, j < n and n * STRIDE <= region.len; 8-byte aligned
            // (the region is page aligned, STRIDE is 64).
            unsafe {
                base.add(i * STRIDE)
                    .cast::<usize>()
                    .write(base.add(j * STRIDE) as usize)
            };
        }
        let mut order = Vec::with_capacity(n);
        let mut slot = 0;
        for _ in 0..n {
            order.push(slot);
            slot = next[slot];
        }
        Linked { region, order }
    }

    fn n(&self) -> usize {
        self.order.len()
    }

    fn at(&self, slot: usize) -> *const usize {
        self.region.start.wrapping_add(slot * STRIDE) as *const usize
    }

    /// Where chain `j` of `k` is after `taken` steps.
    fn expected(&self, k: usize, j: usize, taken: u64) -> usize {
        let n = self.n() as u64;
        self.order[((j * self.n() / k) as u64 + taken % n) as usize % self.n()]
    }

    /// `k` chains at their starts, warmed, their sample length set from
    /// the warm-up's pace.
    fn chains(&self, k: usize, sample_ns: f64) -> Chains {
        let mut c = Chains {
            k,
            p: (0..k).map(|j| self.at(self.expected(k, j, 0))).collect(),
            taken: 0,
            steps_per_sample: 0,
            samples: Vec::new(),
        };
        let warm = WARM_STEPS.min((self.n() / k) as u64);
        let started = Instant::now();
        step(&mut c.p, warm);
        c.taken = warm;
        let per_step = started.elapsed().as_nanos() as f64 / warm as f64;
        c.steps_per_sample =
            ((sample_ns / per_step.max(0.1)) as u64).clamp(SAMPLE_STEPS.0, SAMPLE_STEPS.1);
        c
    }

    /// One timed sample of `c`, checked chain by chain.
    fn sample(&self, c: &mut Chains, proof: &mut Proof, what: &str) {
        let before = Faults::of_this_thread();
        let t = Instant::now();
        step(&mut c.p, c.steps_per_sample);
        let ns = t.elapsed().as_nanos() as f64;
        proof.faults = proof.faults.max((Faults::of_this_thread() - before).minor);
        c.samples
            .push(ns / (c.steps_per_sample * c.k as u64) as f64);
        c.taken += c.steps_per_sample;
        for (j, &end) in c.p.iter().enumerate() {
            let expected = self.expected(c.k, j, c.taken);
            if end == self.at(expected) {
                proof.verified += 1;
            } else {
                let got = (end as usize).wrapping_sub(self.region.start as usize) / STRIDE;
                proof.mismatches.push(format!(
                    "{what} x{}, sample {}, chain {j}: ended at slot {got}, the cycle says {expected}",
                    c.k,
                    c.samples.len()
                ));
            }
        }
    }
}

impl Chains {
    fn point(self) -> MlpPoint {
        MlpPoint {
            chains: self.k as u32,
            steps_per_sample: self.steps_per_sample,
            ns_per_load: Summary::of(&self.samples).unwrap_or(Summary {
                n: 0,
                min: 0.0,
                median: 0.0,
                max: 0.0,
                mean: 0.0,
            }),
            samples_ns_per_load: self.samples,
        }
    }
}

/// `steps` steps of every chain in `p`, each a load whose address is the
/// chain's previous value.
fn step(p: &mut [*const usize], steps: u64) {
    match p.len() {
        1 => interleaved::<1>(p, steps),
        2 => interleaved::<2>(p, steps),
        4 => interleaved::<4>(p, steps),
        8 => interleaved::<8>(p, steps),
        16 => interleaved::<16>(p, steps),
        32 => interleaved::<32>(p, steps),
        k => panic!("no kernel for {k} chains"),
    }
}

/// The timed loop: `K` pointers kept in registers (the compiler unrolls
/// the inner loop), one load of each per step, none depending on another.
/// Not inlined, so each `K` is one piece of machine code.
#[inline(never)]
fn interleaved<const K: usize>(p: &mut [*const usize], steps: u64) {
    let mut c: [*const usize; K] = std::array::from_fn(|j| p[j]);
    for _ in 0..steps {
        for x in c.iter_mut() {
            // SAFETY: every slot holds the address of another slot of its
            // chain in the linked region, which outlives the call.
            *x = unsafe { x.read() } as *const usize;
        }
    }
    let c = black_box(c);
    p.copy_from_slice(&c);
}

fn checks(
    regions: &[MlpRegionResult],
    proof: &Proof,
    sizes: &Sizes,
    large: u64,
    control: u64,
) -> Vec<Check> {
    let measured = |r: MlpRegion| {
        regions
            .iter()
            .find(|g| g.region == r && g.skipped.is_none() && !g.points.is_empty())
    };
    let mut checks = vec![Check::new(
        "every chain ended each sample where the cycle says",
        proof.mismatches.is_empty() && proof.verified > 0,
        "chain j of k, after s steps: the slot j*n/k + s along the cycle, for every chain of every sample",
        if proof.mismatches.is_empty() {
            format!("{} chain-samples verified", proof.verified)
        } else {
            format!(
                "{} of {} did not: {}",
                proof.mismatches.len(),
                proof.verified + proof.mismatches.len(),
                proof
                    .mismatches
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        },
    )];
    if let Some(h) = measured(MlpRegion::Huge) {
        let kib = h.anon_huge_kib.unwrap_or(0);
        checks.push(Check::new(
            "huge pages: AnonHugePages > 0 in the huge region",
            kib > 0,
            "> 0 kB",
            format!(
                "{kib} kB ({:.0}% of the region)",
                h.huge_fraction.unwrap_or(0.0) * 100.0
            ),
        ));
    }
    let small: Vec<&MlpRegionResult> = [MlpRegion::Small, MlpRegion::Control]
        .into_iter()
        .filter_map(measured)
        .collect();
    if !small.is_empty() {
        let with: Vec<String> = small
            .iter()
            .filter(|g| g.anon_huge_kib.unwrap_or(0) > 0)
            .map(|g| g.region.name().to_string())
            .collect();
        checks.push(Check::new(
            "4 KiB pages: AnonHugePages == 0 in the 4 KiB regions",
            with.is_empty(),
            "0 kB",
            if with.is_empty() {
                format!("0 kB in all {}", small.len())
            } else {
                format!("huge pages despite MADV_NOHUGEPAGE in {}", with.join(", "))
            },
        ));
    }
    checks.push(Check::new(
        "timed loops took no page faults (RUSAGE_THREAD)",
        proof.faults <= 2,
        "<= 2 minor faults per sample",
        format!("at most {}", proof.faults),
    ));
    let llc = sizes.llc.unwrap_or(UNKNOWN_LLC);
    let reach = sizes.l2_tlb_reach.unwrap_or(UNKNOWN_L2_TLB_REACH);
    checks.push(Check::new(
        "the large region is beyond the last-level cache and the L2 TLB's reach",
        sizes.llc.is_some() && sizes.l2_tlb_reach.is_some() && large > llc && large > reach,
        format!(
            "> {} and > {} (from sysfs and CPUID)",
            human(llc as usize),
            human(reach as usize)
        ),
        format!(
            "{}{}",
            human(large as usize),
            if sizes.llc.is_none() || sizes.l2_tlb_reach.is_none() {
                " (a size unknown: assumed)"
            } else {
                ""
            }
        ),
    ));
    checks.push(Check::new(
        "the control region is inside the L2 TLB's reach",
        sizes.l2_tlb_reach.is_some_and(|r| control <= r),
        format!("<= {}", human(reach as usize)),
        human(control as usize),
    ));
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chain_count_runs_and_lands_where_the_cycle_says() {
        let region = Region::map(512 << 10, Regime::Small).unwrap();
        let linked = Linked::link(&region);
        assert_eq!(linked.n(), 8192);
        let mut proof = Proof::default();
        for k in CHAINS {
            let mut c = linked.chains(k as usize, 1e5);
            linked.sample(&mut c, &mut proof, "test");
            linked.sample(&mut c, &mut proof, "test");
            let p = c.point();
            assert_eq!(p.samples_ns_per_load.len(), 2);
            assert!(p.ns_per_load.min > 0.0);
        }
        assert!(proof.mismatches.is_empty(), "{:?}", proof.mismatches);
        let chain_samples: u32 = CHAINS.iter().map(|k| 2 * k).sum();
        assert_eq!(proof.verified, chain_samples as usize);
    }

    #[test]
    fn a_chain_that_skipped_loads_is_caught() {
        let region = Region::map(256 << 10, Regime::Small).unwrap();
        let linked = Linked::link(&region);
        let mut c = linked.chains(4, 1e5);
        // Chain 2 one step behind where the count says: as if it had run
        // one load fewer.
        c.p[2] = linked.at(linked.expected(4, 2, c.taken - 1));
        let mut proof = Proof::default();
        linked.sample(&mut c, &mut proof, "test");
        assert_eq!(proof.mismatches.len(), 1, "{:?}", proof.mismatches);
        assert!(proof.mismatches[0].contains("chain 2"));
        assert_eq!(proof.verified, 3);
    }

    #[test]
    fn regions_follow_the_machine() {
        let s = Sizes {
            l2_tlb_reach: Some(8 * MIB),
            l2: Some(512 * KIB),
            llc: Some(32 * MIB),
        };
        assert_eq!(s.large(), 64 * MIB);
        assert_eq!(s.large_quick(), 40 * MIB);
        assert_eq!(s.control(), 4 * MIB);
        assert!(s
            .describe(MlpRegion::Control, 4 * MIB)
            .contains("beyond L2"));
        // An L2 as large as the L2 TLB's reach: the control says so.
        let big_l2 = Sizes {
            l2: Some(8 * MIB),
            ..s
        };
        assert!(big_l2
            .describe(MlpRegion::Control, 4 * MIB)
            .contains("inside L2 too"));
    }
}
