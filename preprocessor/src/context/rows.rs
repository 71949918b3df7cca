//! Table rows: lists a chapter writes as one `{{#each}}` row, each entry
//! holding the shown run's values beside the published sources' values for
//! the same thing (`alloc.rows[i].run`, `.r2`), so a table is one line of
//! template instead of one unrolled line per row.

use pagewalk_model::AllocPath;
use serde_json::{json, Map, Value};

/// Files every row list under its view in `root` (the whole context, with
/// `r1` and `r2` already built).
pub fn add(root: &mut Map<String, Value>) {
    let r2 = root.get("r2").cloned().unwrap_or(Value::Null);
    if let Some(alloc) = root.get_mut("alloc").and_then(Value::as_object_mut) {
        let rows = alloc_rows(
            alloc.get("paths"),
            r2.get("alloc").and_then(|a| a.get("paths")),
        );
        alloc.insert("rows".into(), rows);
    }
    if let Some(noise) = root.get_mut("noise").and_then(Value::as_object_mut) {
        let r2 = r2.get("noise");
        let rows = noise_rows(noise.get("batches"), r2.and_then(|n| n.get("batches")));
        noise.insert("rows".into(), rows);
        let rows = comparison_rows(
            noise.get("comparisons"),
            r2.and_then(|n| n.get("comparisons")),
        );
        noise.insert("comparison_rows".into(), rows);
    }
    // R2 published its TLB figures with its staircase, and no `tlb-reach`.
    let r2_cpuid = r2.get("stair").and_then(|s| s.get("cpuid")).cloned();
    if let Some(tlb) = root.get_mut("tlb").and_then(Value::as_object_mut) {
        let rows = at_rows(tlb.get("at"), TLB_POINTS);
        tlb.insert("at_rows".into(), rows);
        let rows = cpuid_rows(tlb.get("cpuid"), r2_cpuid.as_ref());
        tlb.insert("cpuid_rows".into(), rows);
    }
    if let Some(stair) = root.get_mut("stair").and_then(Value::as_object_mut) {
        let rows = at_rows(stair.get("at"), STAIR_POINTS);
        stair.insert("at_rows".into(), rows);
    }
    if let Some(numa) = root.get_mut("numa").and_then(Value::as_object_mut) {
        let rows = numa_rows(numa.get("placements"));
        numa.insert("rows".into(), rows);
    }
}

/// `map[key]`, null where the map or the key is absent.
fn entry(map: Option<&Value>, key: &str) -> Value {
    map.and_then(|m| m.get(key)).cloned().unwrap_or(Value::Null)
}

/// One per allocator path, in the model's order: `label`, `counted` (the
/// collector counts `mmap` + `munmap` on this path: the three that map),
/// the run's path view and R2's.
fn alloc_rows(run: Option<&Value>, r2: Option<&Value>) -> Value {
    AllocPath::ALL
        .iter()
        .map(|&p| {
            let key = p.name().replace('-', "_");
            let counted = matches!(
                p,
                AllocPath::MmapTypical | AllocPath::MmapForced | AllocPath::MmapPinned
            );
            json!({
                "key": key,
                "label": p.label(),
                "counted": counted,
                "run": entry(run, &key),
                "r2": entry(r2, &key),
            })
        })
        .collect()
}

/// One per batch, in the chapter's order: `{key, label, run, r2}`, `run`
/// and `r2` the batch's view (as under `noise.batches`).
fn noise_rows(run: Option<&Value>, r2: Option<&Value>) -> Value {
    [
        ("pinned", "pinned"),
        ("unpinned", "unpinned"),
        ("pinned_again", "pinned again"),
        ("longer", "longer"),
    ]
    .iter()
    .map(|&(key, label)| json!({"key": key, "label": label, "run": entry(run, key), "r2": entry(r2, key)}))
    .collect()
}

/// One per comparison, in the chapter's order: `{key, label, run, r2,
/// verdict}`; `verdict` says what the run's difference is against its
/// noise floor, in words (`inside the noise: nothing measured`, `outside
/// the noise`; A against A is `part of the floor`), null without it.
fn comparison_rows(run: Option<&Value>, r2: Option<&Value>) -> Value {
    [
        ("a_vs_a", "pinned, pinned again (A against A)"),
        ("pinned_vs_unpinned", "pinned, unpinned"),
        ("a_vs_longer", "pinned, longer"),
    ]
    .iter()
    .map(|&(key, label)| {
        let compared = entry(run, key);
        let verdict = match compared.get("inside_noise").and_then(Value::as_bool) {
            _ if key == "a_vs_a" => Some("part of the floor"),
            Some(true) => Some("inside the noise: nothing measured"),
            Some(false) => Some("outside the noise"),
            None => None,
        };
        json!({"key": key, "label": label, "run": compared, "r2": entry(r2, key), "verdict": verdict})
    })
    .collect()
}

/// One per placement, in the chapter's order: `{key, label, run}` (no
/// published source has NUMA figures).
fn numa_rows(run: Option<&Value>) -> Value {
    [
        ("one_thread", "one thread"),
        ("parallel", "parallel, one per node"),
    ]
    .iter()
    .map(|&(key, label)| json!({"key": key, "label": label, "run": entry(run, key)}))
    .collect()
}

/// The points `stair.at` picks out, in the chapter's order.
const STAIR_POINTS: &[(&str, &str)] = &[
    ("l1", "half of L1d"),
    ("l2", "half of L2"),
    ("l3", "half of L3"),
    ("largest", "largest"),
];

/// The points `tlb.at` picks out, in the chapter's order.
const TLB_POINTS: &[(&str, &str)] = &[
    ("few", "fewest pages"),
    ("l1", "most pages within the L1 dTLB"),
    ("l2", "most pages within the L2 TLB"),
    ("beyond", "most pages measured"),
];

/// One per picked point: `{key, label, point}`, `point` as under `VIEW.at`
/// (null where the run has no such point).
fn at_rows(at: Option<&Value>, points: &[(&str, &str)]) -> Value {
    points
        .iter()
        .map(|&(key, label)| json!({"key": key, "label": label, "point": entry(at, key)}))
        .collect()
}

/// One per TLB level, in the chapter's order: `{key, label, run, r2}`,
/// `run` and `r2` the level as under `VIEW.cpuid` (R2's from `r2.stair`).
fn cpuid_rows(run: Option<&Value>, r2: Option<&Value>) -> Value {
    [
        ("l1d_4k", "L1 dTLB, 4 KiB pages"),
        ("l2_4k", "L2 TLB, 4 KiB pages"),
        ("l1d_2m", "L1 dTLB, 2 MiB pages"),
        ("l2_2m", "L2 TLB, 2 MiB pages"),
        ("l1d_1g", "L1 dTLB, 1 GiB pages"),
        ("l2_1g", "L2 TLB, 1 GiB pages"),
    ]
    .iter()
    .map(|&(key, label)| json!({"key": key, "label": label, "run": entry(run, key), "r2": entry(r2, key)}))
    .collect()
}
