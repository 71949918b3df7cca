//! The operation loops for each allocator path. The same code runs in the
//! collector and in the `probe alloc` child (where `mallopt` may change
//! glibc's behaviour without touching the collector's own allocator).

use std::collections::VecDeque;
use std::hint::black_box;

use pagewalk_model::AllocPath;

use crate::faults::Faults;
use crate::timing::{self, Recorder};

pub const TCACHE_SIZE: usize = 64;
/// Beyond the largest tcache size (1032 bytes on 64-bit glibc) and the
/// fastbins, so a free goes to the unsorted bin and is sorted from there.
pub const BINS_SIZE: usize = 2048;
/// Below glibc's largest dynamic mmap threshold (32 MiB), so after one
/// free the threshold rises above it and it comes from the heap.
pub const TYPICAL_SIZE: usize = 1 << 20;
/// Above that largest dynamic threshold: every malloc is a fresh mmap,
/// every free a munmap, however often it repeats.
pub const FORCED_SIZE: usize = 40 << 20;
/// What `mmap-pinned` sets `M_MMAP_THRESHOLD` to (R2's advice).
pub const PINNED_THRESHOLD: i32 = 128 * 1024;
pub const POOL_BLOCK: usize = 64;

/// Freed 2 KiB blocks wait this many operations before being asked for
/// again, so several sit in the bins at once.
const BINS_LAG: usize = 8;
const BINS_RING: usize = 64;

pub fn size(path: AllocPath) -> usize {
    match path {
        AllocPath::Tcache => TCACHE_SIZE,
        AllocPath::Bins => BINS_SIZE,
        AllocPath::MmapTypical | AllocPath::MmapPinned => TYPICAL_SIZE,
        AllocPath::MmapForced => FORCED_SIZE,
        AllocPath::Pool => POOL_BLOCK,
    }
}

pub fn pattern(path: AllocPath) -> String {
    match path {
        AllocPath::Tcache => format!("malloc({TCACHE_SIZE}) then free, repeated"),
        AllocPath::Bins => format!(
            "free one of {BINS_RING} blocks of {BINS_SIZE}-{} bytes held apart by live 64-byte guards, malloc the one freed {BINS_LAG} operations earlier",
            BINS_SIZE + 48
        ),
        AllocPath::MmapTypical => "malloc(1 MiB) then free, repeated, after a first free raised the mmap threshold".into(),
        AllocPath::MmapForced => "malloc(40 MiB) then free, repeated: above the 32 MiB largest dynamic threshold".into(),
        AllocPath::MmapPinned => format!(
            "malloc(1 MiB) then free, repeated, with mallopt(M_MMAP_THRESHOLD, {PINNED_THRESHOLD}) and mallopt(M_TRIM_THRESHOLD, -1), in a child process"
        ),
        AllocPath::Pool => format!("pop a {POOL_BLOCK}-byte block off a free list, push it back"),
    }
}

/// (batches, operations per batch): enough operations to dwarf the timer,
/// few enough that the slow paths stay within a fraction of a second.
pub fn plan(path: AllocPath, quick: bool) -> (u64, u64) {
    let batches = if quick { 40 } else { 200 };
    let per_batch = match path {
        AllocPath::MmapForced | AllocPath::MmapPinned => 10,
        AllocPath::MmapTypical => 100,
        _ => 1000,
    };
    (batches, per_batch)
}

/// What one path's loop measured.
pub struct Measured {
    /// Nanoseconds per operation, one value per timed batch.
    pub recorder: Recorder,
    /// Operations run, the untimed warm-up batch included.
    pub ops_run: u64,
    /// Minor faults over all of them.
    pub minor_faults: u64,
    /// `mallinfo2().ordblks` at the end of the loop: free chunks sitting in
    /// malloc's bins (only for `bins`).
    pub free_chunks: Option<u64>,
}

/// Runs one path's loop. For `mmap-pinned` the caller has already pinned
/// the threshold (see `probe`).
pub fn measure(path: AllocPath, batches: u64, per_batch: u64) -> Measured {
    let timed = |op: &mut dyn FnMut(u64)| {
        let before = Faults::of_this_thread();
        let values = timing::batches(batches, per_batch, op);
        let minor_faults = (Faults::of_this_thread() - before).minor;
        let ops_run = (values.len() as u64 + 1) * per_batch;
        (Recorder::of(&values), ops_run, minor_faults)
    };
    let mut free_chunks = None;
    let (recorder, ops_run, minor_faults) = match path {
        AllocPath::Tcache
        | AllocPath::MmapTypical
        | AllocPath::MmapForced
        | AllocPath::MmapPinned => {
            let n = size(path);
            timed(&mut |_| malloc_free(n))
        }
        AllocPath::Bins => {
            let mut bins = Bins::new();
            let m = timed(&mut |i| bins.op(i));
            // mallinfo, not mallinfo2: the release binary runs on glibc
            // from 2.17 (mallinfo2 came in 2.33), and a count of free
            // chunks fits the older call's int.
            // SAFETY: mallinfo only reads malloc's statistics.
            free_chunks = Some(unsafe { libc::mallinfo() }.ordblks as u64);
            m
        }
        AllocPath::Pool => {
            let mut pool = Pool::new(1024);
            timed(&mut |_| {
                let p = pool.take();
                pool.give(black_box(p));
            })
        }
    };
    Measured {
        recorder,
        ops_run,
        minor_faults,
        free_chunks,
    }
}

