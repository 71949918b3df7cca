//! The symptom table as rules: for each row, which counters decide and
//! where "present" starts. Every threshold says why it is where it is; a
//! counter that could not be read makes the verdict "cannot tell", never a
//! guess.

use std::collections::{BTreeMap, BTreeSet};

use pagewalk_model::inspect::{
    Evidence, InspectResults, Presence, ProcessSample, Symptom, SymptomVerdict,
};

use super::system::Eligible;

/// A minor fault on fresh memory costs the process about 1-2 µs of kernel
/// time (the first-touch chapter measures 1.7 µs per 4 KiB page on the
/// example machine). At 100 per second one lands every 10 ms: enough to
/// show in the p99 of anything that takes milliseconds, and two orders of
/// magnitude above the handful a settled process takes (stack, timers).
const MINOR_FAULTS_PER_S: f64 = 100.0;

/// A major fault waits for storage: ~0.1 ms on an SSD, milliseconds on a
/// disk or a network volume. The symptom is a *rare* stall, so one in the
/// window is already the evidence.
const MAJOR_FAULTS: u64 = 1;

/// Run-queue wait per second of wall time (summed over threads) from which
/// waiting for a CPU is a symptom: 50 ms/s is a twentieth of every second
/// lost, each wait at least a scheduler slice (milliseconds). A sleeping
/// process only collects wake-up latency, microseconds per wake-up.
const WAIT_MS_PER_S: f64 = 50.0;

/// ...and the share of its runnable time spent waiting: below a tenth, a
/// many-threaded process summing small waits over threads is not being
/// starved.
const WAIT_SHARE: f64 = 0.10;

/// A thread is RT-throttled only if it wants more than `rt_runtime / rt_period`
/// of a CPU (95% by default); from 90% of a CPU the process runs close to
/// that limit and the sampled share cannot tell the two apart.
const NEVER_SLEEPS_CPU_SHARE: f64 = 0.9;

/// With THP, less than half of the eligible anonymous memory in huge pages
/// means most of what could be huge came in 4 KiB pages. Above half, the
/// rest is mapping ends not aligned to 2 MiB and pages khugepaged has not
/// collapsed yet.
const HUGE_SHARE: f64 = 0.5;

/// Less eligible memory than two huge pages: nothing to judge.
const ELIGIBLE_KIB: u64 = 4096;

/// A frequency swing of 10% moves every operation by up to 10%: far above
/// the sub-1% A-vs-A floor of a pinned CPU-bound loop (noise chapter) and
/// above the rounding of `scaling_cur_freq`.
const FREQUENCY_SWING: f64 = 1.10;

/// Resident memory within half the reach of the largest data TLB (4 KiB
/// pages) cannot outgrow it: set-associative second-level TLBs conflict
/// before they are full, and code and kernel pages share them, hence the
/// margin of two.
const TLB_MARGIN: u64 = 2;

/// A quarter of the memory on a node that is not the CPU's: remote
/// accesses cost ~1.5-2x a local one, so the average rises by 12-25%.
const REMOTE_SHARE: f64 = 0.25;

/// What verdicts need beyond the stored results.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub cpus_seen: BTreeSet<u32>,
    /// NUMA node of each CPU; one node (or none visible) means all local.
    pub cpu_nodes: BTreeMap<u32, u32>,
    pub cpu_capacity: BTreeMap<u32, u64>,
    /// From the end-of-window `smaps`, or why it could not be read.
    pub thp_eligible: Option<Result<Eligible, String>>,
    /// `THP_enabled: 0` in status: `prctl(PR_SET_THP_DISABLE)`.
    pub thp_disabled_by_process: bool,
    /// Entries x 4 KiB of the largest data or unified TLB CPUID describes.
    pub tlb_reach_kib: Option<u64>,
}

fn ev(what: &str, value: f64, unit: &str) -> Evidence {
    Evidence {
        what: what.into(),
        value,
        unit: unit.into(),
    }
}

fn verdict(
    symptom: Symptom,
    verdict: Presence,
    reason: String,
    evidence: Vec<Evidence>,
) -> SymptomVerdict {
    SymptomVerdict {
        symptom,
        verdict,
        reason,
        evidence,
    }
}

fn present_if(rule_holds: bool) -> Presence {
    if rule_holds {
        Presence::Present
    } else {
        Presence::Absent
    }
}

