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
    /// How many blocks of `order` the free lists could hand out across all
    /// zones (order 9 = 2 MiB with 4 KiB base pages: what a transparent huge
    /// page needs). A free block of a higher order `k` splits into
    /// 2^(k - order) of them, so an order-10 block counts twice. Orders a
    /// source did not report count as none; the sum saturates.
    pub fn blocks_available(&self, order: usize) -> u64 {
        self.buddyinfo
            .iter()
            .flat_map(|z| z.free_blocks.iter().enumerate().skip(order))
            .map(|(k, b)| {
                let each = u32::try_from(k - order)
                    .ok()
                    .and_then(|shift| 1u64.checked_shl(shift))
                    .unwrap_or(u64::MAX);
                b.unwrap_or(0).saturating_mul(each)
            })
            .fold(0u64, u64::saturating_add)
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

    fn zone(free_blocks: Vec<Option<u64>>) -> MemorySnapshot {
        MemorySnapshot {
            mem_free_kib: 0,
            mem_available_kib: 0,
            swap_free_kib: None,
            buddyinfo: vec![BuddyZone {
                node: 0,
                zone: "Normal".into(),
                free_blocks,
            }],
        }
    }

    #[test]
    fn an_order_ten_block_supplies_two_huge_pages() {
        let mut orders = vec![Some(100), Some(0)];
        orders.extend([None; 7]);
        orders.extend([Some(2), Some(3)]);
        let snap = zone(orders);
        // 2 blocks of 2 MiB, and 3 of 4 MiB that split into 6 more.
        assert_eq!(snap.blocks_available(9), 8);
        assert_eq!(snap.blocks_available(10), 3);
        assert_eq!(snap.free_blocks_of(0), 100);
    }

    #[test]
    fn mostly_order_ten_is_plenty() {
        // A freshly booted machine: its free memory sits in 4 MiB blocks.
        let mut orders = vec![Some(0); 9];
        orders.extend([Some(0), Some(1000)]);
        assert_eq!(zone(orders).blocks_available(9), 2000);
    }

    #[test]
    fn a_hostile_order_list_saturates() {
        let snap = zone(vec![Some(u64::MAX); 80]);
        assert_eq!(snap.blocks_available(9), u64::MAX);
    }
}
