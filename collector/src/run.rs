//! One `collector run`: identify the machine, run the chosen experiments,
//! write the file, print the summary.

use std::hash::{BuildHasher, RandomState};
use std::path::Path;
use std::process::ExitCode;

use pagewalk_model::{Provenance, RunFile, Status, SCHEMA_VERSION};

use crate::cli::RunArgs;
use crate::experiments::{self, Env, Experiment};
use crate::{interrupt, machine, output};

/// Exit status after Ctrl-C, as a shell reports death by SIGINT.
const EXIT_INTERRUPTED: u8 = 130;

pub fn run(args: &RunArgs, command: Vec<String>) -> Result<ExitCode, String> {
    let chosen = choose(args)?;
    interrupt::install()?;
    let started = jiff::Timestamp::now();
    let run_id = run_id(started);
    let settings = args.settings();
    let machine = machine::collect()?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; its timings do not represent compiled code (use --release)");
    }

    let env = Env {
        settings: &settings,
        machine: &machine,
    };
    let mut records = Vec::new();
    for experiment in chosen {
        if interrupt::requested() {
            break;
        }
        records.push(experiment.run(&env));
    }
    let interrupted = interrupt::requested();
    let failed = records.iter().any(|r| r.status == Status::Failed);

    let run = RunFile {
        schema_version: SCHEMA_VERSION,
        provenance: Provenance::Collector {
            collector_version: collector_version(),
            run_id: run_id.clone(),
            started_utc: started.to_string(),
            finished_utc: Some(jiff::Timestamp::now().to_string()),
            quick: args.quick,
            command,
            interrupted,
        },
        machine: Some(machine),
        experiments: records,
    };
    let path = output::json::write_new(&args.out, &run_id, &run)?;
    print!("{}", output::summary::render(&run, &path));
    Ok(if interrupted {
        println!("Interrupted: the file holds what finished before Ctrl-C.");
        ExitCode::from(EXIT_INTERRUPTED)
    } else if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `0.1.0 (release, rustc 1.95.0 ...)`: the build is part of what was
/// measured (see build.rs).
fn collector_version() -> String {
    format!(
        "{} ({}, {})",
        env!("CARGO_PKG_VERSION"),
        env!("COLLECTOR_PROFILE"),
        env!("COLLECTOR_RUSTC")
    )
}

fn choose(args: &RunArgs) -> Result<Vec<&'static Experiment>, String> {
    if args.all {
        return Ok(experiments::ALL.iter().collect());
    }
    args.names
        .iter()
        .map(|name| {
            experiments::find(name).ok_or_else(|| {
                let known: Vec<_> = experiments::ALL.iter().map(|e| e.name).collect();
                format!(
                    "unknown experiment `{name}`; experiments are: {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// `20261130T081502Z-3f9a1c`: sorts by time; the random suffix keeps two
/// runs started in the same second apart.
fn run_id(started: jiff::Timestamp) -> String {
    let stamp = started.strftime("%Y%m%dT%H%M%SZ");
    let suffix = RandomState::new().hash_one(std::process::id()) & 0xff_ffff;
    format!("{stamp}-{suffix:06x}")
}

pub fn validate(files: &[impl AsRef<Path>]) -> ExitCode {
    let mut ok = true;
    for file in files {
        match pagewalk_model::read_run(file.as_ref()) {
            Ok(run) => println!(
                "{}: ok ({}, {} experiments)",
                file.as_ref().display(),
                run.label(),
                run.experiments.len()
            ),
            Err(e) => {
                eprintln!("{e}");
                ok = false;
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_sort_by_time_and_differ() {
        let t: jiff::Timestamp = "2026-11-30T08:15:02Z".parse().unwrap();
        let a = run_id(t);
        assert!(a.starts_with("20261130T081502Z-"), "{a}");
        assert_eq!(a.len(), "20261130T081502Z-".len() + 6);
        assert_ne!(a, run_id(t));
    }
}
