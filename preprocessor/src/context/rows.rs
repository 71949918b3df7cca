//! Table rows: lists a chapter writes as one `{{#each}}` row, each entry
//! holding the shown run's values beside the published sources' values for
//! the same thing (`alloc.rows[i].run`, `.r2`), so a table is one line of
//! template instead of one unrolled line per row.

use pagewalk_model::{AllocPath, ComparisonKind, Condition};
use schemars::JsonSchema;
use serde::Serialize;

use super::alloc::Path;
use super::noise::{Batch, ComparisonView};
use super::numa::PlacementView;
use super::translation::{Cpuid, TlbLevelReach};
use super::{Context, Views};

/// A row of the allocator table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct AllocRow {
    /// The path's KEY under `alloc.paths`.
    pub key: String,
    /// Its name in the table (`1 MiB, threshold raised`).
    pub label: &'static str,
    /// True for the three paths whose `mmap` + `munmap` calls the collector counts (the ones that map).
    pub counted: bool,
    /// The path on this source, as under `alloc.paths`.
    pub run: Option<Path>,
    /// The path on R2 (null on `r2.alloc` itself).
    pub r2: Option<Path>,
}

/// A row of the noise chapter's batch table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct NoiseRow {
    /// The batch's KEY under `noise.batches`.
    pub key: String,
    /// Its name in the table (`pinned again`).
    pub label: &'static str,
    /// The batch on this source.
    pub run: Option<Batch>,
    /// The batch on R2 (null on `r2.noise` itself).
    pub r2: Option<Batch>,
}

/// A row of the noise chapter's comparison table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ComparisonRow {
    /// The comparison's KEY under `noise.comparisons`.
    pub key: String,
    /// Its name in the table (`pinned, pinned again (A against A)`).
    pub label: &'static str,
    /// The comparison on this source.
    pub run: Option<ComparisonView>,
    /// The comparison on R2 (null on `r2.noise` itself).
    pub r2: Option<ComparisonView>,
    /// What the run's difference is against its noise floor, in words to print: `inside the noise: nothing measured`, `outside the noise`, and `part of the floor` for A against A; null without the comparison.
    pub verdict: Option<&'static str>,
}

/// A row of the NUMA placement table (no published source has NUMA figures).
#[derive(Clone, Serialize, JsonSchema)]
pub struct NumaRow {
    /// The placement's KEY under `numa.placements`.
    pub key: &'static str,
    /// Its name in the table (`parallel, one per node`).
    pub label: &'static str,
    /// The placement.
    pub run: Option<PlacementView>,
}

/// A row for one of the points a view picks out (`stair.at`, `tlb.at`).
#[derive(Clone, Serialize, JsonSchema)]
#[schemars(rename = "AtRow_of_{T}")]
pub struct AtRow<T> {
    /// The point's KEY under `VIEW.at`.
    pub key: &'static str,
    /// Its name in the table (`half of L1d`, `most pages within the L2 TLB`).
    pub label: &'static str,
    /// The point, as under `VIEW.at`; null where there is none.
    pub point: Option<T>,
}

/// A row of the TLB-reach chapter's CPUID table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct CpuidRow {
    /// The level's KEY under `VIEW.cpuid`.
    pub key: &'static str,
    /// Its name in the table (`L1 dTLB, 4 KiB pages`).
    pub label: &'static str,
    /// The level on this source.
    pub run: Option<TlbLevelReach>,
    /// R2's (from `r2.stair.cpuid`: R2 has no `tlb-reach`; null on R2's own views).
    pub r2: Option<TlbLevelReach>,
}

/// Files every row list under its view: the shown run's with R2's values
/// beside, each source's own with nothing beside.
pub fn add(context: &mut Context) {
    let r2 = context.r2.clone();
    fill(&mut context.views, Some(&r2));
    fill(&mut context.r1, None);
    fill(&mut context.r2, None);
}

