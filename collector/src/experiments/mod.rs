//! The registry of experiments. Each one lives in its own module, states its
//! premise at the top, and returns typed results plus the checks it made of
//! its own premises; the registry turns that into an [`ExperimentRecord`].

pub mod alloc;
pub mod first_touch;
mod noise;
mod numa;
mod shootdown;
mod spec;
pub mod syscall;
mod tail;
pub(crate) mod translation;

use std::time::Instant;

use pagewalk_model::{ExperimentRecord, Kind, Status};

pub use spec::{Env, Outcome, Settings};

use crate::interrupt;

pub struct Experiment {
    pub kind: Kind,
    pub description: &'static str,
    run: fn(&Env) -> Result<Outcome, String>,
}

impl Experiment {
    /// What `collector run` does for `kind`; `None` for a kind that is not
    /// a measurement of the machine. Exhaustive: a new kind in the model's
    /// list does not compile until it is decided here.
    pub fn of(kind: Kind) -> Option<Experiment> {
        match kind {
            Kind::FirstTouch => Some(Experiment {
                kind,
                description: "cost of touching fresh anonymous memory, per way of allocating it (mmap, THP, MAP_POPULATE, malloc, calloc, Vec)",
                run: first_touch::run,
            }),
            Kind::Staircase => Some(Experiment {
                kind,
                description: "dependent pointer chase, ns per load from 4 KiB to 1 GiB, with 4 KiB and huge pages: the cache and TLB staircases, bends vs CPUID",
                run: translation::staircase::run,
            }),
            Kind::TlbReach => Some(Experiment {
                kind,
                description: "one cache line per page, data kept in cache, 8 to thousands of pages: translation alone, with 4 KiB and huge pages",
                run: translation::tlb_reach::run,
            }),
            Kind::Thp => Some(Experiment {
                kind,
                description: "4 KiB vs huge pages at 256 MiB and 1 GiB: what THP actually granted, MADV_COLLAPSE, buddyinfo, a MAP_HUGETLB attempt",
                run: translation::thp::run,
            }),
            Kind::Walk => Some(Experiment {
                kind,
                description: "one load per page beyond L2 TLB reach at strides 4 KiB to 1 GiB, 4 KiB and huge pages: which levels of the walk miss, with walk counters where the PMU allows",
                run: translation::walk::run,
            }),
            Kind::Mlp => Some(Experiment {
                kind,
                description: "1 to 32 independent pointer chains in one thread over a region beyond TLB reach and the LLC, 4 KiB vs huge pages, and a control inside TLB reach: how many misses overlap",
                run: translation::mlp::run,
            }),
            Kind::Tail => Some(Experiment {
                kind,
                description: "per-iteration latency of a loop walking into fresh memory, as written vs pre-faulted (MAP_POPULATE, early touch, mlockall): p50 to p99.9, max, mean",
                run: tail::run,
            }),
            Kind::Alloc => Some(Experiment {
                kind,
                description: "malloc + free per glibc path (tcache, bins, mmap with the threshold raised, forced or pinned) and a pool, with mmap calls counted",
                run: alloc::run,
            }),
            Kind::Syscall => Some(Experiment {
                kind,
                description: "the syscall floor: clock_gettime (vDSO), getpid, open + close, getpid under strace, a thread wake-up",
                run: syscall::run,
            }),
            Kind::Shootdown => Some(Experiment {
                kind,
                description: "TLB shootdowns: munmap, mprotect and MADV_DONTNEED of 16 written pages with no other thread, one asleep and one running on another CPU, the other CPU's interrupts counted",
                run: shootdown::run,
            }),
            Kind::Noise => Some(Experiment {
                kind,
                description: "run-to-run noise of a fixed workload, pinned vs unpinned, A vs A vs A vs B; governor and scheduling levers in force",
                run: noise::run,
            }),
            Kind::Numa => Some(Experiment {
                kind,
                description: "NUMA first-touch placement, one thread vs parallel, checked with move_pages (skipped on one node)",
                run: numa::run,
            }),
            // Written by `collector inspect PID`, not by `run`.
            Kind::Inspect => None,
        }
    }

    pub fn name(&self) -> &'static str {
        self.kind.name()
    }
}

/// Every experiment `collector run --all` runs, in the model's order.
pub fn all() -> Vec<Experiment> {
    Kind::ALL
        .iter()
        .filter_map(|&k| Experiment::of(k))
        .collect()
}

pub fn find(name: &str) -> Option<Experiment> {
    Experiment::of(Kind::from_name(name)?)
}

impl Experiment {
    pub fn run(&self, env: &Env) -> ExperimentRecord {
        let start = Instant::now();
        let before = crate::background::Snapshot::take();
        // A panic (a thread the system would not start, a bug) fails this
        // experiment only: the ones that finished before it stay in the file.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.run)(env)))
            .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&*panic))));
        let duration_s = Some(start.elapsed().as_secs_f64());
        let background = before.until_now();
        let record = |status, reason, checks, results| ExperimentRecord {
            name: self.name().to_string(),
            status,
            reason,
            duration_s,
            checks,
            results,
            background: background.clone(),
        };
        match outcome {
            // Every experiment polls the flag between repetitions, so one
            // that saw a signal while it ran stopped early: its results are
            // real but partial, and must never read as a complete run.
            Ok(Outcome::Done { results, checks }) if interrupt::requested() => record(
                Status::Interrupted,
                Some(format!(
                    "cut short by {}: the results hold only the repetitions and modes that finished",
                    interrupt::received().map_or("a signal", interrupt::name)
                )),
                checks,
                Some(results),
            ),
            Ok(Outcome::Done { results, checks }) => {
                record(Status::Ok, None, checks, Some(results))
            }
            Ok(Outcome::Skipped(reason)) => record(Status::Skipped, Some(reason), Vec::new(), None),
            Ok(Outcome::SkippedWith { reason, results }) => {
                record(Status::Skipped, Some(reason), Vec::new(), Some(results))
            }
            Err(reason) => record(Status::Failed, Some(reason), Vec::new(), None),
        }
    }
}

/// The text a panic was raised with (`panic!("...")`, `expect`).
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_experiment_fails_alone() {
        fn boom(_: &Env) -> Result<Outcome, String> {
            panic!("failed to spawn thread: WouldBlock");
        }
        let e = Experiment {
            kind: Kind::Syscall,
            description: "",
            run: boom,
        };
        let settings = Settings {
            quick: true,
            size: None,
            reps: None,
            modes: Vec::new(),
            reserve_hugepages: None,
        };
        let machine = crate::machine::collect().unwrap();
        let r = e.run(&Env {
            settings: &settings,
            machine: &machine,
            earlier: &[],
        });
        assert_eq!(r.status, Status::Failed);
        let reason = r.reason.unwrap();
        assert!(
            reason.contains("panicked: failed to spawn thread"),
            "{reason}"
        );
    }
}
