//! Saving a run: the output folder is tried before anything is measured,
//! the file is read back with the model's own reader before it is called
//! written, and a run that cannot go where it was asked to is kept where
//! the reader can find it, never lost.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pagewalk_model::limits::MAX_FILE_BYTES;
use pagewalk_model::RunFile;

/// Whether run files can be written to `dir`, found out before the
/// measuring starts instead of after it: the folder is created if needed,
/// and a probe file as large as the largest run file the model accepts is
/// written, synced and removed, so a full disk, a quota or a file-size
/// limit (`ulimit -f`) is found now. The error names the folder and the
/// reason (read-only, full, not a folder, the limit...).
pub fn probe_writable(dir: &Path) -> Result<(), String> {
    let cannot = |e: io::Error| {
        let limit = match (e.raw_os_error(), crate::rlimits::file_size()) {
            (Some(libc::EFBIG), Some(limit)) => format!(
                " (the file-size limit, `ulimit -f`, is {limit} bytes, and a run file may take up to {MAX_FILE_BYTES} bytes; raise it with `ulimit -f unlimited`)"
            ),
            _ => String::new(),
        };
        format!("cannot write run files to {}: {e}{limit}", dir.display())
    };
    crate::rlimits::raise_file_size();
    fs::create_dir_all(dir).map_err(cannot)?;
    // Not the writer's `.RUNID.PID.json.tmp`: no run takes it for a leftover.
    let probe = dir.join(format!(".pagewalk-probe.{}", std::process::id()));
    let written = File::options()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|mut f| {
            let result = f
                .write_all(&vec![b'\n'; MAX_FILE_BYTES])
                .and_then(|()| f.sync_all());
            let _ = fs::remove_file(&probe);
            result
        });
    written.map_err(cannot)
}

/// A run that did not reach its folder: why, and where it was kept.
#[derive(Debug)]
pub struct NotSaved {
    pub reason: String,
    /// The file holding the run after all, if one could be written.
    pub kept: Option<PathBuf>,
    /// Why each place tried for `kept` refused, when none took it.
    pub fallback_errors: Vec<String>,
}

impl fmt::Display for NotSaved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reason)?;
        match &self.kept {
            Some(kept) => write!(f, "; the run is kept in {} instead", kept.display()),
            None => write!(
                f,
                "; it could not be kept anywhere else either ({})",
                self.fallback_errors.join("; ")
            ),
        }
    }
}

/// The last place a run can go when no file took it (a file-size limit
/// lowered while it measured, every folder full or read-only): standard
/// output, which is a terminal or a pipe and no file-size limit stops. The
/// reason goes to standard error first, so `> run.json` keeps the JSON
/// alone. Exit status 1: it did not reach its folder.
pub fn on_stdout(run: &RunFile, not: &NotSaved) -> std::process::ExitCode {
    eprintln!(
        "collector: {}; the run follows on standard output as JSON: save it to a file (`collector run ... > run.json`) and `collector validate` reads it",
        pagewalk_model::display::escaped_for_terminal(&not.to_string())
    );
    match serde_json::to_string_pretty(run) {
        Ok(text) => crate::stdout::println(&text),
        Err(e) => eprintln!("collector: cannot serialise the run either: {e}"),
    }
    std::process::ExitCode::FAILURE
}

/// Writes `run` to `dir/<run_id>.json` once the model's reader accepts
/// it (the reader the book, the page and `collector validate` use). When
/// the model refuses it, or the write fails, the text is kept in a file
/// of its own in the first of [`fallback_dirs`] that takes it.
pub fn save(dir: &Path, run_id: &str, run: &RunFile) -> Result<PathBuf, NotSaved> {
    // Lowered while the run measured (`prlimit --pid`): up again if it can be.
    crate::rlimits::raise_file_size();
    save_with(dir, run_id, run, &fallback_dirs())
}

/// [`save`], then `show` the summary naming the file the run went to. A
/// run that did not reach `dir` is kept elsewhere, the summary names that
/// file, and `Err` is the status the command ends with: a failure, said
/// on stderr after `who` (`collector`, `collector inspect`), or the run
/// printed on stdout when no file could hold it ([`on_stdout`]).
pub fn save_and_show(
    dir: &Path,
    run_id: &str,
    run: &RunFile,
    who: &str,
    show: impl FnOnce(&Path),
) -> Result<(), std::process::ExitCode> {
    let saved = save(dir, run_id, run);
    let path = match &saved {
        Ok(path) => path.clone(),
        Err(not) => match &not.kept {
            Some(kept) => kept.clone(),
            None => return Err(on_stdout(run, not)),
        },
    };
    show(&path);
    if let Err(not) = saved {
        eprintln!(
            "{who}: {}",
            pagewalk_model::display::escaped_for_terminal(&not.to_string())
        );
        return Err(std::process::ExitCode::FAILURE);
    }
    Ok(())
}

