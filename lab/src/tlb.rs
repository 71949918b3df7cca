//! The TLB model over the chase's sweep of region sizes, for the page's
//! sliders: [`pagewalk_analysis::tlb_model::predict`] at every size.

use pagewalk_analysis::tlb_model::{predict, ChaseShape, Tlb};
use pagewalk_model::json::FromJson;
use serde::{Deserialize, Serialize};

use crate::chase::{sizes, SLOT_BYTES};

/// The most chase slots simulated per size: beyond it the model chases a
/// region sparsely (still every 4 KiB page up to 512 MiB). Keeps one
/// slider move to tens of milliseconds in a worker.
pub const MAX_SLOTS: usize = 1 << 17;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TlbParams {
    pub entries: usize,
    pub page_bytes: u64,
    /// The largest region of the sweep, in KiB.
    pub max_kib: u64,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TlbPoint {
    pub region_bytes: u64,
    pub pages: u64,
    pub miss_rate: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TlbReport {
    pub params: TlbParams,
    pub reach_bytes: u64,
    pub points: Vec<TlbPoint>,
}

pub fn run(params: &TlbParams) -> TlbReport {
    let tlb = Tlb {
        entries: params.entries.max(1),
        page_bytes: params.page_bytes.max(1),
    };
    let shape = ChaseShape {
        slot_bytes: SLOT_BYTES,
        max_slots: MAX_SLOTS,
        seed: params.seed,
    };
    TlbReport {
        params: params.clone(),
        reach_bytes: tlb.reach_bytes(),
        points: sizes(params.max_kib)
            .into_iter()
            .map(|region| {
                let p = predict(tlb, region, shape);
                TlbPoint {
                    region_bytes: region,
                    pages: p.pages,
                    miss_rate: p.miss_rate,
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KIB;

    #[test]
    fn the_step_moves_with_the_reach() {
        let at = |entries, page_bytes| {
            run(&TlbParams {
                entries,
                page_bytes,
                max_kib: 64 * 1024,
                seed: 1,
            })
        };
        let small = at(64, 4 * KIB);
        assert_eq!(small.reach_bytes, 256 * KIB);
        assert_eq!(small.points.len(), 13);
        // Nothing misses up to the reach; almost everything well past it.
        for p in &small.points {
            if p.region_bytes <= small.reach_bytes {
                assert_eq!(p.miss_rate, 0.0, "{p:?}");
            }
        }
        assert!(small.points.last().unwrap().miss_rate > 0.95);
        // Four times the entries: the first miss moves four times further out.
        let bigger = at(256, 4 * KIB);
        let first_miss = |r: &TlbReport| {
            r.points
                .iter()
                .find(|p| p.miss_rate > 0.0)
                .map(|p| p.region_bytes)
        };
        assert_eq!(first_miss(&small), Some(512 * KIB));
        assert_eq!(first_miss(&bigger), Some(2048 * KIB));
        // 2 MiB pages: 64 entries reach 128 MiB, past the whole sweep.
        assert_eq!(first_miss(&at(64, 2048 * KIB)), None);
    }
}
