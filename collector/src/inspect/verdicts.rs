//! The symptom table as rules: for each row, which counters decide and
//! where "present" starts. Every threshold says why it is where it is (they
//! are all in one table, [`thresholds`]); a counter that could not be read
//! makes the verdict "cannot tell", never a guess ([`rule`] holds what
//! every rule reads and says). The rules, by topic: `faults`
//! (first touch, rare stalls), `cpu` (the periodic spike, preemption,
//! frequency and core types), `translation` (TLB reach, huge pages,
//! shootdowns) and
//! `numa` (memory on a remote node).

mod cpu;
mod faults;
mod numa;
mod rule;
mod translation;

use pagewalk_model::inspect::{InspectResults, Symptom, SymptomVerdict};

pub use rule::Extra;
use rule::{cannot_tell, Window};

/// Each row of the symptom table decided over the watched window, in the
/// order of [`Symptom::ALL`].
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
        faults::first_touch(w),
        cpu::periodic_spike(r, w, extra),
        cpu::preemption(r, w, extra),
        faults::rare_stall(r, w),
        cpu::wide_spread(r, extra),
        translation::tlb_reach(w, extra),
        translation::huge_pages(r, w, extra),
        translation::shootdowns(r),
        numa::remote_numa(r, extra),
    ]
}

#[cfg(test)]
mod tests;
