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

/// Scales `requested` down to at most a quarter of `mem_available` and of
/// `cgroup_limit`, rounded down to [`GRANULE`]. `None` when not even one
/// granule fits.
pub fn allow(requested: u64, mem_available: u64, cgroup_limit: Option<u64>) -> Option<Allowance> {
    let mut limits = vec![(
        mem_available / 4,
        "a quarter of MemAvailable",
        mem_available,
    )];
    if let Some(limit) = cgroup_limit {
        limits.push((limit / 4, "a quarter of the cgroup memory limit", limit));
    }
    let (cap, why, of) = limits.into_iter().min_by_key(|l| l.0)?;
    let wanted = requested / GRANULE * GRANULE;
    let bytes = wanted.min(cap / GRANULE * GRANULE);
    if bytes == 0 {
        return None;
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
    Some(Allowance { bytes, note })
}

/// [`allow`] against this moment's `MemAvailable`. The inner `Err` is why
/// nothing fits (a skip, not a failure); the outer one an unreadable
/// `/proc/meminfo`.
pub fn allow_now(
    requested: u64,
    cgroup_limit: Option<u64>,
) -> Result<Result<Allowance, String>, String> {
    let meminfo = crate::procfs::read_meminfo().map_err(|e| format!("/proc/meminfo: {e}"))?;
    let available = meminfo
        .get("MemAvailable")
        .ok_or("/proc/meminfo has no MemAvailable")?
        * 1024;
    Ok(allow(requested, available, cgroup_limit).ok_or_else(|| {
        let cgroup = cgroup_limit.map_or(String::new(), |l| {
            format!(" or of the cgroup limit ({})", human(l))
        });
        format!(
            "not even 2 MiB fits in a quarter of MemAvailable ({}){cgroup}",
            human(available)
        )
    }))
}

/// Binary units, trimmed: `1 GiB`, `64 MiB`, `1.5 GiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let text = format!("{value:.1}");
    format!("{} {}", text.trim_end_matches(".0"), UNITS[unit])
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
        let a = allow(GIB, 24 * GIB, Some(GIB)).unwrap();
        assert_eq!(a.bytes, 256 * MIB);
        assert!(a.note.unwrap().contains("cgroup"));
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
    fn nothing_fits() {
        assert_eq!(allow(GIB, 4 * MIB, None), None);
        assert_eq!(allow(MIB, 24 * GIB, None), None);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(GIB), "1 GiB");
        assert_eq!(human(64 * MIB), "64 MiB");
        assert_eq!(human(3 * GIB / 2), "1.5 GiB");
        assert_eq!(human(512), "512 B");
    }
}
