//! Address translation: a working set beyond the TLB's reach, huge pages
//! the kernel did not grant, and TLB shootdowns arriving from other
//! threads' unmapping.

use pagewalk_model::inspect::{InspectResults, Presence, Symptom, SymptomVerdict};

use super::rule::{cannot_tell, ev, present_if, verdict, vmstat, Extra, Window};
use pagewalk_model::inspect::thresholds::{ELIGIBLE_KIB, HUGE_SHARE, SHOOTDOWNS_PER_S, TLB_MARGIN};

pub(super) fn tlb_reach(w: &Window, extra: &Extra) -> SymptomVerdict {
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

pub(super) fn huge_pages(r: &InspectResults, w: &Window, extra: &Extra) -> SymptomVerdict {
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

/// Shootdowns on the CPUs the process ran on. The count is per CPU, not
/// per process: another process's unmapping interrupts only CPUs running
/// that process, so a high rate on these CPUs while this process ran is
/// most likely its own threads' (or a process sharing the CPU).
pub(super) fn shootdowns(r: &InspectResults) -> SymptomVerdict {
    let s = Symptom::Shootdowns;
    let evidence: Vec<_> = r
        .tlb_shootdowns_per_s
        .iter()
        .map(|(cpu, rate)| ev(&format!("TLB shootdowns, CPU {cpu}"), *rate, "/s"))
        .collect();
    let Some((cpu, worst)) = r
        .tlb_shootdowns_per_s
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
    else {
        let why = r
            .unreadable
            .get("tlb-interrupts")
            .cloned()
            .unwrap_or_else(|| "no TLB row in /proc/interrupts".into());
        return cannot_tell(s, why, evidence);
    };
    let reason = format!(
        "{worst:.0} TLB shootdowns/s on CPU {cpu} (a symptom from {SHOOTDOWNS_PER_S:.0}/s)"
    );
    verdict(s, present_if(*worst >= SHOOTDOWNS_PER_S), reason, evidence)
}
