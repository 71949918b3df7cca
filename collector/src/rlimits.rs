//! The process limits a run needs: raised where any process may raise
//! them (a soft limit up to its hard limit), and checked before anything
//! is measured, so that a limit never costs a measured run.
//!
//! - The file-size limit (`ulimit -f`): a run file cut at it is a run lost.
//!   `main` ignores SIGXFSZ, so a write past it fails with EFBIG and the
//!   run is kept elsewhere; `output::save::probe_writable` writes a file as
//!   large as the largest run file before measuring, which finds the limit.
//! - The open-file limit (`ulimit -n`): under a handful of descriptors
//!   every experiment fails for want of one, its scratch folder cannot be
//!   removed, and the run file cannot be synced into place. A run needs
//!   [`MIN_OPEN_FILES`].

/// Descriptors a run may hold at once: a thread's pipe pair, a probe
/// child's three, strace's, perf counters for each CPU event, the scratch
/// folder's files, `/proc` files read while a lock file is held, the run
/// file and its folder. 64 is several times what the widest experiment
/// holds, and far under any default (1,024 on Linux).
pub const MIN_OPEN_FILES: u64 = 64;

fn get(resource: libc::__rlimit_resource_t) -> Option<libc::rlimit> {
    // SAFETY: getrlimit writes the struct it is given.
    unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        (libc::getrlimit(resource, &mut l) == 0).then_some(l)
    }
}

/// The soft limit raised to the hard one, which needs no privilege.
fn raise(resource: libc::__rlimit_resource_t) {
    if let Some(mut l) = get(resource).filter(|l| l.rlim_cur < l.rlim_max) {
        l.rlim_cur = l.rlim_max;
        // SAFETY: setrlimit reads the struct it is given.
        unsafe { libc::setrlimit(resource, &l) };
    }
}

/// The soft file-size limit raised to the hard one: called before the
/// probe and again before the run file is written (`prlimit --pid` may
/// have lowered it while the run measured).
pub fn raise_file_size() {
    raise(libc::RLIMIT_FSIZE);
}

/// The file-size limit in bytes, `None` when there is none.
pub fn file_size() -> Option<u64> {
    get(libc::RLIMIT_FSIZE)
        .filter(|l| l.rlim_cur != libc::RLIM_INFINITY)
        .map(|l| l.rlim_cur)
}

/// Raises the open-file limit as far as it goes; `Err` when that is
/// still under [`MIN_OPEN_FILES`].
pub fn ensure_open_files() -> Result<(), String> {
    raise(libc::RLIMIT_NOFILE);
    match get(libc::RLIMIT_NOFILE) {
        Some(l) if l.rlim_cur < MIN_OPEN_FILES => Err(format!(
            "the open-file limit (`ulimit -n`) is {}, and a run needs {MIN_OPEN_FILES} descriptors: with fewer, experiments fail for want of one and the run file may not be synced into its folder; raise it with `ulimit -n 1024`",
            l.rlim_cur
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_process_has_the_descriptors_a_run_needs() {
        ensure_open_files().unwrap();
        let l = get(libc::RLIMIT_NOFILE).unwrap();
        assert_eq!(l.rlim_cur, l.rlim_max, "raised to the hard limit");
    }
}
