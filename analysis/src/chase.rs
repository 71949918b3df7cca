//! The dependent pointer chase: a single random cycle through `n` slots, so
//! each load's address comes from the previous load and no prefetcher can
//! guess the next one.

use crate::rng::SplitMix64;

/// `next[i]` is the slot visited after slot `i`; following it from any slot
/// visits all `n` slots once before returning (Sattolo's algorithm gives a
/// uniformly random single cycle).
pub fn cycle(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    // Sattolo: like Fisher-Yates but j < i, which forbids fixed points and
    // yields one cycle through every element.
    for i in (1..n).rev() {
        let j = rng.below(i);
        order.swap(i, j);
    }
    let mut next = vec![0; n];
    for (i, &slot) in order.iter().enumerate() {
        next[slot] = order[(i + 1) % n];
    }
    next
}

/// The number of slots a cycle visits starting from slot 0 before it is back
/// (equals `next.len()` for a valid chase).
pub fn cycle_length(next: &[usize]) -> usize {
    if next.is_empty() {
        return 0;
    }
    let (mut at, mut steps) = (next[0], 1);
    while at != 0 && steps <= next.len() {
        at = next[at];
        steps += 1;
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cycle_through_every_slot() {
        for n in [1, 2, 3, 10, 1000, 4096] {
            let next = cycle(n, 42);
            assert_eq!(cycle_length(&next), n, "n = {n}");
            let mut seen = next.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "a permutation");
        }
    }

    #[test]
    fn no_slot_points_at_itself_and_order_is_not_sequential() {
        let next = cycle(1000, 1);
        assert!(next.iter().enumerate().all(|(i, &j)| i != j));
        let sequential = next
            .iter()
            .enumerate()
            .filter(|&(i, &j)| j == i + 1)
            .count();
        assert!(sequential < 10, "{sequential} sequential steps");
    }

    #[test]
    fn seeds_differ() {
        assert_ne!(cycle(100, 1), cycle(100, 2));
    }
}