fn fill(views: &mut Views, beside: Option<&Views>) {
    if let Some(alloc) = views.alloc.as_mut() {
        let r2 = beside.and_then(|v| v.alloc.as_ref());
        alloc.rows = AllocPath::ALL
            .iter()
            .map(|&p| AllocRow {
                key: key(p.name()),
                label: p.label(),
                counted: matches!(
                    p,
                    AllocPath::MmapTypical | AllocPath::MmapForced | AllocPath::MmapPinned
                ),
                run: alloc.paths.get(p).cloned(),
                r2: r2.and_then(|a| a.paths.get(p)).cloned(),
            })
            .collect();
    }
    if let Some(noise) = views.noise.as_mut() {
        let r2 = beside.and_then(|v| v.noise.as_ref());
        noise.rows = [
            (Condition::Pinned, "pinned"),
            (Condition::Unpinned, "unpinned"),
            (Condition::PinnedAgain, "pinned again"),
            (Condition::Longer, "longer"),
        ]
        .iter()
        .map(|&(c, label)| NoiseRow {
            key: key(c.name()),
            label,
            run: noise.batches.get(c).cloned(),
            r2: r2.and_then(|n| n.batches.get(c)).cloned(),
        })
        .collect();
        noise.comparison_rows = [
            (ComparisonKind::AVsA, "pinned, pinned again (A against A)"),
            (ComparisonKind::PinnedVsUnpinned, "pinned, unpinned"),
            (ComparisonKind::AVsLonger, "pinned, longer"),
        ]
        .iter()
        .map(|&(k, label)| {
            let run = noise.comparisons.get(k).cloned();
            let verdict = match run.as_ref().map(|c| c.inside_noise) {
                _ if k == ComparisonKind::AVsA => Some("part of the floor"),
                Some(true) => Some("inside the noise: nothing measured"),
                Some(false) => Some("outside the noise"),
                None => None,
            };
            ComparisonRow {
                key: key(k.name()),
                label,
                run,
                r2: r2.and_then(|n| n.comparisons.get(k)).cloned(),
                verdict,
            }
        })
        .collect();
    }
    if let Some(numa) = views.numa.as_mut() {
        numa.rows = vec![
            NumaRow {
                key: "one_thread",
                label: "one thread",
                run: numa.placements.one_thread.clone(),
            },
            NumaRow {
                key: "parallel",
                label: "parallel, one per node",
                run: numa.placements.parallel.clone(),
            },
        ];
    }
    if let Some(stair) = views.stair.as_mut() {
        let at = &stair.at;
        stair.at_rows = vec![
            at_row("l1", "half of L1d", &at.l1),
            at_row("l2", "half of L2", &at.l2),
            at_row("l3", "half of L3", &at.l3),
            at_row("largest", "largest", &at.largest),
        ];
    }
    // R2 published its TLB figures with its staircase, and no `tlb-reach`.
    let r2_cpuid = beside.and_then(|v| v.stair.as_ref()).map(|s| &s.cpuid);
    if let Some(tlb) = views.tlb.as_mut() {
        let at = &tlb.at;
        tlb.at_rows = vec![
            at_row("few", "fewest pages", &at.few),
            at_row("l1", "most pages within the L1 dTLB", &at.l1),
            at_row("l2", "most pages within the L2 TLB", &at.l2),
            at_row("beyond", "most pages measured", &at.beyond),
        ];
        tlb.cpuid_rows = cpuid_rows(&tlb.cpuid, r2_cpuid);
    }
}

/// A KEY: the model's kebab-case name with `-` written as `_`.
fn key(name: &str) -> String {
    name.replace('-', "_")
}

fn at_row<T: Clone>(key: &'static str, label: &'static str, point: &Option<T>) -> AtRow<T> {
    AtRow {
        key,
        label,
        point: point.clone(),
    }
}

/// One per TLB level, in the chapter's order.
fn cpuid_rows(run: &Cpuid, r2: Option<&Cpuid>) -> Vec<CpuidRow> {
    type Level = fn(&Cpuid) -> &Option<TlbLevelReach>;
    let levels: [(&str, &str, Level); 6] = [
        ("l1d_4k", "L1 dTLB, 4 KiB pages", |c| &c.l1d_4k),
        ("l2_4k", "L2 TLB, 4 KiB pages", |c| &c.l2_4k),
        ("l1d_2m", "L1 dTLB, 2 MiB pages", |c| &c.l1d_2m),
        ("l2_2m", "L2 TLB, 2 MiB pages", |c| &c.l2_2m),
        ("l1d_1g", "L1 dTLB, 1 GiB pages", |c| &c.l1d_1g),
        ("l2_1g", "L2 TLB, 1 GiB pages", |c| &c.l2_1g),
    ];
    levels
        .iter()
        .map(|&(key, label, level)| CpuidRow {
            key,
            label,
            run: level(run).clone(),
            r2: r2.and_then(|c| level(c).clone()),
        })
        .collect()
}
