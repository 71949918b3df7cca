//! Which perf counters a translation experiment could open, and why not.

use pagewalk_model::{CounterState, CounterStatus};
use schemars::JsonSchema;
use serde::Serialize;

/// Whether the perf counters could be opened.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Counters {
    /// Whether the dTLB-load-miss hardware counter could be opened (false in a VM without a PMU).
    pub dtlb: Option<bool>,
    /// How, or why not (the raw error text): keep it out of sentences.
    pub dtlb_detail: Option<String>,
    /// Why it could not be opened, in words for running prose (no PMU exposed, `perf_event_paranoid`, no `perf_event_open`, ...); null when it opened.
    pub dtlb_why: Option<&'static str>,
    /// The same for the software page-fault counter.
    pub faults: Option<bool>,
    /// How, or why not (raw).
    pub faults_detail: Option<String>,
    /// Why not, in words.
    pub faults_why: Option<&'static str>,
}

impl Counters {
    pub fn of(c: Option<&CounterStatus>) -> Counters {
        Counters {
            dtlb: c.map(|c| c.dtlb_load_misses.available),
            dtlb_detail: c.map(|c| c.dtlb_load_misses.detail.clone()),
            dtlb_why: c.and_then(|c| why_not(&c.dtlb_load_misses)),
            faults: c.map(|c| c.page_faults.available),
            faults_detail: c.map(|c| c.page_faults.detail.clone()),
            faults_why: c.and_then(|c| why_not(&c.page_faults)),
        }
    }
}

/// Why a counter could not be opened, in words for running prose (the raw
/// error stays in `*_detail`); `None` when it was opened.
fn why_not(c: &CounterState) -> Option<&'static str> {
    (!c.available).then(|| why_failed(&c.detail))
}

/// A counter's open error (`perf_event_open(...) failed: No such file or
/// directory (os error 2)`) in words for running prose: the model's, which
/// the charts' notes say too.
pub use pagewalk_model::reason::counter_failure as why_failed;

#[cfg(test)]
mod tests {
    use super::*;

    fn state(available: bool, detail: &str) -> CounterState {
        CounterState {
            available,
            detail: detail.into(),
        }
    }

    #[test]
    fn why_a_counter_did_not_open() {
        let vm =
            "perf_event_open(dTLB read misses) failed: ENOENT (No such file or directory (os error 2))";
        assert!(why_not(&state(false, vm))
            .unwrap()
            .contains("no such event"));
        let paranoid = "failed: EACCES (Permission denied (os error 13))";
        assert!(why_not(&state(false, paranoid))
            .unwrap()
            .contains("perf_event_paranoid"));
        assert!(why_not(&state(false, "EBUSY")).unwrap().contains("error"));
        assert_eq!(why_not(&state(true, "opened, user space only")), None);
    }
}
