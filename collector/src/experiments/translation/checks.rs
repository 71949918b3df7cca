//! The premises every chase experiment must prove for its numbers to mean
//! translation cost: the loop really followed the permutation, the huge
//! regime really got huge pages (and the 4 KiB one none), and no page
//! fault happened while the clock ran. A failed check is stored and shown.

use pagewalk_model::{ChasePoint, Check, Curve, Regime};

use super::chase::Chased;

/// Minor faults one point's timed samples may take: none are expected (the
/// region is linked and warmed first); a stray one from the harness is not
/// a translation cost worth failing over.
const FAULT_SLACK: u64 = 2;

/// What the chases proved, gathered as they ran.
#[derive(Debug, Default)]
pub struct Proof {
    pub verified: usize,
    pub mismatches: Vec<String>,
}

impl Proof {
    pub fn add(&mut self, label: &str, c: &Chased) {
        self.verified += c.samples_verified;
        self.mismatches
            .extend(c.mismatches.iter().map(|m| format!("{label}: {m}")));
    }
}

/// The shared checks; `label` names a point in observations (`4 KiB`,
/// `96 pages`).
pub fn for_curves(
    curves: &[Curve],
    proof: &Proof,
    label: impl Fn(&ChasePoint) -> String,
) -> Vec<Check> {
    let mut checks = vec![Check::new(
        "every timed sample landed where the permutation says",
        proof.mismatches.is_empty() && proof.verified > 0,
        "after k dependent loads from slot s: slot next^k(s), in every sample",
        if proof.mismatches.is_empty() {
            format!("{} samples verified", proof.verified)
        } else {
            let shown: Vec<&str> = proof
                .mismatches
                .iter()
                .take(3)
                .map(String::as_str)
                .collect();
            format!(
                "{} of {} samples did not: {}",
                proof.mismatches.len(),
                proof.verified + proof.mismatches.len(),
                shown.join("; ")
            )
        },
    )];
    let points = |r: Regime| {
        curves
            .iter()
            .filter(move |c| c.regime == r && c.skipped.is_none())
            .flat_map(|c| &c.points)
    };
    let huge: Vec<&ChasePoint> = points(Regime::Huge).collect();
    if !huge.is_empty() {
        let without: Vec<String> = huge
            .iter()
            .filter(|p| p.anon_huge_kib.unwrap_or(0) == 0)
            .map(|p| label(p))
            .collect();
        let fractions: Vec<f64> = huge.iter().filter_map(|p| p.huge_fraction).collect();
        let lo = fractions.iter().copied().fold(f64::INFINITY, f64::min);
        checks.push(Check::new(
            "huge pages: AnonHugePages > 0 in every huge-page region",
            without.is_empty(),
            "> 0 kB in each region",
            if without.is_empty() {
                format!(
                    "in all {} regions; the least backed was {:.0}% huge pages",
                    huge.len(),
                    lo * 100.0
                )
            } else {
                format!(
                    "0 kB in {} of {} regions ({}): the kernel granted no huge page there",
                    without.len(),
                    huge.len(),
                    without.join(", ")
                )
            },
        ));
    }
    let small: Vec<&ChasePoint> = points(Regime::Small).collect();
    if !small.is_empty() {
        let with: Vec<String> = small
            .iter()
            .filter(|p| p.anon_huge_kib.unwrap_or(0) > 0)
            .map(|p| label(p))
            .collect();
        checks.push(Check::new(
            "4 KiB pages: AnonHugePages == 0 in every 4 KiB region",
            with.is_empty(),
            "0 kB",
            if with.is_empty() {
                format!("0 kB in all {} regions", small.len())
            } else {
                format!("huge pages despite MADV_NOHUGEPAGE at {}", with.join(", "))
            },
        ));
    }
    let worst = huge
        .iter()
        .chain(&small)
        .filter_map(|p| Some((p.timed_minor_faults?, *p)))
        .max_by_key(|(f, _)| *f);
    if let Some((faults, at)) = worst {
        checks.push(Check::new(
            "timed loops took no page faults (RUSAGE_THREAD)",
            faults <= FAULT_SLACK,
            format!("<= {FAULT_SLACK} minor faults per point"),
            format!("at most {faults} (at {})", label(at)),
        ));
    }
    checks
}
