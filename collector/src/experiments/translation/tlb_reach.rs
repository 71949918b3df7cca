//! # tlb-reach
//!
//! Premise: the staircase mixes two hierarchies, because a bigger region
//! is both more lines (caches) and more pages (TLBs). Here the chase loads
//! one 64-byte line per 4 KiB page, so the pages grow while the data stays
//! small: at most half of L2, by construction, and spread over every cache
//! set (page `i` holds its line at `(i * 13) mod 64`) so no set overflows
//! early. Past the L1 dTLB's entry count, and again past the L2 TLB's,
//! every load also needs a translation the TLB no longer holds; on huge
//! pages the same pages fit in a handful of entries and the curve stays
//! flat. What steps remain with huge pages are the data's own (L1d).

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{Check, Results, TlbReachResults};

use super::chase::{self, Counters, Layout, Plan};
use super::checks::{self, Proof};
use super::{bends, empty_curves, geometry, ladder, region::human, SEED};
use crate::experiments::{Env, Outcome};
use crate::{interrupt, progress};

const LINE: u64 = 64;
/// Odd, so any 64 consecutive pages put their lines on 64 different
/// offsets: all L1 sets, and every L2 set within a few pages' span.
const LINE_STEP: u64 = 13;
/// Four page counts per doubling (two with --quick) from here.
const MIN_PAGES: u64 = 8;
/// The data limit when sysfs does not say how big L2 is.
const UNKNOWN_L2_LIMIT: u64 = 256 << 10;
const FULL_REPS: u32 = 5;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let geometry = geometry::read();
    let l2 = geometry.data_cache(2).map(|c| c.size_bytes);
    // Half of L2: room for the page-table lines the walks bring in too.
    let data_limit = l2.map_or(UNKNOWN_L2_LIMIT, |b| b / 2);
    let max_pages = data_limit / LINE;
    let counts = ladder(MIN_PAGES, max_pages, if s.quick { 0 } else { u64::MAX }, 1);
    let plan = Plan {
        repetitions: s.reps_or(FULL_REPS),
        sample_ns: if s.quick { 1e6 } else { 5e6 },
    };
    let counters = Counters::open();
    let mut curves = empty_curves(&env.machine.thp);
    let mut proof = Proof::default();
    let runnable = curves.iter().filter(|c| c.skipped.is_none()).count();
    let bar = progress::bar((counts.len() * runnable) as u64, "tlb-reach");
    let layout = Layout::LinePerPage {
        step: LINE_STEP as usize,
    };
    'counts: for &pages in &counts {
        let next = cycle(pages as usize, SEED);
        for curve in curves.iter_mut().filter(|c| c.skipped.is_none()) {
            if interrupt::requested() {
                break 'counts;
            }
            bar.set_message(format!("{pages} pages ({})", curve.regime.name()));
            let c = chase::run(curve.regime, layout, &next, &plan, &counters)?;
            proof.add(&format!("{pages} pages ({})", curve.regime.name()), &c);
            curve.points.push(c.point);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    let (steps, agreement) = bends::analyse(
        &curves,
        |p| p.pages.map(|n| n as f64),
        &bends::tlb_reach_bends(&geometry),
    );
    let mut checks = checks::for_curves(&curves, &proof, |p| {
        format!("{} pages", p.pages.unwrap_or(0))
    });
    let largest = counts.last().copied().unwrap_or(0);
    checks.push(Check::new(
        "touched data within half of L2 (by construction)",
        l2.is_some_and(|l2| largest * LINE * 2 <= l2),
        match l2 {
            Some(l2) => format!(
                "<= {} (half of the {} L2)",
                human(data_limit as usize),
                human(l2 as usize)
            ),
            None => "an L2 size from sysfs to compare with".into(),
        },
        format!(
            "largest point: {largest} pages x 64 B = {}{}",
            human((largest * LINE) as usize),
            if l2.is_none() {
                " (L2 size unknown)"
            } else {
                ""
            }
        ),
    ));
    Ok(Outcome::Done {
        results: Results::TlbReach(TlbReachResults {
            line_step: LINE_STEP,
            repetitions: plan.repetitions,
            seed: SEED,
            data_limit_bytes: data_limit,
            curves,
            steps,
            geometry,
            agreement,
            counters: Some(counters.status.clone()),
        }),
        checks,
    })
}
