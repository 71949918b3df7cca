//! What inspect reads beyond the process's own counters: system-wide
//! counters (vmstat, PSI, timer interrupts), the process's memory layout
//! (numa_maps, smaps) and the settings in force. Pure parsers, each tested
//! on a sample; the `read_*` helpers are the only I/O.

use std::collections::BTreeMap;
use std::fs;

use pagewalk_model::inspect::SettingsInForce;

use crate::affinity::parse_list;

/// The `/proc/vmstat` counters the symptom table points at.
pub const VMSTAT: [&str; 12] = [
    "pgfault",
    "pgmajfault",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_collapse_alloc",
    "compact_stall",
    "compact_fail",
    "compact_success",
    "numa_hint_faults",
    "numa_hint_faults_local",
    "numa_pages_migrated",
    "pgmigrate_success",
];

/// `some avg10=0.00 avg60=0.00 avg300=0.00 total=1234`: the `some` total
/// (µs during which at least one task stalled).
pub fn parse_pressure_some(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace()
        .find_map(|w| w.strip_prefix("total="))?
        .parse()
        .ok()
}

/// `/proc/pressure/{memory,cpu}` "some" totals; absent files (no PSI) are
/// left out.
pub fn read_pressure() -> BTreeMap<String, u64> {
    ["memory", "cpu"]
        .into_iter()
        .filter_map(|what| {
            let text = fs::read_to_string(format!("/proc/pressure/{what}")).ok()?;
            Some((what.to_string(), parse_pressure_some(&text)?))
        })
        .collect()
}

/// The `LOC:` row of `/proc/interrupts` (local timer interrupts), by CPU
/// number.
pub fn parse_local_timer(text: &str) -> Option<BTreeMap<u32, u64>> {
    crate::procfs::parse_interrupt_row(text, "LOC:")
}

pub fn read_local_timer() -> Result<BTreeMap<u32, u64>, String> {
    let text =
        fs::read_to_string("/proc/interrupts").map_err(|e| format!("/proc/interrupts: {e}"))?;
    parse_local_timer(&text).ok_or_else(|| "/proc/interrupts: no LOC row".into())
}

/// `/proc/PID/numa_maps`: KiB resident per node (`N1=12` counts pages of
/// that line's `kernelpagesize_kB`).
pub fn parse_numa_maps(text: &str) -> BTreeMap<u32, u64> {
    let mut kib = BTreeMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let page_kib = words
            .iter()
            .find_map(|w| w.strip_prefix("kernelpagesize_kB=")?.parse::<u64>().ok())
            .unwrap_or(4);
        for w in &words {
            let Some((node, pages)) = w.strip_prefix('N').and_then(|w| w.split_once('=')) else {
                continue;
            };
            if let (Ok(node), Ok(pages)) = (node.parse::<u32>(), pages.parse::<u64>()) {
                *kib.entry(node).or_insert(0) += pages.saturating_mul(page_kib);
            }
        }
    }
    kib
}

/// Anonymous memory THP may back, and how much of it is huge, from
/// `/proc/PID/smaps`: with THP `always` every mapping not marked `nh`
/// (MADV_NOHUGEPAGE), with `madvise` only those marked `hg` (MADV_HUGEPAGE).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Eligible {
    pub anon_kib: u64,
    pub huge_kib: u64,
}

pub fn parse_thp_eligible(smaps: &str, thp_enabled: &str) -> Eligible {
    let mut total = Eligible::default();
    let mut current = Eligible::default();
    let mut flush = |m: &mut Eligible, flags: &str| {
        let has = |f: &str| flags.split_whitespace().any(|w| w == f);
        let eligible = match thp_enabled {
            "always" => !has("nh"),
            "madvise" => has("hg"),
            _ => false,
        };
        if eligible {
            total.anon_kib += m.anon_kib;
            total.huge_kib += m.huge_kib;
        }
        *m = Eligible::default();
    };
    for line in smaps.lines() {
        if let Some(flags) = line.strip_prefix("VmFlags:") {
            // VmFlags closes each mapping's block.
            flush(&mut current, flags);
            continue;
        }
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        let value = || rest.split_whitespace().next()?.parse::<u64>().ok();
        match name {
            "Anonymous" => current.anon_kib = value().unwrap_or(0),
            "AnonHugePages" => current.huge_kib = value().unwrap_or(0),
            _ => {}
        }
    }
    total
}

