//! Free memory and the buddy allocator's free blocks, read from `/proc`
//! before an experiment that needs fresh memory (first touch, THP).

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MemorySnapshot {
    pub mem_free_kib: u64,
    pub mem_available_kib: u64,
    pub swap_free_kib: Option<u64>,
    /// `/proc/buddyinfo`, one row per zone.
    pub buddyinfo: Vec<BuddyZone>,
}

impl MemorySnapshot {
    /// Free blocks of at least `order` across all zones (order 9 = 2 MiB
    /// with 4 KiB base pages: what a transparent huge page needs). Orders a
    /// source did not report count as none.
    pub fn free_blocks_at_least(&self, order: usize) -> u64 {
        self.buddyinfo
            .iter()
            .flat_map(|z| z.free_blocks.iter().skip(order))
            .map(|b| b.unwrap_or(0))
            .sum()
    }

    /// Free blocks of exactly `order` across all zones.
    pub fn free_blocks_of(&self, order: usize) -> u64 {
        self.buddyinfo
            .iter()
            .filter_map(|z| z.free_blocks.get(order).copied().flatten())
            .sum()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct BuddyZone {
    pub node: u32,
    pub zone: String,
    /// Free blocks by order: index 0 is single pages, 9 is 2 MiB. `null`
    /// where a (published) source did not report that order; the collector
    /// always fills every order.
    pub free_blocks: Vec<Option<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_huge_blocks_sum_orders_nine_and_up() {
        let snap = MemorySnapshot {
            mem_free_kib: 0,
            mem_available_kib: 0,
            swap_free_kib: None,
            buddyinfo: vec![BuddyZone {
                node: 0,
                zone: "Normal".into(),
                free_blocks: vec![
                    Some(100),
                    Some(0),
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                    Some(2),
                    Some(3),
                ],
            }],
        };
        assert_eq!(snap.free_blocks_at_least(9), 5);
        assert_eq!(snap.free_blocks_of(0), 100);
    }
}
