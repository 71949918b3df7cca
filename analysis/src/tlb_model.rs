//! A TLB as a model the reader can turn the knobs of: one fully associative
//! level with `entries` slots and least-recently-used replacement, fed the
//! page numbers of the pointer chase ([`crate::chase::cycle`]) in the order
//! the chase visits them.
//!
//! It leaves out everything a real TLB adds (several levels, set
//! associativity, separate sizes per page size, walk caches, prefetch), so
//! it answers one question only: for a chase over a region of this size,
//! what fraction of loads find no translation among the last `entries`
//! pages used? Its reach, `entries × page size`, is where that fraction
//! leaves zero.

use crate::chase::cycle;

/// The model's two knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tlb {
    pub entries: usize,
    pub page_bytes: u64,
}

impl Tlb {
    /// Bytes of memory the TLB can translate without a miss.
    pub fn reach_bytes(&self) -> u64 {
        self.entries as u64 * self.page_bytes
    }
}

/// A fully associative LRU set of page numbers `0..pages`: O(1) per access
/// with an intrusive doubly linked list over a dense index.
pub struct Lru {
    capacity: usize,
    len: usize,
    /// For each page: its slot in `prev`/`next`, or `NONE` when not held.
    slot_of: Vec<u32>,
    page_of: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
}

const NONE: u32 = u32::MAX;

impl Lru {
    pub fn new(capacity: usize, pages: usize) -> Lru {
        let capacity = capacity.max(1);
        Lru {
            capacity,
            len: 0,
            slot_of: vec![NONE; pages],
            page_of: Vec::with_capacity(capacity.min(pages)),
            prev: Vec::with_capacity(capacity.min(pages)),
            next: Vec::with_capacity(capacity.min(pages)),
            head: NONE,
            tail: NONE,
        }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }

    /// Uses `page`; true on a hit. A miss evicts the least recently used
    /// page when the set is full.
    pub fn access(&mut self, page: usize) -> bool {
        let s = self.slot_of[page];
        if s != NONE {
            if self.head != s {
                self.unlink(s);
                self.push_front(s);
            }
            return true;
        }
        let s = if self.len < self.capacity {
            self.len += 1;
            self.page_of.push(page as u32);
            self.prev.push(NONE);
            self.next.push(NONE);
            (self.len - 1) as u32
        } else {
            let victim = self.tail;
            self.unlink(victim);
            self.slot_of[self.page_of[victim as usize] as usize] = NONE;
            self.page_of[victim as usize] = page as u32;
            victim
        };
        self.slot_of[page] = s;
        self.push_front(s);
        false
    }
}

/// What the model predicts for one region size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub region_bytes: u64,
    /// Distinct pages the chase touches.
    pub pages: u64,
    /// Loads counted (one full turn of the chase after a warm-up turn).
    pub loads: u64,
    pub misses: u64,
    /// `misses / loads`, 0..1.
    pub miss_rate: f64,
}

/// How the chase is laid out: one slot of `slot_bytes` per step, and at
/// most `max_slots` slots simulated (a larger region is chased sparsely,
/// one slot per `region / max_slots` bytes, which still touches every page
/// as long as that spacing is no larger than a page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaseShape {
    pub slot_bytes: u64,
    pub max_slots: usize,
    pub seed: u64,
}

