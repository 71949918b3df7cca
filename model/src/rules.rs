//! Rules across the fields of one experiment's results that neither serde
//! nor the tree's limits ([`crate::limits`]) can express: counts that must
//! fit the sizes they count, lists no longer than the repetitions they
//! keep. Each returns `(field path within the results, message)`.
//!
//! They exist because the book prints these numbers: a file with
//! `pages: 1e15` for a 1 GiB region would be shown as measured.

use crate::translation::{ChasePoint, Curve, ThpResults, TlbReachResults};
use crate::{
    FirstTouchResults, MlpResults, NumaResults, ShootdownResults, TailResults, WalkResults,
};

use crate::decimal::shortest;

type Checked = Result<(), (String, String)>;

/// No page holds less than one 8-byte pointer of a chase.
const MIN_BYTES_PER_PAGE: u64 = 8;
const BASE_PAGE: u64 = 4096;

pub(crate) fn first_touch(ft: &FirstTouchResults) -> Checked {
    if ft.stride_bytes == 0 {
        return Err((
            "stride_bytes".into(),
            "is 0; a touch stride is at least one byte".into(),
        ));
    }
    at_most(
        "pages",
        ft.pages,
        ft.size_bytes.div_ceil(ft.stride_bytes),
        "the size over the stride",
    )?;
    for (m, mode) in ft.modes.iter().enumerate() {
        at_most(
            &format!("modes[{m}].samples"),
            mode.samples.len() as u64,
            u64::from(ft.repetitions),
            "the repetitions",
        )?;
    }
    faults_fit_pages(ft)
}

pub(crate) fn tail(t: &TailResults) -> Checked {
    if t.region_bytes == Some(0) {
        return Err((
            "region_bytes".into(),
            "is 0; the hot loop walks fresh memory".into(),
        ));
    }
    if let (Some(pages), Some(bytes)) = (t.pages, t.region_bytes) {
        at_most(
            "pages",
            pages,
            bytes.div_ceil(BASE_PAGE),
            "the region in 4 KiB pages",
        )?;
    }
    for (v, variant) in t.variants.iter().enumerate() {
        if let Some(reps) = t.repetitions {
            at_most(
                &format!("variants[{v}].repetitions"),
                variant.repetitions.len() as u64,
                u64::from(reps),
                "the repetitions",
            )?;
        }
    }
    Ok(())
}

/// Interrupts a cell counted cannot outnumber what its calls could cause:
/// a handful per call (the flush, a retry), not thousands.
pub(crate) fn shootdown(s: &ShootdownResults) -> Checked {
    const PER_CALL: u64 = 16;
    let calls = s.calls.saturating_mul(u64::from(s.repetitions));
    for (i, c) in s.cells.iter().enumerate() {
        for (name, n) in [
            ("remote_shootdowns", c.remote_shootdowns),
            ("local_shootdowns", c.local_shootdowns),
        ] {
            if let Some(n) = n {
                at_most(
                    &format!("cells[{i}].{name}"),
                    n,
                    calls.saturating_mul(PER_CALL),
                    "the calls timed",
                )?;
            }
        }
        if let Some(m) = &c.median_ns {
            at_most(
                &format!("cells[{i}].median_ns.n"),
                m.n as u64,
                u64::from(s.repetitions),
                "the repetitions",
            )?;
        }
    }
    Ok(())
}

/// Every sample list fits the repetitions, and a chain count is a chain
/// count: at least one, and no more than one line per slot of the region.
pub(crate) fn mlp(m: &MlpResults) -> Checked {
    for (r, region) in m.regions.iter().enumerate() {
        for (i, p) in region.points.iter().enumerate() {
            let at = |f: &str| format!("regions[{r}].points[{i}].{f}");
            if p.chains == 0 {
                return Err((at("chains"), "is 0; a point runs at least one chain".into()));
            }
            at_most(
                &at("chains"),
                u64::from(p.chains),
                region.bytes / m.stride_bytes.max(1),
                "the slots of the region",
            )?;
            at_most(
                &at("samples_ns_per_load"),
                p.samples_ns_per_load.len() as u64,
                u64::from(m.repetitions),
                "the repetitions",
            )?;
        }
        if region
            .huge_fraction
            .is_some_and(|f| !(0.0..=1.0).contains(&f))
        {
            return Err((
                format!("regions[{r}].huge_fraction"),
                "is not a fraction between 0 and 1".into(),
            ));
        }
    }
    m.l2_tlb.as_ref().map_or(Ok(()), |u| u.check())?;
    Ok(())
}

