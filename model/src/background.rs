//! How busy the machine was while an experiment ran: the other CPU states
//! (steal above all, in a virtual machine), the runnable tasks, the CPU
//! time other processes took, and memory and CPU pressure. Two runs of the
//! same experiment on the same kind of machine can differ by 2-4x for no
//! reason the figures show; these say whether the machine was shared.

use crate::json::FromJson;
use serde::{Deserialize, Serialize};

/// Recorded around one experiment, from a snapshot before and one after.
/// `/proc/stat` counts in clock ticks (10 ms at the usual 100 Hz), so the
/// shares of an experiment shorter than a second are coarse.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Background {
    /// Seconds between the two snapshots.
    pub window_s: f64,
    /// Shares of all CPUs' time over the window (`/proc/stat`'s first
    /// line); together with the rest they add up to 1.
    pub user_fraction: f64,
    pub system_fraction: f64,
    pub idle_fraction: f64,
    pub iowait_fraction: f64,
    /// Hard and soft interrupt handling.
    pub irq_fraction: f64,
    /// Time the hypervisor ran something else while this guest's vCPU
    /// wanted to run. Zero on bare metal.
    pub steal_fraction: f64,
    /// Runnable tasks besides the collector (`procs_running` of
    /// `/proc/stat` less one), the mean of the two snapshots.
    pub other_runnable: Option<f64>,
    /// The 1-minute load average at the end.
    pub load_1m: Option<f64>,
    /// CPU seconds the rest of the machine used in the window: all busy
    /// time less this process's own.
    pub others_cpu_s: Option<f64>,
    /// The processes that used the most of that (alive at both snapshots),
    /// most first, at most three.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub busiest: Vec<BusyProcess>,
    /// `/proc/pressure/memory` and `cpu` "some" stall time in the window,
    /// microseconds (absent without PSI).
    pub memory_some_us: Option<u64>,
    pub memory_full_us: Option<u64>,
    pub cpu_some_us: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct BusyProcess {
    /// Its `comm` (at most 15 bytes on Linux).
    pub command: String,
    pub cpu_s: f64,
}

impl Background {
    /// The CPUs other processes kept busy, on average: `others_cpu_s`
    /// over the window.
    pub fn others_cpus(&self) -> Option<f64> {
        let s = self.others_cpu_s?;
        (self.window_s > 0.0).then(|| s / self.window_s)
    }

    /// Several backgrounds as one, weighted by their windows (a run's
    /// experiments, for comparing runs); `None` when there are none.
    pub fn combined<'a>(all: impl IntoIterator<Item = &'a Background>) -> Option<Background> {
        let all: Vec<&Background> = all.into_iter().collect();
        let window: f64 = all.iter().map(|b| b.window_s).sum();
        if all.is_empty() || window <= 0.0 {
            return None;
        }
        let mean =
            |f: fn(&Background) -> f64| all.iter().map(|b| f(b) * b.window_s).sum::<f64>() / window;
        let mean_opt = |f: fn(&Background) -> Option<f64>| {
            let known: Vec<(f64, f64)> = all
                .iter()
                .filter_map(|b| Some((f(b)?, b.window_s)))
                .collect();
            let w: f64 = known.iter().map(|k| k.1).sum();
            (w > 0.0).then(|| known.iter().map(|(v, t)| v * t).sum::<f64>() / w)
        };
        let sum_opt =
            |f: fn(&Background) -> Option<u64>| all.iter().map(|b| f(b)).sum::<Option<u64>>();
        Some(Background {
            window_s: window,
            user_fraction: mean(|b| b.user_fraction),
            system_fraction: mean(|b| b.system_fraction),
            idle_fraction: mean(|b| b.idle_fraction),
            iowait_fraction: mean(|b| b.iowait_fraction),
            irq_fraction: mean(|b| b.irq_fraction),
            steal_fraction: mean(|b| b.steal_fraction),
            other_runnable: mean_opt(|b| b.other_runnable),
            load_1m: all.last().and_then(|b| b.load_1m),
            others_cpu_s: all.iter().map(|b| b.others_cpu_s).sum(),
            busiest: Vec::new(),
            memory_some_us: sum_opt(|b| b.memory_some_us),
            memory_full_us: sum_opt(|b| b.memory_full_us),
            cpu_some_us: sum_opt(|b| b.cpu_some_us),
        })
    }

    /// One line for a reader: `12% steal, 1.4 other runnable tasks, other
    /// processes 0.8 CPUs` (the last only for a window of a second or more).
    pub fn summary(&self) -> String {
        // `decimal::fixed`, not `{:.1}`: float formatting would add kilobytes
        // to the page's worker, which reads run files with this model.
        use crate::decimal::fixed;
        let mut parts = vec![format!("{}% steal", fixed(self.steal_fraction * 100.0, 0))];
        if let Some(r) = self.other_runnable {
            parts.push(format!("{} other runnable tasks", fixed(r, 1)));
        }
        // Under a second, clock ticks (10 ms) cannot resolve it.
        if let Some(c) = self.others_cpus().filter(|_| self.window_s >= 1.0) {
            parts.push(format!("other processes {} CPUs", fixed(c, 1)));
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bg(window_s: f64, steal: f64, others: f64) -> Background {
        Background {
            window_s,
            user_fraction: 0.5,
            system_fraction: 0.1,
            idle_fraction: 0.4 - steal,
            iowait_fraction: 0.0,
            irq_fraction: 0.0,
            steal_fraction: steal,
            other_runnable: Some(1.0),
            load_1m: Some(1.5),
            others_cpu_s: Some(others),
            busiest: Vec::new(),
            memory_some_us: Some(10),
            memory_full_us: None,
            cpu_some_us: Some(5),
        }
    }

    #[test]
    fn combined_weighs_by_window() {
        let c = Background::combined([&bg(1.0, 0.0, 0.5), &bg(3.0, 0.2, 3.0)]).unwrap();
        assert_eq!(c.window_s, 4.0);
        assert!((c.steal_fraction - 0.15).abs() < 1e-12);
        assert_eq!(c.others_cpu_s, Some(3.5));
        assert_eq!(c.memory_some_us, Some(20));
        assert_eq!(c.memory_full_us, None);
        assert_eq!(
            c.summary(),
            "15% steal, 1.0 other runnable tasks, other processes 0.9 CPUs"
        );
        assert!(Background::combined([]).is_none());
        assert_eq!(
            bg(0.5, 0.2, 0.1).summary(),
            "20% steal, 1.0 other runnable tasks"
        );
    }
}
