//! The registry of experiments. Each one lives in its own module, states its
//! premise at the top, and returns typed results plus the checks it made of
//! its own premises; the registry turns that into an [`ExperimentRecord`].

mod first_touch;

use std::time::Instant;

use pagewalk_model::{Check, ExperimentRecord, MachineContext, Results, Status};

use crate::cli::Settings;

/// What an experiment is given.
pub struct Env<'a> {
    pub settings: &'a Settings,
    pub machine: &'a MachineContext,
}

/// What an experiment found. `Err` from [`Experiment::run`] means it failed.
pub enum Outcome {
    Done {
        results: Results,
        checks: Vec<Check>,
    },
    /// This machine cannot run it (no THP, no memory...): why, and no numbers.
    Skipped(String),
}

pub struct Experiment {
    pub name: &'static str,
    pub description: &'static str,
    run: fn(&Env) -> Result<Outcome, String>,
}

pub const ALL: &[Experiment] = &[Experiment {
    name: pagewalk_model::first_touch::EXPERIMENT,
    description: "cost of touching fresh anonymous memory, per way of allocating it (mmap, THP, MAP_POPULATE, malloc, calloc, Vec)",
    run: first_touch::run,
}];

pub fn find(name: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.name == name)
}

impl Experiment {
    pub fn run(&self, env: &Env) -> ExperimentRecord {
        let start = Instant::now();
        let outcome = (self.run)(env);
        let duration_s = Some(start.elapsed().as_secs_f64());
        let record = |status, reason, checks, results| ExperimentRecord {
            name: self.name.to_string(),
            status,
            reason,
            duration_s,
            checks,
            results,
        };
        match outcome {
            Ok(Outcome::Done { results, checks }) => {
                record(Status::Ok, None, checks, Some(results))
            }
            Ok(Outcome::Skipped(reason)) => record(Status::Skipped, Some(reason), Vec::new(), None),
            Err(reason) => record(Status::Failed, Some(reason), Vec::new(), None),
        }
    }
}
