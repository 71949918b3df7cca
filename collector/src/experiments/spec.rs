//! What every experiment is given and what it returns: the contract
//! between the registry ([`super::Experiment`]) and each experiment's
//! module. Kept apart from the registry, which calls into every
//! experiment, so that the experiments can name these types without
//! importing the registry back.

use pagewalk_model::{Check, ExperimentRecord, MachineContext, Mode, Results};

/// Everything an experiment needs to know about how it was asked to run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub quick: bool,
    pub size: Option<u64>,
    pub reps: Option<u32>,
    pub modes: Vec<Mode>,
    pub reserve_hugepages: Option<u64>,
}

impl Settings {
    /// Size in bytes: `--size`, else the quick or full default.
    pub fn size_or(&self, full: u64, quick: u64) -> u64 {
        self.size.unwrap_or(if self.quick { quick } else { full })
    }

    pub fn reps_or(&self, full: u32) -> u32 {
        self.reps.unwrap_or(if self.quick { 1 } else { full })
    }
}

/// What an experiment is given.
pub struct Env<'a> {
    pub settings: &'a Settings,
    pub machine: &'a MachineContext,
    /// The records of the experiments this run made before it (walk and
    /// mlp take the L2 TLB reach tlb-reach measured).
    pub earlier: &'a [ExperimentRecord],
}

/// What an experiment found. `Err` from [`super::Experiment::run`] means it
/// failed.
pub enum Outcome {
    Done {
        results: Results,
        checks: Vec<Check>,
    },
    /// This machine cannot run it (no THP, no memory...): why, and no numbers.
    Skipped(String),
    /// Skipped, but what was found about the machine on the way is kept
    /// (e.g. the NUMA topology that made it pointless).
    SkippedWith { reason: String, results: Results },
}