fn cannot_tell(
    symptom: Symptom,
    reason: impl Into<String>,
    evidence: Vec<Evidence>,
) -> SymptomVerdict {
    verdict(symptom, Presence::CannotTell, reason.into(), evidence)
}

/// First and last sample and the seconds between them.
struct Window<'a> {
    first: &'a ProcessSample,
    last: &'a ProcessSample,
    seconds: f64,
}

impl Window<'_> {
    fn delta(&self, f: impl Fn(&ProcessSample) -> Option<u64>) -> Option<u64> {
        Some(f(self.last)?.saturating_sub(f(self.first)?))
    }

    fn rate(&self, delta: u64) -> f64 {
        delta as f64 / self.seconds
    }
}

pub fn decide(r: &InspectResults, extra: &Extra) -> Vec<SymptomVerdict> {
    let window = match (r.samples.first(), r.samples.last()) {
        (Some(first), Some(last)) if last.t_s > first.t_s => Window {
            first,
            last,
            seconds: last.t_s - first.t_s,
        },
        _ => {
            let why = "fewer than two samples: the process exited before a second look";
            return Symptom::ALL
                .iter()
                .map(|&s| cannot_tell(s, why, vec![]))
                .collect();
        }
    };
    let w = &window;
    vec![
        first_touch(w),
        periodic_spike(r, w, extra),
        preemption(r, w, extra),
        rare_stall(r, w),
        wide_spread(r, extra),
        tlb_reach(w, extra),
        huge_pages(r, w, extra),
        remote_numa(r, extra),
    ]
}

fn first_touch(w: &Window) -> SymptomVerdict {
    let s = Symptom::FirstTouchFaults;
    let faults = w.last.minor_faults.saturating_sub(w.first.minor_faults);
    let rate = w.rate(faults);
    let mut evidence = vec![
        ev("minor faults", faults as f64, "count"),
        ev("minor faults", rate, "/s"),
    ];
    if let Some(grew) = w.delta(|s| s.rss_kib) {
        evidence.push(ev("RSS growth", grew as f64, "KiB"));
    }
    let (presence, rule) = if rate >= MINOR_FAULTS_PER_S {
        (Presence::Present, "at or above")
    } else {
        (Presence::Absent, "below")
    };
    let reason = format!("{rate:.0} minor faults/s, {rule} {MINOR_FAULTS_PER_S:.0}/s");
    verdict(s, presence, reason, evidence)
}

fn cpu_share(w: &Window) -> f64 {
    (w.last.cpu_s - w.first.cpu_s).max(0.0) / w.seconds
}

fn periodic_spike(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::PeriodicSpike;
    let share = cpu_share(w);
    let set = &r.settings;
    let mut evidence = vec![ev("CPU used", share, "CPUs")];
    for (cpu, rate) in &r.timer_irq_per_s {
        evidence.push(ev(
            &format!("local timer interrupts, CPU {cpu}"),
            *rate,
            "/s",
        ));
    }
    let realtime = matches!(set.policy, Some(1 | 2));
    let throttling = match (set.sched_rt_runtime_us, set.sched_rt_period_us) {
        (Some(run), Some(period)) => run >= 0 && run < period,
        _ => false,
    };
    if realtime && throttling && share >= NEVER_SLEEPS_CPU_SHARE {
        let reason = format!(
            "a real-time task using {share:.2} CPUs with RT throttling on \
             ({}/{} µs): it is stopped for the rest of every period",
            set.sched_rt_runtime_us.unwrap_or(0),
            set.sched_rt_period_us.unwrap_or(0)
        );
        return verdict(s, Presence::Present, reason, evidence);
    }
    let nohz: BTreeSet<u32> = set
        .nohz_full
        .as_deref()
        .and_then(crate::affinity::parse_list)
        .unwrap_or_default()
        .into_iter()
        .map(|c| c as u32)
        .collect();
    let on_nohz: Vec<_> = extra.cpus_seen.intersection(&nohz).collect();
    if !on_nohz.is_empty() && share >= NEVER_SLEEPS_CPU_SHARE {
        let reason = format!(
            "busy on nohz_full CPU(s) {on_nohz:?}: the tick there drops to the once-a-second residual"
        );
        return verdict(s, Presence::Present, reason, evidence);
    }
    if r.timer_irq_per_s.is_empty() && share >= NEVER_SLEEPS_CPU_SHARE {
        let why = r.unreadable.get("interrupts").cloned().unwrap_or_default();
        return cannot_tell(
            s,
            format!("busy, but the timer interrupts are unreadable: {why}"),
            evidence,
        );
    }
    let reason = if realtime {
        "real-time, but it sleeps or RT throttling is off".to_string()
    } else {
        "not real-time and not alone on a nohz_full CPU: the tick is a short interruption every \
         few ms, not a once-a-second spike"
            .to_string()
    };
    verdict(s, Presence::Absent, reason, evidence)
}

