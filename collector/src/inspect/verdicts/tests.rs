use std::collections::{BTreeMap, BTreeSet};

use pagewalk_model::inspect::{Presence, ProcessSample, SettingsInForce};

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
        tlb_shootdowns_per_s: BTreeMap::new(),
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
fn busy_alone_on_a_nohz_full_cpu_has_no_residual_tick() {
    let mut r = results(true);
    r.settings.nohz_full = Some("1".into());
    let v = decide(&r, &extra())
        .into_iter()
        .find(|v| v.symptom == Symptom::PeriodicSpike)
        .unwrap();
    assert_eq!(v.verdict, Presence::Absent);
    assert!(v.reason.contains("since Linux 4.17"), "{}", v.reason);
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

#[test]
fn shootdowns_on_the_process_cpus() {
    let mut r = results(true);
    assert_eq!(of(&r, &extra(), Symptom::Shootdowns), Presence::CannotTell);
    r.tlb_shootdowns_per_s = BTreeMap::from([(0, 12.0), (1, 2400.0)]);
    let v = decide(&r, &extra())
        .into_iter()
        .find(|v| v.symptom == Symptom::Shootdowns)
        .unwrap();
    assert_eq!(v.verdict, Presence::Present);
    assert!(
        v.reason.contains("2400 TLB shootdowns/s on CPU 1"),
        "{}",
        v.reason
    );
    r.tlb_shootdowns_per_s = BTreeMap::from([(0, 12.0), (1, 40.0)]);
    assert_eq!(of(&r, &extra(), Symptom::Shootdowns), Presence::Absent);
}
