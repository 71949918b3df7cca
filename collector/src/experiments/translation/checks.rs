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

/// `KernelPageSize` of a 1 GiB hugetlbfs mapping.
const GIGANTIC_KIB: u64 = 1 << 20;
/// The share of a later mapping's frames that must be new to its point:
/// all of them (the earlier mappings are held while it is made), less a
/// sliver.
const MOVED_AT_LEAST: f64 = 0.99;

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
    let gigantic: Vec<&ChasePoint> = points(Regime::Gigantic).collect();
    if !gigantic.is_empty() {
        let not: Vec<String> = gigantic
            .iter()
            .filter(|p| p.kernel_page_kib != Some(GIGANTIC_KIB))
            .map(|p| label(p))
            .collect();
        checks.push(Check::new(
            "1 GiB pages: KernelPageSize 1048576 kB in every 1 GiB-page region",
            not.is_empty(),
            "1048576 kB (/proc/self/smaps)",
            if !not.is_empty() {
                format!("another page size at {}", not.join(", "))
            } else {
                format!("in all {} regions", gigantic.len())
            },
        ));
    }
    checks.extend(fresh_mappings(huge.iter().chain(&small).copied()));
    let worst = huge
        .iter()
        .chain(&small)
        .chain(&gigantic)
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

/// The premise of timing each point in several mappings: each one sat on
/// other physical frames. Pagemap shows frames only to CAP_SYS_ADMIN;
/// without it the check says it cannot tell, and why.
fn fresh_mappings<'a>(points: impl Iterator<Item = &'a ChasePoint>) -> Option<Check> {
    let points: Vec<&ChasePoint> = points.filter(|p| p.mappings.unwrap_or(1) > 1).collect();
    let mappings = points.first()?.mappings?;
    let name = "each fresh mapping sat on frames new to its point (/proc/self/pagemap)";
    let expected = format!(
        ">= {:.0}% of each later mapping's frames in no earlier one",
        MOVED_AT_LEAST * 100.0
    );
    let moved: Vec<f64> = points
        .iter()
        .filter_map(|p| p.frames_moved_fraction)
        .collect();
    let Some(least) = moved.iter().copied().reduce(f64::min) else {
        return Some(Check::cannot_tell(
            name,
            expected,
            format!(
                "pagemap shows this process no frames (they need CAP_SYS_ADMIN); the {mappings} mappings a point were held together all the same"
            ),
        ));
    };
    Some(Check::new(
        name,
        least >= MOVED_AT_LEAST,
        expected,
        format!(
            "{mappings} mappings a point, all held until it was timed; at least {:.1}% of each later one's frames were new, over {} points",
            least * 100.0,
            moved.len()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{ExperimentRecord, Status};

    fn point(moved: Option<f64>) -> ChasePoint {
        ChasePoint {
            mappings: Some(3),
            frames_moved_fraction: moved,
            ..ChasePoint::of_samples(1 << 20, &[1.0; 9])
        }
    }

    fn record(check: Check) -> ExperimentRecord {
        ExperimentRecord {
            name: "staircase".into(),
            status: Status::Ok,
            reason: None,
            duration_s: None,
            checks: vec![check],
            results: None,
            background: None,
        }
    }

    #[test]
    fn frames_that_cannot_be_read_are_said_never_passed_nor_failed() {
        let unread = fresh_mappings([point(None), point(None)].iter()).unwrap();
        assert!(!unread.passed);
        assert!(unread
            .cannot_tell
            .as_deref()
            .unwrap()
            .contains("CAP_SYS_ADMIN"));
        let r = record(unread);
        assert_eq!(r.failed_checks().count(), 0);
        assert_eq!(r.unchecked().count(), 1);
        // Read, and all new: passed. Read, and reused: a failure.
        assert!(fresh_mappings([point(Some(1.0))].iter()).unwrap().passed);
        let reused = fresh_mappings([point(Some(1.0)), point(Some(0.0))].iter()).unwrap();
        assert_eq!(record(reused).failed_checks().count(), 1);
        // One mapping a point (the 1 GiB curve): nothing to check.
        let one = ChasePoint {
            mappings: Some(1),
            ..point(None)
        };
        assert!(fresh_mappings([one].iter()).is_none());
    }
}
