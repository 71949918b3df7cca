//! What every rule of the symptom table is made of: what it reads (the
//! watched window, the facts beyond the stored results, vmstat's deltas)
//! and what it says (a verdict with its evidence, or "cannot tell").

use std::collections::{BTreeMap, BTreeSet};

use pagewalk_model::inspect::{
    Evidence, InspectResults, Presence, ProcessSample, Symptom, SymptomVerdict,
};

use super::super::system::Eligible;

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

pub(super) fn ev(what: &str, value: f64, unit: &str) -> Evidence {
    Evidence {
        what: what.into(),
        value,
        unit: unit.into(),
    }
}

pub(super) fn verdict(
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

pub(super) fn present_if(rule_holds: bool) -> Presence {
    if rule_holds {
        Presence::Present
    } else {
        Presence::Absent
    }
}

pub(super) fn cannot_tell(
    symptom: Symptom,
    reason: impl Into<String>,
    evidence: Vec<Evidence>,
) -> SymptomVerdict {
    verdict(symptom, Presence::CannotTell, reason.into(), evidence)
}

/// First and last sample and the seconds between them.
pub(super) struct Window<'a> {
    pub(super) first: &'a ProcessSample,
    pub(super) last: &'a ProcessSample,
    pub(super) seconds: f64,
}

impl Window<'_> {
    pub(super) fn delta(&self, f: impl Fn(&ProcessSample) -> Option<u64>) -> Option<u64> {
        Some(f(self.last)?.saturating_sub(f(self.first)?))
    }

    pub(super) fn rate(&self, delta: u64) -> f64 {
        delta as f64 / self.seconds
    }
}

pub(super) fn vmstat(r: &InspectResults, name: &str) -> Option<i64> {
    r.vmstat_deltas.get(name).copied()
}
