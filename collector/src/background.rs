//! What else the machine did while an experiment ran: a snapshot of
//! `/proc/stat`, `/proc/loadavg`, `/proc/pressure/*` and every process's CPU
//! time before the experiment and one after, and the difference between
//! them ([`pagewalk_model::Background`]). Two reads of a few files: nothing
//! runs beside the experiment to watch it, so nothing is added to what it
//! measures.

use std::collections::BTreeMap;
use std::time::Instant;

use pagewalk_model::{Background, BusyProcess};

/// The CPU time counters of `/proc/stat`'s `cpu` line, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct CpuTimes {
    user: u64,
    nice: u64,
    system: u64,
    idle: u64,
    iowait: u64,
    irq: u64,
    softirq: u64,
    steal: u64,
}

impl CpuTimes {
    fn total(&self) -> u64 {
        self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
    }

    /// Time the guest's CPUs were doing work (not idle, not waiting, not
    /// taken by the host).
    fn busy(&self) -> u64 {
        self.user + self.nice + self.system + self.irq + self.softirq
    }

    fn minus(&self, o: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(o.user),
            nice: self.nice.saturating_sub(o.nice),
            system: self.system.saturating_sub(o.system),
            idle: self.idle.saturating_sub(o.idle),
            iowait: self.iowait.saturating_sub(o.iowait),
            irq: self.irq.saturating_sub(o.irq),
            softirq: self.softirq.saturating_sub(o.softirq),
            steal: self.steal.saturating_sub(o.steal),
        }
    }
}

/// `/proc/stat`: the `cpu` line and `procs_running`.
fn parse_stat(text: &str) -> Option<(CpuTimes, Option<u64>)> {
    let cpu = text.lines().find_map(|l| l.strip_prefix("cpu "))?;
    let v: Vec<u64> = cpu
        .split_whitespace()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    let running = text
        .lines()
        .find_map(|l| l.strip_prefix("procs_running "))
        .and_then(|n| n.trim().parse().ok());
    Some((
        CpuTimes {
            user: at(0),
            nice: at(1),
            system: at(2),
            idle: at(3),
            iowait: at(4),
            irq: at(5),
            softirq: at(6),
            steal: at(7),
        },
        running,
    ))
}

/// `/proc/pressure/*`'s `total=` of its `some` (or `full`) line, µs.
fn parse_pressure(text: &str, line: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with(line))?
        .split_whitespace()
        .find_map(|f| f.strip_prefix("total="))?
        .parse()
        .ok()
}

/// `/proc/PID/stat`: its `comm` and utime + stime in ticks. The command is
/// in parentheses and may itself hold spaces and parentheses.
fn parse_process(text: &str) -> Option<(String, u64)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // After the command: state is field 3, utime 14 and stime 15.
    let utime: u64 = rest.get(11)?.parse().ok()?;
    let stime: u64 = rest.get(12)?.parse().ok()?;
    Some((comm, utime + stime))
}

/// Every process but this one: pid -> (command, CPU ticks).
fn processes() -> BTreeMap<u32, (String, u64)> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            if pid == me {
                return None;
            }
            let text = std::fs::read_to_string(e.path().join("stat")).ok()?;
            Some((pid, parse_process(&text)?))
        })
        .collect()
}

fn own_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return 0.0;
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// One look at the machine.
pub struct Snapshot {
    at: Instant,
    cpu: Option<(CpuTimes, Option<u64>)>,
    own_cpu_s: f64,
    processes: BTreeMap<u32, (String, u64)>,
    pressure: [Option<u64>; 3],
}

impl Snapshot {
    pub fn take() -> Snapshot {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let memory = read("/proc/pressure/memory");
        let cpu_pressure = read("/proc/pressure/cpu");
        Snapshot {
            at: Instant::now(),
            cpu: read("/proc/stat").as_deref().and_then(parse_stat),
            own_cpu_s: own_cpu_s(),
            processes: processes(),
            pressure: [
                memory.as_deref().and_then(|t| parse_pressure(t, "some")),
                memory.as_deref().and_then(|t| parse_pressure(t, "full")),
                cpu_pressure
                    .as_deref()
                    .and_then(|t| parse_pressure(t, "some")),
            ],
        }
    }

    /// The background between `self` and a snapshot taken now; `None`
    /// when `/proc/stat` could not be read or no time passed.
    pub fn until_now(&self) -> Option<Background> {
        let end = Snapshot::take();
        let window_s = end.at.duration_since(self.at).as_secs_f64();
        let ((a, run_a), (b, run_b)) = (self.cpu?, end.cpu?);
        let d = b.minus(&a);
        let total = d.total();
        if total == 0 || window_s <= 0.0 {
            return None;
        }
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let share = |t: u64| t as f64 / total as f64;
        let others_cpu_s = (d.busy() as f64 / hz - (end.own_cpu_s - self.own_cpu_s)).max(0.0);
        let mut busiest: Vec<BusyProcess> = end
            .processes
            .iter()
            .filter_map(|(pid, (comm, ticks))| {
                let (_, before) = self.processes.get(pid)?;
                let used = ticks.saturating_sub(*before);
                (used > 0).then(|| BusyProcess {
                    command: comm.chars().filter(|c| !c.is_control()).take(64).collect(),
                    cpu_s: used as f64 / hz,
                })
            })
            .collect();
        busiest.sort_by(|x, y| y.cpu_s.total_cmp(&x.cpu_s));
        busiest.truncate(3);
        let delta = |i: usize| Some(end.pressure[i]?.saturating_sub(self.pressure[i]?));
        Some(Background {
            window_s,
            user_fraction: share(d.user + d.nice),
            system_fraction: share(d.system),
            idle_fraction: share(d.idle),
            iowait_fraction: share(d.iowait),
            irq_fraction: share(d.irq + d.softirq),
            steal_fraction: share(d.steal),
            other_runnable: run_a
                .zip(run_b)
                .map(|(x, y)| ((x + y) as f64 / 2.0 - 1.0).max(0.0)),
            load_1m: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|t| t.split_whitespace().next()?.parse().ok()),
            others_cpu_s: Some(others_cpu_s),
            busiest,
            memory_some_us: delta(0),
            memory_full_us: delta(1),
            cpu_some_us: delta(2),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_and_pressure_and_a_process() {
        let stat =
            "cpu  100 5 50 800 10 3 2 30 0 0\ncpu0 1 2 3 4\nprocs_running 3\nprocs_blocked 0\n";
        let (t, running) = parse_stat(stat).unwrap();
        assert_eq!((t.user, t.steal, t.total()), (100, 30, 1000));
        assert_eq!(running, Some(3));
        let psi = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=56\n";
        assert_eq!(parse_pressure(psi, "some"), Some(1234));
        assert_eq!(parse_pressure(psi, "full"), Some(56));
        let p = "42 (rust (c) x) S 1 42 42 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 1 0 5 0 0";
        assert_eq!(parse_process(p), Some(("rust (c) x".to_string(), 280)));
    }

    #[test]
    fn a_busy_window_is_seen() {
        let before = Snapshot::take();
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let b = before.until_now().expect("/proc/stat is readable here");
        assert!(b.window_s >= 0.05);
        let sum = b.user_fraction
            + b.system_fraction
            + b.idle_fraction
            + b.iowait_fraction
            + b.irq_fraction
            + b.steal_fraction;
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        assert!(b.others_cpu_s.unwrap() >= 0.0);
    }
}