fn preemption(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::Preemption;
    let mut evidence = vec![ev("CPUs it ran on", extra.cpus_seen.len() as f64, "count")];
    if let Some(n) = w.delta(|s| s.involuntary_switches) {
        evidence.push(ev("involuntary context switches", w.rate(n), "/s"));
    }
    let migrations = r
        .samples
        .windows(2)
        .filter(|p| p[0].cpu != p[1].cpu)
        .count();
    evidence.push(ev(
        "CPU changes seen between samples",
        migrations as f64,
        "count",
    ));
    let (Some(wait), Some(on_cpu)) = (w.delta(|s| s.run_queue_wait_ns), w.delta(|s| s.on_cpu_ns))
    else {
        let why = r
            .unreadable
            .get("schedstat")
            .cloned()
            .unwrap_or("no schedstat".into());
        return cannot_tell(s, format!("run-queue wait unreadable: {why}"), evidence);
    };
    let wait_ms_per_s = wait as f64 / 1e6 / w.seconds;
    let runnable = wait + on_cpu;
    let share = if runnable > 0 {
        wait as f64 / runnable as f64
    } else {
        0.0
    };
    evidence.push(ev("run-queue wait", wait_ms_per_s, "ms/s"));
    evidence.push(ev(
        "share of runnable time spent waiting",
        share,
        "fraction",
    ));
    let present = wait_ms_per_s >= WAIT_MS_PER_S && share >= WAIT_SHARE;
    let reason = format!(
        "waited {wait_ms_per_s:.1} ms/s for a CPU, {:.0}% of its runnable time \
         (present from {WAIT_MS_PER_S:.0} ms/s and {:.0}%)",
        share * 100.0,
        WAIT_SHARE * 100.0
    );
    let presence = present_if(present);
    verdict(s, presence, reason, evidence)
}

fn vmstat(r: &InspectResults, name: &str) -> Option<i64> {
    r.vmstat_deltas.get(name).copied()
}

fn rare_stall(r: &InspectResults, w: &Window) -> SymptomVerdict {
    let s = Symptom::RareStall;
    let major = w.last.major_faults.saturating_sub(w.first.major_faults);
    let minor = w.last.minor_faults.saturating_sub(w.first.minor_faults);
    let mut evidence = vec![
        ev("major faults", major as f64, "count"),
        ev("major faults", w.rate(major), "/s"),
    ];
    for name in ["pgmajfault", "compact_stall"] {
        if let Some(d) = vmstat(r, name) {
            evidence.push(ev(&format!("{name} (system-wide)"), d as f64, "count"));
        }
    }
    if let Some(us) = r.pressure_some_us.get("memory") {
        evidence.push(ev(
            "memory pressure, some (system-wide)",
            *us as f64 / 1e3,
            "ms",
        ));
    }
    if major >= MAJOR_FAULTS {
        let reason = format!("{major} major fault(s): each waited for storage");
        return verdict(s, Presence::Present, reason, evidence);
    }
    match vmstat(r, "compact_stall") {
        Some(c) if c > 0 && minor > 0 => cannot_tell(
            s,
            format!(
                "{c} direct compaction stall(s) system-wide while it faulted {minor} times; \
                 /proc does not say which process stalled"
            ),
            evidence,
        ),
        None => cannot_tell(
            s,
            "no major faults, but compact_stall is not in /proc/vmstat",
            evidence,
        ),
        _ => verdict(
            s,
            Presence::Absent,
            "no major faults and no direct compaction while it faulted".into(),
            evidence,
        ),
    }
}

