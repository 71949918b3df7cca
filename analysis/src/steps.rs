//! Finding the steps in a latency-vs-size curve, in the spirit of Manegold's
//! Calibrator: on a log-size axis, a step is a stretch where latency climbs
//! by more than a relative threshold, steeply somewhere, with adjacent
//! climbs merged unless the slope falls away between them.
//!
//! Robust to noise by construction: latencies are median-filtered over three
//! neighbours, slopes are averaged over three intervals, and a stretch only
//! counts when its whole rise clears [`Config::min_rise`], which independent
//! noise on a flat curve does not.

/// Slopes are averaged over this many doublings either side.
const SMOOTH_OCTAVES: f64 = 0.3;

/// Thresholds of the detector. Slopes are in natural-log latency per
/// doubling of size, so they do not depend on the unit or the spacing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// A stretch is rising while its smoothed slope exceeds this.
    pub min_slope: f64,
    /// A step must be at least this steep somewhere.
    pub min_peak_slope: f64,
    /// A step must raise latency by at least this fraction (0.2 = 20%).
    pub min_rise: f64,
    /// Two climbs inside one rising stretch are separate steps when the
    /// slope between them drops below this fraction of the smaller peak.
    pub split_dip: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_slope: 0.1,
            min_peak_slope: 0.15,
            min_rise: 0.2,
            split_dip: 0.35,
        }
    }
}

/// One step: indices into the input, where it starts, peaks and ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rise {
    /// Last point of the plateau before, first point of the plateau after.
    pub from: usize,
    pub to: usize,
    pub from_x: f64,
    pub to_x: f64,
    /// Where the curve is steepest: the log-middle of the steepest interval.
    pub at_x: f64,
    /// Smoothed latency at `from` and at `to`.
    pub before: f64,
    pub after: f64,
}

impl Rise {
    /// `after / before`.
    pub fn ratio(&self) -> f64 {
        self.after / self.before
    }
}

/// The steps of the curve `(xs[i], ys[i])`; `xs` ascending and positive,
/// `ys` positive. Fewer than four points have no steps to find.
pub fn find_steps(xs: &[f64], ys: &[f64], cfg: &Config) -> Vec<Rise> {
    let n = xs.len().min(ys.len());
    // NaN fails `is_finite`, so bad input never reaches the logarithms.
    if n < 4
        || xs[..n]
            .iter()
            .chain(&ys[..n])
            .any(|v| !v.is_finite() || *v <= 0.0)
    {
        return Vec::new();
    }
    let lx: Vec<f64> = xs[..n].iter().map(|x| x.log2()).collect();
    let ly: Vec<f64> = median3(&ys[..n]).iter().map(|y| y.ln()).collect();
    // Slope of interval i (between points i and i + 1), then averaged over
    // the intervals within a third of a doubling: neighbours at four sizes
    // per doubling, none at two (where they would blur the steps).
    let raw: Vec<f64> = (0..n - 1)
        .map(|i| (ly[i + 1] - ly[i]) / (lx[i + 1] - lx[i]).max(f64::MIN_POSITIVE))
        .collect();
    let mid: Vec<f64> = (0..n - 1).map(|i| (lx[i] + lx[i + 1]) / 2.0).collect();
    let slope: Vec<f64> = (0..n - 1)
        .map(|i| {
            let near: Vec<f64> = (0..n - 1)
                .filter(|&j| (mid[j] - mid[i]).abs() <= SMOOTH_OCTAVES)
                .map(|j| raw[j])
                .collect();
            near.iter().sum::<f64>() / near.len() as f64
        })
        .collect();

    let mut rises = Vec::new();
    for (start, end) in rising_runs(&slope, cfg.min_slope) {
        for (a, b) in split(&slope, start, end, cfg.split_dip) {
            // The smoothed slope finds the stretch; the steepest unsmoothed
            // interval in it places the step.
            let peak = (a..b)
                .max_by(|&p, &q| raw[p].total_cmp(&raw[q]))
                .unwrap_or(a);
            let rise = ly[b] - ly[a];
            if slope[a..b].iter().any(|&s| s >= cfg.min_peak_slope)
                && rise.exp() - 1.0 >= cfg.min_rise
            {
                rises.push(Rise {
                    from: a,
                    to: b,
                    from_x: xs[a],
                    to_x: xs[b],
                    at_x: (xs[peak] * xs[peak + 1]).sqrt(),
                    before: ly[a].exp(),
                    after: ly[b].exp(),
                });
            }
        }
    }
    rises
}