fn malloc_free(n: usize) {
    // SAFETY: a plain malloc/free pair; black_box keeps the pair from
    // being elided.
    unsafe { libc::free(black_box(libc::malloc(n))) };
}

/// Blocks of a bin size, each followed by a live guard so that freed blocks
/// cannot coalesce with a neighbour or the top of the heap.
struct Bins {
    ring: Vec<*mut libc::c_void>,
    guards: Vec<*mut libc::c_void>,
    waiting: VecDeque<usize>,
}

impl Bins {
    fn size(slot: usize) -> usize {
        BINS_SIZE + 16 * (slot % 4)
    }

    fn new() -> Bins {
        let mut ring = Vec::with_capacity(BINS_RING);
        let mut guards = Vec::with_capacity(BINS_RING);
        for slot in 0..BINS_RING {
            // SAFETY: plain mallocs, freed in Drop.
            ring.push(unsafe { libc::malloc(Bins::size(slot)) });
            guards.push(unsafe { libc::malloc(64) });
        }
        Bins {
            ring,
            guards,
            waiting: VecDeque::with_capacity(BINS_LAG + 1),
        }
    }

    /// One free and (once the lag is filled) one malloc.
    fn op(&mut self, i: u64) {
        // 7 and 64 are coprime: every slot in turn, in a scattered order.
        let slot = (i as usize * 7) % BINS_RING;
        if self.ring[slot].is_null() {
            // Still waiting from a previous round (only before the lag fills).
            return;
        }
        // SAFETY: slot holds a live block from malloc.
        unsafe { libc::free(self.ring[slot]) };
        self.ring[slot] = std::ptr::null_mut();
        self.waiting.push_back(slot);
        if self.waiting.len() > BINS_LAG {
            let back = self.waiting.pop_front().expect("non-empty");
            // SAFETY: a plain malloc; the slot is null, so nothing leaks.
            self.ring[back] = black_box(unsafe { libc::malloc(Bins::size(back)) });
        }
    }
}

impl Drop for Bins {
    fn drop(&mut self) {
        for p in self.ring.iter().chain(&self.guards) {
            // SAFETY: every non-null pointer came from malloc; free(NULL) is a no-op.
            unsafe { libc::free(*p) };
        }
    }
}

/// The simplest custom allocator: a stack of fixed blocks carved out of one
/// slab up front. Taking and giving back never call malloc.
struct Pool {
    _slab: Vec<u8>,
    free: Vec<*mut u8>,
}

impl Pool {
    fn new(blocks: usize) -> Pool {
        let mut slab = vec![0u8; blocks * POOL_BLOCK];
        let base = slab.as_mut_ptr();
        // SAFETY: every block lies inside the slab, which the pool owns.
        let free = (0..blocks)
            .map(|i| unsafe { base.add(i * POOL_BLOCK) })
            .collect();
        Pool { _slab: slab, free }
    }

    fn take(&mut self) -> *mut u8 {
        self.free.pop().expect("the loop gives every block back")
    }

    fn give(&mut self, p: *mut u8) {
        // Capacity never grows: this push does not allocate.
        self.free.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_mmap_faults_once_per_operation() {
        let m = measure(AllocPath::MmapForced, 2, 10);
        assert_eq!(m.ops_run, 30);
        assert!(m.minor_faults >= 30, "{}", m.minor_faults);
    }

    #[test]
    fn tcache_pool_and_bins_do_not_fault() {
        for path in [AllocPath::Tcache, AllocPath::Pool, AllocPath::Bins] {
            let m = measure(path, 3, 1000);
            assert!(m.minor_faults < 20, "{path:?}: {}", m.minor_faults);
            assert_eq!(m.recorder.len(), 3);
        }
        // Freed blocks wait in the bins (two may have merged where reuse
        // moved them next to each other; the top chunk counts as one).
        let bins = measure(AllocPath::Bins, 1, 1000);
        let free = bins.free_chunks.unwrap();
        assert!(free > BINS_LAG as u64 / 2, "{free}");
    }
}
