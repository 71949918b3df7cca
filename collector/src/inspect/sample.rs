//! One look at a process through `/proc/PID`: its own counters, read
//! without ptrace or signals. Every file is hostile text (the process names
//! itself, and can name itself `x) R 1 2`): parsers are pure functions that
//! refuse what does not fit, tested on samples.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;

use crate::procfs::parse_kib_fields;

/// The fields of `/proc/PID/stat` (or `task/TID/stat`) inspect uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Stat {
    pub comm: String,
    pub state: char,
    pub minor_faults: u64,
    pub major_faults: u64,
    /// utime + stime, clock ticks.
    pub cpu_ticks: u64,
    pub threads: u32,
    /// Start time in ticks since boot: a PID reused by a new process has
    /// another one.
    pub start_ticks: u64,
    pub processor: u32,
    pub policy: u32,
}

/// `pid (comm) state ppid ...`: `comm` may hold spaces and parentheses, so
/// the fields start after the *last* `)`.
pub fn parse_stat(text: &str) -> Result<Stat, String> {
    let bad = |what: &str| format!("unexpected stat line ({what})");
    let open = text.find('(').ok_or_else(|| bad("no `(`"))?;
    let close = text.rfind(')').ok_or_else(|| bad("no `)`"))?;
    if close < open {
        return Err(bad("`)` before `(`"));
    }
    let comm = clean(&text[open + 1..close]);
    let rest: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // `rest[0]` is field 3 of proc(5): field n is `rest[n - 3]`.
    let field = |n: usize| -> Result<u64, String> {
        rest.get(n - 3)
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| bad(&format!("field {n}")))
    };
    let small = |n: usize| field(n).and_then(|v| u32::try_from(v).map_err(|_| bad("too large")));
    let state = rest
        .first()
        .and_then(|s| s.chars().next())
        .ok_or_else(|| bad("no state"))?;
    Ok(Stat {
        comm,
        state,
        minor_faults: field(10)?,
        major_faults: field(12)?,
        cpu_ticks: field(14)?.saturating_add(field(15)?),
        threads: small(20)?,
        start_ticks: field(22)?,
        processor: small(39)?,
        policy: small(41)?,
    })
}

/// A process-chosen name, shown in a terminal and stored: no control
/// characters (escape sequences), at most the kernel's 16-byte `comm`.
pub fn clean(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .take(16)
        .collect()
}

/// `/proc/PID/status`: the context switches and the allowed CPUs and nodes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    pub voluntary_switches: Option<u64>,
    pub involuntary_switches: Option<u64>,
    pub rss_kib: Option<u64>,
    pub cpus_allowed: Option<String>,
    pub mems_allowed: Option<String>,
    /// `THP_enabled: 0` after `prctl(PR_SET_THP_DISABLE)`.
    pub thp_enabled: Option<bool>,
}

pub fn parse_status(text: &str) -> Status {
    let mut s = Status::default();
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let number = || value.split_whitespace().next()?.parse().ok();
        // A CPU list is digits, commas and dashes; anything else is refused.
        let list = || {
            value
                .chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == '-')
                .then(|| value.to_string())
        };
        match name {
            "voluntary_ctxt_switches" => s.voluntary_switches = number(),
            "nonvoluntary_ctxt_switches" => s.involuntary_switches = number(),
            "VmRSS" => s.rss_kib = number(),
            "Cpus_allowed_list" => s.cpus_allowed = list(),
            "Mems_allowed_list" => s.mems_allowed = list(),
            "THP_enabled" => s.thp_enabled = number().map(|n: u64| n != 0),
            _ => {}
        }
    }
    s
}

/// `/proc/PID/task/TID/schedstat`: ns on a CPU, ns waiting in a run
/// queue, timeslices.
pub fn parse_schedstat(text: &str) -> Option<(u64, u64)> {
    let mut words = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some((words.next()??, words.next()??))
}

/// Two counters per thread id, e.g. (on-CPU ns, run-queue wait ns).
pub type PerThread = BTreeMap<u32, (u64, u64)>;

/// What one sample read of the process.
#[derive(Debug, Clone)]
pub struct Raw {
    pub stat: Stat,
    pub status: Result<Status, String>,
    /// (on-CPU ns, run-queue wait ns) per thread.
    pub schedstat: Result<PerThread, String>,
    /// (voluntary, involuntary) context switches per thread: the process's
    /// own `status` only counts its main thread's.
    pub switches: PerThread,
    /// CPUs its threads were last on.
    pub cpus: BTreeSet<u32>,
    /// `smaps_rollup` fields in KiB.
    pub rollup: Result<BTreeMap<String, u64>, String>,
}

