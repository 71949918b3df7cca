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

use pagewalk_model::{Check, Results, TlbReachResults};

use super::chase::{Layout, Plan};
use super::{
    allow_region, bends, checks, footprint, geometry, ladder, region::human, sweep, Swept, SEED,
};
use crate::experiments::{Env, Outcome};
use crate::guard;

const LINE: u64 = 64;
/// The base page each point spans, one line per page.
const PAGE: u64 = 4096;
/// Odd, so any 64 consecutive pages put their lines on 64 different
/// offsets: all L1 sets, and every L2 set within a few pages' span.
const LINE_STEP: u64 = 13;
/// Four page counts per doubling (two with --quick) from here.
const MIN_PAGES: u64 = 8;
/// The data limit when sysfs does not say how big L2 is.
const UNKNOWN_L2_LIMIT: u64 = 256 << 10;
/// Per mapping: three mappings of three give nine samples a point.
const FULL_REPS: u32 = 3;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let geometry = geometry::read();
    let l2 = geometry.data_cache(2).map(|c| c.size_bytes);
    // Half of L2: room for the page-table lines the walks bring in too.
    let data_limit = l2.map_or(UNKNOWN_L2_LIMIT, |b| b / 2);
    // Each page holds one line but is mapped and touched whole: the span,
    // not the data, is what the memory guard must allow.
    let wanted_pages = data_limit / LINE;
    let plan = Plan::chase(s, FULL_REPS, if s.quick { 1e6 } else { 5e6 });
    let allowance = match allow_region(wanted_pages * PAGE, plan.mappings)? {
        Ok(a) => a,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let max_pages = wanted_pages.min(allowance.bytes / PAGE);
    let size_note = (max_pages < wanted_pages)
        .then(|| allowance.note.clone())
        .flatten();
    if let Err(why) = guard::fits(footprint(max_pages * PAGE, max_pages, plan.mappings)) {
        return Ok(Outcome::Skipped(why));
    }
    let counts = ladder(MIN_PAGES, max_pages, if s.quick { 0 } else { u64::MAX }, 1);
    let Swept {
        mut curves,
        proof,
        counters,
    } = sweep(
        env,
        "tlb-reach",
        &plan,
        Layout::LinePerPage {
            step: LINE_STEP as usize,
        },
        &counts,
        |pages| pages as usize,
        |pages| format!("{pages} pages"),
    )?;

    bends::record_thresholds(&mut curves);
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
            size_note,
            curves,
            steps,
            geometry,
            agreement,
            counters: Some(counters.status.clone()),
        }),
        checks,
    })
}
