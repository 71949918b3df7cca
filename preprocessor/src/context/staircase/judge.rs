//! The staircase's verdicts, each from the judges in
//! [`pagewalk_model::judge`]: the steps' matches, the half-level points,
//! `stair.verdict`, the widest gap between the page sizes, the points in
//! the L1 TLB gap, and R2's published levels in words.

use pagewalk_model::judge::curves::{curves, extra_time, walks, Walks};
use pagewalk_model::judge::pages::backed;
use pagewalk_model::judge::steps::{half_point, reach_step};
use pagewalk_model::judge::{Noise, Order};

use super::{Published, StairVerdict, Staircase};
use crate::context::translation::{below, steps, Chase};
use crate::helpers::{format_num, MISSING};

impl Staircase {
    /// Files every verdict: each step's `match`, `stair.at.l1/l2/l3.verdict`
    /// (and `.early_step`), each picked point's `small_vs_huge`,
    /// `stair.gigantic`'s orders, `stair.verdict`, the widest gap, the
    /// points in the L1 TLB gap and R2's levels in words.
    pub fn judge(&mut self, noise: Noise) {
        self.gigantic.judge(noise);
        steps::judge(&mut self.steps, &mut self.step_counts);
        let list = steps::step_list(&self.steps);
        let picked = [
            (1, &mut self.at.l1),
            (2, &mut self.at.l2),
            (3, &mut self.at.l3),
            (0, &mut self.at.largest),
        ];
        for (level, point) in picked {
            let Some(point) = point.as_mut() else {
                continue;
            };
            if level > 0 {
                let (verdict, early) = half_point(point.bytes as f64, level, &list);
                point.picked.verdict = Some(verdict);
                point.picked.early_step = early.map(|x| pagewalk_figures::size_label(x as u64));
            }
            point.picked.small_vs_huge = point.chase.small_vs_huge(noise);
        }
        let max_x = self.max_bytes.unwrap_or(0.0);
        let (l1_reach_below_l2, l2_reach_below_l3) = below(&self.cpuid, &self.caches);
        // The widest gap between the page sizes, among points where the
        // 4 KiB chase was slower beyond the spread: the second staircase
        // seen directly, not through the steps the detector paired.
        let judged: Vec<_> = self
            .points
            .iter()
            .filter_map(|p| Some((p, p.chase.small_vs_huge(noise)?)))
            .collect();
        let widest = judged
            .iter()
            .filter(|(_, v)| *v == Order::Slower)
            .filter_map(|(p, _)| Some((*p, p.chase.small_ns? / p.chase.huge_ns?)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let orders: Vec<Order> = judged.iter().map(|(_, v)| *v).collect();
        let walks = self.at.largest.as_ref().and_then(|p| chase_walks(&p.chase));
        let largest = self
            .at
            .largest
            .as_ref()
            .and_then(|p| p.picked.small_vs_huge);
        self.verdict = Some(StairVerdict {
            l1_reach_below_l2,
            l2_reach_below_l3,
            l2_tlb_step: self
                .cpuid
                .l2_4k
                .as_ref()
                .map(|r| reach_step(r.reach_bytes as f64, max_x, &list)),
            least_backed: self.huge_fraction_min.map(backed),
            walks,
            curves: curves(&orders),
            extra_time: self.timed_faults_max.map(|f| extra_time(largest, f, walks)),
        });
        self.widest_gap = widest.map(|(p, _)| p.clone());
        self.widest_gap_ratio = widest.map(|(_, r)| r);
        // The points between the L1 dTLB's reach and the L2 cache's size.
        let gap = self
            .cpuid
            .l1d_4k
            .as_ref()
            .map(|r| r.reach_bytes as f64)
            .zip(self.caches.l2.as_ref().map(|c| c.bytes as f64));
        for point in &mut self.points {
            point.in_l1_tlb_gap = gap.map(|(reach, l2)| {
                let b = point.bytes as f64;
                b > reach && b < l2
            });
        }
        for level in &mut self.published {
            level.rising = level.ns_min.zip(level.ns_max).map(|(lo, hi)| lo < hi);
            level.region = published_region(level);
            level.latency = published_latency(level);
        }
    }
}

/// The walk counter at one point, where both regimes have it.
fn chase_walks(c: &Chase) -> Option<Walks> {
    let (small, huge) = c.small_dtlb_per_load.zip(c.huge_dtlb_per_load)?;
    Some(walks(small, huge))
}

/// A published level's region in words: `about 48 KiB`, `4 KiB to 32 KiB`,
/// `beyond 8 MiB`, `up to 32 KiB`; null when it gives neither end.
fn published_region(level: &Published) -> Option<String> {
    match (&level.from, &level.to) {
        (Some(from), Some(_)) if level.from_bytes == level.to_bytes => {
            Some(format!("about {from}"))
        }
        (Some(from), Some(to)) => Some(format!("{from} to {to}")),
        (Some(from), None) => Some(format!("beyond {from}")),
        (None, Some(to)) => Some(format!("up to {to}")),
        (None, None) => None,
    }
}

/// A published level's ns per load in words: one figure (`12.0`), a range
/// (`12.0 rising to 24.0`), or what it adds (`15 to 100 more than the level
/// before`); null when it gives none.
fn published_latency(level: &Published) -> Option<String> {
    // A zero is no figure, as the chapter's `#if` used to read it.
    let figure = |x: Option<f64>| x.filter(|x| *x != 0.0);
    let show = |x: Option<f64>, d| x.map_or(MISSING.into(), |x| format_num(x, d));
    if let Some(lo) = figure(level.ns_min) {
        Some(if level.ns_max == Some(lo) {
            format_num(lo, 1)
        } else {
            format!("{} rising to {}", format_num(lo, 1), show(level.ns_max, 1))
        })
    } else if figure(level.added_ns_min).is_some() {
        Some(format!(
            "{} to {} more than the level before",
            show(level.added_ns_min, 0),
            show(level.added_ns_max, 0)
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use pagewalk_model::judge::curves::{Curves, Walks};
    use pagewalk_model::judge::Noise;

    use super::chase_walks;
    use crate::context::staircase::{Picked, StairPoint, Staircase};
    use crate::context::translation::Chase;

    #[test]
    fn the_walk_counter_is_read_only_where_both_regimes_have_it() {
        let chase = |small: Option<f64>, huge: Option<f64>| Chase {
            small_dtlb_per_load: small,
            huge_dtlb_per_load: huge,
            ..Chase::default()
        };
        assert_eq!(
            chase_walks(&chase(Some(0.99), Some(0.0))),
            Some(Walks::Parts)
        );
        assert_eq!(chase_walks(&chase(Some(0.5), Some(0.3))), Some(Walks::Both));
        assert_eq!(
            chase_walks(&chase(Some(0.001), Some(0.0))),
            Some(Walks::Neither)
        );
        assert_eq!(chase_walks(&chase(None, Some(0.0))), None);
        assert_eq!(chase_walks(&chase(Some(0.99), None)), None);
    }

    /// `stair.verdict.curves` and the widest gap: the curves part only where
    /// the 4 KiB chase is slower beyond both ranges, and the widest such
    /// point is named (the Intel guest: 12.0 against 5.8 ns at half of L2,
    /// with no step the detector called translation).
    #[test]
    fn the_curves_part_only_where_4k_pages_are_slower_beyond_the_spread() {
        let point = |bytes: u64, small: (f64, f64, f64), huge: (f64, f64, f64)| StairPoint {
            bytes,
            size: format!("{bytes} B"),
            chase: Chase {
                small_ns_min: Some(small.0),
                small_ns: Some(small.1),
                small_ns_max: Some(small.2),
                huge_ns_min: Some(huge.0),
                huge_ns: Some(huge.1),
                huge_ns_max: Some(huge.2),
                ..Chase::default()
            },
            huge_fraction: None,
            in_l1_tlb_gap: None,
            picked: Picked::default(),
        };
        let judge = |points: Vec<StairPoint>| {
            let mut s = Staircase {
                points,
                ..Staircase::default()
            };
            // Three repetitions a side, as the collector's default runs have.
            s.judge(Noise {
                floor: None,
                repetitions: 3,
            });
            (
                s.verdict.unwrap().curves,
                s.widest_gap.map(|p| p.bytes),
                s.widest_gap_ratio,
            )
        };
        let (curves, at, ratio) = judge(vec![
            point(1 << 16, (1.6, 1.7, 1.8), (1.6, 1.7, 1.8)),
            point(1 << 20, (11.0, 12.0, 13.0), (5.5, 5.8, 6.1)),
            // A wider gap between the medians, but the ranges overlap: not
            // slower, so not the widest gap.
            point(1 << 22, (20.0, 40.0, 60.0), (18.0, 19.0, 26.0)),
        ]);
        assert_eq!((curves, at), (Some(Curves::Apart), Some(1 << 20)));
        assert!((ratio.unwrap() - 12.0 / 5.8).abs() < 1e-9);
        // Overlapping ranges (unstable: not a difference), or huge pages the
        // slower: together.
        let (curves, at, _) = judge(vec![
            point(1 << 20, (5.0, 6.0, 9.0), (5.5, 5.8, 6.1)),
            point(1 << 22, (18.0, 19.0, 20.0), (30.0, 31.0, 32.0)),
        ]);
        assert_eq!((curves, at), (Some(Curves::Together), None));
        // No point with both curves: no verdict at all.
        assert_eq!(judge(Vec::new()).0, None);
    }
}
