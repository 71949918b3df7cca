//! `collector inspect PID`: watch a running process through `/proc` for a
//! while, then give each row of the book's symptom table a verdict. Nothing
//! is done *to* the process: no ptrace, no signal, no perf event; only files
//! any tool like `top` reads.

mod sample;
mod summary;
mod system;
mod verdicts;

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use pagewalk_model::inspect::{InspectResults, ProcessSample, EXPERIMENT};
use pagewalk_model::limits::MAX_SAMPLES;
use pagewalk_model::{
    ExperimentRecord, Provenance, Results, RunFile, Status, TlbKind, SCHEMA_VERSION,
};

use crate::cli::InspectArgs;
use crate::{interrupt, machine, output, procfs};
use sample::PerThread;

pub fn run(args: &InspectArgs, command: Vec<String>) -> Result<ExitCode, String> {
    let pid = args.pid;
    let first = sample::read(pid)?;
    if matches!(first.stat.state, 'Z' | 'X') {
        return Err(format!(
            "process {pid} has exited (a zombie its parent has not reaped): nothing to watch"
        ));
    }
    crate::rlimits::ensure_open_files().map_err(|e| format!("{e}; nothing was watched"))?;
    output::save::probe_writable(&args.out).map_err(|e| format!("{e}; nothing was watched"))?;
    interrupt::install()?;
    let started = jiff::Timestamp::now();
    let results = watch(pid, first, args.duration, args.interval);
    let machine = machine::collect()?;
    let run_id = crate::run::run_id(started);
    let duration_s = results.observed_s;
    let run = RunFile {
        schema_version: SCHEMA_VERSION,
        provenance: Provenance::Collector {
            collector_version: crate::run::collector_version(),
            run_id: run_id.clone(),
            started_utc: started.to_string(),
            finished_utc: Some(jiff::Timestamp::now().to_string()),
            quick: false,
            command,
            interrupted: interrupt::requested(),
            signal: interrupt::received().map(interrupt::stop_signal),
        },
        machine: Some(machine),
        experiments: vec![ExperimentRecord {
            name: EXPERIMENT.to_string(),
            status: Status::Ok,
            reason: None,
            duration_s: Some(duration_s),
            checks: Vec::new(),
            results: Some(Results::Inspect(results)),
            // The inspection is itself a record of the machine's activity.
            background: None,
        }],
    };
    // Not in its folder (the model refused it, the disk filled up): kept
    // elsewhere, the summary names that file, and the status says it failed.
    let shown =
        output::save::save_and_show(&args.out, &run_id, &run, "collector inspect", |path| {
            if let Some(r) = run.inspect() {
                crate::stdout::print(&summary::render(r, path));
            }
        });
    if let Err(status) = shown {
        return Ok(status);
    }
    // Stopped by a signal: the file holds what was watched, and the exit
    // status says how it ended, as `run` does.
    Ok(interrupt::received().map_or(ExitCode::SUCCESS, |s| {
        ExitCode::from(interrupt::exit_status(s))
    }))
}

/// Sums of per-thread counters since the first sample. Each thread adds
/// its own delta, so a thread that exits does not make the totals go back.
#[derive(Default)]
struct Accumulated {
    last: PerThread,
    sums: (u64, u64),
}

impl Accumulated {
    fn add(&mut self, now: &PerThread) {
        for (tid, (a, b)) in now {
            if let Some((a0, b0)) = self.last.get(tid) {
                self.sums.0 += a.saturating_sub(*a0);
                self.sums.1 += b.saturating_sub(*b0);
            }
        }
        self.last = now.clone();
    }
}

/// Turns raw reads into the stored timeline.
struct Timeline {
    t0: Instant,
    /// (on-CPU ns, run-queue wait ns), or `None` once unreadable.
    sched: Option<Accumulated>,
    /// (voluntary, involuntary) context switches.
    switches: Accumulated,
    cpus_seen: BTreeSet<u32>,
    samples: Vec<ProcessSample>,
    unreadable: BTreeMap<String, String>,
    ticks_per_s: f64,
}

