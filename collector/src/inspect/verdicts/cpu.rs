//! What takes the CPU away or changes its speed: RT throttling (or, from
//! 6.12, the fair server), waiting for a CPU, and frequency scaling or core types.

use std::collections::BTreeSet;

use pagewalk_model::inspect::{InspectResults, Presence, Symptom, SymptomVerdict};

use super::rule::{cannot_tell, ev, present_if, verdict, Extra, Window};
use pagewalk_model::inspect::thresholds::{
    FREQUENCY_SWING, NEVER_SLEEPS_CPU_SHARE, WAIT_MS_PER_S, WAIT_SHARE,
};

fn cpu_share(w: &Window) -> f64 {
    (w.last.cpu_s - w.first.cpu_s).max(0.0) / w.seconds
}

pub(super) fn periodic_spike(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
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
    // Since 4.17 a busy nohz_full CPU keeps no once-a-second tick of its
    // own: that residual scheduler work runs on a housekeeping CPU
    // (sched_tick_remote), whatever Documentation/timers/no_hz.rst says.
    if !on_nohz.is_empty() && share >= NEVER_SLEEPS_CPU_SHARE {
        let reason = format!(
            "busy on nohz_full CPU(s) {on_nohz:?}: no once-a-second tick there since Linux 4.17 \
             (it runs on a housekeeping CPU); a one-second rhythm there is a timer or another task"
        );
        return verdict(s, Presence::Absent, reason, evidence);
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

pub(super) fn preemption(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
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

pub(super) fn wide_spread(r: &InspectResults, extra: &Extra) -> SymptomVerdict {
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