/// The pages a point visits fit the range it reserved, and its samples the
/// repetitions.
pub(crate) fn walk(w: &WalkResults) -> Checked {
    for (i, p) in w.points.iter().enumerate() {
        let at = |f: &str| format!("points[{i}].{f}");
        if p.stride_bytes < BASE_PAGE {
            return Err((
                at("stride_bytes"),
                format!("is {}; pages are at least 4 KiB apart", p.stride_bytes),
            ));
        }
        if let Some(reserved) = p.reserved_bytes {
            at_most(
                &at("pages"),
                p.pages,
                reserved / p.stride_bytes,
                "the reserved range over the stride",
            )?;
        }
        at_most(
            &at("samples_ns_per_load"),
            p.samples_ns_per_load.len() as u64,
            u64::from(w.repetitions),
            "the repetitions",
        )?;
    }
    w.l2_tlb.as_ref().map_or(Ok(()), |u| u.check())?;
    Ok(())
}

pub(crate) fn numa(n: &NumaResults) -> Checked {
    at_most(
        "pages",
        n.pages,
        n.region_bytes.div_ceil(BASE_PAGE),
        "the region in 4 KiB pages",
    )?;
    for (p, placement) in n.placements.iter().enumerate() {
        let found = placement
            .pages_per_node
            .values()
            .fold(placement.pages_unknown, |a, &b| a.saturating_add(b));
        at_most(
            &format!("placements[{p}].pages_per_node"),
            found,
            n.pages,
            "the pages touched",
        )?;
    }
    Ok(())
}

pub(crate) fn curves(curves: &[Curve]) -> Checked {
    for (c, curve) in curves.iter().enumerate() {
        for (i, point) in curve.points.iter().enumerate() {
            chase_point(point).map_err(|(f, m)| (format!("curves[{c}].points[{i}].{f}"), m))?;
        }
    }
    Ok(())
}

/// The curves' points, and each measured TLB level.
pub(crate) fn tlb_reach(t: &TlbReachResults) -> Checked {
    curves(&t.curves)?;
    t.measured.as_ref().map_or(Ok(()), |m| m.check())
}

pub(crate) fn thp(t: &ThpResults) -> Checked {
    for (s, size) in t.sizes.iter().enumerate() {
        for (name, point) in [("small", &size.small), ("huge", &size.huge)] {
            if let Some(point) = point {
                chase_point(point).map_err(|(f, m)| (format!("sizes[{s}].{name}.{f}"), m))?;
            }
        }
    }
    if let Some(point) = t.hugetlb.as_ref().and_then(|h| h.chase.as_ref()) {
        chase_point(point).map_err(|(f, m)| (format!("hugetlb.chase.{f}"), m))?;
    }
    Ok(())
}

fn chase_point(p: &ChasePoint) -> Checked {
    if p.region_bytes == 0 {
        return Err((
            "region_bytes".into(),
            "is 0; a chase spans at least one slot".into(),
        ));
    }
    if let Some(pages) = p.pages {
        at_most(
            "pages",
            pages,
            p.region_bytes / MIN_BYTES_PER_PAGE,
            "one 8-byte pointer per page of the region",
        )?;
    }
    if let Some(m) = p.mappings {
        let samples = p.samples_ns_per_load.len();
        if m == 0 || !samples.is_multiple_of(m as usize) {
            return Err((
                "mappings".into(),
                format!("is {m}; the {samples} samples are not an equal run per mapping"),
            ));
        }
    }
    Ok(())
}

/// `field` counts `n`, which cannot exceed `most` (`what` says why).
fn at_most(field: &str, n: u64, most: u64, what: &str) -> Checked {
    if n <= most {
        return Ok(());
    }
    Err((
        field.to_string(),
        format!("is {n}, more than {what} allow ({most})"),
    ))
}

