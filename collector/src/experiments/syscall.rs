//! # syscall
//!
//! Premise: entering the kernel has a floor, and it is not where the time
//! usually goes. `clock_gettime` runs in user space through the vDSO (no
//! entry at all); `getpid` (as a raw `syscall`, since glibc may cache it)
//! is the cheapest real entry and exit, raised by the speculative-execution
//! mitigations in force; `open` + `close` adds path lookup and a file
//! object. Tracing multiplies the floor (`strace` stops the process at
//! every call), and waiting for another thread to wake costs far more than
//! any entry. Each call is timed in batches, so the clock's own cost is
//! spread over many calls; each wake-up is timed on its own.

use std::ffi::CString;
use std::hint::black_box;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use pagewalk_model::{Latency, Mitigation, Results, SyscallOp, SyscallOpResult, SyscallResults};
use serde_json::Value;

use super::{Env, Outcome};
use crate::scratch::Scratch;
use crate::timing::{self, Recorder};
use crate::{interrupt, progress, strace};

/// The vulnerabilities whose mitigations sit on the kernel entry or exit
/// path (page-table switch, return thunks, buffer clearing).
const ENTRY_RELEVANT: &[&str] = &[
    "meltdown",
    "spectre_v1",
    "spectre_v2",
    "retbleed",
    "spec_rstack_overflow",
    "mds",
    "tsx_async_abort",
    "mmio_stale_data",
    "reg_file_data_sampling",
    "tsa",
    "indirect_target_selection",
];

/// (batches, calls per batch) for each batched operation.
fn plan(op: SyscallOp, quick: bool) -> (u64, u64) {
    let batches = if quick { 30 } else { 200 };
    match op {
        SyscallOp::ClockGettime => (batches, 10_000),
        SyscallOp::Getpid => (batches, 2_000),
        SyscallOp::OpenClose => (batches, 100),
        // Traced calls cost tens of microseconds each.
        SyscallOp::GetpidStrace => (if quick { 5 } else { 20 }, 200),
        SyscallOp::Wakeup => (if quick { 1_000 } else { 5_000 }, 1),
    }
}

pub fn run(env: &Env) -> Result<Outcome, String> {
    let quick = env.settings.quick;
    let strace = strace::find();
    let bar = progress::bar(SyscallOp::ALL.len() as u64, "syscall");
    let mut ops = Vec::new();
    for op in SyscallOp::ALL {
        if interrupt::requested() {
            break;
        }
        bar.set_message(op.name());
        let (batches, per_batch) = plan(op, quick);
        let measured = match op {
            SyscallOp::ClockGettime => Ok((clock_gettime(batches, per_batch).latency(false), None)),
            SyscallOp::Getpid => Ok((getpid(batches, per_batch).latency(false), None)),
            SyscallOp::OpenClose => open_close(batches, per_batch),
            SyscallOp::GetpidStrace => strace
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|s| getpid_traced(s, batches, per_batch)),
            SyscallOp::Wakeup => {
                wakeups(batches).map(|r| (r.latency(false), Some(WAKEUP_DETAIL.into())))
            }
        };
        ops.push(match measured {
            Ok((latency, detail)) => SyscallOpResult {
                op,
                skipped: None,
                calls_per_batch: Some(per_batch),
                latency,
                detail,
            },
            Err(reason) => SyscallOpResult {
                op,
                skipped: Some(reason),
                calls_per_batch: None,
                latency: None,
                detail: None,
            },
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(Outcome::Done {
        results: Results::Syscall(SyscallResults {
            ops,
            mitigations: mitigations(&env.machine.vulnerabilities),
            strace_version: strace.ok().and_then(|s| strace::version(&s)),
        }),
        checks: Vec::new(),
    })
}

fn mitigations(all: &std::collections::BTreeMap<String, String>) -> Vec<Mitigation> {
    ENTRY_RELEVANT
        .iter()
        .filter_map(|&name| {
            Some(Mitigation {
                name: name.to_string(),
                status: all.get(name)?.clone(),
            })
        })
        .collect()
}

fn clock_gettime(batches: u64, per_batch: u64) -> Recorder {
    // SAFETY: timespec is plain data; clock_gettime fills it.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    Recorder::of(&timing::batches(batches, per_batch, |_| unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
        black_box(&ts);
    }))
}

/// A real `getpid` every call: `syscall(SYS_getpid)` bypasses any caching
/// in the C library.
pub fn getpid(batches: u64, per_batch: u64) -> Recorder {
    // SAFETY: getpid has no arguments and cannot fail.
    Recorder::of(&timing::batches(batches, per_batch, |_| {
        black_box(unsafe { libc::syscall(libc::SYS_getpid) });
    }))
}

fn open_close(batches: u64, per_batch: u64) -> Result<(Option<Latency>, Option<String>), String> {
    // A file of our own in the temporary directory: a plain file system
    // lookup, not procfs's generated files. In a private folder (removed
    // when `scratch` drops, on every return), created exclusively: never
    // through a symlink someone planted.
    let scratch =
        Scratch::new("syscall").map_err(|e| format!("a private temporary folder: {e}"))?;
    let path = scratch.path().join("open-close");
    std::fs::File::create_new(&path)
        .and_then(|mut f| io::Write::write_all(&mut f, b"pagewalk"))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    let mut failed = false;
    let values = timing::batches(batches, per_batch, |_| {
        // SAFETY: a valid NUL-terminated path; the fd is closed at once.
        let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        failed |= fd < 0;
        unsafe { libc::close(fd) };
    });
    let err = io::Error::last_os_error();
    drop(scratch);
    if failed {
        return Err(format!("open({}): {err}", path.display()));
    }
    Ok((
        Recorder::of(&values).latency(false),
        Some(format!(
            "open(O_RDONLY) + close of a small file in {}",
            std::env::temp_dir().display()
        )),
    ))
}

