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
