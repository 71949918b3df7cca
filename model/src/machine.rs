//! The machine a run was measured on. Every number in the book is only
//! meaningful next to this: a VM without a PMU, THP set to `never` or a
//! cgroup limit changes what an experiment can show.

use std::collections::BTreeMap;

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

/// Recorded once per run. Fields the machine does not expose are `None`
/// rather than guessed.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MachineContext {
    pub cpu: Cpu,
    pub kernel_release: String,
    pub base_page_bytes: u64,
    pub thp: ThpSettings,
    /// One entry per size under `/sys/kernel/mm/hugepages`.
    pub hugetlb_pools: Vec<HugetlbPool>,
    pub virtualization: Virtualization,
    pub perf_event_paranoid: Option<i32>,
    pub pmu: PmuAccess,
    pub memory: MemoryInfo,
    /// Governor of CPU 0, if cpufreq is exposed (often not in a VM).
    pub cpu_governor: Option<String>,
    /// `/sys/devices/system/cpu/vulnerabilities/*`: name -> kernel's verdict.
    pub vulnerabilities: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Cpu {
    pub vendor: String,
    pub model_name: String,
    pub family: u32,
    pub model: u32,
    pub stepping: u32,
    pub logical_cpus: usize,
}

/// The selected value of each THP knob (the word in brackets in sysfs);
/// `None` when the file is missing (no THP support).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ThpSettings {
    pub enabled: Option<String>,
    pub defrag: Option<String>,
    pub khugepaged_defrag: Option<String>,
    /// `khugepaged/max_ptes_none`: how many unmapped 4 KiB slots khugepaged
    /// may fill with zeros to collapse a 2 MiB range (511 by default: the
    /// bound on THP's memory bloat). From 6.12 it also decides which huge
    /// pages the under-used-THP shrinker splits.
    pub max_ptes_none: Option<u64>,
    /// `shrink_underused` (`1`/`0`): whether that shrinker runs (6.12+).
    pub shrink_underused: Option<String>,
    /// Multi-size THP (Linux 6.8+): one entry per anonymous size under
    /// `hugepages-<size>kB/`; absent on older kernels.
    pub sizes: Option<Vec<MthpSize>>,
}

/// One multi-size THP size: its own `enabled` and, from Linux 6.10, its
/// fault counters (since boot) as the run started.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MthpSize {
    pub kib: u64,
    /// `always`, `inherit` (follow the top-level `enabled`), `madvise` or
    /// `never`.
    pub enabled: String,
    /// `stats/anon_fault_alloc`: anonymous faults that got this size.
    pub anon_fault_alloc: Option<u64>,
    /// `stats/anon_fault_fallback`: faults that wanted it and fell back.
    pub anon_fault_fallback: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct HugetlbPool {
    pub page_kib: u64,
    pub nr_hugepages: u64,
    pub free_hugepages: u64,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Virtualization {
    /// CPUID leaf 1, ECX bit 31.
    pub hypervisor_bit: bool,
    /// CPUID leaf 0x4000_0000 vendor string, e.g. `KVMKVMKVM`.
    pub hypervisor_vendor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct PmuAccess {
    /// Whether `perf_event_open` of a hardware cycle counter on this process
    /// succeeded.
    pub hardware_counters: bool,
    /// The error or note when it did not (e.g. no PMU in this VM).
    pub detail: String,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct MemoryInfo {
    pub mem_total_kib: u64,
    pub mem_available_kib: u64,
    /// cgroup v2 `memory.max` of this process; `None` when unlimited or not
    /// visible.
    pub cgroup_limit_bytes: Option<u64>,
}
