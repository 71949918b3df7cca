//! Which files the book shows.
//!
//! - `data/runs/`: the reader's own `collector run` output. Each
//!   experiment comes from the newest run that has it, complete runs before
//!   interrupted ones, so `collector run syscall` on its own never blanks
//!   the other chapters. [`DataSet::sources`] says which run each came
//!   from. A file that does not load is reported and passed over, so one
//!   bad file never hides the book.
//! - `data/example/`: the committed example run, shown when the reader has
//!   none. It is ours, so a bad file here fails the build.
//! - `data/reference/`: transcribed published figures; a bad file fails too.
//! - `data/machines/`: full runs from other machines, committed, drawn
//!   beside this run's charts where a lesson is that the mechanism holds
//!   while the numbers move (`{{machines "staircase"}}`); a bad file fails.
//! - `data/inspections/`: `collector inspect` files; the newest is shown on
//!   the "your process" page, never as the run (it holds no chapter's
//!   experiment). A bad one is passed over like a bad run. Without one,
//!   the committed `data/example-inspection/` is shown (a bad file there
//!   fails the build); without that either, the page says how to make one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Error, Result};
use pagewalk_model::display::{error_for_terminal, path_for_terminal};
use pagewalk_model::{
    parse_run_bytes, read_run_bytes, ExperimentRecord, MachineContext, ModelError, Provenance,
    RunFile, Status, UtcTime,
};

/// Everything the chapters may draw on.
#[derive(Debug)]
pub struct DataSet {
    /// The run the book shows: the newest run's provenance and machine,
    /// with each experiment's record taken from the run chosen for it.
    pub run: Option<RunFile>,
    /// True when `run` came from `data/runs/` (the reader's own).
    pub own: bool,
    /// Experiment name -> the run its record came from.
    pub sources: BTreeMap<String, Source>,
    /// Published reference figures, in file-name order.
    pub references: Vec<RunFile>,
    /// Other machines' full runs, in file-name order.
    pub machines: Vec<RunFile>,
    /// Problems with reader files that were passed over.
    pub warnings: Vec<String>,
    /// The `collector inspect` file the "your process" page shows.
    pub inspection: Option<Inspection>,
}

/// A `collector inspect` file and where it came from.
#[derive(Debug)]
pub struct Inspection {
    pub run: RunFile,
    /// True when it came from `data/inspections/` (the reader's own).
    pub own: bool,
    /// Its file name, for saying which file the page shows.
    pub file: String,
}

/// The folders of `data/` the book reads.
pub const FOLDERS: [&str; 6] = [
    "runs",
    "inspections",
    "example",
    "example-inspection",
    "reference",
    "machines",
];

/// The JSON files a [`DataSet`] is made from, by folder of `data/`, each
/// as its path and its bytes (or why they could not be read), in
/// file-name order. `mdbook build` reads them from disk; the book
/// re-rendered in the browser hands them over in memory, a reader's run
/// added to `runs`: one data set, whichever way the files came.
#[derive(Debug, Default, Clone)]
pub struct DataFiles {
    folders: BTreeMap<String, Vec<(PathBuf, FileBytes)>>,
}

/// A file's bytes, or why they could not be read.
type FileBytes = Result<Vec<u8>, ModelError>;

impl DataFiles {
    /// The `*.json` files directly in each of [`FOLDERS`] under `dir`; a
    /// missing folder is empty.
    pub fn read(dir: &Path) -> Result<DataFiles> {
        let mut files = DataFiles::default();
        for folder in FOLDERS {
            for path in json_files(&dir.join(folder))? {
                let bytes = read_run_bytes(&path);
                files.insert(folder, path, bytes);
            }
        }
        Ok(files)
    }

    /// Adds one file to `folder` (one of [`FOLDERS`]), named `path` in
    /// every message about it.
    pub fn add(&mut self, folder: &str, path: PathBuf, bytes: Vec<u8>) {
        self.insert(folder, path, Ok(bytes));
    }

    fn insert(&mut self, folder: &str, path: PathBuf, bytes: FileBytes) {
        let list = self.folders.entry(folder.to_string()).or_default();
        let at = list.partition_point(|(p, _)| p.file_name() <= path.file_name());
        list.insert(at, (path, bytes));
    }

    /// Each file of `folder`, parsed and checked by the model.
    fn runs(&self, folder: &str) -> Vec<(&Path, Result<RunFile, ModelError>)> {
        self.folders
            .get(folder)
            .into_iter()
            .flatten()
            .map(|(path, bytes)| {
                let run = bytes
                    .clone()
                    .and_then(|b| parse_run_bytes(&path.display().to_string(), &b));
                (path.as_path(), run)
            })
            .collect()
    }
}

