//! The pointer-chase kernel and the harness every translation experiment
//! times it with: writing a cycle into memory ([`link_with`]), where a
//! chase must be after any number of loads ([`order`]), the untimed
//! warm-up that sets a sample's length ([`warm`], [`per_sample`]) and one
//! timed sample with the counters open and the faults counted ([`timed`],
//! [`sample`]). The one copy: [`super::chase`] (staircase, tlb-reach, thp)
//! and `walk` time this [`chase`] loop, and mlp's chains run their own
//! interleaved kernel through the same [`timed`], so every experiment reads
//! its clock, counters and faults in the same order.

use std::hint::black_box;
use std::time::Instant;

use crate::faults::Faults;

/// Writes the cycle through `at`: slot `i` (at `at(i)`) holds the address
/// of slot `next[i]`, in slot order.
///
/// # Safety
///
/// `at(i)` for every `i < next.len()` must be a writable, 8-byte aligned
/// `usize` of one mapping that outlives every chase of it.
pub unsafe fn link_with(next: &[usize], at: impl Fn(usize) -> *mut usize) {
    for (i, &j) in next.iter().enumerate() {
        // SAFETY: the caller's promise.
        unsafe { at(i).write(at(j) as usize) };
    }
}

/// `order[t]`: the slot `t` steps after slot 0 along the cycle `next`,
/// which says where a chase that started at slot 0 must be after any
/// number of loads.
pub fn order(next: &[usize]) -> Vec<usize> {
    let mut order = Vec::with_capacity(next.len());
    let mut slot = 0;
    for _ in 0..next.len() {
        order.push(slot);
        slot = next[slot];
    }
    order
}

/// `loads` untimed loads from `p`, to settle the caches and the TLB: where
/// they ended, and their pace in ns per load.
pub fn warm(p: *const usize, loads: u64) -> (*const usize, f64) {
    let started = Instant::now();
    let end = black_box(chase(p, loads));
    (end, started.elapsed().as_nanos() as f64 / loads as f64)
}

/// Loads (or steps) per timed sample: as many as fill `sample_ns` at
/// `pace` ns each, within `bounds`.
pub fn per_sample(sample_ns: f64, pace: f64, bounds: (u64, u64)) -> u64 {
    ((sample_ns / pace.max(0.1)) as u64).clamp(bounds.0, bounds.1)
}

/// One timed stretch of a kernel: what it returned, how long it took, the
/// minor faults this thread took meanwhile, and the counters' counts.
pub struct Timed<R, C> {
    pub out: R,
    pub ns: f64,
    pub minor_faults: u64,
    pub counts: C,
}

/// Times `work` with the counters (`start`, `stop`) open around exactly
/// the clock's span and this thread's fault count read around both.
/// Inlined, so each caller's timed span is its kernel's call alone.
#[inline(always)]
pub fn timed<R, C>(
    work: impl FnOnce() -> R,
    start: impl FnOnce(),
    stop: impl FnOnce() -> C,
) -> Timed<R, C> {
    let faults_before = Faults::of_this_thread();
    start();
    let t = Instant::now();
    let out = work();
    let ns = t.elapsed().as_nanos() as f64;
    let counts = stop();
    let minor_faults = (Faults::of_this_thread() - faults_before).minor;
    Timed {
        out,
        ns,
        minor_faults,
        counts,
    }
}

/// One timed sample of [`chase`]: `loads` loads from `p`, where they ended.
#[inline(always)]
pub fn sample<C>(
    p: *const usize,
    loads: u64,
    start: impl FnOnce(),
    stop: impl FnOnce() -> C,
) -> Timed<*const usize, C> {
    timed(|| black_box(chase(black_box(p), loads)), start, stop)
}

/// `loads` dependent loads from `p`: each address is the value just loaded.
/// Not inlined, so the loop is the same machine code at every size and in
/// every experiment that times it (the chase's, walk's); reached only
/// through [`warm`] and [`sample`].
#[inline(never)]
fn chase(mut p: *const usize, loads: u64) -> *const usize {
    for _ in 0..loads {
        // SAFETY: every slot holds the address of another slot of the
        // linked memory (see `link_with`), which outlives the call.
        p = unsafe { p.read() } as *const usize;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_follows_the_cycle_from_slot_0() {
        // 0 -> 2 -> 3 -> 1 -> 0
        assert_eq!(order(&[2, 0, 3, 1]), vec![0, 2, 3, 1]);
    }
}
