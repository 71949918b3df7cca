//! # thp
//!
//! Premise: huge pages cut the translations a large region needs by 512,
//! so a chase over it should get faster: if the kernel really grants them.
//! `MADV_HUGEPAGE` is a request; the kernel backs what it can find free
//! 2 MiB blocks for (see `/proc/buddyinfo`) and may fall back to 4 KiB for
//! the rest, which `MADV_COLLAPSE` (Linux 6.1+) can try to repair on the
//! spot. So at a medium and a large size (256 MiB and 1 GiB) the chase
//! runs on 4 KiB and on huge pages, and `AnonHugePages` of the region
//! says how much of it the huge-page run actually had. A `MAP_HUGETLB`
//! attempt shows the other way to get huge pages: a pool reserved ahead.

use pagewalk_analysis::chase::cycle;
use pagewalk_model::{Curve, Regime, Results, ThpResults, ThpSize};

use super::chase::{self, Counters, Layout, Plan, SEED};
use super::checks::{self, Proof};
use super::hugetlb;
use super::region::{human, unavailable};
use super::sweep::{allow_region, footprint};
use crate::experiments::{Env, Outcome};
use crate::{guard, interrupt, procfs, progress};

const FULL_SIZES: [u64; 2] = [256 << 20, 1 << 30];
const QUICK_SIZES: [u64; 2] = [32 << 20, 64 << 20];
/// Per mapping, as in the staircase.
const FULL_REPS: u32 = 3;
const STRIDE: usize = 64;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let s = env.settings;
    // `--size X` sets the large size; the medium one is a quarter of it.
    let requested = match s.size {
        Some(large) => [large / 4, large],
        None if s.quick => QUICK_SIZES,
        None => FULL_SIZES,
    };
    let plan = Plan::chase(s, FULL_REPS, if s.quick { 2e6 } else { 10e6 });
    let huge_skipped = unavailable(Regime::Huge, &env.machine.thp);
    let memory_before = procfs::memory_snapshot().ok();
    let counters = Counters::open();
    let mut proof = Proof::default();
    let mut sizes = Vec::new();
    let bar = progress::bar(requested.len() as u64 * 2 + 1, "thp");
    for want in requested {
        if interrupt::requested() {
            break;
        }
        let fitting = allow_region(want, plan.mappings)?.and_then(|a| {
            guard::fits(footprint(a.bytes, a.bytes / STRIDE as u64, plan.mappings)).map(|()| a)
        });
        let allowance = match fitting {
            Ok(a) => a,
            Err(why) => {
                sizes.push(ThpSize {
                    requested_bytes: want,
                    size_bytes: 0,
                    size_note: None,
                    small: None,
                    huge: None,
                    skipped: Some(why),
                });
                continue;
            }
        };
        let size = allowance.bytes as usize;
        let next = cycle(size / STRIDE, SEED);
        let mut one = |regime: Regime| -> Result<_, String> {
            if interrupt::requested() || (regime == Regime::Huge && huge_skipped.is_some()) {
                return Ok(None);
            }
            bar.set_message(format!("{} ({})", human(size), regime.name()));
            let c = chase::run(
                regime,
                Layout::Strided { stride: STRIDE },
                &next,
                &plan,
                &counters,
            )?;
            proof.add(&format!("{} ({})", human(size), regime.name()), &c);
            bar.inc(1);
            Ok(Some(c.point))
        };
        let small = one(Regime::Small)?;
        let huge = one(Regime::Huge)?;
        sizes.push(ThpSize {
            requested_bytes: want,
            size_bytes: allowance.bytes,
            size_note: allowance.note,
            small,
            huge,
            skipped: huge_skipped.clone(),
        });
    }
    bar.set_message("MAP_HUGETLB");
    let hugetlb = (!interrupt::requested()).then(|| {
        hugetlb::attempt(
            requested[0],
            s.reserve_hugepages,
            &plan,
            &counters,
            &mut proof,
        )
    });
    bar.finish_and_clear();

    // The shared checks read curves; the sizes are two points of each.
    let curve = |regime: Regime, pick: fn(&ThpSize) -> &Option<_>| Curve {
        regime,
        skipped: None,
        pages_from: None,
        step_min_rise: None,
        points: sizes.iter().filter_map(|s| pick(s).clone()).collect(),
    };
    let curves = [
        curve(Regime::Small, |s| &s.small),
        curve(Regime::Huge, |s| &s.huge),
    ];
    let checks = checks::for_curves(&curves, &proof, |p| human(p.region_bytes as usize));
    Ok(Outcome::Done {
        results: Results::Thp(ThpResults {
            settings: env.machine.thp.clone(),
            repetitions: Some(plan.repetitions),
            memory_before,
            sizes,
            hugetlb,
            counters: Some(counters.status.clone()),
        }),
        checks,
    })
}
