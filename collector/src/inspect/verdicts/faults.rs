//! Page faults: minor faults on fresh memory, and the rare stall of a major
//! fault or direct compaction.

use pagewalk_model::inspect::{InspectResults, Presence, Symptom, SymptomVerdict};

use super::rule::{cannot_tell, ev, verdict, vmstat, Window};
use pagewalk_model::inspect::thresholds::{MAJOR_FAULTS, MINOR_FAULTS_PER_S};

pub(super) fn first_touch(w: &Window) -> SymptomVerdict {
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

pub(super) fn rare_stall(r: &InspectResults, w: &Window) -> SymptomVerdict {
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
