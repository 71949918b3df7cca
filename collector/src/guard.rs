//! The memory guard: an experiment never maps more than a quarter of what the
//! machine (or this process's cgroup, or its address-space limit) can give,
//! so a reader's desktop does not start swapping or meet the OOM killer
//! because of a measurement, and a process under `ulimit -v` does not abort
//! on an allocation that cannot succeed (a failed Rust allocation aborts the
//! whole run, and every experiment that had finished with it).
//!
//! Sizes come from the run's parameters, so every large allocation is
//! tried first ([`fits`], [`try_vec`]): what does not fit is skipped with
//! what it needs and the limit in the way.

use crate::machine::cgroup::{self, Cgroup};

/// Sizes are kept to whole 2 MiB units so the huge-page modes measure whole
/// huge pages and no mode is handicapped by a ragged tail.
pub const GRANULE: u64 = 2 << 20;

/// What the guard allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    pub bytes: u64,
    /// Set when `bytes` is smaller than what was asked: says by how much and why.
    pub note: Option<String>,
}

/// This process's address-space limit (`RLIMIT_AS`: `ulimit -v`,
/// `prlimit --as`) and what it maps already (`VmSize`). Past the limit
/// every `mmap` and `malloc` fails, however much memory is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressSpace {
    pub limit: u64,
    pub used: u64,
}

impl AddressSpace {
    fn headroom(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// `RLIMIT_AS` and `VmSize` now; `None` when there is no limit.
pub fn address_space() -> Option<AddressSpace> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let used = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| crate::procfs::parse_kib_fields(&t).get("VmSize").copied())
        .map_or(0, |kib| kib * 1024);
    Some(AddressSpace {
        limit: r.rlim_cur,
        used,
    })
}

/// Scales `requested` down to at most a quarter of `mem_available`, of
/// the cgroup's headroom and of what the address-space limit leaves,
/// rounded down to [`GRANULE`]. `Err` says why nothing can be measured:
/// the request itself is under one granule, or not one granule fits.
pub fn allow(
    requested: u64,
    mem_available: u64,
    cgroup: Option<Cgroup>,
    address: Option<AddressSpace>,
) -> Result<Allowance, String> {
    if requested < GRANULE {
        return Err(format!(
            "the size asked for ({}) is under {}, the smallest size measured (whole 2 MiB huge pages)",
            human(requested),
            human(GRANULE)
        ));
    }
    let mut limits = vec![(
        mem_available / 4,
        "a quarter of MemAvailable".to_string(),
        mem_available,
    )];
    if let Some(c) = cgroup {
        limits.push((
            c.headroom() / 4,
            format!(
                "a quarter of what the cgroup memory limit ({}) leaves free",
                human(c.limit)
            ),
            c.headroom(),
        ));
    }
    if let Some(a) = address {
        limits.push((
            a.headroom() / 4,
            format!(
                "a quarter of what the address-space limit (RLIMIT_AS {}) leaves free",
                human(a.limit)
            ),
            a.headroom(),
        ));
    }
    let (cap, why, of) = limits
        .into_iter()
        .min_by_key(|l| l.0)
        .expect("MemAvailable is always a limit");
    let wanted = requested / GRANULE * GRANULE;
    let bytes = wanted.min(cap / GRANULE * GRANULE);
    if bytes == 0 {
        return Err(format!(
            "not even {} fits in {why} ({})",
            human(GRANULE),
            human(of)
        ));
    }
    let note = (bytes < requested).then(|| {
        if bytes < wanted {
            format!(
                "scaled down from {} to {}: {} ({})",
                human(requested),
                human(bytes),
                why,
                human(of)
            )
        } else {
            format!(
                "rounded down from {} to {} (whole 2 MiB units)",
                human(requested),
                human(bytes)
            )
        }
    });
    Ok(Allowance { bytes, note })
}

/// [`allow`] against this moment's `MemAvailable` and cgroup usage, so
/// memory an earlier experiment still holds is counted. The inner `Err` is
/// why nothing fits (a skip, not a failure); the outer one an unreadable
/// `/proc/meminfo`.
pub fn allow_now(requested: u64) -> Result<Result<Allowance, String>, String> {
    let meminfo = crate::procfs::read_meminfo().map_err(|e| format!("/proc/meminfo: {e}"))?;
    let available = meminfo
        .get("MemAvailable")
        .ok_or("/proc/meminfo has no MemAvailable")?
        * 1024;
    Ok(allow(
        requested,
        available,
        cgroup::memory_headroom(),
        address_space(),
    ))
}

/// Whether `bytes` of fresh memory can be had now: a trial mapping of that
/// size, read-write so that it is charged as an allocation would be
/// (against `RLIMIT_AS` and the kernel's commit limit), unmapped at once
/// with no page touched. `Err` is the reason to skip: what is needed and
/// the limit in the way.
pub fn fits(bytes: u64) -> Result<(), String> {
    let len = usize::try_from(bytes).map_err(|_| refused(bytes, None))?;
    match crate::mapping::anonymous(len.max(1), 0) {
        Ok(p) => {
            // SAFETY: unmaps exactly the trial mapping made above.
            unsafe { libc::munmap(p.cast(), len.max(1)) };
            Ok(())
        }
        Err(e) => Err(refused(bytes, Some(e))),
    }
}

/// `n` copies of `fill`, or the reason to skip when the allocation fails
/// (instead of the abort a plain `vec!` would be).
pub fn try_vec<T: Clone>(n: usize, fill: T) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    let bytes = n.saturating_mul(std::mem::size_of::<T>()) as u64;
    v.try_reserve_exact(n).map_err(|_| refused(bytes, None))?;
    v.resize(n, fill);
    Ok(v)
}

