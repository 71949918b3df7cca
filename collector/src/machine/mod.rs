//! The machine a run measured: everything that changes what the numbers mean
//! (THP policy, hugetlb pools, a VM without a PMU, a cgroup limit). Anything
//! the machine does not expose is recorded as absent, never guessed.

pub mod cgroup;
mod cpu;
pub mod pmu;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use pagewalk_model::{HugetlbPool, MachineContext, MemoryInfo, MthpSize, ThpSettings};

use crate::procfs;

pub use cgroup::memory_limit_bytes;

const THP_DIR: &str = "/sys/kernel/mm/transparent_hugepage";

pub fn collect() -> Result<MachineContext, String> {
    let meminfo = procfs::read_meminfo().map_err(|e| format!("/proc/meminfo: {e}"))?;
    let kib = |name: &str| {
        meminfo
            .get(name)
            .copied()
            .ok_or(format!("/proc/meminfo has no {name}"))
    };
    let (cpu, virtualization) = cpu::identify();
    Ok(MachineContext {
        cpu,
        kernel_release: kernel_release(),
        base_page_bytes: base_page_bytes(),
        thp: thp_settings(),
        hugetlb_pools: hugetlb_pools(),
        virtualization,
        perf_event_paranoid: read_trimmed("/proc/sys/kernel/perf_event_paranoid")
            .and_then(|s| s.parse().ok()),
        pmu: pmu::probe(),
        memory: MemoryInfo {
            mem_total_kib: kib("MemTotal")?,
            mem_available_kib: kib("MemAvailable")?,
            cgroup_limit_bytes: memory_limit_bytes(),
        },
        cpu_governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        vulnerabilities: vulnerabilities(),
    })
}

/// `sysconf(_SC_PAGESIZE)`: the page size every `--stride` default is based on.
pub fn base_page_bytes() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as u64 }
}

pub fn thp_settings() -> ThpSettings {
    let knob = |file: &str| read_trimmed(format!("{THP_DIR}/{file}")).and_then(|s| selected(&s));
    ThpSettings {
        enabled: knob("enabled"),
        defrag: knob("defrag"),
        khugepaged_defrag: knob("khugepaged/defrag"),
        max_ptes_none: read_trimmed(format!("{THP_DIR}/khugepaged/max_ptes_none"))
            .and_then(|s| s.parse().ok()),
        shrink_underused: knob("shrink_underused"),
        sizes: thp_sizes(),
    }
}

/// Multi-size THP's anonymous sizes, smallest first; `None` where the
/// kernel has none (before 6.8). A size without an `enabled` file serves
/// only the page cache and is left out.
fn thp_sizes() -> Option<Vec<MthpSize>> {
    let dir = fs::read_dir(THP_DIR).ok()?;
    let mut sizes: Vec<MthpSize> = dir
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let kib = name
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            let path = entry.path();
            let stat = |f: &str| read_trimmed(path.join("stats").join(f))?.parse().ok();
            Some(MthpSize {
                kib,
                enabled: read_trimmed(path.join("enabled")).and_then(|s| selected(&s))?,
                anon_fault_alloc: stat("anon_fault_alloc"),
                anon_fault_fallback: stat("anon_fault_fallback"),
            })
        })
        .collect();
    sizes.sort_by_key(|s| s.kib);
    (!sizes.is_empty()).then_some(sizes)
}

/// The selected word of a sysfs choice file: `always [madvise] never` ->
/// `madvise`. Boolean knobs (`khugepaged/defrag` is `0`/`1`) have no
/// brackets and are returned as they are.
fn selected(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match (text.find('['), text.find(']')) {
        (Some(open), Some(close)) if open < close => Some(text[open + 1..close].to_string()),
        _ => Some(text.to_string()),
    }
}

fn kernel_release() -> String {
    // SAFETY: uname fills the struct; its fields are NUL-terminated.
    unsafe {
        let mut name: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut name) != 0 {
            return "unknown".into();
        }
        std::ffi::CStr::from_ptr(name.release.as_ptr())
            .to_string_lossy()
            .into_owned()
    }
}

fn hugetlb_pools() -> Vec<HugetlbPool> {
    let Ok(dir) = fs::read_dir("/sys/kernel/mm/hugepages") else {
        return Vec::new();
    };
    let mut pools: Vec<HugetlbPool> = dir
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let page_kib = name
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            let count = |f: &str| read_trimmed(entry.path().join(f))?.parse().ok();
            Some(HugetlbPool {
                page_kib,
                nr_hugepages: count("nr_hugepages")?,
                free_hugepages: count("free_hugepages")?,
            })
        })
        .collect();
    pools.sort_by_key(|p| p.page_kib);
    pools
}

fn vulnerabilities() -> BTreeMap<String, String> {
    let Ok(dir) = fs::read_dir("/sys/devices/system/cpu/vulnerabilities") else {
        return BTreeMap::new();
    };
    dir.flatten()
        .filter_map(|e| Some((e.file_name().into_string().ok()?, read_trimmed(e.path())?)))
        .collect()
}

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_choice() {
        assert_eq!(
            selected("always [madvise] never\n").as_deref(),
            Some("madvise")
        );
        assert_eq!(
            selected("always defer defer+madvise [madvise] never").as_deref(),
            Some("madvise")
        );
        assert_eq!(selected("1\n").as_deref(), Some("1"));
        assert_eq!(selected("  "), None);
    }

    #[test]
    fn collects_on_this_machine() {
        let m = collect().unwrap();
        assert!(m.base_page_bytes >= 4096);
        assert!(m.cpu.logical_cpus >= 1);
        assert!(m.memory.mem_total_kib > 0);
        assert!(!m.kernel_release.is_empty());
    }
}
