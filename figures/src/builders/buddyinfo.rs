//! Free memory by block size before first touch (`/proc/buddyinfo`), the
//! run's beside the reference laptop's: a huge page needs a free block of
//! order 9 (2 MiB), and how many there were decides whether THP can grant
//! one without compacting memory first.

use pagewalk_model::{MemorySnapshot, RunFile};

use super::bars::{source_names, sources};
use super::points::missing_reason;
use super::source::{role, series_name};
use crate::spec::{Axis, Category, ChartKind, ChartSpec, Point, Series};

const EXPERIMENT: &str = pagewalk_model::first_touch::EXPERIMENT;
pub const NAME: &str = "buddyinfo";
/// Orders 0 to 10: 4 KiB to 4 MiB, what the kernel's buddy allocator keeps.
const ORDERS: usize = 11;

fn snapshot(run: &RunFile) -> Option<&MemorySnapshot> {
    run.first_touch()?.memory_before.as_ref()
}

/// Free blocks of `order`, summed over every node and zone; `None` when no
/// zone reports that order (a source that published only some orders).
fn free_blocks(m: &MemorySnapshot, order: usize) -> Option<f64> {
    let counts: Vec<u64> = m
        .buddyinfo
        .iter()
        .filter_map(|z| z.free_blocks.get(order).copied().flatten())
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum::<u64>() as f64)
}

pub fn buddyinfo(run: &RunFile, reference: Option<&RunFile>) -> ChartSpec {
    let sources = sources(run, reference);
    let key = |order: usize| format!("order-{order}");
    let categories = (0..ORDERS)
        .map(|o| {
            let size = pagewalk_model::units::bytes((4096u64 << o) as f64);
            Category::new(key(o), format!("order {o} ({size})"))
        })
        .collect();
    let series = sources
        .iter()
        .map(|&src| Series {
            name: series_name(src),
            role: role(src),
            faint: false,
            points: match snapshot(src) {
                Some(m) => (0..ORDERS)
                    .map(|o| {
                        let value = free_blocks(m, o);
                        Point {
                            category: Some(key(o)),
                            x: None,
                            value,
                            min: None,
                            max: None,
                            note: value
                                .is_none()
                                .then(|| "not reported by this source".to_string()),
                        }
                    })
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    let notes: Vec<String> = sources
        .iter()
        .filter_map(|&s| match snapshot(s) {
            Some(_) => None,
            None => Some(
                missing_reason(s, EXPERIMENT)
                    .unwrap_or_else(|| format!("{} recorded no buddyinfo", series_name(s))),
            ),
        })
        .collect();
    ChartSpec {
        id: NAME.to_string(),
        title: "Free blocks by size before first touch".to_string(),
        description: crate::builders::bars::words(|| {
            format!(
            "free blocks of each order in /proc/buddyinfo before the first-touch experiment, every zone summed, {}; order 9 is one 2 MiB huge page",
            source_names(&sources)
        )
        }),
        kind: ChartKind::Bars,
        x: Axis::linear("block size (order)", ""),
        y: Axis::log("free blocks (log scale)", "blocks"),
        categories,
        series,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        empty_note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buddyinfo chart: every zone's free blocks summed per order, from the
    /// JSON itself; R1 published only orders 0 and 9, the rest are gaps.
    #[test]
    fn buddyinfo_sums_every_zone_per_order() {
        use super::super::fixtures::committed;
        let run = committed("example");
        let r1 = {
            let path = format!(
                "{}/../data/reference/r1-first-touch.json",
                env!("CARGO_MANIFEST_DIR")
            );
            pagewalk_model::read_run(std::path::Path::new(&path)).unwrap()
        };
        let spec = buddyinfo(&run, Some(&r1));
        let raw: serde_json::Value = serde_json::to_value(&run).unwrap();
        let zones = raw["experiments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "first-touch")
            .unwrap()["results"]["first-touch"]["memory_before"]["buddyinfo"]
            .as_array()
            .unwrap()
            .clone();
        for order in 0..11 {
            let want: f64 = zones
                .iter()
                .filter_map(|z| z["free_blocks"][order].as_f64())
                .sum();
            let got = spec.series[0]
                .at(&format!("order-{order}"))
                .and_then(|p| p.value);
            assert_eq!(got, Some(want), "order {order}");
        }
        let r1_at = |o: usize| {
            spec.series[1]
                .at(&format!("order-{o}"))
                .and_then(|p| p.value)
        };
        assert_eq!(r1_at(9), Some(2.0));
        assert_eq!(r1_at(0), Some(145148.0));
        assert_eq!(r1_at(5), None);
    }
}
