//! This process's memory limit from its cgroup. cgroup v2 (`memory.max`) is
//! the norm; hybrid hosts still mount the v1 memory controller
//! (`memory.limit_in_bytes`), so both are read. The effective limit is the
//! smallest along the path to the root.

use std::path::{Path, PathBuf};

/// Memory left under this process's cgroup limit: the limit, and what the
/// cgroup already uses (this process's earlier experiments included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cgroup {
    pub limit: u64,
    pub used: u64,
}

impl Cgroup {
    pub fn headroom(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// v1 reports "unlimited" as a huge page-aligned number near `i64::MAX`.
const V1_UNLIMITED_ABOVE: u64 = 1 << 60;

pub fn memory_limit_bytes() -> Option<u64> {
    limited_levels().map(|(limit, _)| limit).min()
}

/// The cgroup level with the least memory left, read now: its limit and
/// what it already uses. `None` when no level has a limit.
pub fn memory_headroom() -> Option<Cgroup> {
    limited_levels()
        .map(|(limit, dir)| {
            let usage: u64 = ["memory.current", "memory.usage_in_bytes"]
                .iter()
                .find_map(|f| std::fs::read_to_string(dir.join(f)).ok())
                .and_then(|t| t.trim().parse().ok())
                // Usage unreadable: count the whole limit as free, as
                // before this was read at all.
                .unwrap_or(0);
            // Usage counts page cache; its inactive part is given back
            // before the OOM killer runs, so it is not held.
            let stat = std::fs::read_to_string(dir.join("memory.stat")).unwrap_or_default();
            let used = usage.saturating_sub(inactive_file(&stat));
            Cgroup { limit, used }
        })
        .min_by_key(|c| c.limit.saturating_sub(c.used))
}

/// Every cgroup directory on this process's path that sets a memory
/// limit, with the limit.
fn limited_levels() -> impl Iterator<Item = (u64, PathBuf)> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let (v2, v1) = memory_cgroup_paths(&cgroups);
    let root = Path::new("/sys/fs/cgroup");
    let mut candidates: Vec<(PathBuf, String)> = Vec::new();
    if let Some(p) = v2 {
        // Pure v2 mounts at /sys/fs/cgroup; hybrid hosts at /sys/fs/cgroup/unified.
        candidates.push((root.to_path_buf(), p.to_string()));
        candidates.push((root.join("unified"), p.to_string()));
    }
    if let Some(p) = v1 {
        candidates.push((root.join("memory"), p.to_string()));
    }
    candidates
        .into_iter()
        .flat_map(|(mount, path)| ancestors(&mount, &path))
        .filter_map(|dir| {
            let text = std::fs::read_to_string(dir.join("memory.max"))
                .or_else(|_| std::fs::read_to_string(dir.join("memory.limit_in_bytes")))
                .ok()?;
            Some((parse_limit(&text)?, dir))
        })
}

/// From `/proc/self/cgroup`: the v2 path (`0::/path`) and the v1 memory
/// controller's path (`N:memory:/path`).
fn memory_cgroup_paths(text: &str) -> (Option<&str>, Option<&str>) {
    let mut v2 = None;
    let mut v1 = None;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if controllers.is_empty() {
            v2 = Some(path);
        } else if controllers.split(',').any(|c| c == "memory") {
            v1 = Some(path);
        }
    }
    (v2, v1)
}

/// `mount/a/b`, `mount/a`, `mount`: every level whose limit applies.
fn ancestors(mount: &Path, path: &str) -> Vec<PathBuf> {
    let mut dirs = vec![mount.to_path_buf()];
    let mut dir = mount.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        dir.push(part);
        dirs.push(dir.clone());
    }
    dirs
}

/// `inactive_file` (v2) or `total_inactive_file` (v1, hierarchical) from
/// `memory.stat`, 0 when absent.
fn inactive_file(stat: &str) -> u64 {
    let field = |name: &str| {
        stat.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == name).then(|| v.trim().parse().ok()).flatten()
        })
    };
    field("total_inactive_file")
        .or_else(|| field("inactive_file"))
        .unwrap_or(0)
}

fn parse_limit(text: &str) -> Option<u64> {
    let text = text.trim();
    if text == "max" {
        return None;
    }
    text.parse().ok().filter(|&b| b < V1_UNLIMITED_ABOVE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_a_hybrid_host() {
        let text = "9:name=systemd:/\n4:memory:/process_api/4079a4\n3:cpuset:/\n0::/user.slice\n";
        assert_eq!(
            memory_cgroup_paths(text),
            (Some("/user.slice"), Some("/process_api/4079a4"))
        );
    }

    #[test]
    fn paths_from_pure_v2() {
        assert_eq!(memory_cgroup_paths("0::/\n"), (Some("/"), None));
    }

    #[test]
    fn reclaimable_cache_is_not_counted_as_held() {
        let v1 = "cache 100\ninactive_file 7\ntotal_inactive_file 4096\n";
        assert_eq!(inactive_file(v1), 4096);
        assert_eq!(inactive_file("anon 5\ninactive_file 512\n"), 512);
        assert_eq!(inactive_file(""), 0);
    }

    #[test]
    fn limits() {
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("1073741824\n"), Some(1 << 30));
    }

    #[test]
    fn ancestor_dirs() {
        let dirs = ancestors(Path::new("/m"), "/a/b");
        assert_eq!(
            dirs,
            vec![
                PathBuf::from("/m"),
                PathBuf::from("/m/a"),
                PathBuf::from("/m/a/b")
            ]
        );
        assert_eq!(ancestors(Path::new("/m"), "/"), vec![PathBuf::from("/m")]);
    }
}
