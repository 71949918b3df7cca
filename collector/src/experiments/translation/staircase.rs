//! # staircase
//!
//! Premise: a dependent pointer chase over a region costs one memory
//! access per load, and what that access costs depends on where the line
//! and its translation live. As the region grows past each cache level the
//! latency steps up, and so it does past each TLB level's reach (entries x
//! page size), when every load also needs a page walk. The two staircases
//! interleave; huge pages tell them apart: a cache step stays where it is,
//! a TLB step moves 512x further out (or off the chart). So every size is
//! chased twice over the same permutation, once on 4 KiB pages and once on
//! huge pages, and the steps found are set against CPUID and sysfs.

use pagewalk_model::{Results, StaircaseResults};

use super::chase::{Layout, Plan, SEED};
use super::region::human;
use super::sweep::{allow_region, footprint, ladder, sweep, Swept};
use super::{bends, checks, geometry};
use crate::experiments::{Env, Outcome};
use crate::guard;

const MIN_BYTES: u64 = 4 << 10;
const FULL_MAX: u64 = 1 << 30;
const QUICK_MAX: u64 = 64 << 20;
/// Four sizes per doubling up to here (every cache and TLB bend of current
/// x86 machines lies below), two beyond.
const FINE_UP_TO: u64 = 128 << 20;
/// One pointer per cache line.
const STRIDE: u64 = 64;
/// Per mapping: three mappings of three give nine samples a point.
const FULL_REPS: u32 = 3;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    let requested = s.size_or(FULL_MAX, QUICK_MAX);
    let plan = Plan::chase(s, FULL_REPS, if s.quick { 1e6 } else { 5e6 });
    let allowance = match allow_region(requested, plan.mappings)? {
        Ok(a) => a,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let most = footprint(allowance.bytes, allowance.bytes / STRIDE, plan.mappings);
    if let Err(why) = guard::fits(most) {
        return Ok(Outcome::Skipped(why));
    }
    let sizes = ladder(
        MIN_BYTES,
        allowance.bytes,
        if s.quick { 0 } else { FINE_UP_TO },
        STRIDE,
    );
    let Swept {
        mut curves,
        proof,
        counters,
    } = sweep(
        env,
        "staircase",
        &plan,
        Layout::Strided {
            stride: STRIDE as usize,
        },
        &sizes,
        |size| (size / STRIDE) as usize,
        |size| human(size as usize),
        true,
    )?;

    let geometry = geometry::read();
    bends::record_thresholds(&mut curves);
    let (steps, agreement) = bends::analyse(
        &curves,
        |p| Some(p.region_bytes as f64),
        &bends::staircase_bends(&geometry),
    );
    let checks = checks::for_curves(&curves, &proof, |p| human(p.region_bytes as usize));
    Ok(Outcome::Done {
        results: Results::Staircase(StaircaseResults {
            requested_max_bytes: Some(requested),
            max_bytes: Some(allowance.bytes),
            size_note: allowance.note,
            stride_bytes: Some(STRIDE),
            repetitions: Some(plan.repetitions),
            seed: Some(SEED),
            curves,
            steps,
            geometry,
            agreement,
            counters: Some(counters.status.clone()),
            published: Vec::new(),
        }),
        checks,
    })
}
