//! One `collector run`: identify the machine, run the chosen experiments,
//! write the file, print the summary.

use std::hash::{BuildHasher, RandomState};
use std::path::Path;
use std::process::ExitCode;

use pagewalk_model::display::{
    error_for_terminal, path_for_terminal, quoted_for_terminal, MAX_NAME_CHARS,
};
use pagewalk_model::{Provenance, RunFile, Status, SCHEMA_VERSION};

use crate::cli::RunArgs;
use crate::experiments::{self, Env, Experiment};
use crate::{interrupt, machine, output, scratch, stdout};

pub fn run(args: &RunArgs, command: Vec<String>) -> Result<ExitCode, String> {
    let chosen = choose(args)?;
    let total = chosen.len();
    // A folder that cannot take the file is found now, not after minutes of
    // measuring that would then be lost.
    crate::rlimits::ensure_open_files().map_err(|e| format!("{e}; nothing was measured"))?;
    output::save::probe_writable(&args.out).map_err(|e| format!("{e}; nothing was measured"))?;
    interrupt::install()?;
    // A collector killed while it had changed the machine: undone first,
    // before this run takes the changed value for the machine's own.
    experiments::translation::hugetlb::recover_left_over();
    let started = jiff::Timestamp::now();
    let run_id = run_id(started);
    let settings = args.settings();
    let machine = machine::collect()?;
    if cfg!(debug_assertions) {
        eprintln!("note: this is a debug build; its timings do not represent compiled code (use --release)");
    }

    let mut records = Vec::new();
    for experiment in chosen {
        if interrupt::requested() {
            break;
        }
        let env = Env {
            settings: &settings,
            machine: &machine,
            earlier: &records,
        };
        let record = experiment.run(&env);
        records.push(record);
    }
    // A signal that arrived after the last experiment finished cut nothing,
    // but it is still recorded and answered: its sender must see it landed.
    let received = interrupt::received();
    let interrupted = received.filter(|_| records.len() < total || cut_short(&records));
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
            interrupted: interrupted.is_some(),
            signal: received.map(interrupt::stop_signal),
        },
        machine: Some(machine),
        experiments: records,
    };
    // Not in its folder (the model refused it, the disk filled up): kept
    // elsewhere, the summary names that file, and the status says it failed.
    let shown = output::save::save_and_show(&args.out, &run_id, &run, "collector", |path| {
        stdout::print(&output::summary::render(&run, path))
    });
    if let Err(status) = shown {
        return Ok(status);
    }
    let (status, line) = ending(interrupted, received, failed);
    if let Some(line) = line {
        stdout::println(&line);
    }
    Ok(ExitCode::from(status))
}

/// The exit status of a run whose file was written, and the line that
/// closes its summary. A stop signal is answered with 128 + its number
/// whether or not it cut anything: its sender must see it was received.
fn ending(
    interrupted: Option<libc::c_int>,
    received: Option<libc::c_int>,
    failed: bool,
) -> (u8, Option<String>) {
    match (interrupted, received) {
        (Some(signal), _) => (
            interrupt::exit_status(signal),
            Some(format!(
                "Interrupted by {}: the file holds what finished before it.",
                interrupt::name(signal)
            )),
        ),
        (None, Some(signal)) => (
            interrupt::exit_status(signal),
            Some(format!(
                "{} arrived after the last experiment had finished: it cut nothing, and the file is complete.",
                interrupt::name(signal)
            )),
        ),
        (None, None) => (u8::from(failed), None),
    }
}

fn cut_short(records: &[pagewalk_model::ExperimentRecord]) -> bool {
    records.iter().any(|r| r.status == Status::Interrupted)
}

/// `0.1.0 (release, rustc 1.95.0 ...)`: the build is part of what was
/// measured (see build.rs).
pub(crate) fn collector_version() -> String {
    format!(
        "{} ({}, {})",
        env!("CARGO_PKG_VERSION"),
        env!("COLLECTOR_PROFILE"),
        env!("COLLECTOR_RUSTC")
    )
}

