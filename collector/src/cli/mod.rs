//! The command line: what a reader can ask the collector to do. How each
//! value is read and bounded is in [`values`].

mod values;

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};
use pagewalk_model::limits::MAX_SAMPLES;
use pagewalk_model::{AllocPath, Mode};

use crate::experiments::Settings;
use values::{parse_alloc_path, parse_bytes, parse_interval, parse_mode, parse_watch};

const EXAMPLES: &str = "\
Examples:
  collector list                           what can be measured
  collector run --all                      everything, default sizes, into data/runs/
  collector run first-touch --quick        64 MiB, one repetition: a first look
  collector run first-touch --size 256M --reps 5 --modes nohugepage,hugepage
  collector validate data/runs             check every run file in a folder against the data model
  collector compare A.json B.json          faster, slower or within noise, figure by figure
  collector inspect 1234 --for 10s         which symptoms a running process shows";

const COMPARE_NOTES: &str = "\
Every run after the first is held against the first. Differences in setup
(machine, kernel, THP, quick or full) are listed first; a figure measured
with other sizes or modes is not compared, and the output says why. A
difference no larger than the noise (each run's repetition spread of that
figure, each run's A-vs-A floor from its noise experiment) is \"within
noise\", never faster or slower; with one repetition in each run (--quick)
a figure has no noise of its own and is not compared.

Examples:
  collector compare data/example/*.json data/runs/*.json
  collector compare before.json after.json --format markdown   paste into a pull request
  collector compare a.json b.json c.json --format json";

const INSPECT_NOTES: &str = "\
Reads /proc only: no ptrace, no signal, nothing in the process or the
system changes. For each row of the book's symptom table it says present,
absent or cannot tell (with the reason), with the counters behind it, and
writes a run file holding the timeline into data/inspections/. --for is
wall time: the watch ends then, however slow /proc is to read (samples a
slow read overran are skipped). A run file keeps a bounded number of
samples, so --for is at most that many intervals (the error says how many).
Exit status 0 when the file was written, 1 on an error (no such process,
a file that could not be written), 2 for a command line refused as it is
read (--for 0, too many samples).

Examples:
  collector inspect $(pidof myserver)
  collector inspect 1234 --for 30s --interval 250ms
  collector inspect 1234 --out /tmp/inspections";

const RUN_NOTES: &str = "\
Exit status: 0 when the run file was written (a failed check is a finding
about this machine: it is stored and shown, not an error; so is an
experiment skipped because it does not fit under a memory limit), 1 on an
error or a failed experiment, 2 for a command line refused as it is read,
130 after Ctrl-C (the file then holds what finished). The --out folder is
checked for writing before anything is measured; a file that cannot be
written there at the end is kept elsewhere (the message says where).

Examples:
  collector run --all
  collector run first-touch --quick --out /tmp/runs
  collector run first-touch --size 256M --reps 5 --modes nohugepage,hugepage";

#[derive(Debug, Parser)]
#[command(
    name = "collector",
    version,
    about = "Measures virtual-memory costs on this machine and writes them as pagewalk JSON",
    after_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses `argv`, then holds it to the rules a value parser alone
    /// cannot see. Every refusal is a usage error: one message on stderr
    /// with every character a terminal would act on escaped (clap quotes
    /// a refused value raw), exit status 2, before anything runs.
    pub fn parse_checked(argv: &[std::ffi::OsString]) -> Cli {
        if let Err(message) = crate::args::screen(argv) {
            refuse(&format!(
                "error: {message}\n\nFor more information, try '--help'.\n"
            ));
        }
        let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| {
            use clap::error::ErrorKind::*;
            match e.kind() {
                // Help and version text are the collector's own.
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
                _ => refuse(&e.render().to_string()),
            }
        });
        if let Err((subcommand, message)) = cli.check() {
            // Built, so the usage line reads `collector inspect ...`.
            let mut cmd = Cli::command();
            cmd.build();
            let mut cmd = cmd.find_subcommand(subcommand).cloned().unwrap_or(cmd);
            let e = cmd.error(clap::error::ErrorKind::ValueValidation, message);
            refuse(&e.render().to_string());
        }
        cli
    }

    /// `Err((subcommand, message))` for a combination of values that would
    /// write a file the model refuses.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        match &self.command {
            Command::Inspect(args) => args.check().map_err(|m| ("inspect", m)),
            Command::Run(args) => args.check().map_err(|m| ("run", m)),
            _ => Ok(()),
        }
    }
}

/// Prints a usage error made safe for a terminal and exits with 2.
fn refuse(message: &str) -> ! {
    eprint!("{}", crate::args::safe_message(message));
    std::process::exit(2)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the experiments with a one-line description each.
    List,
    /// Run experiments and write one JSON run file.
    #[command(after_help = RUN_NOTES)]
    Run(RunArgs),
    /// Check run files (or every run file in a folder) against the data
    /// model; names the file and field on error, and reports partial files
    /// left by killed runs.
    Validate {
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
    },
    /// Hold run files against the first: faster, slower or within noise.
    #[command(after_help = COMPARE_NOTES)]
    Compare {
        /// Run files; the first is the baseline.
        #[arg(required = true, num_args = 2.., value_name = "FILE")]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "text")]
        format: CompareFormat,
    },
    /// Watch a running process through /proc and say which symptoms it shows.
    #[command(after_help = INSPECT_NOTES)]
    Inspect(InspectArgs),
    /// Internal: one measurement in a fresh process, printed as JSON for the
    /// collector that started it (under strace, or with mallopt settings that
    /// must not touch the collector's own allocator).
    #[command(hide = true)]
    Probe {
        #[command(subcommand)]
        probe: Probe,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// A table for the terminal.
    Text,
    /// Ready to paste into a pull request or a ticket.
    Markdown,
    /// The comparison as data.
    Json,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The process to watch.
    #[arg(value_parser = clap::value_parser!(u32).range(1..))]
    pub pid: u32,
    /// How long to watch (wall time), e.g. 10s, 500ms, 1m.
    #[arg(long = "for", value_name = "DURATION", default_value = "10s", value_parser = parse_watch)]
    pub duration: std::time::Duration,
    /// Time between samples (at least 10ms).
    #[arg(long, value_name = "DURATION", default_value = "100ms", value_parser = parse_interval)]
    pub interval: std::time::Duration,
    /// Directory for the run file. Not data/runs/: the book takes the newest
    /// file there as the reader's run, and an inspection holds no experiment
    /// a chapter shows.
    #[arg(long, value_name = "DIR", default_value = "data/inspections")]
    pub out: PathBuf,
}

impl InspectArgs {
    /// The samples `--for` and `--interval` ask for (the first is taken at
    /// once) must fit in a run file: at most [`MAX_SAMPLES`].
    pub fn check(&self) -> Result<(), String> {
        let (watch, every) = (self.duration, self.interval);
        if every > watch {
            return Err(format!(
                "--interval ({every:?}) is longer than --for ({watch:?}): there would be one sample"
            ));
        }
        let samples = watch.as_nanos() / every.as_nanos() + 1;
        if samples > MAX_SAMPLES as u128 {
            let intervals = (MAX_SAMPLES - 1) as u128;
            let shortest_ms = watch.as_nanos().div_ceil(intervals).div_ceil(1_000_000);
            let shortest = std::time::Duration::from_millis(shortest_ms as u64);
            let longest = every * (MAX_SAMPLES - 1) as u32;
            return Err(format!(
                "--for {watch:?} with --interval {every:?} would take {samples} samples; a run file keeps at most {MAX_SAMPLES}: use --interval {shortest:?} or longer, or --for {longest:?} or shorter"
            ));
        }
        Ok(())
    }
}

/// What `collector probe` measures.
#[derive(Debug, Subcommand)]
pub enum Probe {
    /// The `syscall` experiment's getpid loop.
    Getpid(ProbeSize),
    /// One path of the `alloc` experiment.
    Alloc {
        #[arg(value_parser = parse_alloc_path)]
        path: AllocPath,
        #[command(flatten)]
        size: ProbeSize,
    },
    /// One repetition of a first-touch mode that must run in a process of
    /// its own (`malloc-hugetlb`: glibc reads its tunables at start-up).
    FirstTouch(FirstTouchPlan),
}

/// One first-touch repetition's region, as the parent planned it.
#[derive(Debug, Clone, Args)]
pub struct FirstTouchPlan {
    /// The mode (only the ones that need their own process).
    #[arg(long, value_parser = parse_mode)]
    pub mode: Mode,
    /// Region size in bytes: a multiple of `--stride`, at most 64 GiB.
    #[arg(long, value_parser = clap::value_parser!(u64).range(4096..=(64 << 30)))]
    pub size: u64,
    /// Bytes between writes: the base page size.
    #[arg(long, value_parser = clap::value_parser!(u64).range(4096..=(1 << 30)))]
    pub stride: u64,
}

/// Operations in one timed batch of a probe: the largest plan is 10,000.
const MAX_PER_BATCH: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, Args)]
pub struct ProbeSize {
    /// Timed batches (after one untimed warm-up batch); 0 runs the
    /// warm-up only, the baseline `strace -c` counts are taken against.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=MAX_SAMPLES as u64))]
    pub batches: u64,
    /// Operations per batch.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_PER_BATCH))]
    pub per_batch: u64,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Experiments to run (see `collector list`).
    #[arg(
        value_name = "NAME",
        required_unless_present = "all",
        conflicts_with = "all",
        value_parser = experiment_names()
    )]
    pub names: Vec<String>,
    /// Run every experiment.
    #[arg(long)]
    pub all: bool,
    /// Small sizes and one repetition: for tests and a first look.
    #[arg(long)]
    pub quick: bool,
    /// Directory for the run file.
    #[arg(long, value_name = "DIR", default_value = "data/runs")]
    pub out: PathBuf,
    /// Memory size per experiment, e.g. 256M or 1G (binary units; overrides --quick).
    /// Capped at a quarter of MemAvailable and of the cgroup limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub size: Option<u64>,
    /// Repetitions per measurement (overrides --quick); at most as many as
    /// a run file keeps samples of one measurement.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_SAMPLES as i64))]
    pub reps: Option<u32>,
    /// First-touch modes to run, comma-separated (default: all).
    #[arg(long, value_name = "MODE,...", value_delimiter = ',', value_parser = parse_mode)]
    pub modes: Vec<Mode>,
    /// thp: reserve N 2 MiB hugetlbfs pages for its MAP_HUGETLB attempt and
    /// put the old count back afterwards (needs root; otherwise no system
    /// setting is ever changed).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_RESERVE))]
    pub reserve_hugepages: Option<u64>,
}

/// The most 2 MiB pages `--reserve-hugepages` asks for: 1 TiB of them.
/// The kernel grants what it can and the run records what it got; a
/// number past this is a typing error, not a request.
const MAX_RESERVE: u64 = 1 << 19;

/// `run`'s names: the experiments `collector list` shows. An unknown one
/// is a usage error (exit 2), with the list.
fn experiment_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::experiments::all()
            .iter()
            .map(|e| clap::builder::PossibleValue::new(e.name())),
    )
}

impl RunArgs {
    /// A name given twice would run twice and put two records of one
    /// experiment in the file, which the model refuses.
    pub fn check(&self) -> Result<(), String> {
        for (i, name) in self.names.iter().enumerate() {
            if self.names[..i].contains(name) {
                return Err(format!(
                    "`{name}` is named twice; a run file holds each experiment once"
                ));
            }
        }
        Ok(())
    }

    pub fn settings(&self) -> Settings {
        Settings {
            quick: self.quick,
            size: self.size,
            reps: self.reps,
            // Canonical order, duplicates gone: `--modes calloc,default,calloc`
            // runs default then calloc, as a full run would.
            modes: Mode::ALL
                .into_iter()
                .filter(|m| self.modes.is_empty() || self.modes.contains(m))
                .collect(),
            reserve_hugepages: self.reserve_hugepages,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_needs_two_files() {
        assert!(Cli::try_parse_from(["collector", "compare", "a.json"]).is_err());
        let cli = Cli::try_parse_from(["collector", "compare", "a", "b", "--format", "markdown"]);
        assert!(matches!(
            cli.unwrap().command,
            Command::Compare {
                format: CompareFormat::Markdown,
                ..
            }
        ));
    }

    #[test]
    fn modes_parse_from_a_comma_list() {
        let cli = Cli::try_parse_from([
            "collector",
            "run",
            "first-touch",
            "--modes",
            "calloc,nohugepage,calloc",
        ])
        .unwrap();
        let Command::Run(args) = cli.command else {
            panic!()
        };
        assert_eq!(args.settings().modes, vec![Mode::Nohugepage, Mode::Calloc]);
        assert!(Cli::try_parse_from(["collector", "run", "--all", "--modes", "huge"]).is_err());
    }

    #[test]
    fn run_needs_names_or_all() {
        assert!(Cli::try_parse_from(["collector", "run"]).is_err());
        assert!(Cli::try_parse_from(["collector", "run", "--all", "first-touch"]).is_err());
        let cli = Cli::try_parse_from(["collector", "run", "--all", "--quick"]).unwrap();
        let Command::Run(args) = cli.command else {
            panic!()
        };
        let s = args.settings();
        assert_eq!(s.size_or(1 << 30, 64 << 20), 64 << 20);
        assert_eq!(s.reps_or(3), 1);
        assert_eq!(s.modes.len(), Mode::ALL.len());
    }

    #[test]
    fn explicit_size_and_reps_beat_quick() {
        let cli = Cli::try_parse_from([
            "collector",
            "run",
            "--all",
            "--quick",
            "--size",
            "8M",
            "--reps",
            "2",
        ])
        .unwrap();
        let Command::Run(args) = cli.command else {
            panic!()
        };
        let s = args.settings();
        assert_eq!(s.size_or(1 << 30, 64 << 20), 8 << 20);
        assert_eq!(s.reps_or(3), 2);
    }
}