fn wide_spread(r: &InspectResults, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::WideSpread;
    let mut evidence = vec![];
    let capacities: BTreeSet<u64> = extra
        .cpus_seen
        .iter()
        .filter_map(|c| extra.cpu_capacity.get(c).copied())
        .collect();
    if capacities.len() > 1 {
        let reason =
            format!("ran on CPUs of different capacity {capacities:?}: a hybrid CPU's core types");
        return verdict(s, Presence::Present, reason, evidence);
    }
    let khz: Vec<u64> = r.samples.iter().filter_map(|s| s.cpu_khz).collect();
    let (Some(&lo), Some(&hi)) = (khz.iter().min(), khz.iter().max()) else {
        return cannot_tell(
            s,
            "no cpufreq in /sys: the frequency is not visible (usual in a VM); idle states are not \
             visible from /proc either",
            evidence,
        );
    };
    evidence.push(ev("lowest frequency seen", lo as f64 / 1e3, "MHz"));
    evidence.push(ev("highest frequency seen", hi as f64 / 1e3, "MHz"));
    let swing = hi as f64 / lo.max(1) as f64;
    let presence = present_if(swing >= FREQUENCY_SWING);
    let reason = format!(
        "the CPU it ran on moved {:.0}% in frequency (present from {:.0}%)",
        (swing - 1.0) * 100.0,
        (FREQUENCY_SWING - 1.0) * 100.0
    );
    verdict(s, presence, reason, evidence)
}

fn tlb_reach(w: &Window, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::TlbReach;
    let mut evidence = vec![];
    let counter = "whether it walks the page tables needs the dTLB walk counter \
                   (dtlb_load_misses.walk_completed, perf); /proc does not count TLB misses";
    let Some(rss) = w.last.rss_kib else {
        return cannot_tell(s, counter, evidence);
    };
    evidence.push(ev("RSS", rss as f64, "KiB"));
    let Some(reach) = extra.tlb_reach_kib else {
        return cannot_tell(
            s,
            format!("CPUID describes no data TLB; {counter}"),
            evidence,
        );
    };
    evidence.push(ev(
        "largest 4 KiB-page TLB reach (CPUID)",
        reach as f64,
        "KiB",
    ));
    if rss.saturating_mul(TLB_MARGIN) <= reach {
        let reason = format!(
            "all of its resident memory ({rss} KiB) fits in 1/{TLB_MARGIN} of what the TLB maps \
             ({reach} KiB)"
        );
        return verdict(s, Presence::Absent, reason, evidence);
    }
    cannot_tell(
        s,
        format!("its resident memory outgrows 1/{TLB_MARGIN} of the TLB's reach; {counter}"),
        evidence,
    )
}

fn huge_pages(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::HugePagesDenied;
    let mut evidence = vec![];
    if let Some(d) = vmstat(r, "thp_fault_fallback") {
        evidence.push(ev("thp_fault_fallback (system-wide)", d as f64, "count"));
    }
    let setting = r.settings.thp_enabled.as_deref().unwrap_or("absent");
    let eligible = match &extra.thp_eligible {
        Some(Ok(e)) => *e,
        Some(Err(why)) => return cannot_tell(s, format!("smaps unreadable: {why}"), evidence),
        None => return cannot_tell(s, "smaps not read", evidence),
    };
    evidence.push(ev(
        "anonymous memory eligible for THP",
        eligible.anon_kib as f64,
        "KiB",
    ));
    if let Some(huge) = w.last.anon_huge_kib {
        evidence.push(ev("AnonHugePages", huge as f64, "KiB"));
    }
    if eligible.anon_kib < ELIGIBLE_KIB {
        let reason = format!(
            "THP `{setting}`: {} KiB of its memory may be huge, less than two huge pages",
            eligible.anon_kib
        );
        return verdict(s, Presence::Absent, reason, evidence);
    }
    let share = eligible.huge_kib as f64 / eligible.anon_kib as f64;
    evidence.push(ev("huge-page share of eligible memory", share, "fraction"));
    if share >= HUGE_SHARE {
        let reason = format!(
            "{:.0}% of the eligible memory is in huge pages",
            share * 100.0
        );
        return verdict(s, Presence::Absent, reason, evidence);
    }
    let why = if extra.thp_disabled_by_process {
        "the process disabled THP for itself (prctl PR_SET_THP_DISABLE)"
    } else {
        "the kernel fell back to 4 KiB pages (fragmentation, or defrag not allowed to wait)"
    };
    let reason = format!(
        "only {:.0}% of the eligible memory is in huge pages (present below {:.0}%): {why}",
        share * 100.0,
        HUGE_SHARE * 100.0
    );
    verdict(s, Presence::Present, reason, evidence)
}

