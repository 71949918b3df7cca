//! Which files the book shows.
//!
//! - `data/runs/`: the reader's own `collector run` output. The newest one
//!   wins. A file that does not load is reported and passed over, so one bad
//!   file never hides the book.
//! - `data/example/`: the committed example run, shown when the reader has
//!   none. It is ours, so a bad file here fails the build.
//! - `data/reference/`: transcribed published figures; a bad file fails too.

use std::path::{Path, PathBuf};

use mdbook_preprocessor::errors::{Error, Result};
use pagewalk_model::{read_run, Provenance, RunFile};

/// Everything the chapters may draw on.
#[derive(Debug)]
pub struct DataSet {
    /// The run the book shows.
    pub run: Option<RunFile>,
    /// True when `run` came from `data/runs/` (the reader's own).
    pub own: bool,
    /// Published reference figures, in file-name order.
    pub references: Vec<RunFile>,
    /// Problems with reader files that were passed over.
    pub warnings: Vec<String>,
}

impl DataSet {
    pub fn load(dir: &Path) -> Result<DataSet> {
        let mut warnings = Vec::new();
        let mut own_runs = Vec::new();
        for path in json_files(&dir.join("runs"))? {
            match read_run(&path) {
                Ok(run) if run.is_reference() => warnings.push(format!(
                    "{}: field `provenance.kind`: a reference file belongs in data/reference/, passed over",
                    path.display()
                )),
                Ok(run) => own_runs.push(run),
                Err(e) => warnings.push(format!("{e} (passed over)")),
            }
        }
        let own = !own_runs.is_empty();
        let run = match newest(own_runs) {
            Some(run) => Some(run),
            None => newest(load_strict(&dir.join("example"), false)?),
        };
        Ok(DataSet {
            run,
            own,
            references: load_strict(&dir.join("reference"), true)?,
            warnings,
        })
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

/// Loads committed files, where any problem is ours and must stop the build.
fn load_strict(dir: &Path, reference: bool) -> Result<Vec<RunFile>> {
    let mut runs = Vec::new();
    for path in json_files(dir)? {
        let run = read_run(&path).map_err(Error::new)?;
        if run.is_reference() != reference {
            let want = if reference { "reference" } else { "collector" };
            return Err(Error::msg(format!(
                "{}: field `provenance.kind`: expected a {want} file in {}",
                path.display(),
                dir.display()
            )));
        }
        runs.push(run);
    }
    Ok(runs)
}

/// The run that started last (RFC 3339 UTC strings sort by time).
fn newest(runs: Vec<RunFile>) -> Option<RunFile> {
    runs.into_iter().max_by_key(|r| match &r.provenance {
        Provenance::Collector {
            started_utc,
            run_id,
            ..
        } => (started_utc.clone(), run_id.clone()),
        Provenance::Reference { .. } => (String::new(), String::new()),
    })
}

/// `*.json` directly in `dir`, sorted; a missing folder is empty.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::msg(format!("{}: cannot list: {e}", dir.display()))),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}