impl DataSet {
    pub fn load(dir: &Path) -> Result<DataSet> {
        DataSet::from_files(&DataFiles::read(dir)?)
    }

    pub fn from_files(files: &DataFiles) -> Result<DataSet> {
        let mut warnings = Vec::new();
        let mut own_runs = Vec::new();
        let mut inspections = Vec::new();
        for (path, run) in files.runs("runs") {
            match run {
                Ok(run) if run.is_reference() => warnings.push(format!(
                    "{}: field `provenance.kind`: a reference file belongs in data/reference/, passed over",
                    path_for_terminal(path)
                )),
                // Never the run the chapters show: it has none of their
                // experiments, and as the newest it would blank them all.
                Ok(run) if run.inspect().is_some() => {
                    warnings.push(format!(
                        "{}: an inspection belongs in data/inspections/; shown on the \"your process\" page only",
                        path_for_terminal(path)
                    ));
                    inspections.push((run, path.to_path_buf()));
                }
                Ok(run) => own_runs.push(run),
                Err(e) => warnings.push(format!("{} (passed over)", error_for_terminal(&e))),
            }
        }
        let own = !own_runs.is_empty();
        let example = load_strict(files, "example", false)?;
        let (run, sources) = if own {
            // A reader's first partial run (`collector run syscall`) must
            // not blank every other chapter: each experiment the reader
            // has no record of is shown from the example, and says so.
            with_example_for_the_rest(merge(own_runs), merge(example))
        } else {
            merge(example)
        };
        let inspection = inspection(files, inspections, &mut warnings)?;
        Ok(DataSet {
            run,
            own,
            sources,
            references: load_strict(files, "reference", true)?,
            machines: load_strict(files, "machines", false)?,
            warnings,
            inspection,
        })
    }

    /// What a `{{chart}}` is built from: the shown run first, then the
    /// references, then the inspection (only the `inspect-*` charts read
    /// it).
    pub fn chart_runs(&self) -> Vec<&RunFile> {
        self.run
            .iter()
            .chain(&self.references)
            .chain(self.inspection.as_ref().map(|i| &i.run))
            .collect()
    }

    /// The reference file of `source_id` (e.g. `R1`) that reports
    /// `experiment`: a source's labs may be spread over several files.
    pub fn reference_with(&self, source_id: &str, experiment: &str) -> Option<&RunFile> {
        self.references.iter().find(|r| {
            matches!(&r.provenance, Provenance::Reference { source_id: id, .. } if id == source_id)
                && r.experiment(experiment).is_some()
        })
    }
}

/// The newest readable inspection in `data/inspections/` (plus any found
/// among the runs), else the committed example. A reader's file that does
/// not load, or is not an inspection, is passed over with a warning naming
/// the file and the field.
fn inspection(
    files: &DataFiles,
    mut found: Vec<(RunFile, PathBuf)>,
    warnings: &mut Vec<String>,
) -> Result<Option<Inspection>> {
    for (path, run) in files.runs("inspections") {
        match run {
            Ok(run) if run.inspect().is_some() => found.push((run, path.to_path_buf())),
            Ok(_) => warnings.push(format!(
                "{}: field `experiments`: no `inspect` results (a run belongs in data/runs/), passed over",
                path_for_terminal(path)
            )),
            Err(e) => warnings.push(format!("{} (passed over)", error_for_terminal(&e))),
        }
    }
    let own = !found.is_empty();
    if !own {
        for (path, run) in files.runs("example-inspection") {
            let run = run.map_err(|e| Error::msg(error_for_terminal(&e)))?;
            if run.inspect().is_none() {
                return Err(Error::msg(format!(
                    "{}: field `experiments`: expected a `collector inspect` file",
                    path_for_terminal(path)
                )));
            }
            found.push((run, path.to_path_buf()));
        }
    }
    found.sort_by_key(|(r, _)| std::cmp::Reverse(started(r)));
    Ok(found.into_iter().next().map(|(run, path)| Inspection {
        run,
        own,
        file: path
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned()),
    }))
}

/// Loads committed files, where any problem is ours and must stop the build.
fn load_strict(files: &DataFiles, folder: &str, reference: bool) -> Result<Vec<RunFile>> {
    let mut runs = Vec::new();
    for (path, run) in files.runs(folder) {
        let run = run.map_err(|e| Error::msg(error_for_terminal(&e)))?;
        if run.is_reference() != reference {
            let want = if reference { "reference" } else { "collector" };
            return Err(Error::msg(format!(
                "{}: field `provenance.kind`: expected a {want} file in {}",
                path_for_terminal(path),
                path_for_terminal(path.parent().unwrap_or(Path::new(folder)))
            )));
        }
        runs.push(run);
    }
    Ok(runs)
}