fn remote_numa(r: &InspectResults, extra: &Extra) -> SymptomVerdict {
    let s = Symptom::RemoteNuma;
    let nodes: BTreeSet<u32> = extra.cpu_nodes.values().copied().collect();
    if nodes.len() <= 1 {
        return verdict(
            s,
            Presence::Absent,
            "one NUMA node: all memory is local".into(),
            vec![],
        );
    }
    if r.kib_per_node.is_empty() {
        let why = r
            .unreadable
            .get("numa_maps")
            .cloned()
            .unwrap_or("no pages".into());
        return cannot_tell(s, format!("numa_maps: {why}"), vec![]);
    }
    let local: BTreeSet<u32> = extra
        .cpus_seen
        .iter()
        .filter_map(|c| extra.cpu_nodes.get(c).copied())
        .collect();
    let total: u64 = r.kib_per_node.values().sum();
    let remote: u64 = r
        .kib_per_node
        .iter()
        .filter(|(n, _)| !local.contains(n))
        .map(|(_, k)| k)
        .sum();
    let share = remote as f64 / total.max(1) as f64;
    let mut evidence: Vec<Evidence> = r
        .kib_per_node
        .iter()
        .map(|(n, k)| ev(&format!("resident on node {n}"), *k as f64, "KiB"))
        .collect();
    evidence.push(ev("share on nodes it did not run on", share, "fraction"));
    for name in ["numa_hint_faults", "numa_pages_migrated"] {
        if let Some(d) = vmstat(r, name) {
            evidence.push(ev(&format!("{name} (system-wide)"), d as f64, "count"));
        }
    }
    let presence = present_if(share >= REMOTE_SHARE);
    let reason = format!(
        "{:.0}% of its memory is on nodes other than its CPUs' {local:?} (present from {:.0}%)",
        share * 100.0,
        REMOTE_SHARE * 100.0
    );
    verdict(s, presence, reason, evidence)
}

#[cfg(test)]
mod tests {
    use pagewalk_model::inspect::SettingsInForce;

    use super::*;

    fn sample(t_s: f64, cpu_s: f64, khz: Option<u64>) -> ProcessSample {
        ProcessSample {
            t_s,
            minor_faults: 0,
            major_faults: 0,
            cpu_s,
            cpu: 1,
            cpu_khz: khz,
            threads: 1,
            voluntary_switches: Some(0),
            involuntary_switches: Some(0),
            rss_kib: Some(1024),
            run_queue_wait_ns: Some(0),
            on_cpu_ns: Some(0),
            anon_kib: Some(0),
            anon_huge_kib: Some(0),
        }
    }

    /// One second watched; `busy` uses a whole CPU.
    fn results(busy: bool) -> InspectResults {
        let cpu = if busy { 1.0 } else { 0.0 };
        InspectResults {
            pid: 1,
            command: "t".into(),
            requested_s: 1.0,
            observed_s: 1.0,
            interval_ms: 100.0,
            ended_early: None,
            samples: vec![sample(0.0, 0.0, None), sample(1.0, cpu, None)],
            vmstat_deltas: BTreeMap::from([("compact_stall".into(), 0)]),
            pressure_some_us: BTreeMap::new(),
            timer_irq_per_s: BTreeMap::from([(1, 250.0)]),
            kib_per_node: BTreeMap::new(),
            settings: SettingsInForce {
                thp_enabled: Some("madvise".into()),
                thp_defrag: None,
                nohz_full: None,
                isolated: None,
                sched_rt_runtime_us: Some(950_000),
                sched_rt_period_us: Some(1_000_000),
                cpus_allowed: None,
                mems_allowed: None,
                policy: Some(0),
            },
            unreadable: BTreeMap::new(),
            verdicts: vec![],
        }
    }

    fn extra() -> Extra {
        Extra {
            cpus_seen: BTreeSet::from([1]),
            ..Extra::default()
        }
    }

    fn of(r: &InspectResults, e: &Extra, s: Symptom) -> Presence {
        decide(r, e)
            .into_iter()
            .find(|v| v.symptom == s)
            .unwrap()
            .verdict
    }

    #[test]
    fn a_spinning_fifo_thread_under_rt_throttling() {
        let mut r = results(true);
        assert_eq!(of(&r, &extra(), Symptom::PeriodicSpike), Presence::Absent);
        r.settings.policy = Some(1);
        assert_eq!(of(&r, &extra(), Symptom::PeriodicSpike), Presence::Present);
        // Throttling off (-1): nothing stops it once a second.
        r.settings.sched_rt_runtime_us = Some(-1);
        assert_eq!(of(&r, &extra(), Symptom::PeriodicSpike), Presence::Absent);
        // Real-time but sleeping: never reaches the budget.
        let mut idle = results(false);
        idle.settings.policy = Some(1);
        assert_eq!(
            of(&idle, &extra(), Symptom::PeriodicSpike),
            Presence::Absent
        );
    }

