//! The numbers chapters print, recomputed here straight from the raw JSON
//! samples (serde_json values, not the model's summaries) and held against
//! the template context: a view that scales, picks or rounds a value wrongly
//! fails here, whatever the chapters happen to show.

use std::path::Path;

use mdbook_pagewalk::{context, DataSet};
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

/// The committed example run and the references, and nothing the reader may
/// have in `data/runs/`.
fn data() -> (DataSet, Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["example", "reference"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(Path::new(DATA).join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.path().join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    let example = std::fs::read_dir(dir.path().join("example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let raw = serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    (DataSet::load(dir.path()).unwrap(), raw, dir)
}

fn reference(name: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(DATA).join("reference").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn results<'a>(run: &'a Value, experiment: &str) -> &'a Value {
    let e = run["experiments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == experiment)
        .unwrap_or_else(|| panic!("no {experiment} in the file"));
    &e["results"][experiment]
}

fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

#[track_caller]
fn same(shown: &Value, expected: f64, what: &str) {
    let shown = shown
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number in the context: {shown}"));
    let scale = expected.abs().max(1e-12);
    assert!(
        ((shown - expected) / scale).abs() < 1e-9,
        "{what}: the context has {shown}, the JSON gives {expected}"
    );
}

/// Every phase of every mode of a first-touch file against `view`: wall
/// milliseconds, ns per page (wall time over the pages), its spread, faults.
fn check_first_touch(raw: &Value, view: &Value, who: &str) -> usize {
    let pages = raw["pages"].as_f64().unwrap();
    let mut checked = 0;
    for mode in raw["modes"].as_array().unwrap() {
        let key = mode["mode"].as_str().unwrap().replace('-', "_");
        let samples = mode["samples"].as_array().unwrap();
        for (phase, shown) in [
            ("allocation", "alloc"),
            ("first_pass", "first"),
            ("second_pass", "second"),
        ] {
            let walls: Vec<f64> = samples
                .iter()
                .filter_map(|s| s[phase]["wall_ns"].as_f64())
                .collect();
            if walls.is_empty() {
                continue;
            }
            let v = &view["modes"][&key][shown];
            let what = |k: &str| format!("{who} ft.modes.{key}.{shown}.{k}");
            same(&v["ms"], median(walls.clone()) / 1e6, &what("ms"));
            same(&v["wall_ns"], median(walls.clone()), &what("wall_ns"));
            same(&v["ns"], median(walls.clone()) / pages, &what("ns"));
            same(&v["ns_min"], min(&walls) / pages, &what("ns_min"));
            same(&v["ns_max"], max(&walls) / pages, &what("ns_max"));
            let faults: Vec<f64> = samples
                .iter()
                .filter_map(|s| s[phase]["minor_faults"].as_f64())
                .collect();
            if !faults.is_empty() {
                same(&v["faults"], median(faults), &what("faults"));
            }
            checked += 1;
        }
        let huge: Vec<f64> = samples
            .iter()
            .filter_map(|s| s["anon_huge_pages_kib"].as_f64())
            .collect();
        if !huge.is_empty() {
            let fraction = median(huge) * 1024.0 / raw["size_bytes"].as_f64().unwrap();
            same(
                &view["modes"][&key]["huge_fraction"],
                fraction,
                &format!("{who} ft.modes.{key}.huge_fraction"),
            );
        }
    }
    checked
}

#[test]
fn first_touch_values_follow_the_samples() {
    let (data, raw, _dir) = data();
    let ctx = context::build(&data);
    let checked = check_first_touch(results(&raw, "first-touch"), &ctx["ft"], "run");
    assert!(checked >= 20, "only {checked} phases checked");
    let r1 = reference("r1-first-touch.json");
    let checked = check_first_touch(results(&r1, "first-touch"), &ctx["r1"]["ft"], "R1");
    assert!(checked >= 15, "only {checked} R1 phases checked");
    // R1's memory, as its /proc/meminfo printed it.
    let before = &results(&r1, "first-touch")["memory_before"];
    for key in ["mem_free_kib", "mem_available_kib", "swap_free_kib"] {
        same(
            &ctx["r1"]["ft"]["before"][key],
            before[key].as_f64().unwrap(),
            key,
        );
    }
}

/// The first pass's wall times of `mode` in the raw first-touch results.
fn first_pass_walls(ft: &Value, mode: &str) -> Vec<f64> {
    let walls: Vec<f64> = ft["modes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mode"] == mode)
        .unwrap_or_else(|| panic!("no {mode} mode in the first-touch results"))["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["first_pass"]["wall_ns"].as_f64().unwrap())
        .collect();
    assert!(!walls.is_empty(), "no {mode} first passes");
    walls
}

/// The example run with `edit` applied to its file, and the context built
/// from it.
fn context_with(edit: impl FnOnce(&mut Value)) -> Value {
    let (_, mut raw, dir) = data();
    edit(&mut raw);
    let example = std::fs::read_dir(dir.path().join("example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    std::fs::write(&example, serde_json::to_string(&raw).unwrap()).unwrap();
    context::build(&DataSet::load(dir.path()).unwrap())
}

/// `{n, min, median, max, mean}` of `v`, as the collector writes a summary.
fn summary(v: &[f64]) -> Value {
    serde_json::json!({
        "n": v.len(),
        "min": min(v),
        "median": median(v.to_vec()),
        "max": max(v),
        "mean": v.iter().sum::<f64>() / v.len() as f64,
    })
}

/// Sets the first passes of `mode` to `walls` (ns), samples and summary
/// both, ns per page following.
fn set_first_pass(raw: &mut Value, mode: &str, walls: &[f64]) {
    let e = raw["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "first-touch")
        .unwrap();
    let ft = &mut e["results"]["first-touch"];
    let pages = ft["pages"].as_f64().unwrap();
    let m = ft["modes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|m| m["mode"] == mode)
        .unwrap();
    let list = m["samples"].as_array_mut().unwrap();
    assert_eq!(list.len(), walls.len(), "{mode}: samples to replace");
    for (s, &w) in list.iter_mut().zip(walls) {
        s["first_pass"]["wall_ns"] = w.into();
        s["first_pass"]["ns_per_page"] = (w / pages).into();
    }
    let per_page: Vec<f64> = walls.iter().map(|w| w / pages).collect();
    m["summary"]["first_pass"]["wall_ns"] = summary(walls);
    m["summary"]["first_pass"]["ns_per_page"] = summary(&per_page);
}

/// What overlapping repetitions may be called: no difference either way.
/// Which of the two depends on the run's A-vs-A floor (a difference inside
/// it is noise; one beyond it that the repetitions cannot confirm is
/// `unstable`, where the judge has that outcome); this file does not
/// re-derive the floor, only that such repetitions are never called
/// `slower` or `faster`.
const NO_DIFFERENCE: &[&str] = &["within-noise", "unstable"];

/// The recorded example: every `hugepage` first pass (each at least
/// 1.00 s) took longer than every `nohugepage` one (each at most 0.905 s),
/// so the verdict is `slower`, decided by the ranges. Then runs made from
/// it with the answer known by construction: all faster, all slower, and
/// two where the medians differ but the repetitions overlap (a verdict by
/// medians would say `slower`, then `faster`).
#[test]
fn the_first_touch_verdict_follows_the_repetitions() {
    const FIX: &str = "data/example (first-touch)";
    let (data, raw, _dir) = data();
    let ctx = context::build(&data);
    let ft = results(&raw, "first-touch");
    let (huge, small) = (
        first_pass_walls(ft, "hugepage"),
        first_pass_walls(ft, "nohugepage"),
    );
    assert!(
        huge.len() >= 2 && small.len() >= 2,
        "{FIX}: the modes need repetitions for ranges: {huge:?} {small:?}"
    );
    assert!(
        min(&huge) > max(&small),
        "{FIX}: the recorded hugepage first passes ({huge:?} ns) were expected all slower \
         than the nohugepage ones ({small:?} ns)"
    );
    let v = &ctx["ft"]["verdict"];
    assert_eq!(
        v["hugepage_first"], "slower",
        "{FIX}: ft.verdict.hugepage_first; hugepage {huge:?} against nohugepage {small:?}"
    );
    assert_eq!(
        v["hugepage_first_basis"], "ranges",
        "{FIX}: ft.verdict.hugepage_first_basis"
    );

    // Built cases: (hugepage walls, nohugepage walls, the verdicts that
    // may stand).
    let cases: [(&[f64], &[f64], &[&str]); 4] = [
        // Every hugepage pass under every nohugepage one.
        (&[3.0e8, 3.1e8, 3.2e8], &[5.0e8, 5.5e8, 6.0e8], &["faster"]),
        // Every hugepage pass over every nohugepage one.
        (&[7.0e8, 7.5e8, 8.0e8], &[5.0e8, 5.5e8, 6.0e8], &["slower"]),
        // Median 7.0e8 against 5.5e8, but 5.2e8 lies inside 5.0e8..6.0e8.
        (
            &[5.2e8, 7.0e8, 9.0e8],
            &[5.0e8, 5.5e8, 6.0e8],
            NO_DIFFERENCE,
        ),
        // Median 4.0e8 against 5.5e8, but 5.8e8 lies inside 5.0e8..6.0e8.
        (
            &[3.0e8, 4.0e8, 5.8e8],
            &[5.0e8, 5.5e8, 6.0e8],
            NO_DIFFERENCE,
        ),
    ];
    let mut checked = 0;
    for (huge, small, expected) in cases {
        let ctx = context_with(|raw| {
            set_first_pass(raw, "hugepage", huge);
            set_first_pass(raw, "nohugepage", small);
        });
        let shown = &ctx["ft"]["verdict"]["hugepage_first"];
        assert!(
            expected.iter().any(|e| shown == e),
            "{FIX} with hugepage first passes {huge:?} ns, nohugepage {small:?} ns: \
             ft.verdict.hugepage_first is {shown}, expected one of {expected:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, cases.len());
}

/// `{x, x_min, x_max}` of a chase point in the context against the raw
/// samples of the same point.
#[track_caller]
fn check_chase(shown: &Value, prefix: &str, point: &Value, what: &str) {
    let samples: Vec<f64> = point["samples_ns_per_load"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_f64().unwrap())
        .collect();
    same(
        &shown[format!("{prefix}_ns")],
        median(samples.clone()),
        what,
    );
    same(&shown[format!("{prefix}_ns_min")], min(&samples), what);
    same(&shown[format!("{prefix}_ns_max")], max(&samples), what);
}

/// `stair.gigantic` against the raw 1 GiB and THP curves: the largest
/// region both have, its samples, and the verdict their ranges give.
fn check_gigantic(shown: &Value, curve: &Value, raw: &Value) -> usize {
    let curves = results(raw, "staircase")["curves"].as_array().unwrap();
    let points_of = |regime: &str| {
        curves
            .iter()
            .find(|c| c["regime"] == regime)
            .map_or(vec![], |c| c["points"].as_array().unwrap().clone())
    };
    let huge = points_of("huge");
    let Some((g, h)) = curve["points"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|g| {
            Some((
                g,
                huge.iter()
                    .find(|h| h["region_bytes"] == g["region_bytes"])?,
            ))
        })
    else {
        assert!(shown["ns"].is_null(), "{shown}");
        return 0;
    };
    let samples = |p: &Value| -> Vec<f64> {
        p["samples_ns_per_load"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect()
    };
    let (gs, hs) = (samples(g), samples(h));
    same(&shown["ns"], median(gs.clone()), "stair.gigantic.ns");
    same(&shown["ns_min"], min(&gs), "stair.gigantic.ns_min");
    same(&shown["ns_max"], max(&gs), "stair.gigantic.ns_max");
    same(
        &shown["huge_ns"],
        median(hs.clone()),
        "stair.gigantic.huge_ns",
    );
    // The example's largest region both curves have is 1 GiB, where the
    // 1 GiB page's repetitions (142..168 ns) and THP's (137..160 ns)
    // overlap: no difference, though the medians differ.
    assert_eq!(
        g["region_bytes"],
        1u64 << 30,
        "data/example: the gigantic curve's last point shared with THP"
    );
    assert!(
        min(&gs) <= max(&hs) && min(&hs) <= max(&gs) && median(gs.clone()) != median(hs.clone()),
        "data/example: the 1 GiB gigantic repetitions {gs:?} were expected to overlap THP's {hs:?} \
         with different medians"
    );
    assert!(
        NO_DIFFERENCE.iter().any(|e| shown["vs_huge"] == *e),
        "data/example: stair.gigantic.vs_huge, gigantic {gs:?} ns against THP {hs:?} ns, \
         expected one of {NO_DIFFERENCE:?}: {shown}"
    );
    1
}

#[test]
fn staircase_and_thp_values_follow_the_samples() {
    let (data, raw, _dir) = data();
    let ctx = context::build(&data);
    let (mut checked, mut gigantic) = (0, 0);
    for curve in results(&raw, "staircase")["curves"].as_array().unwrap() {
        let regime = curve["regime"].as_str().unwrap();
        if regime == "gigantic" {
            gigantic += check_gigantic(&ctx["stair"]["gigantic"], curve, &raw);
            continue;
        }
        for point in curve["points"].as_array().unwrap() {
            let bytes = &point["region_bytes"];
            let shown = ctx["stair"]["points"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["bytes"] == *bytes)
                .unwrap_or_else(|| panic!("no stair point at {bytes}"));
            check_chase(shown, regime, point, &format!("stair {regime} {bytes}"));
            checked += 1;
        }
    }
    for (i, size) in results(&raw, "thp")["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let shown = &ctx["thp"]["sizes"][i];
        same(
            &shown["bytes"],
            size["size_bytes"].as_f64().unwrap(),
            "thp bytes",
        );
        for regime in ["small", "huge"] {
            check_chase(shown, regime, &size[regime], &format!("thp {regime} {i}"));
            checked += 1;
        }
    }
    assert!(
        checked > 40,
        "data/example: only {checked} staircase and THP points checked"
    );
    assert_eq!(
        gigantic, 1,
        "data/example: its 1 GiB-page curve was not checked"
    );
}

#[test]
fn noise_batches_follow_the_samples() {
    let (data, raw, _dir) = data();
    let ctx = context::build(&data);
    let mut checked = 0;
    for batch in results(&raw, "noise")["batches"].as_array().unwrap() {
        let key = batch["condition"].as_str().unwrap().replace('-', "_");
        let ns: Vec<f64> = batch["samples_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        let shown = &ctx["noise"]["batches"][&key];
        same(&shown["ms"], median(ns.clone()) / 1e6, &format!("{key}.ms"));
        same(&shown["min_ms"], min(&ns) / 1e6, &format!("{key}.min_ms"));
        same(&shown["max_ms"], max(&ns) / 1e6, &format!("{key}.max_ms"));
        checked += 1;
    }
    assert!(
        checked >= 4,
        "data/example: only {checked} noise batches checked"
    );
}

/// The free 2 MiB blocks the chapters count, recomputed from buddyinfo by
/// splitting each free block into 2 MiB pieces, on a machine whose free
/// memory sits in order-10 (4 MiB) blocks: counted once each they would
/// fall short of the region's 2 MiB windows, split they cover them.
#[test]
fn an_order_ten_block_counts_as_two_huge_pages() {
    let (_, mut raw, dir) = data();
    let experiment = raw["experiments"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "first-touch")
        .unwrap();
    let ft = &mut experiment["results"]["first-touch"];
    let windows = ft["size_bytes"].as_u64().unwrap() >> 21;
    let order10 = windows * 3 / 4;
    let mut orders = vec![serde_json::json!(0); 10];
    orders.push(serde_json::json!(order10));
    ft["memory_before"]["buddyinfo"] =
        serde_json::json!([{ "node": 0, "zone": "Normal", "free_blocks": orders }]);
    let example = std::fs::read_dir(dir.path().join("example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    std::fs::write(&example, serde_json::to_string(&raw).unwrap()).unwrap();
    let ctx = context::build(&DataSet::load(dir.path()).unwrap());
    same(
        &ctx["ft"]["before"]["free_huge_blocks"],
        (2 * order10) as f64,
        "free_huge_blocks",
    );
    assert!(order10 < windows && 2 * order10 >= windows);
    assert_eq!(ctx["ft"]["verdict"]["huge_blocks"], "plenty");
}

/// `stair.placement` against the raw 4 KiB curve: each point's samples cut
/// into its mappings, their medians' spread, the widest point and the
/// typical (median) spread.
#[test]
fn placement_follows_the_mappings() {
    let (data, raw, _dir) = data();
    let ctx = context::build(&data);
    let shown = &ctx["stair"]["placement"];
    let curves = results(&raw, "staircase")["curves"].as_array().unwrap();
    let small = curves.iter().find(|c| c["regime"] == "small").unwrap();
    let mut between = Vec::new();
    for p in small["points"].as_array().unwrap() {
        let m = p["mappings"]
            .as_u64()
            .expect("the example maps each point afresh") as usize;
        let samples: Vec<f64> = p["samples_ns_per_load"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        assert!(
            m >= 2 && samples.len().is_multiple_of(m),
            "data/example: {} samples in {m} mappings at {}",
            samples.len(),
            p["region_bytes"]
        );
        let per = samples.len() / m;
        let medians: Vec<f64> = samples.chunks(per).map(|c| median(c.to_vec())).collect();
        between.push((max(&medians) / min(&medians) - 1.0, medians, p));
    }
    assert!(
        between.len() >= 20,
        "data/example: only {} 4 KiB points",
        between.len()
    );
    let (spread, medians, widest) = between.iter().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
    let w = &shown["widest"];
    same(
        &w["between_pct"],
        spread * 100.0,
        "placement.widest.between_pct",
    );
    same(
        &w["fastest_ns"],
        min(medians),
        "placement.widest.fastest_ns",
    );
    same(
        &w["slowest_ns"],
        max(medians),
        "placement.widest.slowest_ns",
    );
    // The widest point's size, written out here in binary units (not with
    // the formatter the view uses).
    let bytes = widest["region_bytes"].as_u64().unwrap();
    let (mut v, mut unit) = (bytes as f64, 0);
    while v >= 1024.0 && unit < 3 {
        v /= 1024.0;
        unit += 1;
    }
    let label = format!("{} {}", v, ["bytes", "KiB", "MiB", "GiB"][unit]);
    assert_eq!(
        w["at"], label,
        "data/example: placement.widest.at for {bytes} bytes: {w}"
    );
    let typical = median(between.iter().map(|b| b.0).collect());
    same(
        &shown["typical_between_pct"],
        typical * 100.0,
        "placement.typical_between_pct",
    );
    assert_eq!(shown["mappings"], small["points"][0]["mappings"]);
}
