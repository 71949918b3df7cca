//! Reading a [`RunFile`] back, with errors a person can act on: every error
//! names the file and, where there is one, the field (`experiments[0].status`).

use std::fmt;
use std::path::Path;

use crate::limits::{check_tree, MAX_FILE_BYTES};
use crate::rules;
use crate::run::{ExperimentRecord, Provenance, Results, RunFile, Status};
use crate::time::UtcTime;
use crate::SCHEMA_VERSION;

mod upgrade;
use upgrade::{upgrade_from_v2, upgrade_from_v3, upgrade_from_v5};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// The file's path, or a label such as `dropped file foo.json`.
    pub file: String,
    /// Dotted path of the offending field; `None` for whole-file problems
    /// (unreadable, not JSON at all).
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: field `{}`: {}", self.file, field, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ModelError {}

/// Reads and validates a run file from disk. A file larger than
/// [`MAX_FILE_BYTES`] is refused before it is read.
pub fn read_run(path: &Path) -> Result<RunFile, ModelError> {
    parse_run_bytes(&path.display().to_string(), &read_run_bytes(path)?)
}

/// A run file's bytes, read only from a regular file and never more than
/// [`MAX_FILE_BYTES`] + 1 of them (so [`parse_run_bytes`] can refuse it).
pub fn read_run_bytes(path: &Path) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    let cannot = |message: String| ModelError {
        file: path.display().to_string(),
        field: None,
        message,
    };
    let mut bytes = Vec::new();
    open_regular(path)
        .map_err(cannot)?
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(format!("cannot read: {e}")))?;
    Ok(bytes)
}

/// Opens `path` for reading only if it is a regular file (after
/// following links). A FIFO would block the open and then the read until
/// something writes, a device or `/proc/self/fd/1` would never end: the
/// open does not block (`O_NONBLOCK`, which a regular file ignores) and the
/// type is checked on the open file, so a swap between check and read
/// changes nothing.
pub fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read: {e}"))?;
    let kind = file
        .metadata()
        .map_err(|e| format!("cannot read: {e}"))?
        .file_type();
    if kind.is_file() {
        Ok(file)
    } else {
        Err(format!(
            "is not a regular file ({}); passed over unread",
            file_kind(&kind)
        ))
    }
}

/// `O_NONBLOCK` on Linux x86-64 and arm64 (`asm-generic/fcntl.h`); the
/// model does not depend on libc for one constant.
#[cfg(unix)]
const O_NONBLOCK: i32 = 0o4000;

fn file_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