    #[test]
    fn busy_alone_on_a_nohz_full_cpu_keeps_the_residual_tick() {
        let mut r = results(true);
        r.settings.nohz_full = Some("1".into());
        assert_eq!(of(&r, &extra(), Symptom::PeriodicSpike), Presence::Present);
        r.settings.nohz_full = Some("0".into());
        assert_eq!(of(&r, &extra(), Symptom::PeriodicSpike), Presence::Absent);
    }

    #[test]
    fn frequency_is_judged_only_where_visible() {
        let mut r = results(true);
        assert_eq!(of(&r, &extra(), Symptom::WideSpread), Presence::CannotTell);
        r.samples[0].cpu_khz = Some(3_000_000);
        r.samples[1].cpu_khz = Some(3_100_000);
        assert_eq!(of(&r, &extra(), Symptom::WideSpread), Presence::Absent);
        r.samples[1].cpu_khz = Some(2_000_000);
        assert_eq!(of(&r, &extra(), Symptom::WideSpread), Presence::Present);
        let mut hybrid = extra();
        hybrid.cpus_seen = BTreeSet::from([0, 1]);
        hybrid.cpu_capacity = BTreeMap::from([(0, 1024), (1, 512)]);
        assert_eq!(
            of(&results(false), &hybrid, Symptom::WideSpread),
            Presence::Present
        );
    }

    #[test]
    fn memory_on_the_other_node() {
        let mut r = results(false);
        let mut two_nodes = extra();
        two_nodes.cpu_nodes = BTreeMap::from([(0, 0), (1, 1)]);
        // numa_maps unreadable on a two-node machine: cannot tell.
        assert_eq!(
            of(&r, &two_nodes, Symptom::RemoteNuma),
            Presence::CannotTell
        );
        // It ran on CPU 1 (node 1); most of its memory is on node 0.
        r.kib_per_node = BTreeMap::from([(0, 3000), (1, 1000)]);
        assert_eq!(of(&r, &two_nodes, Symptom::RemoteNuma), Presence::Present);
        r.kib_per_node = BTreeMap::from([(0, 100), (1, 3900)]);
        assert_eq!(of(&r, &two_nodes, Symptom::RemoteNuma), Presence::Absent);
        assert_eq!(of(&r, &extra(), Symptom::RemoteNuma), Presence::Absent);
    }

    #[test]
    fn compaction_elsewhere_while_it_faulted_cannot_be_attributed() {
        let mut r = results(false);
        r.samples[1].minor_faults = 10;
        r.vmstat_deltas.insert("compact_stall".into(), 3);
        assert_eq!(of(&r, &extra(), Symptom::RareStall), Presence::CannotTell);
        r.samples[1].major_faults = 1;
        assert_eq!(of(&r, &extra(), Symptom::RareStall), Presence::Present);
    }

    #[test]
    fn tlb_reach_is_absent_only_when_everything_fits() {
        let r = results(false);
        // No TLB described: nothing to hold the RSS against.
        assert_eq!(of(&r, &extra(), Symptom::TlbReach), Presence::CannotTell);
        let mut e = extra();
        e.tlb_reach_kib = Some(8192);
        // 1 MiB resident against 8 MiB of reach.
        assert_eq!(of(&r, &e, Symptom::TlbReach), Presence::Absent);
        // Beyond half the reach only the walk counter could tell.
        e.tlb_reach_kib = Some(1536);
        assert_eq!(of(&r, &e, Symptom::TlbReach), Presence::CannotTell);
    }

    #[test]
    fn unreadable_counters_cannot_tell() {
        let mut r = results(true);
        for s in &mut r.samples {
            s.run_queue_wait_ns = None;
            s.on_cpu_ns = None;
        }
        r.unreadable
            .insert("schedstat".into(), "no schedstat".into());
        assert_eq!(of(&r, &extra(), Symptom::Preemption), Presence::CannotTell);
        let mut e = extra();
        e.thp_eligible = Some(Err("smaps: permission denied".into()));
        assert_eq!(of(&r, &e, Symptom::HugePagesDenied), Presence::CannotTell);
        r.samples.truncate(1);
        assert!(decide(&r, &e)
            .iter()
            .all(|v| v.verdict == Presence::CannotTell));
    }
}
