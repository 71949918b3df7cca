//! Every read-only shell line in the book runs on this machine.
//!
//! Each command line of a `sh` block runs with bash, in order, in a folder of
//! its own per block. It must exit 0, or fail for a reason this file names
//! ("not available here": a tool that is not installed, a CPU or a sysfs
//! file this machine does not have, a perf event its CPU does not count).
//! Any other failure names the chapter and line.
//!
//! Not run, and said so: a line that changes the system, marked in the book
//! by a comment saying "changes the system" on the line or heading its
//! paragraph, and a full collector run.
//!
//! The reader's own program is a stand-in: `./server`, `./prog`, `./bench`...
//! are a tiny C program, `$PID` and `$TID` are a copy of it that waits, and
//! `bench.c` is the dead-store benchmark the first-touch chapter describes.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::{blocks, Block};

/// What the stand-ins are called in the book.
const PROGRAMS: &[&str] = &["server", "prog", "your-program", "bench", "loader"];

/// The reader's program: exits at once, or with an argument waits for a
/// signal, so that it has a `$PID` to look at.
const STAND_IN: &str = "#include <unistd.h>\n\
    int main(int argc, char **argv) { (void)argv; if (argc > 1) pause(); return 0; }\n";

/// R1's benchmark as the first-touch chapter tells it: the buffer is written
/// and freed unread, so gcc -O2 drops the memset.
const BENCH_C: &str = "#include <stdlib.h>\n#include <string.h>\n\
    int main(void) { size_t n = 1UL << 30; char *b = malloc(n); memset(b, 0, n); free(b); return 0; }\n";

/// Tools a machine may lack; a command that needs one is skipped with a reason.
const OPTIONAL_TOOLS: &[&str] = &[
    "perf",
    "numactl",
    "numastat",
    "cpupower",
    "strace",
    "lscpu",
    "systemd-detect-virt",
    "chrt",
    "taskset",
    "objdump",
    "nm",
    "gcc",
    "sudo",
];

/// Files that exist only on some machines, and on which.
const HARDWARE_FILES: &[(&str, &str)] = &[
    (
        "/sys/module/kvm_intel",
        "only on an Intel host with KVM loaded",
    ),
    ("/sys/module/kvm_amd", "only on an AMD host with KVM loaded"),
    (
        "/sys/devices/system/cpu/cpu3/cpu_capacity",
        "only on CPUs with cores of different speeds",
    ),
    (
        "/sys/devices/system/cpu/cpufreq/boost",
        "only with the acpi-cpufreq or amd-pstate driver",
    ),
    (
        "/sys/devices/system/cpu/intel_pstate",
        "only with the intel_pstate driver",
    ),
    (
        "/sys/devices/system/cpu/nohz_full",
        "only on kernels built with CONFIG_NO_HZ_FULL",
    ),
    (
        "/sys/kernel/mm/hugepages/hugepages-1048576kB",
        "only where the CPU has 1 GiB pages",
    ),
];

/// A command left to run until the reader interrupts it gets this long.
const UNTIL_CTRL_C: Duration = Duration::from_secs(2);
/// Anything else that takes longer than this has hung.
const HUNG: Duration = Duration::from_secs(90);

