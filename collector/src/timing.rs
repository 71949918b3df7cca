//! Timing many short operations into a distribution. Every experiment that
//! reports a latency distribution goes through here, so percentiles, the
//! mean and the histogram are always computed the same way.

use std::time::Instant;

use hdrhistogram::Histogram;
use pagewalk_model::{Bucket, Latency};

use crate::interrupt;

/// Values are kept in picoseconds so that a batch average such as 25.3 ns
/// per call keeps its fraction.
const PS_PER_NS: f64 = 1000.0;
/// Histogram buckets grow by this factor: eight per decade.
const BUCKET_FACTOR: f64 = 1.333_521_432_163_324; // 10^(1/8)

/// Collects durations; percentiles come from an HDR histogram (3
/// significant digits), the mean, min and max are exact.
pub struct Recorder {
    hist: Histogram<u64>,
    sum_ns: f64,
    min_ns: f64,
    max_ns: f64,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            // 1 ps to 1000 s: any duration these experiments can see.
            hist: Histogram::new_with_bounds(1, 1_000_000_000_000_000, 3)
                .expect("static histogram bounds are valid"),
            sum_ns: 0.0,
            min_ns: f64::INFINITY,
            max_ns: 0.0,
        }
    }

    /// A recorder holding `values_ns`.
    pub fn of(values_ns: &[f64]) -> Recorder {
        let mut rec = Recorder::new();
        for &ns in values_ns {
            rec.record_ns(ns);
        }
        rec
    }

    pub fn record_ns(&mut self, ns: f64) {
        let ps = (ns * PS_PER_NS).round().max(1.0) as u64;
        self.hist.saturating_record(ps);
        self.sum_ns += ns;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn len(&self) -> u64 {
        self.hist.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hist.is_empty()
    }

    /// Adds everything `other` recorded (e.g. one repetition into the total).
    pub fn merge(&mut self, other: &Recorder) {
        self.hist
            .add(&other.hist)
            .expect("histograms with the same bounds merge");
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The value at quantile `q`. The histogram answers with its bucket's
    /// highest equivalent value, so it is clamped to the exact min and max
    /// (a p99 above the max would read as an error).
    pub fn quantile_ns(&self, q: f64) -> f64 {
        let v = self.hist.value_at_quantile(q) as f64 / PS_PER_NS;
        v.clamp(self.min_ns.min(self.max_ns), self.max_ns)
    }

    pub fn mean_ns(&self) -> f64 {
        self.sum_ns / self.len().max(1) as f64
    }

    /// The distribution; with `histogram`, also the counts per bucket (eight
    /// buckets per decade, from the first non-empty one to the max).
    pub fn latency(&self, histogram: bool) -> Option<Latency> {
        if self.is_empty() {
            return None;
        }
        let q = |q| Some(self.quantile_ns(q));
        Some(Latency {
            n: Some(self.len()),
            min_ns: Some(self.min_ns),
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: Some(self.max_ns),
            mean_ns: Some(self.mean_ns()),
            histogram: if histogram {
                self.buckets()
            } else {
                Vec::new()
            },
        })
    }

    fn buckets(&self) -> Vec<Bucket> {
        // Start one bucket below the smallest value so it lands in a bucket.
        let first = (self.hist.min() as f64 / BUCKET_FACTOR).max(1.0) as u64;
        self.hist
            .iter_log(first, BUCKET_FACTOR)
            .map(|v| Bucket {
                upto_ns: v.value_iterated_to() as f64 / PS_PER_NS,
                count: v.count_since_last_iteration(),
            })
            .skip_while(|b| b.count == 0)
            .collect()
    }
}

/// Times `batches` batches of `per_batch` calls of `op` (given the call's
/// index) and returns nanoseconds per call, one value per batch. One batch
/// first warms caches and is not recorded. Stops early on Ctrl-C.
///
/// The values go into memory written before the first batch and the
/// histogram is built by the caller afterwards ([`Recorder::of`]), so
/// timing adds no page faults to what a caller counts around this.
pub fn batches(batches: u64, per_batch: u64, mut op: impl FnMut(u64)) -> Vec<f64> {
    let mut values = vec![f64::NAN; batches as usize];
    let mut done = 0;
    for b in 0..=batches {
        if interrupt::requested() {
            break;
        }
        let start = Instant::now();
        for i in 0..per_batch {
            op(i);
        }
        let ns = start.elapsed().as_nanos() as f64 / per_batch as f64;
        if b > 0 {
            values[done] = ns;
            done += 1;
        }
    }
    values.truncate(done);
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_keep_the_tail_and_the_mean_is_exact() {
        let mut r = Recorder::new();
        for _ in 0..999 {
            r.record_ns(100.0);
        }
        r.record_ns(50_000.0);
        let l = r.latency(true).unwrap();
        assert_eq!(l.n, Some(1000));
        assert!((l.p50_ns.unwrap() - 100.0).abs() < 0.1);
        assert!((l.p999_ns.unwrap() - 100.0).abs() < 0.1, "{l:?}");
        assert_eq!(l.max_ns, Some(50_000.0));
        assert!(l.p99_ns <= l.max_ns && l.p50_ns >= l.min_ns);
        assert!((l.mean_ns.unwrap() - 149.9).abs() < 1e-9);
        let total: u64 = l.histogram.iter().map(|b| b.count).sum();
        assert_eq!(total, 1000);
        assert!(l.histogram[0].count == 999 && l.histogram[0].upto_ns >= 100.0);
    }

    #[test]
    fn fractions_of_a_nanosecond_survive() {
        let mut r = Recorder::new();
        r.record_ns(25.3);
        assert!((r.latency(false).unwrap().p50_ns.unwrap() - 25.3).abs() < 0.05);
        assert!(Recorder::new().latency(false).is_none());
    }

    #[test]
    fn merged_recorders_add_up() {
        let (mut a, mut b) = (Recorder::new(), Recorder::new());
        a.record_ns(10.0);
        b.record_ns(30.0);
        a.merge(&b);
        assert_eq!(a.len(), 2);
        assert_eq!(a.mean_ns(), 20.0);
    }

    #[test]
    fn batches_time_every_call() {
        let mut calls = 0;
        let values = batches(3, 10, |_| calls += 1);
        assert_eq!(calls, 40, "a warm-up batch plus three");
        assert_eq!(Recorder::of(&values).len(), 3);
    }
}
