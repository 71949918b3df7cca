//! Running a fresh copy of the collector under `strace`: to count the
//! system calls a probe makes (`strace -c`), or to time a probe while it is
//! traced. strace is optional; callers report "skipped" when it is missing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::scratch::Scratch;

/// Where strace is, or why it cannot be used.
pub fn find() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("strace"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "strace is not installed (Debian: apt-get install strace; scripts/install-tools --browser installs it)".to_string()
        })
}

/// `strace -V`'s first line, e.g. `strace -- version 6.1`.
pub fn version(strace: &Path) -> Option<String> {
    let out = Command::new(strace).arg("-V").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().next().map(|l| l.trim().to_string())
}

/// This binary, run with `probe_args`, traced for `syscalls` only, output
/// discarded: what a traced program feels.
pub fn traced(strace: &Path, syscalls: &str, probe_args: &[String]) -> Result<Output, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(strace)
        .args([
            "-f",
            "-qq",
            "-e",
            &format!("trace={syscalls}"),
            "-o",
            "/dev/null",
        ])
        .arg(exe)
        .args(probe_args)
        .output()
        .map_err(|e| format!("running strace: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "strace exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out)
}

/// Calls of each of `syscalls` that this binary made when run with
/// `probe_args` (`strace -f -c`).
pub fn count(
    strace: &Path,
    syscalls: &str,
    probe_args: &[String],
) -> Result<BTreeMap<String, u64>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    // strace opens `-o` with O_TRUNC, through any symlink: the report goes
    // to a private folder no one else can write to, removed on return.
    let scratch = Scratch::new("strace").map_err(|e| format!("a private temporary folder: {e}"))?;
    let report = scratch.path().join("strace-c.txt");
    let out = Command::new(strace)
        .args(["-f", "-qq", "-c", "-e", &format!("trace={syscalls}"), "-o"])
        .arg(&report)
        .arg(exe)
        .args(probe_args)
        .output()
        .map_err(|e| format!("running strace: {e}"));
    let text = std::fs::read_to_string(&report);
    drop(scratch);
    let out = out?;
    if !out.status.success() {
        return Err(format!(
            "strace -c exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(parse_counts(
        &text.map_err(|e| format!("strace -c report: {e}"))?,
    ))
}

/// The `calls` column of `strace -c`'s table, by syscall name.
pub fn parse_counts(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            // % time, seconds, usecs/call, calls, [errors], syscall
            if words.len() < 5 {
                return None;
            }
            let name = *words.last()?;
            let calls = words[3].parse().ok()?;
            (name != "total").then(|| (name.to_string(), calls))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// strace's `-o` file once had a predictable name (process id and a
    /// counter): a symlink planted there made strace, as root, truncate
    /// its target. The report now goes to a private folder, gone after.
    #[test]
    fn the_report_never_goes_through_a_planted_symlink() {
        let Ok(strace) = find() else {
            eprintln!("strace is not installed: nothing to test");
            return;
        };
        let victim_dir = tempfile::tempdir().unwrap();
        let victim = victim_dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let pid = std::process::id();
        let planted: Vec<_> = (0..16)
            .map(|n| std::env::temp_dir().join(format!("pagewalk-strace-{pid}-{n}.txt")))
            .collect();
        for p in &planted {
            let _ = std::fs::remove_file(p);
            std::os::unix::fs::symlink(&victim, p).unwrap();
        }
        // This test binary, listing its tests: a short program to trace.
        let counted = count(&strace, "getpid", &["--list".to_string()]);
        for p in &planted {
            let _ = std::fs::remove_file(p);
        }
        counted.unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let left = crate::scratch::in_temp_dir(&format!("{}strace-{pid}-", crate::scratch::PREFIX));
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn counts_from_a_summary_table() {
        let text = "\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 62.50    0.000010           5      1002           munmap
 37.50    0.000006           1      1011         3 mmap
------ ----------- ----------- --------- --------- ----------------
100.00    0.000016           2      2013         3 total
";
        let c = parse_counts(text);
        assert_eq!(c["munmap"], 1002);
        assert_eq!(c["mmap"], 1011);
        assert_eq!(c.len(), 2);
    }
}
