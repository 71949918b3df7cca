//! The command line: what a reader can ask the collector to do.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};
use pagewalk_model::limits::{check_tree, MAX_SAMPLES};
use pagewalk_model::{AllocPath, Mode};

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

/// The shortest `--interval`: a sample reads several files of `/proc` for
/// every thread, and samples closer together than that would mostly
/// measure the reading.
pub const MIN_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

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

/// `--for`: a duration ([`parse_duration`]) that a run file can record as
/// the time asked for (the model's limit on seconds).
fn parse_watch(text: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    recordable(serde_json::json!({ "requested_s": d.as_secs_f64() }))?;
    Ok(d)
}

/// `--interval`: a duration of at least [`MIN_INTERVAL`].
fn parse_interval(text: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    if d < MIN_INTERVAL {
        return Err(format!(
            "must be at least {MIN_INTERVAL:?}: each sample reads several /proc files per thread, and closer samples would mostly measure the reading"
        ));
    }
    Ok(d)
}

/// Whether the model's rules accept `field` as a run file would hold it:
/// the bounds on values come from the model, not from numbers typed here.
fn recordable(field: serde_json::Value) -> Result<(), String> {
    check_tree(&field, None).map_err(|(_, why)| format!("a run file could not record it: it {why}"))
}

/// `10s`, `100ms`, `1m 30s`; zero is refused (nothing would be measured).
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    if let Ok(n) = text.trim().parse::<u64>() {
        return Err(match n {
            0 => "must be longer than zero: nothing would be measured".into(),
            _ => format!("`{n}` needs a unit: {n}s or {n}ms"),
        });
    }
    let d: jiff::SignedDuration = text
        .parse()
        .map_err(|e| format!("{e} (try 10s or 250ms)"))?;
    let d = std::time::Duration::try_from(d).map_err(|_| "must not be negative".to_string())?;
    if d.is_zero() {
        return Err("must be longer than zero: nothing would be measured".into());
    }
    Ok(d)
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

/// Everything an experiment needs to know about how it was asked to run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub quick: bool,
    pub size: Option<u64>,
    pub reps: Option<u32>,
    pub modes: Vec<Mode>,
    pub reserve_hugepages: Option<u64>,
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

impl Settings {
    /// Size in bytes: `--size`, else the quick or full default.
    pub fn size_or(&self, full: u64, quick: u64) -> u64 {
        self.size.unwrap_or(if self.quick { quick } else { full })
    }

    pub fn reps_or(&self, full: u32) -> u32 {
        self.reps.unwrap_or(if self.quick { 1 } else { full })
    }
}

/// The smallest page, and the smallest size an experiment can measure.
const PAGE_BYTES: u64 = 4096;

/// Human sizes with binary multiples: `64M` and `64MiB` are both 2^26, as
/// page sizes are powers of two.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| format!("{e} (try 256M or 1G)"))?;
    // A fraction of a byte is no size (`0.5` would round to 1 byte).
    if text.trim().parse::<f64>().is_ok_and(|b| b.fract() != 0.0) {
        return Err("is a fraction of a byte; give whole bytes or a unit (4096, 64M)".into());
    }
    if bytes < PAGE_BYTES {
        return Err(format!(
            "is {bytes} bytes, less than one 4 KiB page ({PAGE_BYTES} bytes): no experiment measures less than a page"
        ));
    }
    // Recorded as the size asked for, whatever the guard then allows.
    recordable(serde_json::json!({ "requested_bytes": bytes }))?;
    Ok(bytes)
}

fn parse_alloc_path(text: &str) -> Result<AllocPath, String> {
    AllocPath::from_name(text).ok_or_else(|| format!("unknown allocator path `{text}`"))
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    Mode::from_name(text).ok_or_else(|| {
        let names: Vec<_> = Mode::ALL.iter().map(|m| m.name()).collect();
        format!("unknown mode `{text}`; modes are {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("0s")
            .unwrap_err()
            .contains("longer than zero"));
        assert!(parse_duration("0")
            .unwrap_err()
            .contains("longer than zero"));
        assert!(parse_duration("5").unwrap_err().contains("5s"));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }

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
    fn sizes_are_binary() {
        assert_eq!(parse_bytes("64M"), Ok(64 << 20));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1G"), Ok(1 << 30));
        assert_eq!(parse_bytes("256m"), Ok(256 << 20));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("1.5M"), Ok(3 << 19));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("4095").unwrap_err().contains("4 KiB page"));
        assert!(parse_bytes("0.5").unwrap_err().contains("fraction"));
        assert!(parse_bytes("4096.5").unwrap_err().contains("fraction"));
        assert!(parse_bytes("lots").is_err());
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
