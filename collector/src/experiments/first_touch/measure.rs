//! One timed phase: wall time, this thread's faults and the system's THP
//! fault counters around a closure. Every phase of every mode goes through
//! [`measure`], so all numbers are taken the same way.

use std::collections::BTreeMap;
use std::time::Instant;

use pagewalk_model::{PhaseSample, ThpFaultCounters};

use crate::faults::Faults;
use crate::procfs;

/// Runs `f` and measures it. The counters are read outside the timed window
/// (vmstat first, faults innermost) so reading them costs the phase nothing
/// and their own faults, if any, are not counted.
pub fn measure<T>(pages: u64, f: impl FnOnce() -> T) -> (T, PhaseSample) {
    let vmstat_before = procfs::read_vmstat().ok();
    let faults_before = Faults::of_this_thread();
    let start = Instant::now();
    let value = f();
    let wall_ns = start.elapsed().as_nanos() as f64;
    let faults = Faults::of_this_thread() - faults_before;
    let vmstat_after = procfs::read_vmstat().ok();
    let thp = match (&vmstat_before, &vmstat_after) {
        (Some(before), Some(after)) => thp_delta(before, after),
        _ => None,
    };
    let sample = PhaseSample {
        wall_ns,
        ns_per_page: wall_ns / pages as f64,
        minor_faults: Some(faults.minor),
        major_faults: Some(faults.major),
        thp,
    };
    (value, sample)
}

/// System-wide THP fault counter deltas; `None` on kernels without THP
/// counters. `thp_fault_fallback_charge` exists only since Linux 5.9.
fn thp_delta(
    before: &BTreeMap<String, i64>,
    after: &BTreeMap<String, i64>,
) -> Option<ThpFaultCounters> {
    let delta = |name: &str| Some(after.get(name)? - before.get(name)?);
    Some(ThpFaultCounters {
        thp_fault_alloc: delta("thp_fault_alloc")?,
        thp_fault_fallback: delta("thp_fault_fallback")?,
        thp_fault_fallback_charge: delta("thp_fault_fallback_charge"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thp_deltas_need_both_core_counters() {
        let map = |pairs: &[(&str, i64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let before = map(&[("thp_fault_alloc", 3), ("thp_fault_fallback", 10)]);
        let after = map(&[("thp_fault_alloc", 4), ("thp_fault_fallback", 520)]);
        let d = thp_delta(&before, &after).unwrap();
        assert_eq!(
            (
                d.thp_fault_alloc,
                d.thp_fault_fallback,
                d.thp_fault_fallback_charge
            ),
            (1, 510, None)
        );
        assert!(thp_delta(&map(&[]), &after).is_none());
    }

    #[test]
    fn measures_time_and_pages() {
        let ((), s) = measure(4, || {
            std::thread::sleep(std::time::Duration::from_millis(2))
        });
        assert!(s.wall_ns >= 2e6);
        assert_eq!(s.ns_per_page, s.wall_ns / 4.0);
        assert!(s.minor_faults.is_some());
    }
}