/// `needs 64 MiB, and the address-space limit (RLIMIT_AS) is 64 MiB, of
/// which 21 MiB is mapped already`.
pub fn refused(bytes: u64, err: Option<std::io::Error>) -> String {
    let needs = format!("needs {}", human(bytes));
    match (address_space(), err) {
        (Some(a), _) => format!(
            "{needs}, and the address-space limit (RLIMIT_AS) is {}, of which {} is mapped already",
            human(a.limit),
            human(a.used)
        ),
        (None, Some(e)) => format!(
            "{needs}, and the kernel refused to map it ({e}; vm.overcommit_memory=2 and its commit limit?)"
        ),
        (None, None) => format!("{needs}, and the allocator could not give it"),
    }
}

/// Binary units, trimmed: `1 GiB`, `64 MiB`, `1.5 GiB` (the model's
/// [`pagewalk_model::units::bytes`], as everywhere else).
pub fn human(bytes: u64) -> String {
    pagewalk_model::units::bytes(bytes as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn plenty_of_memory_leaves_the_size_alone() {
        let a = allow(GIB, 24 * GIB, None, None).unwrap();
        assert_eq!(
            a,
            Allowance {
                bytes: GIB,
                note: None
            }
        );
    }

    #[test]
    fn scaled_to_a_quarter_of_available() {
        let a = allow(GIB, 2 * GIB, None, None).unwrap();
        assert_eq!(a.bytes, 512 * MIB);
        let note = a.note.unwrap();
        assert!(note.contains("1 GiB to 512 MiB"), "{note}");
        assert!(note.contains("MemAvailable (2 GiB)"), "{note}");
    }

    #[test]
    fn the_tighter_cgroup_limit_wins() {
        let cg = Cgroup {
            limit: GIB,
            used: 0,
        };
        let a = allow(GIB, 24 * GIB, Some(cg), None).unwrap();
        assert_eq!(a.bytes, 256 * MIB);
        assert!(a.note.unwrap().contains("cgroup"));
    }

    #[test]
    fn memory_the_cgroup_already_uses_is_not_offered_again() {
        // A 64 MiB cgroup of which the collector already holds 40 MiB:
        // a quarter of the 24 MiB left is 6 MiB.
        let cg = Cgroup {
            limit: 64 * MIB,
            used: 40 * MIB,
        };
        assert_eq!(allow(GIB, 24 * GIB, Some(cg), None).unwrap().bytes, 6 * MIB);
        let full = Cgroup {
            limit: 64 * MIB,
            used: 60 * MIB,
        };
        let why = allow(GIB, 24 * GIB, Some(full), None).unwrap_err();
        assert!(
            why.contains("cgroup memory limit (64 MiB) leaves free (4 MiB)"),
            "{why}"
        );
    }

    #[test]
    fn rounded_down_to_whole_huge_pages() {
        let a = allow(3 * MIB, 24 * GIB, None, None).unwrap();
        assert_eq!(a.bytes, 2 * MIB);
        assert!(a.note.unwrap().contains("rounded down"));
        // A quarter of 10 MiB is 2.5 MiB: one granule.
        assert_eq!(allow(GIB, 10 * MIB, None, None).unwrap().bytes, 2 * MIB);
    }

    #[test]
    fn nothing_fits_and_says_why() {
        let why = allow(GIB, 4 * MIB, None, None).unwrap_err();
        assert!(why.contains("a quarter of MemAvailable (4 MiB)"), "{why}");
        // A request under one granule is the request's fault, not memory's.
        let why = allow(MIB, 24 * GIB, None, None).unwrap_err();
        assert!(why.contains("(1 MiB) is under 2 MiB"), "{why}");
        assert!(!why.contains("MemAvailable"), "{why}");
    }

    #[test]
    fn the_address_space_limit_counts_what_is_mapped_already() {
        // `prlimit --as=64M` with 24 MiB mapped: a quarter of 40 MiB is 10 MiB.
        let rl = AddressSpace {
            limit: 64 * MIB,
            used: 24 * MIB,
        };
        let a = allow(64 * MIB, 24 * GIB, None, Some(rl)).unwrap();
        assert_eq!(a.bytes, 10 * MIB);
        let note = a.note.unwrap();
        assert!(note.contains("RLIMIT_AS 64 MiB"), "{note}");
        let tight = AddressSpace {
            limit: 64 * MIB,
            used: 60 * MIB,
        };
        let why = allow(64 * MIB, 24 * GIB, None, Some(tight)).unwrap_err();
        assert!(
            why.contains("address-space limit (RLIMIT_AS 64 MiB) leaves free (4 MiB)"),
            "{why}"
        );
    }

    #[test]
    fn what_cannot_be_mapped_is_refused_not_aborted() {
        // More than any machine's address space: the trial mapping fails,
        // and so does the allocation, with a reason instead of an abort.
        let why = fits(1 << 62).unwrap_err();
        assert!(why.starts_with("needs 4194304 TiB, and "), "{why}");
        assert!(try_vec(1usize << 60, 0u32)
            .unwrap_err()
            .starts_with("needs "));
        assert_eq!(fits(4 * MIB), Ok(()));
        assert_eq!(try_vec(3, 7u8).unwrap(), vec![7, 7, 7]);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(GIB), "1 GiB");
        assert_eq!(human(64 * MIB), "64 MiB");
        assert_eq!(human(3 * GIB / 2), "1.5 GiB");
        assert_eq!(human(512), "512 B");
    }
}
