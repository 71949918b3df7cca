//! Older schema versions read as the current one: what each version
//! lacked is filled in, or marked unknown, never invented.

use crate::run::RunFile;

/// Files before version 3 recorded which allocator call a Rust form
/// reached as a premise check; it is a finding about the compiler (see
/// [`crate::Check::finding`]), and reads as one.
pub(super) fn upgrade_from_v2(run: &mut RunFile) {
    for e in &mut run.experiments {
        for c in &mut e.checks {
            if crate::first_touch::is_allocator_path_check(&c.name) {
                c.finding = true;
            }
        }
    }
}

/// Inspections before version 4 had no shootdown row: their verdict for
/// it is "cannot tell", with the reason, in the table's place.
pub(super) fn upgrade_from_v3(run: &mut RunFile) {
    use crate::inspect::{Presence, Symptom, SymptomVerdict};
    for e in &mut run.experiments {
        let Some(crate::Results::Inspect(r)) = e.results.as_mut() else {
            continue;
        };
        if r.verdicts.iter().any(|v| v.symptom == Symptom::Shootdowns) {
            continue;
        }
        let at = r
            .verdicts
            .iter()
            .position(|v| v.symptom > Symptom::Shootdowns)
            .unwrap_or(r.verdicts.len());
        r.verdicts.insert(
            at,
            SymptomVerdict {
                symptom: Symptom::Shootdowns,
                verdict: Presence::CannotTell,
                reason: "recorded before pagewalk counted TLB shootdowns (schema 3)".into(),
                evidence: Vec::new(),
            },
        );
    }
}

/// Before version 6 the mlp experiment held its regions to an L2 TLB reach
/// it assumed when CPUID reported none, and recorded the premises that
/// depend on that reach as failed ("a size unknown: assumed"). A premise
/// whose size the run never had could not be checked: it reads as
/// `cannot_tell`, with the reason, never as passed or failed.
pub(super) fn upgrade_from_v5(run: &mut RunFile) {
    for e in &mut run.experiments {
        let Some(crate::Results::Mlp(m)) = e.results.as_ref() else {
            continue;
        };
        if m.l2_tlb_reach_bytes.is_some() {
            continue;
        }
        for c in &mut e.checks {
            if !c.passed
                && c.cannot_tell.is_none()
                && !c.finding
                && c.name.contains("L2 TLB's reach")
            {
                c.cannot_tell = Some(
                    "the L2 TLB's reach is not known on this run: CPUID reported no L2 TLB, and the collector did not yet measure it (schema 5)"
                        .into(),
                );
            }
        }
    }
}
