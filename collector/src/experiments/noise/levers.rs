//! What this machine has of the scheduling and isolation levers, and what
//! it says about CPU frequency. Read from `/proc` and `/sys`; SCHED_FIFO is
//! tried on a throwaway thread and undone.

use std::fs;
use std::path::Path;

use pagewalk_model::{Frequency, SchedLevers};

use crate::affinity;

pub fn levers() -> SchedLevers {
    let cmdline = read("/proc/cmdline").unwrap_or_default();
    let param = |name: &str| boot_param(&cmdline, name);
    let (cpuset_partitions, cpuset_detail) = cpuset_partitions(Path::new("/sys/fs/cgroup"));
    SchedLevers {
        allowed_cpus: affinity::allowed().ok().map(|c| affinity::format_list(&c)),
        isolcpus: param("isolcpus"),
        nohz_full: param("nohz_full"),
        rcu_nocbs: param("rcu_nocbs"),
        irqaffinity: param("irqaffinity"),
        sched_rt_runtime_us: read("/proc/sys/kernel/sched_rt_runtime_us")
            .and_then(|s| s.parse().ok()),
        sched_rt_period_us: read("/proc/sys/kernel/sched_rt_period_us")
            .and_then(|s| s.parse().ok()),
        sched_fifo_permitted: Some(sched_fifo_permitted()),
        irq_default_affinity: read("/proc/irq/default_smp_affinity"),
        cpuset_partitions: Some(cpuset_partitions),
        cpuset_detail: Some(cpuset_detail),
    }
}

pub fn frequency() -> Frequency {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cpufreq");
    let num = |f: &str| read(dir.join(f)).and_then(|s| s.parse().ok());
    Frequency {
        cpufreq_visible: dir.is_dir(),
        governor: read(dir.join("scaling_governor")),
        cur_khz: num("scaling_cur_freq"),
        max_khz: num("cpuinfo_max_freq"),
        boost: read("/sys/devices/system/cpu/cpufreq/boost"),
    }
}

/// `name=value` from the kernel command line; parameters after `--` belong
/// to init, not the kernel. A bare `name` reads as an empty value.
fn boot_param(cmdline: &str, name: &str) -> Option<String> {
    cmdline
        .split_whitespace()
        .take_while(|w| *w != "--")
        .find_map(|w| match w.split_once('=') {
            Some((k, v)) if k == name => Some(v.to_string()),
            None if w == name => Some(String::new()),
            _ => None,
        })
}

/// Tries SCHED_FIFO priority 1 on a fresh thread (which then ends), so the
/// collector itself never runs real-time.
fn sched_fifo_permitted() -> bool {
    // No thread to try it on (under a tight address-space limit): not known
    // to be permitted.
    let Ok(thread) = std::thread::Builder::new().spawn(|| {
        let param = libc::sched_param { sched_priority: 1 };
        // SAFETY: pid 0 is the calling thread; param outlives the call.
        let ok = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0;
        if ok {
            let normal = libc::sched_param { sched_priority: 0 };
            unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &normal) };
        }
        ok
    }) else {
        return false;
    };
    thread.join().unwrap_or(false)
}

/// Partitions (`cpuset.cpus.partition`) need cgroup v2 with the cpuset
/// controller.
fn cpuset_partitions(root: &Path) -> (bool, String) {
    match read(root.join("cgroup.controllers")) {
        None => (
            false,
            format!(
                "no cgroup v2 hierarchy at {} (v1 or hybrid mount): partitions need cgroup v2",
                root.display()
            ),
        ),
        Some(c) if c.split_whitespace().any(|w| w == "cpuset") => (
            true,
            "cgroup v2 with the cpuset controller: cpuset.cpus.partition can make an isolated partition (root)".into(),
        ),
        Some(_) => (
            false,
            "cgroup v2 without the cpuset controller enabled at the root".into(),
        ),
    }
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_params_stop_at_init_arguments() {
        let c = "quiet isolcpus=2-3 nohz_full=2-3 rcu_nocbs -- --isolcpus=9";
        assert_eq!(boot_param(c, "isolcpus").as_deref(), Some("2-3"));
        assert_eq!(boot_param(c, "rcu_nocbs").as_deref(), Some(""));
        assert_eq!(boot_param(c, "irqaffinity"), None);
        assert_eq!(boot_param("a -- isolcpus=1", "isolcpus"), None);
    }

    #[test]
    fn cpuset_partitions_need_the_controller() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!cpuset_partitions(dir.path()).0);
        std::fs::write(dir.path().join("cgroup.controllers"), "cpu io memory\n").unwrap();
        assert!(!cpuset_partitions(dir.path()).0);
        std::fs::write(dir.path().join("cgroup.controllers"), "cpuset cpu\n").unwrap();
        assert!(cpuset_partitions(dir.path()).0);
    }

    #[test]
    fn reads_this_machine() {
        let l = levers();
        assert!(l.allowed_cpus.is_some());
        let _ = frequency();
    }
}
