//! `malloc-hugetlb`: `malloc + memset` in a process started with
//! `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`.
//!
//! Premise: with that tunable (glibc 2.35 and later) malloc itself calls
//! `madvise(MADV_HUGEPAGE)` on each block it maps and on heap growth of at
//! least 2 MiB, so a program gets huge pages without a line of code
//! changed; glibc only does so when THP is in `madvise` mode (its
//! `madvise_thp` returns early otherwise: under `always` the block is
//! eligible already, under `never` nothing can be). glibc reads tunables
//! once, at start-up, so the mode runs in a child process; whether the
//! pages really came huge is checked against `AnonHugePages` and the
//! faults, as for `MADV_HUGEPAGE`.
//!
//! glibc 2.35 to 2.37 read the THP mode into a buffer they never
//! terminate (fixed in 2.38, commit 801deb07f6 "malloc: Assure that THP
//! mode is always null terminated"), so whether a process sees `madvise`
//! depends on a stray stack byte: the tunable applies in some processes and
//! not in others. A child where the kernel never even tried a huge page
//! (no `thp_fault_alloc`, no `thp_fault_fallback`, no `AnonHugePages`) is
//! one where glibc ignored the tunable; it is started again, up to
//! [`TRIES`] times, and how many were started is stored as a finding.

use std::ffi::CStr;
use std::sync::atomic::{AtomicU32, Ordering};

use pagewalk_model::{Check, Mode, PhaseSample, Sample};

/// The environment a child gets.
pub const TUNABLE: (&str, &str) = ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1");

/// The first glibc with `glibc.malloc.hugetlb`.
const SINCE: (u32, u32) = (2, 35);

/// This process's glibc version (`gnu_get_libc_version`), if it parses.
pub fn glibc() -> Option<(u32, u32)> {
    // SAFETY: glibc returns a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr(libc::gnu_get_libc_version()) };
    parse_version(text.to_str().ok()?)
}

fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit());
    Some((major, minor.parse().ok()?))
}

/// Why the mode cannot show anything here, if it cannot: THP not in
/// `madvise` mode, or a glibc without the tunable.
pub fn unavailable(thp_enabled: Option<&str>, glibc: Option<(u32, u32)>) -> Option<String> {
    match glibc {
        Some(v) if v < SINCE => {
            return Some(format!(
                "glibc {}.{} has no glibc.malloc.hugetlb tunable (added in {}.{})",
                v.0, v.1, SINCE.0, SINCE.1
            ))
        }
        None => {
            return Some("the C library's version could not be read (gnu_get_libc_version)".into())
        }
        Some(_) => {}
    }
    match thp_enabled {
        Some("madvise") => None,
        Some("always") => Some(
            "THP enabled=always: glibc.malloc.hugetlb=1 only calls madvise in madvise mode, and under always malloc's large blocks are eligible for huge pages already (see malloc-memset)".into(),
        ),
        Some(other) => Some(format!(
            "THP enabled={other}: glibc.malloc.hugetlb=1 asks for huge pages with MADV_HUGEPAGE, which needs enabled=madvise"
        )),
        None => Some("this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage/enabled)".into()),
    }
}

/// Processes started for one repetition before giving up on the tunable.
const TRIES: u32 = 8;

/// Children started, and those in which glibc ignored the tunable, over
/// the whole experiment (one collector runs one first-touch at a time).
static STARTED: AtomicU32 = AtomicU32::new(0);
static IGNORED: AtomicU32 = AtomicU32::new(0);

/// One repetition of `mode` with the tunable in effect: children are
/// started until one shows that glibc applied it (or [`TRIES`] did not).
pub fn in_child(mode: Mode, size: u64, stride: u64) -> Result<Sample, String> {
    let mut tries = 0;
    loop {
        let sample = one_child(mode, size, stride)?;
        tries += 1;
        STARTED.fetch_add(1, Ordering::Relaxed);
        if !ignored(&sample) || tries == TRIES {
            return Ok(sample);
        }
        IGNORED.fetch_add(1, Ordering::Relaxed);
    }
}