/// Reads `/proc/PID/stat`; the errors are worded for the person who typed
/// the PID.
pub fn read_stat(pid: u32) -> Result<Stat, String> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => format!("no process {pid} (it exited, or never existed)"),
        io::ErrorKind::PermissionDenied => format!("not permitted to read /proc/{pid}/stat: {e}"),
        _ => format!("cannot read /proc/{pid}/stat: {e}"),
    })?;
    parse_stat(&text).map_err(|e| format!("/proc/{pid}/stat: {e}"))
}

pub fn read(pid: u32) -> Result<Raw, String> {
    let stat = read_stat(pid)?;
    let file = |name: &str| {
        let path = format!("/proc/{pid}/{name}");
        fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))
    };
    let status = file("status").map(|t| parse_status(&t));
    let rollup = file("smaps_rollup").and_then(|t| {
        // A kernel thread or a zombie has no memory: an empty rollup.
        let fields = parse_kib_fields(&t);
        if fields.is_empty() {
            Err(format!("/proc/{pid}/smaps_rollup: empty (no memory map)"))
        } else {
            Ok(fields)
        }
    });
    let mut raw = Raw {
        cpus: BTreeSet::from([stat.processor]),
        stat,
        status,
        schedstat: Ok(PerThread::new()),
        switches: PerThread::new(),
        rollup,
    };
    threads(pid, &mut raw);
    Ok(raw)
}

/// Per-thread schedstat, context switches and last CPU. A thread that
/// exits between listing and reading is skipped, not an error.
fn threads(pid: u32, raw: &mut Raw) {
    let dir = format!("/proc/{pid}/task");
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            raw.schedstat = Err(format!("{dir}: {e}"));
            return;
        }
    };
    let mut sched = PerThread::new();
    let mut first_error = None;
    for entry in entries.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<u32>().ok())
        else {
            continue;
        };
        let read = |name: &str| fs::read_to_string(format!("{dir}/{tid}/{name}"));
        if let Some(s) = read("stat").ok().and_then(|t| parse_stat(&t).ok()) {
            raw.cpus.insert(s.processor);
        }
        if let Ok(t) = read("status") {
            let s = parse_status(&t);
            if let (Some(v), Some(i)) = (s.voluntary_switches, s.involuntary_switches) {
                raw.switches.insert(tid, (v, i));
            }
        }
        match read("schedstat") {
            Ok(t) => match parse_schedstat(&t) {
                Some(v) => {
                    sched.insert(tid, v);
                }
                None => first_error = Some(format!("{dir}/{tid}/schedstat: unexpected content")),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => first_error = Some(format!("{dir}/{tid}/schedstat: {e}")),
        }
    }
    raw.schedstat = match first_error {
        Some(e) if sched.is_empty() => Err(e),
        _ => Ok(sched),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str =
        "4242 (a b) c) R 1 4242 4242 0 -1 4194560 1500 0 2 0 30 12 0 0 20 0 3 0 987654 \
        10000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

    #[test]
    fn stat_fields_after_the_last_parenthesis() {
        let s = parse_stat(STAT).unwrap();
        assert_eq!(s.comm, "a b) c");
        assert_eq!(s.state, 'R');
        assert_eq!((s.minor_faults, s.major_faults), (1500, 2));
        assert_eq!(s.cpu_ticks, 42);
        assert_eq!(s.threads, 3);
        assert_eq!(s.start_ticks, 987654);
        assert_eq!(s.processor, 1);
        assert_eq!(s.policy, 0);
    }

    #[test]
    fn stat_garbage_is_refused() {
        assert!(parse_stat("").is_err());
        assert!(parse_stat("1 (x) R 1 2").is_err());
        assert!(parse_stat(&STAT.replace(" 1500 ", " many ")).is_err());
    }

    #[test]
    fn names_lose_control_characters_and_length() {
        assert_eq!(clean("evil\x1b[2Jname"), "evil?[2Jname");
        assert_eq!(clean("abcdefghijklmnopqrstuvwxyz").len(), 16);
    }

    #[test]
    fn status_fields() {
        let s = parse_status(
            "Name:\tx\nVmRSS:\t  2048 kB\nCpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n\
             voluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t3\nTHP_enabled:\t1\n",
        );
        assert_eq!(s.rss_kib, Some(2048));
        assert_eq!(s.cpus_allowed.as_deref(), Some("0-1"));
        assert_eq!(
            (s.voluntary_switches, s.involuntary_switches),
            (Some(10), Some(3))
        );
        assert_eq!(s.thp_enabled, Some(true));
        assert_eq!(
            parse_status("Cpus_allowed_list:\t0;rm -rf\n").cpus_allowed,
            None
        );
    }

    #[test]
    fn schedstat_triples() {
        assert_eq!(parse_schedstat("100 200 3\n"), Some((100, 200)));
        assert_eq!(parse_schedstat("100\n"), None);
    }
}
