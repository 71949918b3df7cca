//! One sweep of the chase: every size of a ladder, in every regime this
//! machine can run, over one permutation per size ([`sweep`]); and how
//! staircase, tlb-reach, thp and the reach probe size it: the memory a
//! chase holds at once ([`footprint`]), the guard's share of it
//! ([`allow_region`]), and the sizes themselves ([`ladder`]).

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{Curve, Regime, ThpSettings};

use super::chase::{self, Counters, Layout, Plan, SEED};
use super::checks::Proof;
use super::hugetlb::Gigantic;
use super::region::{unavailable, HUGE_PAGE};
use crate::experiments::Env;
use crate::guard::{self, Allowance};
use crate::{interrupt, progress};

/// One empty curve per regime, skipped where the machine cannot run it.
pub fn empty_curves(thp: &ThpSettings) -> Vec<Curve> {
    Regime::ALL
        .iter()
        .map(|&regime| Curve {
            regime,
            skipped: unavailable(regime, thp),
            pages_from: None,
            step_min_rise: None,
            points: Vec::new(),
        })
        .collect()
}

/// The most memory one chase holds at once: each of its `mappings` of the
/// region (all held until the point is timed; plus the 2 MiB a huge-page
/// region is aligned by) and its permutation of `slots` slots (two `usize`
/// per slot while [`cycle`] builds it). Tried with [`crate::guard::fits`]
/// before the largest size, so a limit the guard's allowance did not
/// foresee is a skip, not an abort.
pub fn footprint(region_bytes: u64, slots: u64, mappings: u32) -> u64 {
    u64::from(mappings.max(1)) * (region_bytes + HUGE_PAGE as u64)
        + slots * 2 * std::mem::size_of::<usize>() as u64
}

/// [`guard::allow_now`] for a region held in `mappings` mappings at once:
/// the guard's share of memory covers all of them, so each gets a part.
pub fn allow_region(requested: u64, mappings: u32) -> Result<Result<Allowance, String>, String> {
    let m = u64::from(mappings.max(1));
    Ok(guard::allow_now(requested.saturating_mul(m))?.and_then(|a| {
        let bytes = a.bytes / m / guard::GRANULE * guard::GRANULE;
        if bytes == 0 {
            return Err(format!(
                "not even {} a mapping fits in the memory allowed ({}), and each point is timed in {m} mappings held at once",
                guard::human(guard::GRANULE),
                guard::human(a.bytes)
            ));
        }
        let note = (bytes < requested).then(|| match a.note {
            Some(why) => format!("{why}, which holds the {m} mappings a point is timed in: {} each", guard::human(bytes)),
            None => format!("rounded down from {} to {} (whole 2 MiB units)", guard::human(requested), guard::human(bytes)),
        });
        Ok(Allowance { bytes, note })
    }))
}

/// What [`sweep`] measured, with the counters it opened for the results.
pub struct Swept {
    pub curves: Vec<Curve>,
    pub proof: Proof,
    pub counters: Counters,
}

/// Chases each of `xs` (bytes, pages) in every regime this machine can
/// run, both regimes of one `x` over the same permutation of `slots(x)`
/// slots; `label(x)` names the point in the progress bar and the proof.
/// `gigantic`: chase a 1 GiB page too where the pool has one (a probe
/// does without). Ctrl-C stops it early with the points measured so far.
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    env: &Env,
    name: &str,
    plan: &Plan,
    layout: Layout,
    xs: &[u64],
    slots: impl Fn(u64) -> usize,
    label: impl Fn(u64) -> String,
    gigantic: bool,
) -> Result<Swept, String> {
    let counters = Counters::open();
    let mut curves = empty_curves(&env.machine.thp);
    // One 1 GiB page serves every size: the pool holds one (or the run
    // reserved one), so a fresh mapping would land on the same frame.
    let largest = xs.iter().map(|&x| layout.bytes(slots(x)) as u64).max();
    let gigantic = match gigantic.then(|| {
        Gigantic::acquire(
            largest.unwrap_or(0),
            env.settings.reserve_hugepages.is_some(),
        )
    }) {
        Some(Ok(g)) => Some(g),
        Some(Err(why)) => {
            skip(&mut curves, Regime::Gigantic, why);
            None
        }
        None => {
            curves.retain(|c| c.regime != Regime::Gigantic);
            None
        }
    };
    if let (Some(g), Some(c)) = (
        &gigantic,
        curves.iter_mut().find(|c| c.regime == Regime::Gigantic),
    ) {
        c.pages_from = Some(g.provenance());
    }
    let mut proof = Proof::default();
    let runnable = curves.iter().filter(|c| c.skipped.is_none()).count();
    let bar = progress::bar((xs.len() * runnable) as u64, name);
    'xs: for &x in xs {
        let next = cycle(slots(x), SEED);
        for curve in curves.iter_mut().filter(|c| c.skipped.is_none()) {
            if interrupt::requested() {
                break 'xs;
            }
            let what = format!("{} ({})", label(x), curve.regime.name());
            bar.set_message(what.clone());
            let c = match (curve.regime, &gigantic) {
                (Regime::Gigantic, Some(g)) => {
                    chase::run_in(g.region(), layout, &next, plan, &counters)
                }
                (regime, _) => chase::run(regime, layout, &next, plan, &counters)?,
            };
            proof.add(&what, &c);
            curve.points.push(c.point);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(Swept {
        curves,
        proof,
        counters,
    })
}

fn skip(curves: &mut [Curve], regime: Regime, why: String) {
    if let Some(c) = curves
        .iter_mut()
        .find(|c| c.regime == regime && c.skipped.is_none())
    {
        c.skipped = Some(why);
    }
}

/// Sizes from `min` to `max` in steps of a quarter (`fine`) or a half of a
/// doubling: 1, 1.25, 1.5, 1.75 x 2^k reads better than 2^(k/4) and is as
/// even on a log axis. `max` itself is always the last size.
pub fn ladder(min: u64, max: u64, fine_up_to: u64, granule: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut octave = min;
    while octave <= max {
        let steps: &[u64] = if octave < fine_up_to {
            &[4, 5, 6, 7]
        } else {
            &[4, 6]
        };
        for &q in steps {
            let size = (octave * q / 4) / granule * granule;
            if size >= min && size <= max && out.last() != Some(&size) {
                out.push(size);
            }
        }
        octave *= 2;
    }
    if out.last() != Some(&max) {
        out.push(max);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ladders() {
        let k = 1024;
        assert_eq!(
            ladder(4 * k, 16 * k, u64::MAX, 64),
            vec![
                4 * k,
                5 * k,
                6 * k,
                7 * k,
                8 * k,
                10 * k,
                12 * k,
                14 * k,
                16 * k
            ]
        );
        assert_eq!(ladder(8, 32, 16, 1), vec![8, 10, 12, 14, 16, 24, 32]);
        // A guard-scaled maximum ends the ladder.
        assert_eq!(ladder(8, 20, 0, 1), vec![8, 12, 16, 20]);
    }
}