/// A first pass takes at most one fault per page, and the other phases not
/// many more; faults a hundred times the pages were not counted here.
fn faults_fit_pages(ft: &FirstTouchResults) -> Checked {
    let most = ft.pages.saturating_mul(100).saturating_add(10_000);
    for (m, mode) in ft.modes.iter().enumerate() {
        let runs = [("samples", &mode.samples), ("later_runs", &mode.later_runs)];
        for (list, samples) in runs {
            for (s, sample) in samples.iter().enumerate() {
                for phase in crate::Phase::ALL {
                    let Some(p) = sample.phase(phase) else {
                        continue;
                    };
                    let faults =
                        (p.minor_faults.unwrap_or(0)).saturating_add(p.major_faults.unwrap_or(0));
                    if faults <= most {
                        continue;
                    }
                    return Err((
                        format!("modes[{m}].{list}[{s}].{}", phase.field()),
                        format!(
                            "counts {faults} faults for {} pages; at most {most} are possible",
                            ft.pages
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The ratios the noise chapter prints (a batch's spread and CV, each
/// comparison's difference and A-vs-A floor) are what its own samples
/// give, when the file keeps them; a file without them (a published
/// source's figures) still holds ratios a measurement can reach. A
/// spread of 1e308 would otherwise print as "inf%".
pub(crate) fn noise(n: &crate::NoiseResults) -> Checked {
    use crate::noise::Condition;
    for (b, batch) in n.batches.iter().enumerate() {
        let at = |f: &str| format!("batches[{b}].{f}");
        // The samples, when the file keeps all that the summary counts (a
        // trimmed file keeps some: its ratios come from the whole batch).
        let kept = &batch.samples_ns;
        let runs = batch.summary.map_or(kept.len(), |s| s.n);
        let all = (!kept.is_empty() && kept.len() == runs).then_some(kept);
        if let Some(spread) = batch.spread {
            ratio_within(&at("spread"), spread, 1.0, MAX_RATIO, "max/min of the runs")?;
            if let Some(samples) = all {
                let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
                let max = samples.iter().copied().fold(0.0, f64::max);
                agrees(
                    &at("spread"),
                    spread,
                    (min > 0.0).then(|| max / min),
                    "samples_ns",
                )?;
            }
        }
        if let Some(cv) = batch.cv {
            // The CV of n values that are not negative is at most sqrt(n).
            let n = if runs == 0 {
                crate::limits::MAX_SAMPLES
            } else {
                runs
            };
            ratio_within(
                &at("cv"),
                cv,
                0.0,
                (n as f64).sqrt(),
                "the square root of the runs' count",
            )?;
            if let Some(samples) = all {
                agrees(
                    &at("cv"),
                    cv,
                    crate::coefficient_of_variation(samples),
                    "samples_ns",
                )?;
            }
        }
    }
    let summary = |c: Condition| n.batch(c).and_then(|b| b.summary);
    for (i, c) in n.comparisons.iter().enumerate() {
        let at = |f: &str| format!("comparisons[{i}].verdict.{f}");
        let v = &c.verdict;
        ratio_within(
            &at("difference"),
            v.difference,
            0.0,
            MAX_RATIO,
            "a relative difference",
        )?;
        ratio_within(
            &at("noise"),
            v.noise,
            0.0,
            MAX_RATIO,
            "a relative difference",
        )?;
        if let (Some(a), Some(b)) = (summary(c.a), summary(c.b)) {
            agrees(
                &at("difference"),
                v.difference,
                crate::relative_difference(&a, &b),
                "the batches' medians",
            )?;
        }
        // The floor is the largest of several A-vs-A differences, so at
        // least the one between the two pinned batches.
        if let (Some(a), Some(again)) =
            (summary(Condition::Pinned), summary(Condition::PinnedAgain))
        {
            if let Some(floor) = crate::relative_difference(&a, &again) {
                if v.noise < floor * (1.0 - 1e-9) {
                    return Err((
                        at("noise"),
                        format!(
                            "is {}, below the pinned batches' own difference ({})",
                            shortest(v.noise),
                            shortest(floor)
                        ),
                    ));
                }
            }
        }
        if v.inside_noise != (v.difference <= v.noise) {
            return Err((
                at("inside_noise"),
                format!(
                    "is {}, but the difference {} the noise",
                    v.inside_noise,
                    if v.difference <= v.noise {
                        "is within"
                    } else {
                        "exceeds"
                    }
                ),
            ));
        }
    }
    if let Some(h) = n.hybrid_slowdown {
        ratio_within(
            "hybrid_slowdown",
            h,
            0.0,
            MAX_RATIO,
            "a slowest-over-fastest ratio",
        )?;
    }
    Ok(())
}

/// The largest ratio of two times a run file may print as a spread or a
/// difference: a millionfold. Two times the file can hold differ at most
/// by an hour over a tenth of a nanosecond (3.6e13), but repetitions of
/// one workload a millionfold apart measured nothing.
const MAX_RATIO: f64 = 1e6;

fn ratio_within(field: &str, x: f64, lo: f64, hi: f64, what: &str) -> Checked {
    if (lo..=hi).contains(&x) {
        return Ok(());
    }
    Err((
        field.to_string(),
        format!(
            "is {}; {what} lies from {} to {}",
            shortest(x),
            shortest(lo),
            shortest(hi)
        ),
    ))
}

/// `x` equals `expected`, what the file's own data give (to a millionth:
/// the writer rounds nothing, a reader a few ulp).
fn agrees(field: &str, x: f64, expected: Option<f64>, from: &str) -> Checked {
    let Some(e) = expected.filter(|e| e.is_finite()) else {
        return Err((
            field.to_string(),
            format!("is {}, but {from} give no such ratio", shortest(x)),
        ));
    };
    if (x - e).abs() <= e.abs() * 1e-6 + 1e-12 {
        return Ok(());
    }
    Err((
        field.to_string(),
        format!("is {}, but {from} give {}", shortest(x), shortest(e)),
    ))
}
