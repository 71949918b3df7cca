//! # tlb-reach
//!
//! Premise: the staircase mixes two hierarchies, because a bigger region
//! is both more lines (caches) and more pages (TLBs). Here the chase loads
//! one 64-byte line per 4 KiB page, so the pages grow while the data stays
//! small: at most half of L2, by construction, and spread over every cache
//! set whatever the pages' physical placement (page `i` holds its line at
//! the folded page number times 13, mod 64: `pagewalk_analysis::layout`;
//! checked against sysfs's set counts). Past the L1 dTLB's entry count,
//! and again past the L2 TLB's, every load also needs a translation the
//! TLB no longer holds; on huge pages the same pages fit in a handful of
//! entries and the curve stays flat. What steps remain with huge pages
//! are the data's own (L1d), or translation the host splinters. From the
//! curves each level's reach is read as a pair of page counts
//! ([`super::measured`]) and set against CPUID's claim.

use pagewalk_analysis::layout;
// The reader itself, not `super::measured`: that module runs this
// experiment's chase as its probe, so it depends on this one.
use pagewalk_analysis::measured;
use pagewalk_model::{Check, Geometry, LineLayout, MeasuredGeometry, Results, TlbReachResults};

use super::chase::{Layout, Plan, SEED};
use super::region::human;
use super::sweep::{allow_region, footprint, ladder, sweep, Swept};
use super::{bends, checks, geometry};
use crate::experiments::{Env, Outcome};
use crate::guard;

const LINE: u64 = 64;
/// The base page each point spans, one line per page.
const PAGE: u64 = 4096;
/// Odd, so the folded page number times it is still a bijection mod 64.
pub const LINE_STEP: u64 = 13;
/// Four page counts per doubling (two with --quick) from here.
const MIN_PAGES: u64 = 8;
/// The data limit when sysfs does not say how big L2 is.
const UNKNOWN_L2_LIMIT: u64 = 256 << 10;
/// Per mapping: three mappings of three give nine samples a point.
const FULL_REPS: u32 = 3;

/// How many pages a chase of this machine may span.
pub struct Pages {
    /// Half of L2 (or [`UNKNOWN_L2_LIMIT`]), in bytes of data.
    pub data_limit: u64,
    pub max_pages: u64,
    /// Why fewer than the data limit allows (the memory guard).
    pub note: Option<String>,
    /// What set `max_pages`, for a note that says the curve stopped there.
    pub limit: String,
}

/// The pages a one-line-per-page chase may span on this machine, held in
/// `mappings` mappings at once: the data at most half of L2, the span
/// within the memory guard. `Ok(Err)`: the guard left nothing.
pub fn pages(geometry: &Geometry, mappings: u32) -> Result<Result<Pages, String>, String> {
    let l2 = geometry.data_cache(2).map(|c| c.size_bytes);
    // Half of L2: room for the page-table lines the walks bring in too.
    let data_limit = l2.map_or(UNKNOWN_L2_LIMIT, |b| b / 2);
    // Each page holds one line but is mapped and touched whole: the span,
    // not the data, is what the memory guard must allow.
    let wanted = data_limit / LINE;
    let allowance = match allow_region(wanted * PAGE, mappings)? {
        Ok(a) => a,
        Err(why) => return Ok(Err(why)),
    };
    let max_pages = wanted.min(allowance.bytes / PAGE);
    if let Err(why) = guard::fits(footprint(max_pages * PAGE, max_pages, mappings)) {
        return Ok(Err(why));
    }
    let note = (max_pages < wanted).then_some(allowance.note).flatten();
    let limit = match (&note, l2) {
        (Some(why), _) => format!("the memory guard ({why})"),
        (None, Some(_)) => "half of the L2 cache (the data premise)".into(),
        (None, None) => format!(
            "{} of data (sysfs gives no L2 size)",
            human(UNKNOWN_L2_LIMIT as usize)
        ),
    };
    Ok(Ok(Pages {
        data_limit,
        max_pages,
        note,
        limit,
    }))
}

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let geometry = geometry::read();
    let l2 = geometry.data_cache(2).map(|c| c.size_bytes);
    let plan = Plan::chase(s, FULL_REPS, if s.quick { 1e6 } else { 5e6 });
    let size = match pages(&geometry, plan.mappings)? {
        Ok(p) => p,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let counts = ladder(
        MIN_PAGES,
        size.max_pages,
        if s.quick { 0 } else { u64::MAX },
        1,
    );
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
        true,
    )?;

    bends::record_thresholds(&mut curves);
    let (steps, agreement) = bends::analyse(
        &curves,
        |p| p.pages.map(|n| n as f64),
        &bends::tlb_reach_bends(&geometry),
    );
    let measured = measured::record(
        &curves,
        &geometry,
        Some(geometry::cpuid_leaves()),
        &size.limit,
    );
    let mut checks = checks::for_curves(&curves, &proof, |p| {
        format!("{} pages", p.pages.unwrap_or(0))
    });
    let largest = counts.last().copied().unwrap_or(0);
    let data = format!(
        "largest point: {largest} pages x 64 B = {}",
        human((largest * LINE) as usize)
    );
    let name = "touched data within half of L2 (by construction)";
    checks.push(match l2 {
        Some(l2) => Check::new(
            name,
            largest * LINE * 2 <= l2,
            format!(
                "<= {} (half of the {} L2)",
                human(size.data_limit as usize),
                human(l2 as usize)
            ),
            data,
        ),
        None => Check::cannot_tell(
            name,
            "<= half of L2",
            format!(
                "sysfs gives no L2 size; the data was held to {} ({data})",
                human(size.data_limit as usize)
            ),
        ),
    });
    checks.push(spread_check(largest, &geometry::data_cache_sets()));
    checks.push(l2_check(&measured));
    Ok(Outcome::Done {
        results: Results::TlbReach(TlbReachResults {
            line_step: LINE_STEP,
            line_layout: Some(LineLayout::Folded),
            repetitions: plan.repetitions,
            seed: SEED,
            data_limit_bytes: size.data_limit,
            size_note: size.note,
            curves,
            steps,
            geometry,
            agreement,
            counters: Some(counters.status.clone()),
            measured: Some(measured),
        }),
        checks,
    })
}