/// Where a run that could not be written is kept: the current folder,
/// then `$HOME`, then the system's temporary folder.
pub fn fallback_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let candidates = [
        std::env::current_dir().ok(),
        std::env::var_os("HOME").map(PathBuf::from),
        Some(std::env::temp_dir()),
    ];
    for dir in candidates.into_iter().flatten() {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

fn save_with(
    dir: &Path,
    run_id: &str,
    run: &RunFile,
    fallbacks: &[PathBuf],
) -> Result<PathBuf, NotSaved> {
    let text = match serde_json::to_string_pretty(run) {
        Ok(text) => text + "\n",
        Err(e) => {
            return Err(NotSaved {
                reason: format!("cannot serialise the run: {e}"),
                kept: None,
                fallback_errors: vec!["there is no text to keep".into()],
            });
        }
    };
    let label = dir.join(format!("{run_id}.json")).display().to_string();
    let failure = match pagewalk_model::parse_run_bytes(&label, text.as_bytes()) {
        Err(e) => format!(
            "the data model refuses this run, so it was not written to {} (a bug in the collector; please report it with the kept file): {e}",
            dir.display()
        ),
        Ok(_) => match super::json::write_new(dir, run_id, run) {
            Ok(path) => return Ok(path),
            Err(e) => e,
        },
    };
    let (kept, fallback_errors) = keep(&text, run_id, fallbacks);
    Err(NotSaved {
        reason: failure,
        kept,
        fallback_errors,
    })
}

/// Writes `text` to `pagewalk-<run_id>.json` (or `-1`, `-2`... when that
/// exists) in the first of `dirs` that takes it, created exclusively so
/// that nothing is replaced; `Err` lists why each refused.
fn keep(text: &str, run_id: &str, dirs: &[PathBuf]) -> (Option<PathBuf>, Vec<String>) {
    let mut errors = Vec::new();
    for dir in dirs {
        for n in 0..100 {
            let name = match n {
                0 => format!("pagewalk-{run_id}.json"),
                n => format!("pagewalk-{run_id}-{n}.json"),
            };
            let path = dir.join(name);
            let written = File::options()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut f| {
                    let result = f.write_all(text.as_bytes()).and_then(|()| f.sync_all());
                    if result.is_err() {
                        let _ = fs::remove_file(&path);
                    }
                    result
                });
            match written {
                Ok(()) => return (Some(path), errors),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    errors.push(format!("{}: {e}", path.display()));
                    break;
                }
            }
        }
    }
    (None, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{ExperimentRecord, Provenance, Status, SCHEMA_VERSION};

    fn run(experiments: Vec<ExperimentRecord>) -> RunFile {
        RunFile {
            schema_version: SCHEMA_VERSION,
            provenance: Provenance::Reference {
                source_id: "T".into(),
                name: "test".into(),
                conditions: "c".into(),
                note: "n".into(),
            },
            machine: None,
            experiments,
        }
    }

    /// A file under a regular file: no folder can be made there, even by root.
    fn not_a_folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        fs::write(&file, "x").unwrap();
        (dir, file.join("runs"))
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_found_before_measuring() {
        let (_dir, under_a_file) = not_a_folder();
        let err = probe_writable(&under_a_file).unwrap_err();
        assert!(err.contains(&under_a_file.display().to_string()), "{err}");
        assert!(err.contains("Not a directory"), "{err}");
        // /proc exists and refuses new files, root or not.
        let err = probe_writable(Path::new("/proc")).unwrap_err();
        assert!(err.contains("cannot write run files to /proc"), "{err}");

        let ok = tempfile::tempdir().unwrap();
        let runs = ok.path().join("new").join("runs");
        probe_writable(&runs).unwrap();
        assert_eq!(fs::read_dir(&runs).unwrap().count(), 0, "no probe left");
    }

    #[test]
    fn a_failed_write_keeps_the_run_where_it_can_be_found() {
        let (_dir, under_a_file) = not_a_folder();
        let spare = tempfile::tempdir().unwrap();
        // The first place refuses too: the next one takes it.
        let fallbacks = [PathBuf::from("/proc"), spare.path().to_path_buf()];
        let not = save_with(&under_a_file, "r1", &run(Vec::new()), &fallbacks).unwrap_err();
        let kept = not.kept.clone().expect("kept somewhere");
        assert_eq!(kept, spare.path().join("pagewalk-r1.json"));
        pagewalk_model::read_run(&kept).unwrap();
        let message = not.to_string();
        assert!(message.contains(&kept.display().to_string()), "{message}");
        assert!(message.contains("cannot create"), "{message}");
        assert!(message.contains("Not a directory"), "{message}");

        // A second failure with the same id never replaces the first.
        let again = save_with(&under_a_file, "r1", &run(Vec::new()), &fallbacks).unwrap_err();
        assert_eq!(again.kept, Some(spare.path().join("pagewalk-r1-1.json")));
    }

    #[test]
    fn a_run_the_model_refuses_is_not_written_but_kept() {
        // Skipped without a reason: the model's validator refuses it.
        let bad = run(vec![ExperimentRecord {
            name: "first-touch".into(),
            status: Status::Skipped,
            reason: None,
            duration_s: None,
            checks: Vec::new(),
            background: None,
            results: None,
        }]);
        let out = tempfile::tempdir().unwrap();
        let spare = tempfile::tempdir().unwrap();
        let not = save_with(out.path(), "r2", &bad, &[spare.path().to_path_buf()]).unwrap_err();
        let message = not.to_string();
        assert!(
            message.contains("the data model refuses this run"),
            "{message}"
        );
        assert!(message.contains("experiments[0].reason"), "{message}");
        assert_eq!(
            fs::read_dir(out.path()).unwrap().count(),
            0,
            "nothing written"
        );
        let kept = not.kept.unwrap();
        assert!(fs::read_to_string(&kept).unwrap().contains("first-touch"));
        assert!(message.contains(&kept.display().to_string()), "{message}");

        // A run it accepts goes where it was asked to.
        let path = save_with(out.path(), "r3", &run(Vec::new()), &[]).unwrap();
        assert_eq!(path, out.path().join("r3.json"));
    }
}
