//! What mlp checks of its own premises. Where a region's place depends on
//! a size the run does not know (a reach that was not measured, a
//! last-level cache sysfs does not give), the check says it cannot tell,
//! and why: never passed, never failed.

use pagewalk_model::{Check, MlpRegion, MlpRegionResult};

use super::super::region::human;
use super::chains::Proof;
use super::sizes::Sizes;

/// The premises: every chain ran its loads, the page regimes are what
/// they say, no fault was timed, and the regions lie where they must.
pub fn checks(
    regions: &[MlpRegionResult],
    proof: &Proof,
    sizes: &Sizes,
    large: u64,
    control: u64,
) -> Vec<Check> {
    let measured = |r: MlpRegion| {
        regions
            .iter()
            .find(|g| g.region == r && g.skipped.is_none() && !g.points.is_empty())
    };
    let mut checks = vec![Check::new(
        "every chain ended each sample where the cycle says",
        proof.mismatches.is_empty() && proof.verified > 0,
        "chain j of k, after s steps: the slot j*n/k + s along the cycle, for every chain of every sample",
        if proof.mismatches.is_empty() {
            format!("{} chain-samples verified", proof.verified)
        } else {
            format!(
                "{} of {} did not: {}",
                proof.mismatches.len(),
                proof.verified + proof.mismatches.len(),
                proof
                    .mismatches
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        },
    )];
    if let Some(h) = measured(MlpRegion::Huge) {
        let kib = h.anon_huge_kib.unwrap_or(0);
        checks.push(Check::new(
            "huge pages: AnonHugePages > 0 in the huge region",
            kib > 0,
            "> 0 kB",
            format!(
                "{kib} kB ({:.0}% of the region)",
                h.huge_fraction.unwrap_or(0.0) * 100.0
            ),
        ));
    }
    let small: Vec<&MlpRegionResult> = [MlpRegion::Small, MlpRegion::Control]
        .into_iter()
        .filter_map(measured)
        .collect();
    if !small.is_empty() {
        let with: Vec<String> = small
            .iter()
            .filter(|g| g.anon_huge_kib.unwrap_or(0) > 0)
            .map(|g| g.region.name().to_string())
            .collect();
        checks.push(Check::new(
            "4 KiB pages: AnonHugePages == 0 in the 4 KiB regions",
            with.is_empty(),
            "0 kB",
            if with.is_empty() {
                format!("0 kB in all {}", small.len())
            } else {
                format!("huge pages despite MADV_NOHUGEPAGE in {}", with.join(", "))
            },
        ));
    }
    checks.push(Check::new(
        "timed loops took no page faults (RUSAGE_THREAD)",
        proof.faults <= 2,
        "<= 2 minor faults per sample",
        format!("at most {}", proof.faults),
    ));
    checks.push(beyond(sizes, large));
    checks.push(inside(sizes, control));
    checks
}

/// The large region is past the last-level cache and the L2 TLB's reach
/// (its upper bound).
fn beyond(sizes: &Sizes, large: u64) -> Check {
    let name = "the large region is beyond the last-level cache and the L2 TLB's reach";
    let reach = sizes.reach_past();
    let expected = format!(
        "> the last-level cache ({}, sysfs) and > {} (the L2 TLB's reach, {})",
        sizes.llc.map_or("unknown".into(), |b| human(b as usize)),
        human(reach as usize),
        sizes.reach.source.name()
    );
    let observed = human(large as usize);
    let mut unknown = Vec::new();
    if sizes.llc.is_none() {
        unknown.push("sysfs gives no last-level cache size".to_string());
    }
    if !sizes.reach.measured() {
        unknown.push(format!(
            "the L2 TLB's reach was not measured: {}",
            sizes.reach.note
        ));
    }
    if !unknown.is_empty() {
        return Check::cannot_tell(
            name,
            expected,
            format!("{} (the region: {observed})", unknown.join("; ")),
        );
    }
    let llc = sizes.llc.unwrap_or(0);
    Check::new(name, large > llc && large > reach, expected, observed)
}

/// The control region is inside the L2 TLB's reach (its lower bound).
fn inside(sizes: &Sizes, control: u64) -> Check {
    let name = "the control region is inside the L2 TLB's reach";
    let expected = format!(
        "<= {} (the L2 TLB's reach, {})",
        human(sizes.reach_inside() as usize),
        sizes.reach.source.name()
    );
    if !sizes.reach.measured() {
        return Check::cannot_tell(
            name,
            expected,
            format!(
                "the L2 TLB's reach was not measured: {} (the region: {})",
                sizes.reach.note,
                human(control as usize)
            ),
        );
    }
    Check::new(
        name,
        control <= sizes.reach_inside(),
        expected,
        human(control as usize),
    )
}

#[cfg(test)]
mod tests {
    use super::super::sizes::reach;
    use super::*;
    use pagewalk_model::ReachSource;

    const MIB: u64 = 1 << 20;

    fn sizes(source: ReachSource, llc: Option<u64>) -> Sizes {
        Sizes {
            reach: reach(1280, Some(1536), source),
            l2: Some(2 * MIB),
            llc,
        }
    }

    #[test]
    fn unknown_sizes_cannot_tell_known_ones_pass_or_fail() {
        let proof = Proof {
            verified: 1,
            ..Proof::default()
        };
        let by = |c: &[Check], n: &str| c.iter().find(|c| c.name.starts_with(n)).unwrap().clone();
        // The Xeon run: 300 MiB LLC, reach measured; a 600 MiB region.
        let c = checks(
            &[],
            &proof,
            &sizes(ReachSource::TlbReach, Some(300 * MIB)),
            600 * MIB,
            4 * MIB,
        );
        assert!(by(&c, "the large region").passed);
        assert!(by(&c, "the control region").passed, "{c:?}");
        // A control past the lower bound (5 MiB): failed, not unknown.
        let c = checks(
            &[],
            &proof,
            &sizes(ReachSource::Probe, Some(300 * MIB)),
            600 * MIB,
            6 * MIB,
        );
        let control = by(&c, "the control region");
        assert!(!control.passed && control.cannot_tell.is_none());
        // The reach assumed, the LLC unknown: neither passed nor failed.
        let c = checks(
            &[],
            &proof,
            &sizes(ReachSource::Assumed, None),
            600 * MIB,
            4 * MIB,
        );
        for name in ["the large region", "the control region"] {
            let check = by(&c, name);
            assert!(!check.passed, "{check:?}");
            assert!(
                check
                    .cannot_tell
                    .as_deref()
                    .unwrap()
                    .contains("not measured"),
                "{check:?}"
            );
        }
        assert!(by(&c, "the large region")
            .cannot_tell
            .unwrap()
            .contains("no last-level cache size"));
    }
}
