//! The counters that prove what a chase did: dTLB read misses and page
//! faults over the timed samples, where the kernel lets them open (a VM
//! without a virtual PMU has no dTLB counter, and the status says why).

use pagewalk_model::{CounterState, CounterStatus};

use super::region::errno_name;
use crate::machine::pmu::{self, Counter};

/// The counters that prove what a chase did, opened once per experiment.
pub struct Counters {
    pub dtlb: Option<Counter>,
    pub faults: Option<Counter>,
    pub status: CounterStatus,
}

impl Counters {
    pub fn open() -> Counters {
        let open = |(kind, config): (u32, u64), what: &str| match Counter::open(kind, config, true)
        {
            Ok(c) => (
                Some(c),
                CounterState {
                    available: true,
                    detail: format!("perf_event_open({what}, user space only) opened"),
                },
            ),
            Err(e) => (
                None,
                CounterState {
                    available: false,
                    detail: format!(
                        "perf_event_open({what}, user space only) failed: {} ({e})",
                        errno_name(&e)
                    ),
                },
            ),
        };
        let (dtlb, dtlb_state) = open(pmu::DTLB_READ_MISS, "dTLB read misses");
        let (faults, fault_state) = open(pmu::PAGE_FAULTS, "software page faults");
        Counters {
            dtlb,
            faults,
            status: CounterStatus {
                dtlb_load_misses: dtlb_state,
                page_faults: fault_state,
            },
        }
    }

    pub fn start(&self) {
        self.dtlb
            .iter()
            .chain(&self.faults)
            .for_each(Counter::start);
    }

    pub fn stop(&self) -> (Option<u64>, Option<u64>) {
        (
            self.dtlb.as_ref().and_then(Counter::stop),
            self.faults.as_ref().and_then(Counter::stop),
        )
    }
}