enum Outcome {
    Ran(String),
    NotRun(&'static str),
    NotAvailable(String),
    Failed(String),
}

/// One command line of a block.
struct ShellLine {
    line: usize,
    text: String,
    /// Its trailing comment, if any.
    comment: String,
    /// Whether it, or the comment heading its paragraph, says it changes the system.
    changes_system: bool,
}

fn says_changes_system(comment: &str) -> bool {
    let comment = comment.to_lowercase();
    comment.contains("changes the system") || comment.contains("change the system")
}

fn shell_lines(block: &Block) -> Vec<ShellLine> {
    let mut heading_marks = false;
    let mut commands = Vec::new();
    for line in &block.lines {
        let text = line.text.trim();
        if text.is_empty() {
            heading_marks = false;
        } else if let Some(comment) = text.strip_prefix('#') {
            heading_marks |= says_changes_system(comment);
        } else {
            let comment = text
                .split_once(" # ")
                .map_or("", |(_, c)| c.trim())
                .to_string();
            commands.push(ShellLine {
                line: line.line,
                text: text.to_string(),
                changes_system: heading_marks || says_changes_system(&comment),
                comment,
            });
        }
    }
    commands
}

/// A folder with the stand-ins, for one block.
fn stand_ins(dir: &Path, program: &Path) {
    for name in PROGRAMS {
        fs::copy(program, dir.join(name)).unwrap();
    }
    fs::write(dir.join("bench.c"), BENCH_C).unwrap();
}

/// Whether a command line writes a kernel setting: into `/sys` or
/// `/proc/sys` (by `tee` or a redirection), or with `sysctl NAME=VALUE`.
fn writes_system(text: &str) -> bool {
    let into = |path: &str| {
        [" tee ", " tee -a ", "> ", ">"]
            .iter()
            .any(|w| text.contains(&format!("{w}{path}")))
    };
    into("/sys/")
        || into("/proc/sys/")
        || text
            .split_whitespace()
            .skip_while(|w| *w != "sysctl")
            .skip(1)
            .any(|w| !w.starts_with('-') && w.contains('='))
}

fn run(cmd: &ShellLine, dir: &Path, pid: u32) -> Outcome {
    if cmd.changes_system {
        return Outcome::NotRun("changes the system");
    }
    // Never run as root on the CI machine: it would change its settings.
    if writes_system(&cmd.text) {
        return Outcome::Failed(
            "writes a kernel setting but is not marked \"changes the system\"".into(),
        );
    }
    if cmd.text.starts_with("cargo run") || cmd.text.starts_with("./collector-x86_64-linux-gnu run")
    {
        return Outcome::NotRun(
            "a whole collector run; `cargo test -p collector` runs its experiments",
        );
    }
    if cmd.text.contains("{{") {
        return Outcome::NotRun(
            "holds a value the book fills in when it is built (the release's address), and downloads",
        );
    }
    // As root, sudo adds nothing; otherwise it must fail rather than ask.
    let sudo = if unsafe { libc::geteuid() } == 0 {
        ""
    } else {
        "sudo -n "
    };
    let script = cmd.text.replace("sudo ", sudo);
    let child = Command::new("bash")
        .args(["-c", &script])
        .current_dir(dir)
        .env("PID", pid.to_string())
        .env("TID", pid.to_string())
        .env("VMM_PID", pid.to_string())
        .stdin(Stdio::null())
        // Not a pipe: `perf record` writes its data to a piped stdout.
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash");
    let until_ctrl_c = cmd.comment.contains("until Ctrl-C");
    let (status, interrupted, stderr) = wait(child, until_ctrl_c);
    if status.success() || (until_ctrl_c && interrupted) {
        return Outcome::Ran(String::new());
    }
    match not_available(cmd, &status, &stderr) {
        Some(reason) => reason,
        None => Outcome::Failed(format!("exited with {status}:\n{stderr}")),
    }
}

/// Waits for the command, interrupting it like the reader would when it
/// runs until Ctrl-C; returns its status, whether it was interrupted, and
/// its stderr.
fn wait(mut child: Child, until_ctrl_c: bool) -> (ExitStatus, bool, String) {
    let start = Instant::now();
    let mut interrupted = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if until_ctrl_c && !interrupted && start.elapsed() > UNTIL_CTRL_C {
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            interrupted = true;
        }
        if start.elapsed() > HUNG {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    (
        status,
        interrupted,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The release binary and its checksum, as a reader who downloaded them
/// has them, where `scripts/release` built them (PAGEWALK_RELEASE_DIR).
fn release_files(dir: &Path) {
    let Some(from) = std::env::var_os("PAGEWALK_RELEASE_DIR") else {
        return;
    };
    for name in [
        "collector-x86_64-linux-gnu",
        "collector-x86_64-linux-gnu.sha256",
    ] {
        fs::copy(Path::new(&from).join(name), dir.join(name)).unwrap();
    }
}

/// The reason a failure means "not available here", if it is one.
fn not_available(cmd: &ShellLine, status: &ExitStatus, stderr: &str) -> Option<Outcome> {
    let reason = |r: String| Some(Outcome::NotAvailable(r));
    if cmd.text.contains("collector-x86_64-linux-gnu")
        && std::env::var_os("PAGEWALK_RELEASE_DIR").is_none()
    {
        return reason("the release binary is not built here (scripts/release builds it)".into());
    }
    if status.code() == Some(127) {
        let tool = OPTIONAL_TOOLS
            .iter()
            .find(|t| stderr.contains(&format!("{t}: command not found")));
        return tool.and_then(|t| reason(format!("`{t}` is not installed")));
    }
    let cpus = thread::available_parallelism().map_or(1, |n| n.get());
    let names_cpu_3 = [" -c 3 ", " -pc 3 ", " -apc 3 ", " -C 3 ", "/cpu3/"]
        .iter()
        .any(|s| cmd.text.contains(s));
    if names_cpu_3 && cpus < 4 {
        return reason(format!("it names CPU 3 and this machine has {cpus} CPUs"));
    }
    let vendor = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for (name, id) in [("Intel", "GenuineIntel"), ("AMD", "AuthenticAMD")] {
        if cmd.comment.starts_with(name) && !vendor.contains(id) {
            return reason(format!("for {name} CPUs, and this is not one"));
        }
    }
    let needs_privilege = [
        "perf_event_paranoid",
        "Operation not permitted",
        "Permission denied",
    ];
    let tool = cmd.text.split_whitespace().next().unwrap_or_default();
    if ["perf", "strace"].contains(&tool) && needs_privilege.iter().any(|m| stderr.contains(m)) {
        return reason(format!(
            "{tool} is not permitted here (perf_event_paranoid, ptrace_scope)"
        ));
    }
    if cmd.text.contains("sudo ") && stderr.contains("sudo:") {
        return reason("it needs root, and sudo asks for a password".into());
    }
    if stderr.contains("event syntax error") {
        return reason(
            "perf does not know these events on this CPU (no PMU, or another model)".into(),
        );
    }
    if let Some((file, why)) = HARDWARE_FILES
        .iter()
        .find(|(f, _)| cmd.text.contains(f) && !Path::new(f).exists())
    {
        return reason(format!("{file} exists {why}"));
    }
    // grep's "no line matched" is an answer, not an error.
    let last = cmd.text.rsplit('|').next().unwrap_or_default().trim_start();
    if status.code() == Some(1) && stderr.is_empty() && last.starts_with("grep") {
        return Some(Outcome::Ran("no line matched here".into()));
    }
    None
}

/// The waiting stand-in, stopped however the test ends.
struct Waiting(Child);

impl Drop for Waiting {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Compiles the stand-in program and starts a waiting copy named `server`.
fn start_stand_in(dir: &Path) -> (std::path::PathBuf, Waiting) {
    let program = dir.join("server");
    fs::write(dir.join("stand-in.c"), STAND_IN).unwrap();
    let cc = Command::new("cc")
        .arg("-o")
        .arg(&program)
        .arg(dir.join("stand-in.c"))
        .status();
    assert!(
        cc.expect("cc").success(),
        "the stand-in program does not compile"
    );
    let waiting = Command::new(&program).arg("wait").spawn().unwrap();
    (program, Waiting(waiting))
}

#[test]
fn every_read_only_shell_line_runs() {
    let blocks = blocks("sh");
    assert!(
        blocks.len() >= 30,
        "found only {} sh blocks in book/*.md",
        blocks.len()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (program, server) = start_stand_in(tmp.path());
    // Blocks in parallel (several wait out a perf window), lines in order.
    let reports: Vec<Vec<(usize, String, Outcome)>> = thread::scope(|s| {
        let handles: Vec<_> = blocks
            .iter()
            .enumerate()
            .map(|(i, block)| {
                let dir = tmp.path().join(format!("block-{i}"));
                let program = &program;
                let pid = server.0.id();
                s.spawn(move || {
                    fs::create_dir(&dir).unwrap();
                    stand_ins(&dir, program);
                    release_files(&dir);
                    shell_lines(block)
                        .into_iter()
                        .map(|cmd| (cmd.line, cmd.text.clone(), run(&cmd, &dir, pid)))
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    drop(server);

    let (mut ran, mut failures) = (0, String::new());
    for (block, report) in blocks.iter().zip(&reports) {
        for (line, text, outcome) in report {
            let at = format!("{}:{line}", block.chapter);
            match outcome {
                Outcome::Ran(note) => {
                    ran += 1;
                    println!("{at}: ran{}{note}", if note.is_empty() { "" } else { ", " });
                }
                Outcome::NotRun(why) => println!("{at}: not run: {why}"),
                Outcome::NotAvailable(why) => println!("{at}: not available here: {why}"),
                Outcome::Failed(why) => writeln!(failures, "{at}: `{text}` {why}").unwrap(),
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
    assert!(ran >= 40, "only {ran} shell lines ran");
}

#[test]
fn a_line_that_writes_a_kernel_setting_is_recognised() {
    for text in [
        "echo 1 | sudo tee /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
        "echo never > /sys/kernel/mm/transparent_hugepage/enabled",
        "echo 512 | sudo tee -a /proc/sys/vm/nr_hugepages",
        "sudo sysctl vm.overcommit_memory=2",
        "sysctl -w kernel.sched_rt_runtime_us=-1",
    ] {
        assert!(writes_system(text), "{text}");
    }
    for text in [
        "cat /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
        "grep -o pdpe1gb /proc/cpuinfo | head -1",
        "sysctl vm.overcommit_memory",
        "sysctl -n kernel.sched_rt_runtime_us",
    ] {
        assert!(!writes_system(text), "{text}");
    }
}

#[test]
fn changes_to_the_system_are_marked_by_line_or_by_paragraph() {
    let at = |line, text: &str| common::Line {
        file: "book/example.md".into(),
        line,
        text: text.into(),
    };
    let block = Block {
        chapter: "book/example.md".into(),
        line: 1,
        lines: vec![
            at(2, "cat /proc/meminfo                 # read-only"),
            at(3, "sudo sysctl vm.x=1                # changes the system"),
            at(4, ""),
            at(5, "# These change the system: a new cgroup."),
            at(6, "mkdir /sys/fs/cgroup/rt"),
            at(7, "cat /sys/fs/cgroup/rt/cpuset.cpus"),
            at(8, ""),
            at(9, "grep MemFree /proc/meminfo"),
        ],
    };
    let marked: Vec<(usize, bool)> = shell_lines(&block)
        .iter()
        .map(|l| (l.line, l.changes_system))
        .collect();
    assert_eq!(
        marked,
        [(2, false), (3, true), (6, true), (7, true), (9, false)]
    );
}
