//! mlp's chains: one random cycle through every cache line of a region,
//! `k` chains on it `n / k` steps apart, advanced together in one thread,
//! and the proof that each ran every load it was timed for.

use std::hint::black_box;
use std::time::Instant;

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{MlpPoint, Summary};

use super::super::chase::SEED;
use super::super::kernel;
use super::super::region::Region;

/// The chain counts: 1 is the latency; 32 is past what current cores keep
/// in flight from one thread.
pub const CHAINS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// One pointer per cache line.
pub const STRIDE: usize = 64;

/// Steps of every chain before timing (at most a lap).
const WARM_STEPS: u64 = 1 << 14;
/// Steps per timed sample, whatever the calibration says.
const SAMPLE_STEPS: (u64, u64) = (1_000, 1 << 30);

/// What the chains' samples proved, gathered as they ran.
#[derive(Debug, Default)]
pub struct Proof {
    /// Chain-samples that ended where the cycle says.
    pub verified: usize,
    pub mismatches: Vec<String>,
    /// The most minor faults one sample took.
    pub faults: u64,
}

/// One random cycle ([`cycle`]) through every slot of a region, one
/// pointer per cache line, linked in address order (so the link is also
/// the first touch).
pub struct Linked<'a> {
    region: &'a Region,
    /// `order[t]`: the slot `t` steps after slot 0.
    order: Vec<usize>,
}

/// `k` chains on a [`Linked`] cycle: chain `j` starts `j * n / k` steps
/// along it. No chain's address depends on another's load, and moving in
/// lockstep `n / k` apart they never meet, so each is a random chase of its
/// own while every count runs over the same memory, and the repetitions of
/// all counts can interleave.
pub struct Chains {
    pub k: usize,
    p: Vec<*const usize>,
    /// Steps every chain has taken.
    taken: u64,
    steps_per_sample: u64,
    pub samples: Vec<f64>,
}

impl<'a> Linked<'a> {
    pub fn link(region: &'a Region) -> Linked<'a> {
        let n = region.len / STRIDE;
        assert!(
            n >= 2 * *CHAINS.last().unwrap() as usize,
            "room for every chain"
        );
        let next = cycle(n, SEED);
        let base = region.start;
        // SAFETY: slot i < n lies at i * STRIDE < n * STRIDE <= region.len;
        // 8-byte aligned (the region is page aligned, STRIDE is 64).
        unsafe { kernel::link_with(&next, |i| base.add(i * STRIDE).cast()) };
        Linked {
            region,
            order: kernel::order(&next),
        }
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
    pub fn chains(&self, k: usize, sample_ns: f64) -> Chains {
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
        c.steps_per_sample = kernel::per_sample(sample_ns, per_step, SAMPLE_STEPS);
        c
    }

    /// One timed sample of `c`, checked chain by chain.
    pub fn sample(&self, c: &mut Chains, proof: &mut Proof, what: &str) {
        // No counters: the chains' premises are proved without them.
        let t = kernel::timed(|| step(&mut c.p, c.steps_per_sample), || (), || ());
        proof.faults = proof.faults.max(t.minor_faults);
        c.samples
            .push(t.ns / (c.steps_per_sample * c.k as u64) as f64);
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
    pub fn point(self) -> MlpPoint {
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

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::Regime;

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
}