/// Where one experiment's numbers came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub run_id: String,
    /// When that run started, parsed.
    pub started: Option<UtcTime>,
    pub status: Status,
    /// Why it was skipped, failed or cut short.
    pub reason: Option<String>,
    /// The machine of that run, when it is not the machine the rest of the
    /// book describes (the newest run's): `AMD EPYC ..., kernel 6.1.0`.
    pub other_machine: Option<String>,
    /// The committed example's, shown because the reader's runs have no
    /// record of this experiment yet.
    pub example: bool,
    /// True for a `--quick` run.
    pub quick: bool,
    /// The machine the run was made on, when the file says.
    pub machine: Option<MachineContext>,
    /// What else the machine did while this experiment ran (schema 4).
    pub background: Option<pagewalk_model::Background>,
}

/// The newest run first: by parsed start time, then run id.
fn newest_first(runs: &mut [RunFile]) {
    runs.sort_by_key(|r| std::cmp::Reverse(started(r)));
}

/// When a run started, then its id: the order "newest" means.
fn started(r: &RunFile) -> (Option<UtcTime>, String) {
    match &r.provenance {
        Provenance::Collector {
            started_utc,
            run_id,
            ..
        } => (UtcTime::parse(started_utc).ok(), run_id.clone()),
        Provenance::Reference { .. } => (None, String::new()),
    }
}

/// How good a record is for the book: complete beats cut short beats
/// none (a skip or failure still says why).
fn rank(status: Status) -> u8 {
    match status {
        Status::Ok => 0,
        Status::Interrupted => 1,
        Status::Skipped | Status::Failed => 2,
    }
}

/// One run for the book out of many: the newest run's provenance and
/// machine, and for each experiment the best record, newest first within
/// a rank.
fn merge(mut runs: Vec<RunFile>) -> (Option<RunFile>, BTreeMap<String, Source>) {
    newest_first(&mut runs);
    let Some(base) = runs.first() else {
        return (None, BTreeMap::new());
    };
    let mut chosen: Vec<(&ExperimentRecord, &RunFile)> = Vec::new();
    for run in &runs {
        for record in &run.experiments {
            match chosen.iter_mut().find(|(r, _)| r.name == record.name) {
                Some(slot) if rank(record.status) < rank(slot.0.status) => *slot = (record, run),
                Some(_) => {}
                None => chosen.push((record, run)),
            }
        }
    }
    let sources = chosen
        .iter()
        .map(|(record, run)| {
            let (run_id, started, quick) = run.provenance.identity();
            let source = Source {
                run_id,
                started,
                status: record.status,
                reason: record.reason.clone(),
                other_machine: other_machine(base.machine.as_ref(), run.machine.as_ref()),
                example: false,
                quick,
                machine: run.machine.clone(),
                background: record.background.clone(),
            };
            (record.name.clone(), source)
        })
        .collect();
    let mut merged = base.clone();
    merged.experiments = chosen.into_iter().map(|(r, _)| r.clone()).collect();
    (Some(merged), sources)
}

/// The reader's merged run with every experiment it lacks taken from the
/// example's, each source marked as the example's and naming its machine
/// when that is not the reader's.
fn with_example_for_the_rest(
    own: (Option<RunFile>, BTreeMap<String, Source>),
    example: (Option<RunFile>, BTreeMap<String, Source>),
) -> (Option<RunFile>, BTreeMap<String, Source>) {
    let (Some(mut run), mut sources) = own else {
        return (None, BTreeMap::new());
    };
    let (Some(example), mut example_sources) = example else {
        return (Some(run), sources);
    };
    for record in example.experiments {
        if run.experiment(&record.name).is_some() {
            continue;
        }
        if let Some(mut source) = example_sources.remove(&record.name) {
            source.example = true;
            source.other_machine = other_machine(run.machine.as_ref(), example.machine.as_ref());
            sources.insert(record.name.clone(), source);
        }
        run.experiments.push(record);
    }
    (Some(run), sources)
}

/// A short name of `other` when it is not the same machine as `base`.
fn other_machine(base: Option<&MachineContext>, other: Option<&MachineContext>) -> Option<String> {
    let (base, other) = (base?, other?);
    let identity = |m: &MachineContext| {
        (
            m.cpu.model_name.clone(),
            m.cpu.logical_cpus,
            m.kernel_release.clone(),
            m.memory.mem_total_kib / (64 * 1024),
        )
    };
    (identity(base) != identity(other)).then(|| {
        format!(
            "{}, {} CPUs, kernel {}",
            other.cpu.model_name, other.cpu.logical_cpus, other.kernel_release
        )
    })
}

/// `*.json` directly in `dir`, sorted; a missing folder is empty.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::msg(format!(
                "{}: cannot list: {e}",
                path_for_terminal(dir)
            )))
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}