/// The same getpid loop in a child under `strace -f -e trace=getpid`; the
/// child times itself and prints the distribution.
fn getpid_traced(
    strace: &std::path::Path,
    batches: u64,
    per_batch: u64,
) -> Result<(Option<Latency>, Option<String>), String> {
    let args: Vec<String> = [
        "probe",
        "getpid",
        "--batches",
        &batches.to_string(),
        "--per-batch",
        &per_batch.to_string(),
    ]
    .map(String::from)
    .to_vec();
    let out = strace::traced(strace, "getpid", &args)?;
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("probe output: {e}"))?;
    let latency = pagewalk_model::json::from_value(&v["latency"]).map_err(|e| e.to_string())?;
    Ok((
        latency,
        Some(format!(
            "strace -f -qq -e trace=getpid -o /dev/null collector {}",
            args.join(" ")
        )),
    ))
}

/// What `probe getpid` prints: the distribution of the same loop.
pub fn getpid_report(batches: u64, per_batch: u64) -> Value {
    serde_json::json!({ "latency": getpid(batches, per_batch).latency(false) })
}

const WAKEUP_DETAIL: &str =
    "two threads ping-pong one byte over two pipes; each round trip timed, halved";

/// One-way wake-up latency: half of each pipe ping-pong round trip. The
/// other thread is blocked in `read` when the byte arrives, so each leg is
/// a real wake-up.
fn wakeups(rounds: u64) -> Result<Recorder, String> {
    let (ping_r, ping_w) = pipe()?;
    let (pong_r, pong_w) = pipe()?;
    let echo = std::thread::spawn(move || {
        let mut b = [0u8; 1];
        // Ends when the ping pipe closes (read returns 0).
        while read_byte(&ping_r, &mut b) {
            if !write_byte(&pong_w, b[0]) {
                break;
            }
        }
    });
    let mut rec = Recorder::new();
    let mut b = [0u8; 1];
    for i in 0..=rounds {
        let start = Instant::now();
        if !write_byte(&ping_w, 1) || !read_byte(&pong_r, &mut b) {
            return Err(format!("pipe ping-pong: {}", io::Error::last_os_error()));
        }
        // The first round trip starts the other thread: not recorded.
        if i > 0 {
            rec.record_ns(start.elapsed().as_nanos() as f64 / 2.0);
        }
    }
    drop(ping_w);
    let _ = echo.join();
    Ok(rec)
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fds we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe2: {}", io::Error::last_os_error()));
    }
    use std::os::fd::FromRawFd;
    // SAFETY: both fds are fresh and owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn read_byte(fd: &OwnedFd, b: &mut [u8; 1]) -> bool {
    // SAFETY: reads at most one byte into `b`.
    unsafe { libc::read(fd.as_raw_fd(), b.as_mut_ptr().cast(), 1) == 1 }
}

fn write_byte(fd: &OwnedFd, b: u8) -> bool {
    // SAFETY: writes one byte from a local.
    unsafe { libc::write(fd.as_raw_fd(), (&b as *const u8).cast(), 1) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symlink planted at the name this file once had (predictable:
    /// the process id) is never written through, and the private folder
    /// used instead is gone after the call.
    #[test]
    fn open_close_never_writes_through_a_planted_symlink() {
        let victim_dir = tempfile::tempdir().unwrap();
        let victim = victim_dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let pid = std::process::id();
        let planted = std::env::temp_dir().join(format!("pagewalk-syscall-{pid}"));
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let result = open_close(2, 10);
        let _ = std::fs::remove_file(&planted);
        assert_eq!(result.unwrap().0.unwrap().n, Some(2));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let left =
            crate::scratch::in_temp_dir(&format!("{}syscall-{pid}-", crate::scratch::PREFIX));
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn every_operation_measures() {
        assert_eq!(clock_gettime(2, 100).len(), 2);
        assert_eq!(getpid(2, 100).len(), 2);
        assert_eq!(open_close(2, 10).unwrap().0.unwrap().n, Some(2));
        let w = wakeups(20).unwrap();
        assert_eq!(w.len(), 20);
        assert!(w.latency(false).unwrap().p50_ns.unwrap() > 0.0);
    }

    #[test]
    fn probe_report_has_every_batch() {
        let v = getpid_report(3, 10);
        assert_eq!(v["latency"]["n"], 3);
    }

    #[test]
    fn only_entry_relevant_mitigations() {
        let all = [
            ("spectre_v2", "Mitigation: Retpolines"),
            ("itlb_multihit", "Not affected"),
            ("meltdown", "Not affected"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .into();
        let m = mitigations(&all);
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["meltdown", "spectre_v2"]);
        assert!(m[1].active() && !m[0].active());
    }
}