/// The premise that the lines spread over every set of L1d and L2 however
/// the pages are placed: on physically contiguous memory (a huge page the
/// host backs with one too), where the layout alone picks the set, the
/// largest point puts no more than an even share of its lines in any set
/// (`sets`: `(level, number_of_sets)` from sysfs). On 4 KiB pages the
/// frames pick the set bits above 4 KiB, and scatter them.
fn spread_check(pages: u64, sets: &[(u8, u64, u64)]) -> Check {
    let name = "the lines spread evenly over every L1d and L2 set, on contiguous memory too (by construction)";
    let expected = "on physically contiguous pages, at most an even share of the largest point's lines in any set (sysfs sets), and no more than the ways";
    let levels: Vec<&(u8, u64, u64)> = sets
        .iter()
        .filter(|(level, n, _)| *level <= 2 && n.is_power_of_two())
        .collect();
    if levels.is_empty() {
        return Check::cannot_tell(name, expected, "sysfs gives no set counts for L1d or L2");
    }
    let mut ok = true;
    let mut seen = Vec::new();
    for &&(level, n, ways) in &levels {
        let most = layout::most_in_one_set(
            layout::contiguous_lines(pages, |i| layout::line(i, LINE_STEP)),
            n,
        );
        let even = pages.div_ceil(n);
        // L1d is meant to overflow (its step is one of the curve's); L2
        // must hold every line.
        ok &= most <= even && (level == 1 || most <= ways);
        seen.push(format!(
            "L{level}{}: {n} sets of {ways} ways, at most {most} of {pages} lines in one",
            if level == 1 { "d" } else { "" }
        ));
    }
    Check::new(name, ok, expected, seen.join("; "))
}

/// The premise that the curves showed the L2 TLB: the level walk and mlp
/// size themselves past. Not shown is not a failure of the run (it says
/// why), but what depends on it cannot be told.
fn l2_check(m: &MeasuredGeometry) -> Check {
    let name = "the 4 KiB curve stepped past the L2 TLB (its reach measured)";
    let expected = "a step of the 4 KiB curve past the L1 dTLB's that no data cache explains";
    match (m.tlb(2), &m.not_read) {
        (Some(t), _) if t.entries_high.is_some() => Check::new(name, true, expected, t.why.clone()),
        (_, Some(why)) => Check::cannot_tell(name, expected, why.clone()),
        (t, None) => Check::cannot_tell(
            name,
            expected,
            m.note
                .clone()
                .or(t.map(|t| t.why.clone()))
                .unwrap_or_default(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_check_holds_on_this_layout_and_fails_on_a_full_l2() {
        // The Xeon run's caches: L1d 48 KiB 12-way (64 sets), L2 2 MiB
        // 16-way (2048 sets); its largest point, 16384 pages.
        let xeon = [(1, 64, 12), (2, 2048, 16), (3, 307_200, 15)];
        let c = spread_check(16384, &xeon);
        assert!(c.passed, "{c:?}");
        assert!(
            c.observed
                .contains("L2: 2048 sets of 16 ways, at most 8 of 16384"),
            "{}",
            c.observed
        );
        // A 256 KiB, 4-way L2 (1024 sets) cannot hold 16384 lines: 16 a
        // set is even, and more than its ways.
        let small = spread_check(16384, &[(1, 64, 8), (2, 1024, 4)]);
        assert!(!small.passed, "{small:?}");
        assert!(spread_check(16384, &[]).cannot_tell.is_some());
    }
}