/// True when nothing in the sample shows a huge-page attempt: the kernel
/// neither allocated nor fell back, and none is mapped. Unknown counters
/// are not evidence.
fn ignored(s: &Sample) -> bool {
    let tried = |p: &Option<PhaseSample>| {
        p.as_ref()
            .and_then(|p| p.thp.as_ref())
            .map(|t| t.thp_fault_alloc + t.thp_fault_fallback > 0)
    };
    matches!(
        (
            tried(&s.allocation),
            tried(&s.first_pass),
            s.anon_huge_pages_kib
        ),
        (Some(false), Some(false), Some(0))
    )
}

/// The finding about how often glibc applied the tunable, once the mode
/// has run (`None` if it did not).
pub fn finding(glibc: Option<(u32, u32)>) -> Option<Check> {
    let started = STARTED.swap(0, Ordering::Relaxed);
    let ignored = IGNORED.swap(0, Ordering::Relaxed);
    if started == 0 {
        return None;
    }
    let version = glibc.map_or("this glibc".to_string(), |(a, b)| format!("glibc {a}.{b}"));
    let why = if ignored > 0 && glibc.is_some_and(|v| v < (2, 38)) {
        " (glibc before 2.38 compares the THP mode it read without terminating the string)"
    } else {
        ""
    };
    Some(
        Check::new(
            format!(
                "{}: glibc applied the tunable in every process",
                Mode::MallocHugetlb.name()
            ),
            ignored == 0,
            "every child shows a huge-page attempt",
            format!(
                "{version} applied it in {} of {started} processes started{why}",
                started - ignored
            ),
        )
        .as_finding(),
    )
}

fn one_child(mode: Mode, size: u64, stride: u64) -> Result<Sample, String> {
    let args = [
        "probe".to_string(),
        "first-touch".into(),
        "--mode".into(),
        mode.name().into(),
        "--size".into(),
        size.to_string(),
        "--stride".into(),
        stride.to_string(),
    ];
    let value = crate::child::run(&args, &[TUNABLE])?;
    pagewalk_model::json::from_value(&value).map_err(|e| format!("probe output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(alloc: i64, fallback: i64, huge_kib: u64) -> Sample {
        let phase = Some(PhaseSample {
            wall_ns: 1.0,
            ns_per_page: 1.0,
            minor_faults: Some(1),
            major_faults: Some(0),
            thp: Some(pagewalk_model::ThpFaultCounters {
                thp_fault_alloc: alloc,
                thp_fault_fallback: fallback,
                thp_fault_fallback_charge: None,
            }),
        });
        Sample {
            allocation: phase.clone(),
            first_pass: phase,
            second_pass: None,
            rss_kib: None,
            anon_huge_pages_kib: Some(huge_kib),
            allocator_calls: None,
        }
    }

    #[test]
    fn only_a_process_without_any_attempt_ignored_it() {
        assert!(ignored(&sample(0, 0, 0)));
        // The kernel tried and refused: the tunable worked, memory did not.
        assert!(!ignored(&sample(0, 255, 0)));
        assert!(!ignored(&sample(255, 0, 522_240)));
        let mut unknown = sample(0, 0, 0);
        unknown.anon_huge_pages_kib = None;
        assert!(!ignored(&unknown));
    }

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("2.36"), Some((2, 36)));
        assert_eq!(parse_version("2.35.9000"), Some((2, 35)));
        assert_eq!(parse_version("2.39-dev"), Some((2, 39)));
        assert_eq!(parse_version("x"), None);
    }

    #[test]
    fn only_madvise_mode_and_a_recent_glibc_run_it() {
        assert!(unavailable(Some("madvise"), Some((2, 36))).is_none());
        let old = unavailable(Some("madvise"), Some((2, 34))).unwrap();
        assert!(old.contains("2.34") && old.contains("2.35"), "{old}");
        assert!(unavailable(Some("always"), Some((2, 40)))
            .unwrap()
            .contains("always"));
        assert!(unavailable(Some("never"), Some((2, 40))).is_some());
        assert!(unavailable(None, Some((2, 40))).is_some());
        assert!(unavailable(Some("madvise"), None).is_some());
    }
}
