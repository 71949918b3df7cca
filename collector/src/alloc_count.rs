//! A counting global allocator: proves which allocator entry point a Rust
//! form really reached (`vec![0; n]` -> `alloc_zeroed`?) instead of assuming
//! what the optimiser did.
//!
//! Counting is armed per thread, only around the code being examined, so the
//! progress-bar thread and the harness's own allocations are never counted.
//! Thread-local `Cell`s rather than shared atomics follow from that: only the
//! armed thread ever writes its counters, so there is nothing to synchronise.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use pagewalk_model::AllocatorCalls;

pub struct CountingAllocator;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

thread_local! {
    // `const` and no destructor: safe to touch from inside the allocator,
    // it never allocates or registers a TLS destructor.
    static COUNTS: Cell<Option<AllocatorCalls>> = const { Cell::new(None) };
}

fn bump(field: fn(&mut AllocatorCalls)) {
    // `try_with`: during thread teardown the slot may already be gone.
    let _ = COUNTS.try_with(|c| {
        if let Some(mut calls) = c.get() {
            field(&mut calls);
            c.set(Some(calls));
        }
    });
}

// SAFETY: every call is forwarded unchanged to `System`; counting has no
// effect on the memory returned.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump(|c| c.alloc += 1);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump(|c| c.alloc_zeroed += 1);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump(|c| c.realloc += 1);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        bump(|c| c.dealloc += 1);
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` with counting armed on this thread and returns the calls it made.
pub fn counting<T>(f: impl FnOnce() -> T) -> (T, AllocatorCalls) {
    COUNTS.with(|c| c.set(Some(AllocatorCalls::default())));
    let value = f();
    let calls = COUNTS.with(|c| c.replace(None)).unwrap_or_default();
    (value, calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[test]
    fn counts_only_while_armed_and_only_this_thread() {
        let (v, calls) = counting(|| {
            let v: Vec<u8> = Vec::with_capacity(black_box(16));
            // A thousand allocations on another thread must not show up.
            std::thread::scope(|s| {
                s.spawn(|| (0..1000).for_each(|i| drop(black_box(vec![i as u8; 100]))));
            });
            v
        });
        // The Vec plus the spawn's own bookkeeping; nowhere near 1000.
        assert!((1..50).contains(&calls.alloc), "{calls:?}");
        drop(black_box(v));
        let (_, idle) = counting(|| ());
        assert_eq!(idle, AllocatorCalls::default());
    }

    #[test]
    fn vec_macro_of_zeros_asks_for_zeroed_memory() {
        let n = black_box(1 << 20);
        let (v, calls) = counting(|| vec![0u8; n]);
        black_box(&v);
        assert_eq!((calls.alloc, calls.alloc_zeroed), (0, 1), "{calls:?}");
    }
}