/// Maximal runs `start..end` of intervals steeper than `min_slope`; a
/// single flatter (but not clearly falling) interval inside a climb is
/// noise and does not end it.
fn rising_runs(slope: &[f64], min_slope: f64) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < slope.len() {
        if slope[i] <= min_slope {
            i += 1;
            continue;
        }
        let start = i;
        while i < slope.len() && slope[i] > min_slope {
            i += 1;
        }
        match runs.last_mut() {
            Some(last) if last.1 + 1 == start && slope[last.1] > -min_slope => last.1 = i,
            _ => runs.push((start, i)),
        }
    }
    runs
}

/// Splits the rising intervals `start..end` at deep valleys of the slope:
/// returns point ranges `(from, to)` (interval `k` joins points `k, k+1`).
/// A valley's peaks are the highest slopes on either side before the slope
/// comes back down to the valley's level, so a far-off steeper climb does
/// not make a shallow tail look like a separate step.
fn split(slope: &[f64], start: usize, end: usize, dip: f64) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut a = start;
    for v in start + 1..end.saturating_sub(1) {
        let floor = slope[v];
        if floor > slope[v - 1] || floor > slope[v + 1] {
            continue;
        }
        let peak = |side: &mut dyn Iterator<Item = &f64>| {
            side.take_while(|&&s| s > floor)
                .copied()
                .fold(floor, f64::max)
        };
        let left = peak(&mut slope[a..v].iter().rev());
        let right = peak(&mut slope[v + 1..end].iter());
        if floor < dip * left.min(right) {
            parts.push((a, v));
            a = v + 1;
        }
    }
    parts.push((a, end));
    parts
}

fn median3(v: &[f64]) -> Vec<f64> {
    (0..v.len())
        .map(|i| {
            if i == 0 || i + 1 == v.len() {
                return v[i];
            }
            middle(v[i - 1], v[i], v[i + 1])
        })
        .collect()
}

/// The middle of three values in `total_cmp` order, without sorting
/// (a sort instantiation is kilobytes in the page's WebAssembly).
fn middle(a: f64, b: f64, c: f64) -> f64 {
    let (lo, hi) = if a.total_cmp(&b).is_le() {
        (a, b)
    } else {
        (b, a)
    };
    if c.total_cmp(&lo).is_le() {
        lo
    } else if c.total_cmp(&hi).is_ge() {
        hi
    } else {
        c
    }
}

/// How far apart two sizes are, in doublings.
pub fn octaves_apart(a: f64, b: f64) -> f64 {
    (a / b).log2().abs()
}

