//! The memory guard: an experiment never maps more than a quarter of what the
//! machine (or this process's cgroup) can give, so a reader's desktop does not
//! start swapping or meet the OOM killer because of a measurement.

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

/// Memory left under this process's cgroup limit: the limit, and what the
/// cgroup already uses (this process's earlier experiments included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cgroup {
    pub limit: u64,
    pub used: u64,
}

impl Cgroup {
    fn headroom(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// Scales `requested` down to at most a quarter of `mem_available` and of
/// the cgroup's headroom, rounded down to [`GRANULE`]. `Err` says why
/// nothing can be measured: the request itself is under one granule, or
/// not one granule fits.
pub fn allow(
    requested: u64,
    mem_available: u64,
    cgroup: Option<Cgroup>,
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
        crate::machine::cgroup::memory_headroom(),
    ))
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
        let a = allow(GIB, 24 * GIB, None).unwrap();
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
        let a = allow(GIB, 2 * GIB, None).unwrap();
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
        let a = allow(GIB, 24 * GIB, Some(cg)).unwrap();
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
        assert_eq!(allow(GIB, 24 * GIB, Some(cg)).unwrap().bytes, 6 * MIB);
        let full = Cgroup {
            limit: 64 * MIB,
            used: 60 * MIB,
        };
        let why = allow(GIB, 24 * GIB, Some(full)).unwrap_err();
        assert!(
            why.contains("cgroup memory limit (64 MiB) leaves free (4 MiB)"),
            "{why}"
        );
    }

    #[test]
    fn rounded_down_to_whole_huge_pages() {
        let a = allow(3 * MIB, 24 * GIB, None).unwrap();
        assert_eq!(a.bytes, 2 * MIB);
        assert!(a.note.unwrap().contains("rounded down"));
        // A quarter of 10 MiB is 2.5 MiB: one granule.
        assert_eq!(allow(GIB, 10 * MIB, None).unwrap().bytes, 2 * MIB);
    }

    #[test]
    fn nothing_fits_and_says_why() {
        let why = allow(GIB, 4 * MIB, None).unwrap_err();
        assert!(why.contains("a quarter of MemAvailable (4 MiB)"), "{why}");
        // A request under one granule is the request's fault, not memory's.
        let why = allow(MIB, 24 * GIB, None).unwrap_err();
        assert!(why.contains("(1 MiB) is under 2 MiB"), "{why}");
        assert!(!why.contains("MemAvailable"), "{why}");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(GIB), "1 GiB");
        assert_eq!(human(64 * MIB), "64 MiB");
        assert_eq!(human(3 * GIB / 2), "1.5 GiB");
        assert_eq!(human(512), "512 B");
    }
}