impl Timeline {
    fn push(&mut self, raw: sample::Raw) {
        let mut note = |what: &str, e: &String| {
            self.unreadable
                .entry(what.into())
                .or_insert_with(|| e.clone());
        };
        let status = raw
            .status
            .as_ref()
            .map_err(|e| note("status", e))
            .ok()
            .cloned();
        let rollup = raw
            .rollup
            .as_ref()
            .map_err(|e| note("smaps_rollup", e))
            .ok();
        match (&raw.schedstat, &mut self.sched) {
            (Ok(threads), Some(acc)) => acc.add(threads),
            (Err(e), _) => {
                note("schedstat", e);
                self.sched = None;
            }
            (Ok(_), None) => {}
        }
        let switches = (!raw.switches.is_empty()).then(|| {
            self.switches.add(&raw.switches);
            self.switches.sums
        });
        self.cpus_seen.extend(&raw.cpus);
        let field = |name: &str| rollup.and_then(|r| r.get(name).copied());
        let sched = self.sched.as_ref().map(|a| a.sums);
        self.samples.push(ProcessSample {
            t_s: self.t0.elapsed().as_secs_f64(),
            minor_faults: raw.stat.minor_faults,
            major_faults: raw.stat.major_faults,
            cpu_s: raw.stat.cpu_ticks as f64 / self.ticks_per_s,
            cpu: raw.stat.processor,
            cpu_khz: system::read_cpu_khz(raw.stat.processor),
            threads: raw.stat.threads,
            voluntary_switches: switches.map(|s| s.0),
            involuntary_switches: switches.map(|s| s.1),
            rss_kib: status.as_ref().and_then(|s| s.rss_kib),
            run_queue_wait_ns: sched.map(|s| s.1),
            on_cpu_ns: sched.map(|s| s.0),
            anon_kib: field("Anonymous"),
            anon_huge_kib: field("AnonHugePages"),
        });
    }
}

/// When the next sample is due, from the first, with `taken` taken so
/// far: the first multiple of `interval` after `elapsed`, so the slots a
/// slow read overran are skipped rather than made up in a burst; `None`
/// once that is past `duration`. `--for` is wall time: the watch ends at
/// its deadline however slow sampling is, and never takes more than
/// `duration / interval + 1` samples, nor more than a run file keeps
/// (`--for` and `--interval` were checked to fit; this holds whatever the
/// clock does).
fn next_due(
    elapsed: Duration,
    taken: usize,
    interval: Duration,
    duration: Duration,
) -> Option<Duration> {
    if taken >= MAX_SAMPLES {
        return None;
    }
    let k = elapsed.as_nanos() / interval.as_nanos().max(1) + 1;
    let due = interval.checked_mul(u32::try_from(k).ok()?)?;
    (due <= duration).then_some(due)
}