/// NUMA node of each CPU, from `/sys/devices/system/node/node*/cpulist`.
pub fn read_cpu_nodes() -> BTreeMap<u32, u32> {
    let mut map = BTreeMap::new();
    let Ok(dir) = fs::read_dir("/sys/devices/system/node") else {
        return map;
    };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(node) = name
            .to_str()
            .and_then(|n| n.strip_prefix("node")?.parse().ok())
        else {
            continue;
        };
        let cpus = fs::read_to_string(entry.path().join("cpulist")).unwrap_or_default();
        for cpu in parse_list(cpus.trim()).unwrap_or_default() {
            map.insert(cpu as u32, node);
        }
    }
    map
}

/// `scaling_cur_freq` of a CPU, kHz; `None` without cpufreq (most VMs).
pub fn read_cpu_khz(cpu: u32) -> Option<u64> {
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq");
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// `cpu_capacity` of a CPU: differs between core types on a hybrid CPU.
pub fn read_cpu_capacity(cpu: u32) -> Option<u64> {
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/cpu_capacity");
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn read_trimmed(path: &str) -> Option<String> {
    Some(fs::read_to_string(path).ok()?.trim().to_string())
}

/// A CPU list from sysfs, or `None` when it is not one (hostile or absent).
fn read_cpu_list(path: &str) -> Option<String> {
    let text = read_trimmed(path)?;
    (text.is_empty() || parse_list(&text).is_some()).then_some(text)
}

pub fn read_settings(status: Option<&super::sample::Status>, policy: u32) -> SettingsInForce {
    let thp = crate::machine::thp_settings();
    let number = |path: &str| read_trimmed(path)?.parse().ok();
    SettingsInForce {
        thp_enabled: thp.enabled,
        thp_defrag: thp.defrag,
        nohz_full: read_cpu_list("/sys/devices/system/cpu/nohz_full"),
        isolated: read_cpu_list("/sys/devices/system/cpu/isolated"),
        sched_rt_runtime_us: number("/proc/sys/kernel/sched_rt_runtime_us"),
        sched_rt_period_us: number("/proc/sys/kernel/sched_rt_period_us"),
        cpus_allowed: status.and_then(|s| s.cpus_allowed.clone()),
        mems_allowed: status.and_then(|s| s.mems_allowed.clone()),
        policy: Some(policy),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pressure_some_total() {
        let t = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\n\
                 full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n";
        assert_eq!(parse_pressure_some(t), Some(1234));
        assert_eq!(parse_pressure_some("full total=1"), None);
    }

    #[test]
    fn local_timer_by_cpu_number() {
        let t = "           CPU0       CPU2\n  0:   44   0   IO-APIC 2-edge timer\n\
                 LOC:      94195      95061   Local timer interrupts\n";
        let m = parse_local_timer(t).unwrap();
        assert_eq!(m[&0], 94195);
        assert_eq!(m[&2], 95061);
        assert!(parse_local_timer("CPU0\nNMI: 0\n").is_none());
        assert!(parse_local_timer("CPU0 CPU1\nLOC: 5\n").is_none());
    }

    #[test]
    fn numa_maps_in_kib() {
        let t = "7f00 default anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n\
                 7f20 default file=/x\\040N1=9 anon=1 N1=1 kernelpagesize_kB=2048\n";
        let m = parse_numa_maps(t);
        assert_eq!(m[&0], 12);
        assert_eq!(m[&1], 2048);
    }

    #[test]
    fn thp_eligibility_follows_the_setting() {
        let smaps = "7f00-7f80 rw-p 0 0:0 0\nAnonymous:  8192 kB\nAnonHugePages: 6144 kB\nVmFlags: rd wr hg\n\
                     7f80-7f90 rw-p 0 0:0 0\nAnonymous:  1024 kB\nAnonHugePages: 0 kB\nVmFlags: rd wr\n\
                     7f90-7fa0 rw-p 0 0:0 0\nAnonymous:  512 kB\nAnonHugePages: 0 kB\nVmFlags: rd wr nh\n";
        let madvise = parse_thp_eligible(smaps, "madvise");
        assert_eq!((madvise.anon_kib, madvise.huge_kib), (8192, 6144));
        assert_eq!(parse_thp_eligible(smaps, "always").anon_kib, 9216);
        assert_eq!(parse_thp_eligible(smaps, "never").anon_kib, 0);
    }
}