/// The experiments named, in the model's order whatever order they were
/// named in: an experiment may use what one before it in the list
/// measured (walk and mlp, tlb-reach's reach).
fn choose(args: &RunArgs) -> Result<Vec<Experiment>, String> {
    if args.all {
        return Ok(experiments::all());
    }
    let mut chosen = args
        .names
        .iter()
        .map(|name| {
            experiments::find(name).ok_or_else(|| {
                let known: Vec<_> = experiments::all().iter().map(|e| e.name()).collect();
                format!(
                    "unknown experiment `{name}`; experiments are: {}",
                    known.join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    chosen.sort_by_key(|e| pagewalk_model::Kind::ALL.iter().position(|&k| k == e.kind));
    Ok(chosen)
}

/// `20261130T081502Z-3f9a1c`: sorts by time; the random suffix keeps two
/// runs started in the same second apart.
pub(crate) fn run_id(started: jiff::Timestamp) -> String {
    let stamp = started.strftime("%Y%m%dT%H%M%SZ");
    let suffix = RandomState::new().hash_one(std::process::id()) & 0xff_ffff;
    format!("{stamp}-{suffix:06x}")
}

/// `collector validate FILE|DIR...`: every file through the model; a
/// folder means its `*.json`. Temporary files left by killed runs in the
/// folders seen are reported (the next run removes them), and so are the
/// private temporary folders of killed collectors; they do not make the
/// files invalid. Every name and value echoed is made safe for the
/// terminal first (it may hold escape sequences or line ends).
pub fn validate(paths: &[impl AsRef<Path>]) -> ExitCode {
    let mut ok = true;
    let mut files = Vec::new();
    let mut dirs = std::collections::BTreeSet::new();
    for path in paths.iter().map(AsRef::as_ref) {
        if path.is_dir() {
            dirs.insert(path.to_path_buf());
            match json_files(path) {
                Ok(found) => files.extend(found),
                Err(e) => {
                    eprintln!("{}: cannot list: {e}", path_for_terminal(path));
                    ok = false;
                }
            }
        } else {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            dirs.insert(parent.unwrap_or(Path::new(".")).to_path_buf());
            files.push(path.to_path_buf());
        }
    }
    for file in &files {
        if stdout::closed() {
            break;
        }
        match pagewalk_model::read_run(file) {
            Ok(run) => stdout::println(&format_args!(
                "{}: ok ({}, {} experiments)",
                path_for_terminal(file),
                quoted_for_terminal(&run.label(), MAX_NAME_CHARS),
                run.experiments.len()
            )),
            Err(e) => {
                eprintln!("{}", error_for_terminal(&e));
                ok = false;
            }
        }
    }
    for stale in dirs.iter().flat_map(|d| output::json::stale_temp_files(d)) {
        let who = stale
            .pid
            .map_or("a run".to_string(), |p| format!("run process {p}"));
        eprintln!(
            "{}: warning: a partial file left by {who}, which no longer runs (killed mid-write); the next `collector run` into this folder removes it",
            path_for_terminal(&stale.path)
        );
    }
    for left in scratch::leftovers(&std::env::temp_dir()) {
        eprintln!(
            "{}: warning: a private temporary folder left by a collector that no longer runs (killed); remove it with `rm -r`",
            path_for_terminal(&left)
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn json_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_answered_whether_or_not_it_cut_anything() {
        // Cut an experiment short: the file says so, the status is 128 + 15.
        let (status, line) = ending(Some(libc::SIGTERM), Some(libc::SIGTERM), false);
        assert_eq!(status, 143);
        assert!(line.unwrap().starts_with("Interrupted by SIGTERM"));
        // Arrived as the last experiment finished (thp's final attempt):
        // before, exit 0 and nothing said.
        let (status, line) = ending(None, Some(libc::SIGTERM), false);
        assert_eq!(status, 143);
        assert!(line.unwrap().contains("cut nothing"));
        assert_eq!(ending(None, None, true), (1, None));
        assert_eq!(ending(None, None, false), (0, None));
    }

    #[test]
    fn run_ids_sort_by_time_and_differ() {
        let t: jiff::Timestamp = "2026-11-30T08:15:02Z".parse().unwrap();
        let a = run_id(t);
        assert!(a.starts_with("20261130T081502Z-"), "{a}");
        assert_eq!(a.len(), "20261130T081502Z-".len() + 6);
        assert_ne!(a, run_id(t));
    }
}