/// Samples `pid` every `interval` for `duration` (or until it exits or a
/// signal arrives) and decides the verdicts.
fn watch(pid: u32, first: sample::Raw, duration: Duration, interval: Duration) -> InspectResults {
    let vmstat0 = procfs::read_vmstat();
    let pressure0 = system::read_pressure();
    let timer0 = system::read_local_timer();
    let tlb0 = procfs::read_tlb_shootdowns();
    let start_ticks = first.stat.start_ticks;
    let comm = first.stat.comm.clone();
    let policy = first.stat.policy;
    let mut last_status = first.status.clone().ok();
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let mut tl = Timeline {
        t0: Instant::now(),
        sched: Some(Accumulated::default()),
        switches: Accumulated::default(),
        cpus_seen: BTreeSet::new(),
        samples: Vec::new(),
        unreadable: BTreeMap::new(),
        ticks_per_s: if ticks > 0 { ticks as f64 } else { 100.0 },
    };
    tl.push(first);
    let mut ended_early = None;
    // Whether the process is still there to read its layout at the end.
    let mut gone = false;
    while let Some(due) = next_due(tl.t0.elapsed(), tl.samples.len(), interval, duration) {
        if let Some(wait) = due.checked_sub(tl.t0.elapsed()) {
            std::thread::sleep(wait);
        }
        if interrupt::requested() {
            let signal = interrupt::received().map_or("a signal", interrupt::name);
            ended_early = Some(format!("stopped by {signal}"));
            break;
        }
        match sample::read(pid) {
            Ok(raw) if raw.stat.start_ticks != start_ticks => {
                ended_early = Some(format!("process {pid} exited and its PID was reused"));
                gone = true;
                break;
            }
            Ok(raw) if matches!(raw.stat.state, 'Z' | 'X') => {
                ended_early = Some(format!("process {pid} exited"));
                gone = true;
                break;
            }
            Ok(raw) => {
                last_status = raw.status.clone().ok().or(last_status);
                tl.push(raw);
            }
            Err(e) => {
                ended_early = Some(e);
                gone = true;
                break;
            }
        }
    }
    let observed_s = tl.samples.last().map_or(0.0, |s| s.t_s);
    let elapsed = tl.t0.elapsed().as_secs_f64();

    let vmstat_deltas = match (vmstat0, procfs::read_vmstat()) {
        (Ok(a), Ok(b)) => system::VMSTAT
            .iter()
            .filter_map(|n| Some((n.to_string(), b.get(*n)? - a.get(*n)?)))
            .collect(),
        (Err(e), _) | (_, Err(e)) => {
            tl.unreadable
                .insert("vmstat".into(), format!("/proc/vmstat: {e}"));
            BTreeMap::new()
        }
    };
    let pressure1 = system::read_pressure();
    let pressure_some_us: BTreeMap<String, u64> = pressure0
        .iter()
        .filter_map(|(k, a)| Some((k.clone(), pressure1.get(k)?.saturating_sub(*a))))
        .collect();
    if pressure_some_us.is_empty() {
        tl.unreadable
            .insert("pressure".into(), "/proc/pressure: absent (no PSI)".into());
    }
    // Interrupts per second on the CPUs the process was seen on.
    let rates = |a: &BTreeMap<u32, u64>, b: &BTreeMap<u32, u64>| -> BTreeMap<u32, f64> {
        tl.cpus_seen
            .iter()
            .filter_map(|c| Some((*c, b.get(c)?.saturating_sub(*a.get(c)?) as f64 / elapsed)))
            .collect()
    };
    let tlb_shootdowns_per_s = match (tlb0, procfs::read_tlb_shootdowns()) {
        (Some(a), Some(b)) if elapsed > 0.0 => rates(&a, &b),
        _ => BTreeMap::new(),
    };
    let timer_irq_per_s = match (timer0, system::read_local_timer()) {
        (Ok(a), Ok(b)) if elapsed > 0.0 => rates(&a, &b),
        (Err(e), _) | (_, Err(e)) => {
            tl.unreadable.insert("interrupts".into(), e);
            BTreeMap::new()
        }
        _ => BTreeMap::new(),
    };
    // The layout at the end: only while the process still exists.
    let read_own = |name: &str| -> Result<String, String> {
        if gone {
            return Err("the process had exited".into());
        }
        let path = format!("/proc/{pid}/{name}");
        std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))
    };
    let kib_per_node = match read_own("numa_maps") {
        Ok(t) => system::parse_numa_maps(&t),
        Err(e) => {
            tl.unreadable.insert("numa_maps".into(), e);
            BTreeMap::new()
        }
    };
    let settings = system::read_settings(last_status.as_ref(), policy);
    let thp_setting = settings.thp_enabled.clone().unwrap_or_default();
    let thp_eligible =
        Some(read_own("smaps").map(|t| system::parse_thp_eligible(&t, &thp_setting)));
    let extra = verdicts::Extra {
        cpu_capacity: tl
            .cpus_seen
            .iter()
            .filter_map(|c| Some((*c, system::read_cpu_capacity(*c)?)))
            .collect(),
        cpus_seen: tl.cpus_seen.clone(),
        cpu_nodes: system::read_cpu_nodes(),
        thp_eligible,
        thp_disabled_by_process: last_status.as_ref().and_then(|s| s.thp_enabled) == Some(false),
        tlb_reach_kib: crate::experiments::translation::geometry::read()
            .tlbs
            .iter()
            .filter(|t| t.kind != TlbKind::Instruction && t.page_bytes == 4096)
            .map(|t| t.reach_bytes() / 1024)
            .max(),
    };
    let mut results = InspectResults {
        pid,
        command: comm,
        requested_s: duration.as_secs_f64(),
        observed_s,
        interval_ms: interval.as_secs_f64() * 1e3,
        ended_early,
        samples: tl.samples,
        vmstat_deltas,
        pressure_some_us,
        timer_irq_per_s,
        tlb_shootdowns_per_s,
        kib_per_node,
        settings,
        unreadable: tl.unreadable,
        verdicts: Vec::new(),
    };
    results.verdicts = verdicts::decide(&results, &extra);
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The watch loop's schedule, with reads that take `read` each.
    fn schedule(
        interval: Duration,
        duration: Duration,
        read: Duration,
    ) -> (Vec<Duration>, Duration) {
        let (mut now, mut taken) = (read, vec![Duration::ZERO]);
        while let Some(due) = next_due(now, taken.len(), interval, duration) {
            taken.push(due.max(now));
            now = due.max(now) + read;
        }
        (taken, now)
    }

    #[test]
    fn reads_slower_than_the_interval_still_end_at_the_deadline() {
        let ms = Duration::from_millis;
        // Each read takes 3.5 intervals: slots are skipped, not made up,
        // and no read starts after --for.
        let (taken, end) = schedule(ms(10), ms(100), ms(35));
        assert!(taken.iter().all(|&t| t <= ms(100)), "{taken:?}");
        assert!(end <= ms(100) + ms(35), "ended at {end:?}");
        assert_eq!(taken, [ms(0), ms(40), ms(80)]);
        // Fast reads: one sample per interval, the first at once.
        let (taken, _) = schedule(ms(10), ms(100), Duration::ZERO);
        assert_eq!(taken.len(), 11);
        assert_eq!(taken[10], ms(100));
        // However the clock behaves, never more than a file keeps.
        assert_eq!(next_due(ms(0), MAX_SAMPLES, ms(10), ms(1) * u32::MAX), None);
    }
}