/// For each step of `a`, the index of the nearest step of `b` that is the
/// same step: within `octaves` doublings, or centred inside it (one curve
/// may show as one long climb what the other splits in two). A step that
/// survives a change of page size is the same step.
pub fn pair(a: &[Rise], b: &[Rise], octaves: f64) -> Vec<Option<usize>> {
    let inside = |x: f64, r: &Rise| (r.from_x..=r.to_x).contains(&x);
    a.iter()
        .map(|r| {
            b.iter()
                .enumerate()
                .filter(|(_, s)| {
                    octaves_apart(r.at_x, s.at_x) <= octaves
                        || inside(s.at_x, r)
                        || inside(r.at_x, s)
                })
                .min_by(|p, q| {
                    octaves_apart(r.at_x, p.1.at_x).total_cmp(&octaves_apart(r.at_x, q.1.at_x))
                })
                .map(|(j, _)| j)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn middle_is_the_median_of_three_in_every_order() {
        for [a, b, c] in [
            [1.0, 2.0, 3.0],
            [2.0, 2.0, 1.0],
            [-0.0, 0.0, 5.0],
            [f64::NAN, 1.0, 0.0],
        ] {
            let mut sorted = [a, b, c];
            sorted.sort_by(f64::total_cmp);
            for [x, y, z] in [
                [a, b, c],
                [a, c, b],
                [b, a, c],
                [b, c, a],
                [c, a, b],
                [c, b, a],
            ] {
                assert_eq!(
                    middle(x, y, z).to_bits(),
                    sorted[1].to_bits(),
                    "{x} {y} {z}"
                );
            }
        }
    }

    /// Sizes from 4 KiB up, `per_octave` points per doubling.
    fn sizes(octaves: u32, per_octave: u32) -> Vec<f64> {
        (0..=octaves * per_octave)
            .map(|k| 4096.0 * 2f64.powf(k as f64 / per_octave as f64))
            .collect()
    }

    /// A curve of plateaus: latency `base` below the first capacity and
    /// rising towards each next level the way a random chase does past a
    /// capacity C (hit rate C/size), times multiplicative noise.
    fn curve(xs: &[f64], base: f64, levels: &[(f64, f64)], noise: f64, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64::new(seed);
        xs.iter()
            .map(|&x| {
                let mut y = base;
                for &(cap, extra) in levels {
                    if x > cap {
                        y += extra * (1.0 - cap / x);
                    }
                }
                let u = rng.next_u64() as f64 / u64::MAX as f64 * 2.0 - 1.0;
                y * (1.0 + noise * u)
            })
            .collect()
    }

    const KIB: f64 = 1024.0;
    const MIB: f64 = 1024.0 * KIB;

    #[test]
    fn finds_known_steps_despite_noise() {
        let xs = sizes(18, 4);
        let levels = [(48.0 * KIB, 4.0), (2.0 * MIB, 20.0), (32.0 * MIB, 100.0)];
        for seed in 0..20 {
            let ys = curve(&xs, 1.2, &levels, 0.05, seed);
            let found = find_steps(&xs, &ys, &Config::default());
            assert_eq!(found.len(), levels.len(), "seed {seed}: {found:?}");
            for (r, (cap, _)) in found.iter().zip(levels) {
                // Past a capacity the curve climbs over about two octaves;
                // the steepest point is at most that far above it.
                assert!(
                    r.at_x >= cap / 1.5 && r.at_x <= cap * 4.0,
                    "seed {seed}: step at {} for capacity {cap}",
                    r.at_x
                );
                assert!(r.from_x <= cap * 1.5 && r.ratio() > 1.2, "{r:?}");
            }
        }
    }

    #[test]
    fn no_steps_on_a_flat_noisy_curve() {
        let xs = sizes(18, 4);
        for seed in 0..50 {
            let ys = curve(&xs, 80.0, &[], 0.08, seed);
            let found = find_steps(&xs, &ys, &Config::default());
            assert!(found.is_empty(), "seed {seed}: {found:?}");
        }
    }

    #[test]
    fn a_single_outlier_is_not_a_step() {
        let xs = sizes(12, 4);
        let mut ys = vec![10.0; xs.len()];
        ys[20] = 40.0;
        assert!(find_steps(&xs, &ys, &Config::default()).is_empty());
    }

    #[test]
    fn sharp_and_coarse_steps() {
        // Two points per octave (a quick run) and an instant jump.
        let xs = sizes(12, 2);
        let ys: Vec<f64> = xs
            .iter()
            .map(|&x| if x > 256.0 * KIB { 30.0 } else { 5.0 })
            .collect();
        let found = find_steps(&xs, &ys, &Config::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let r = found[0];
        assert!(octaves_apart(r.at_x, 256.0 * KIB) <= 0.5, "{r:?}");
        assert!(
            (r.before - 5.0).abs() < 1e-9 && (r.after - 30.0).abs() < 1e-9,
            "{r:?}"
        );
    }

    #[test]
    fn adjacent_climbs_merge_unless_the_slope_dips() {
        let xs = sizes(16, 4);
        // Two capacities one octave apart read as one climb...
        let close = curve(&xs, 2.0, &[(1.0 * MIB, 10.0), (2.0 * MIB, 20.0)], 0.0, 0);
        assert_eq!(find_steps(&xs, &close, &Config::default()).len(), 1);
        // ...six octaves apart as two.
        let far = curve(&xs, 2.0, &[(64.0 * KIB, 10.0), (4.0 * MIB, 40.0)], 0.0, 0);
        assert_eq!(find_steps(&xs, &far, &Config::default()).len(), 2);
    }

    #[test]
    fn too_few_or_bad_points() {
        assert!(find_steps(&[1.0, 2.0, 3.0], &[1.0, 5.0, 9.0], &Config::default()).is_empty());
        assert!(find_steps(
            &[1.0, 2.0, 3.0, 4.0],
            &[1.0, 0.0, 9.0, 9.0],
            &Config::default()
        )
        .is_empty());
    }

    #[test]
    fn pairing_within_an_octave() {
        let step = |x: f64| Rise {
            from: 0,
            to: 1,
            from_x: x,
            to_x: x,
            at_x: x,
            before: 1.0,
            after: 2.0,
        };
        let small = [step(300e3), step(1.1e6), step(12e6)];
        let huge = [step(1.0e6), step(40e6)];
        assert_eq!(pair(&small, &huge, 1.0), vec![None, Some(0), None]);
        // One long climb in one curve covers two steps of the other.
        let long = Rise {
            from_x: 256e3,
            to_x: 14e6,
            ..step(3.3e6)
        };
        assert_eq!(
            pair(&[step(1.4e6), step(2.8e6)], &[long], 1.0),
            vec![Some(0), Some(0)]
        );
    }
}