/// Simulates `tlb` over the chase of a `region_bytes` region: one turn of
/// the cycle to warm the TLB, then one turn counted. The chase is periodic,
/// so every later turn would miss exactly as the counted one does.
pub fn predict(tlb: Tlb, region_bytes: u64, shape: ChaseShape) -> Prediction {
    let slot_bytes = shape.slot_bytes.max(1);
    let page_bytes = tlb.page_bytes.max(1);
    let full = (region_bytes / slot_bytes).max(1);
    let slots = full.min(shape.max_slots.max(1) as u64) as usize;
    let spacing = region_bytes.max(1) / slots as u64;
    let pages = region_bytes.div_ceil(page_bytes).max(1) as usize;
    let next = cycle(slots, shape.seed);
    let page = |slot: usize| ((slot as u64 * spacing) / page_bytes) as usize;
    let mut lru = Lru::new(tlb.entries, pages);
    let mut at = 0usize;
    for _ in 0..slots {
        lru.access(page(at));
        at = next[at];
    }
    let mut misses = 0u64;
    for _ in 0..slots {
        if !lru.access(page(at)) {
            misses += 1;
        }
        at = next[at];
    }
    let touched = if spacing <= page_bytes {
        pages as u64
    } else {
        slots as u64
    };
    Prediction {
        region_bytes,
        pages: touched,
        loads: slots as u64,
        misses,
        miss_rate: misses as f64 / slots as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: ChaseShape = ChaseShape {
        slot_bytes: 64,
        max_slots: 1 << 16,
        seed: 7,
    };
    const KIB: u64 = 1024;

    #[test]
    fn reach_is_entries_times_page_size() {
        let tlb = Tlb {
            entries: 64,
            page_bytes: 4 * KIB,
        };
        assert_eq!(tlb.reach_bytes(), 256 * KIB);
        let huge = Tlb {
            page_bytes: 2048 * KIB,
            ..tlb
        };
        assert_eq!(huge.reach_bytes(), 128 * 1024 * KIB);
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        let mut lru = Lru::new(2, 10);
        assert!(!lru.access(1));
        assert!(!lru.access(2));
        assert!(lru.access(1)); // 1 is now the most recent
        assert!(!lru.access(3)); // evicts 2
        assert!(lru.access(1));
        assert!(!lru.access(2));
        assert!(!lru.access(3)); // evicts 1
        assert!(lru.access(2));
    }

    #[test]
    fn lru_cycling_one_page_too_many_always_misses() {
        // The textbook LRU pathology: a loop over capacity + 1 pages.
        let mut lru = Lru::new(4, 5);
        let mut misses = 0;
        for i in 0..100 {
            if !lru.access(i % 5) {
                misses += 1;
            }
        }
        assert_eq!(misses, 100);
    }

    #[test]
    fn inside_the_reach_nothing_misses() {
        let tlb = Tlb {
            entries: 64,
            page_bytes: 4 * KIB,
        };
        for region in [16 * KIB, 128 * KIB, 256 * KIB] {
            let p = predict(tlb, region, SHAPE);
            assert_eq!(p.misses, 0, "{region} bytes: {p:?}");
            assert_eq!(p.pages, region / (4 * KIB));
        }
    }

    #[test]
    fn far_beyond_the_reach_misses_like_random_pages() {
        // A random chase over P pages with E entries hits about E/P of the
        // time: the LRU set holds the E most recent of P equally likely pages.
        let tlb = Tlb {
            entries: 64,
            page_bytes: 4 * KIB,
        };
        let region = 16 * 1024 * KIB; // 4096 pages
        let p = predict(tlb, region, SHAPE);
        let expected = 1.0 - 64.0 / 4096.0;
        assert!(
            (p.miss_rate - expected).abs() < 0.02,
            "{} vs {expected}",
            p.miss_rate
        );
    }

    #[test]
    fn miss_rate_grows_with_region_and_falls_with_page_size() {
        let small = Tlb {
            entries: 64,
            page_bytes: 4 * KIB,
        };
        let sizes = [256 * KIB, 512 * KIB, 1024 * KIB, 4096 * KIB];
        let rates: Vec<f64> = sizes
            .iter()
            .map(|&s| predict(small, s, SHAPE).miss_rate)
            .collect();
        assert!(rates.windows(2).all(|w| w[0] <= w[1]), "{rates:?}");
        assert!(rates[0] < 0.01 && rates[3] > 0.9, "{rates:?}");
        let huge = Tlb {
            page_bytes: 2048 * KIB,
            ..small
        };
        assert_eq!(predict(huge, 4096 * KIB, SHAPE).misses, 0);
    }

    #[test]
    fn sparse_chase_of_a_huge_region_still_touches_every_page() {
        let tlb = Tlb {
            entries: 1536,
            page_bytes: 4 * KIB,
        };
        let shape = ChaseShape {
            max_slots: 1 << 14,
            ..SHAPE
        };
        // 64 MiB / 2^14 slots = one slot per 4 KiB page.
        let p = predict(tlb, 64 * 1024 * KIB, shape);
        assert_eq!(p.pages, 16384);
        assert_eq!(p.loads, 1 << 14);
        assert!(p.miss_rate > 0.85, "{p:?}");
    }
}