/// Parses and validates a run file's bytes: the one rule for the CLI, the
/// book build and the page. UTF-8 only; a leading byte-order mark (some
/// editors add one) is ignored; at most [`MAX_FILE_BYTES`].
pub fn parse_run_bytes(file: &str, bytes: &[u8]) -> Result<RunFile, ModelError> {
    let whole = |message: String| ModelError {
        file: file.to_string(),
        field: None,
        message,
    };
    if bytes.len() > MAX_FILE_BYTES {
        return Err(whole(format!(
            "is larger than {} MiB, the most a run file may be (a full run writes under 1 MiB)",
            MAX_FILE_BYTES >> 20
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        whole(format!(
            "is not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    parse_run(file, text)
}

/// Parses and validates a run file's text; `file` is only used in errors.
pub fn parse_run(file: &str, text: &str) -> Result<RunFile, ModelError> {
    let err = |field: Option<String>, message: String| ModelError {
        file: file.to_string(),
        field,
        message,
    };
    if text.len() > MAX_FILE_BYTES {
        return Err(err(
            None,
            format!("is larger than {} MiB", MAX_FILE_BYTES >> 20),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value = crate::json::parse(text).map_err(|e| match e.field() {
        Some(field) => err(Some(field), e.message().to_string()),
        None => err(None, format!("not valid JSON: {e}")),
    })?;
    // The version decides how to read the rest, so check it before anything
    // else: a newer file must say "newer", not "unknown field".
    let version = value.get("schema_version").ok_or_else(|| {
        err(
            Some("schema_version".into()),
            "missing (is this a pagewalk data file?)".into(),
        )
    })?;
    let version = version.as_u64().ok_or_else(|| {
        err(
            Some("schema_version".into()),
            format!(
                "expected a whole number, found {}",
                match version {
                    // Echoed whole, a long string would fill a terminal.
                    serde_json::Value::String(s) if s.len() > 40 => {
                        format!("a string of {} bytes", s.len())
                    }
                    v => crate::json::describe(v),
                }
            ),
        )
    })?;
    if version > SCHEMA_VERSION as u64 {
        return Err(err(
            Some("schema_version".into()),
            format!(
                "is {version}, newer than this build reads (up to {SCHEMA_VERSION}); update pagewalk to read it"
            ),
        ));
    }
    if version == 0 {
        return Err(err(
            Some("schema_version".into()),
            "0 is not a schema version".into(),
        ));
    }
    check_tree(&value, memory_bytes(&value)).map_err(|(f, m)| err(Some(f), m))?;
    let mut run: RunFile =
        crate::json::from_value(&value).map_err(|e| err(e.field(), e.message().to_string()))?;
    if version < 3 {
        upgrade_from_v2(&mut run);
    }
    if version < 4 {
        upgrade_from_v3(&mut run);
    }
    if version < 6 {
        upgrade_from_v5(&mut run);
    }
    validate(&run).map_err(|(field, msg)| err(Some(field), msg))?;
    Ok(run)
}

/// The machine's memory as the file states it, for the size rules.
fn memory_bytes(value: &serde_json::Value) -> Option<f64> {
    let kib = value.pointer("/machine/memory/mem_total_kib")?.as_f64()?;
    (kib > 0.0).then_some(kib * 1024.0)
}

/// Rules serde cannot express: a status and its companions must agree,
/// timestamps are timestamps, counts agree with what was counted.
fn validate(run: &RunFile) -> Result<(), (String, String)> {
    validate_provenance(&run.provenance)?;
    for (i, e) in run.experiments.iter().enumerate() {
        let at = |f: &str| format!("experiments[{i}].{f}");
        // Two records of one experiment would leave which one a chapter
        // shows to the order of a search.
        if let Some(first) = run.experiments[..i].iter().position(|o| o.name == e.name) {
            return Err((
                at("name"),
                format!(
                    "{} is there already (experiments[{first}]); a run file holds each experiment once",
                    crate::json::quoted(&e.name)
                ),
            ));
        }
        match e.status {
            Status::Ok if e.results.is_none() => {
                return Err((
                    at("results"),
                    format!("missing for `{}` with status ok", e.name),
                ))
            }
            Status::Skipped | Status::Failed | Status::Interrupted
                if e.reason.as_deref().unwrap_or("").is_empty() =>
            {
                return Err((
                    at("reason"),
                    // (No `to_lowercase`: its Unicode tables would ship in
                    // every wasm module that reads run files.)
                    format!("required when status is {}", e.status.name()),
                ));
            }
            _ => {}
        }
        // A premise that could not be checked did not pass either: a file
        // saying both would have the book count it as held.
        if let Some(c) = e
            .checks
            .iter()
            .position(|c| c.passed && c.cannot_tell.is_some())
        {
            return Err((
                at(&format!("checks[{c}].cannot_tell")),
                "is set on a check that passed; a premise that could not be checked did not pass"
                    .into(),
            ));
        }
        let Some(results) = &e.results else { continue };
        expect_name(e, results.kind().name()).map_err(|m| (at("name"), m))?;
        // Rules of one kind's content that serde cannot express.
        let field = |f: &str| at(&format!("results.{}.{f}", results.kind().name()));
        let checked = match results {
            Results::FirstTouch(ft) => rules::first_touch(ft),
            Results::Inspect(r) => r.check(),
            Results::Tail(t) => rules::tail(t),
            Results::Numa(n) => rules::numa(n),
            Results::Staircase(s) => rules::curves(&s.curves),
            Results::TlbReach(t) => rules::tlb_reach(t),
            Results::Thp(t) => rules::thp(t),
            Results::Shootdown(s) => rules::shootdown(s),
            Results::Mlp(m) => rules::mlp(m),
            Results::Walk(w) => rules::walk(w),
            Results::Noise(n) => rules::noise(n),
            Results::Alloc(_) | Results::Syscall(_) => Ok(()),
        };
        checked.map_err(|(f, m)| (field(&f), m))?;
    }
    Ok(())
}

fn validate_provenance(p: &Provenance) -> Result<(), (String, String)> {
    let Provenance::Collector {
        run_id,
        started_utc,
        finished_utc,
        ..
    } = p
    else {
        return Ok(());
    };
    let field = |f: &str| format!("provenance.{f}");
    let started = UtcTime::parse(started_utc).map_err(|m| (field("started_utc"), m))?;
    // The newest run is the one shown: a date from the future would shadow
    // every run made after it, for good.
    if let Some(now) = now_unix_seconds() {
        if started.unix_seconds() > now + 86_400 {
            return Err((
                field("started_utc"),
                format!("is {started}, more than a day after this machine's clock says it is now"),
            ));
        }
    }
    if let Some(t) = finished_utc {
        let finished = UtcTime::parse(t).map_err(|m| (field("finished_utc"), m))?;
        if finished < started {
            return Err((
                field("finished_utc"),
                format!("is {finished}, before the run started ({started})"),
            ));
        }
    }
    // The run id is also a file name: letters, digits and dashes only.
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-';
    if run_id.is_empty() || run_id.len() > 64 || !run_id.chars().all(plain) {
        return Err((
            field("run_id"),
            format!(
                "{} is not a run id (letters, digits and dashes, at most 64)",
                crate::json::quoted(run_id)
            ),
        ));
    }
    Ok(())
}

/// The clock, where there is one without JavaScript: the page
/// (wasm32-unknown-unknown) has none, and a dropped file shadows nothing.
fn now_unix_seconds() -> Option<i64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        i64::try_from(now.as_secs()).ok()
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

fn expect_name(e: &ExperimentRecord, name: &str) -> Result<(), String> {
    if e.name == name {
        Ok(())
    } else {
        Err(format!(
            "is `{}` but its results are {name} results",
            e.name
        ))
    }
}

#[cfg(test)]
mod tests;
