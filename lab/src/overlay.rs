//! Laying extra series over a chart already in the page: the browser's own
//! results (role [`Role::Browser`]) and run files the reader loads (role
//! [`Role::File`]).
//!
//! A loaded file is read with the build's own model
//! ([`pagewalk_model::parse_run`], whose errors name the file and the
//! field) and charted with the build's own builders ([`crate::charts::build`]);
//! its run series, renamed after the file, become the overlay.

use std::collections::BTreeMap;

use pagewalk_figures::{Category, ChartSpec, Marker, Role, Series};
use serde::{Deserialize, Serialize};

use crate::charts::{self, NOTHING_YET};

/// Series (and, for bar charts, the categories they need) to lay over a
/// chart.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Overlay {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<Category>,
    pub series: Vec<Series>,
}

/// True when series `name` came from the file labelled `label`.
pub fn from_file(name: &str, label: &str) -> bool {
    name == label
        || name
            .strip_prefix(label)
            .is_some_and(|rest| rest.starts_with(": "))
}

/// Replaces, in `spec`, the series of `role` (only those from file `label`
/// when given) by `overlay`'s, adds the categories they need, and drops
/// categories no series has a point for any more. A lab chart's "nothing
/// measured yet" note goes when it has values and comes back when it has
/// none.
pub fn replace(spec: &mut ChartSpec, role: Role, label: Option<&str>, mut overlay: Overlay) {
    spec.series
        .retain(|s| !(s.role == role && label.is_none_or(|l| from_file(&s.name, l))));
    // A loaded file whose numbers are already on the chart as a published
    // reference (a reader dropping R1's own file) would draw them twice.
    overlay.series.retain(|s| {
        !spec
            .series
            .iter()
            .any(|have| have.role == Role::Reference && same_values(have, s))
    });
    for c in overlay.categories {
        if !spec.categories.iter().any(|have| have.key == c.key) {
            spec.categories.push(c);
        }
    }
    spec.series.extend(overlay.series);
    let series = &spec.series;
    spec.categories.retain(|c| {
        series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| p.category.as_deref() == Some(&c.key))
        })
    });
    let has_values = spec
        .series
        .iter()
        .any(|s| s.points.iter().any(|p| p.value.is_some()));
    let lab = charts::NAMES.contains(&spec.id.as_str());
    if has_values && spec.note.as_deref() == Some(NOTHING_YET) {
        spec.note = None;
    } else if !has_values && lab && spec.note.is_none() {
        spec.note = Some(NOTHING_YET.to_string());
    }
}

/// Two series with the same valued points (gaps aside): the same numbers.
/// (No sorting or copying: this ships in the chart component's wasm.)
fn same_values(a: &Series, b: &Series) -> bool {
    let valued = |s: &Series| s.points.iter().filter(|p| p.value.is_some()).count();
    let n = valued(a);
    n > 0
        && n == valued(b)
        && b.points.iter().filter(|p| p.value.is_some()).all(|q| {
            a.points
                .iter()
                .any(|p| p.value == q.value && p.category == q.category && p.x == q.x)
        })
}

/// Replaces the markers of `spec`'s x axis (the TLB model's reach on the
/// lab charts, which have no others).
pub fn set_x_markers(spec: &mut ChartSpec, markers: Vec<Marker>) {
    spec.x.markers = markers;
}

/// The overlay of a chart built from a loaded file alone: its measured
/// series (a collector run's, or a reference file's published ones), as
/// role [`Role::File`], named after the file: `label` for a chart with one
/// such series, `label: what` (e.g. `label: first pass`) for several.
/// Series without a single value are left out.
pub fn file_overlay(label: &str, spec: &ChartSpec) -> Overlay {
    let measured: Vec<&Series> = spec
        .series
        .iter()
        .filter(|s| matches!(s.role, Role::Run | Role::Reference))
        .filter(|s| s.points.iter().any(|p| p.value.is_some()))
        .collect();
    let one = measured.len() == 1;
    let series = measured
        .into_iter()
        .map(|s| Series {
            name: if one {
                label.to_string()
            } else {
                let what = s.name.strip_prefix("this run: ").unwrap_or(&s.name);
                format!("{label}: {what}")
            },
            role: Role::File,
            points: s.points.clone(),
        })
        .collect::<Vec<_>>();
    Overlay {
        categories: if series.is_empty() {
            Vec::new()
        } else {
            spec.categories.clone()
        },
        series,
    }
}

/// A file the reader loaded, validated and charted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedFile {
    pub label: String,
    /// What the file is: `collector run 2026...` or the reference's name.
    pub describes: String,
    /// Chart name -> what to lay over it; only charts the file has
    /// numbers for.
    pub overlays: BTreeMap<String, Overlay>,
    /// Charts of the page the file has nothing for.
    pub nothing_for: Vec<String>,
}

/// Validates `bytes` as a run file by the model's one rule (UTF-8, size,
/// content limits; errors name `label` and the field) and builds, for each
/// chart in `charts`, the overlay from it. A chart the build does not know
/// is listed in `nothing_for`.
pub fn load_file(label: &str, bytes: &[u8], charts: &[String]) -> Result<LoadedFile, String> {
    let run = pagewalk_model::parse_run_bytes(label, bytes).map_err(|e| e.to_string())?;
    let mut overlays = BTreeMap::new();
    let mut nothing_for = Vec::new();
    for chart in charts {
        let overlay = charts::build(chart, &[&run])
            .map(|spec| file_overlay(label, &spec))
            .unwrap_or_default();
        if overlay.series.is_empty() {
            nothing_for.push(chart.clone());
        } else {
            overlays.insert(chart.clone(), overlay);
        }
    }
    let describes = if run.is_reference() {
        format!("published figures: {}", run.label())
    } else {
        format!("collector run {}", run.label())
    };
    Ok(LoadedFile {
        label: label.to_string(),
        describes,
        overlays,
        nothing_for,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_figures::{Axis, ChartKind, Point};

    fn example_text() -> (String, String) {
        let path = crate::example_run_path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        (name, std::fs::read_to_string(path).unwrap())
    }

    fn bars(series: Vec<Series>, cats: &[&str]) -> ChartSpec {
        ChartSpec {
            id: "first-touch-ns-per-page".into(),
            title: "t".into(),
            description: String::new(),
            kind: ChartKind::Bars,
            x: Axis::linear("mode", ""),
            y: Axis::linear("ns", "ns"),
            categories: cats
                .iter()
                .map(|k| Category {
                    key: k.to_string(),
                    label: k.to_ascii_uppercase(),
                })
                .collect(),
            series,
            note: None,
        }
    }

    fn series(name: &str, role: Role, cats: &[(&str, f64)]) -> Series {
        Series {
            name: name.into(),
            role,
            points: cats.iter().map(|(c, v)| Point::bar(*c, Some(*v))).collect(),
        }
    }

    #[test]
    fn file_series_replace_only_their_own_file() {
        let mut spec = bars(
            vec![
                series("this run", Role::Run, &[("a", 1.0)]),
                series("a.json", Role::File, &[("a", 2.0)]),
                series("a.json.bak", Role::File, &[("a", 3.0)]),
            ],
            &["a"],
        );
        let new = Overlay {
            categories: vec![Category {
                key: "b".into(),
                label: "B".into(),
            }],
            series: vec![series("a.json", Role::File, &[("a", 4.0), ("b", 5.0)])],
        };
        replace(&mut spec, Role::File, Some("a.json"), new);
        let names: Vec<_> = spec.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["this run", "a.json.bak", "a.json"]);
        assert_eq!(spec.series[2].points[1].value, Some(5.0));
        let keys: Vec<_> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        // Removing the file takes its extra category with it.
        replace(&mut spec, Role::File, Some("a.json"), Overlay::default());
        assert_eq!(spec.series.len(), 2);
        assert_eq!(spec.categories.len(), 1);
    }

    #[test]
    fn browser_series_replace_all_browser_series() {
        let mut spec = charts::build(charts::CHASE, &[]).unwrap();
        assert_eq!(spec.note.as_deref(), Some(NOTHING_YET));
        let line = |v| Series {
            name: "this browser: chase".into(),
            role: Role::Browser,
            points: vec![Point::xy(16.0, Some(v))],
        };
        replace(
            &mut spec,
            Role::Browser,
            None,
            Overlay {
                categories: vec![],
                series: vec![line(1.0)],
            },
        );
        assert!(spec.note.is_none());
        replace(
            &mut spec,
            Role::Browser,
            None,
            Overlay {
                categories: vec![],
                series: vec![line(2.0)],
            },
        );
        assert_eq!(spec.series.len(), 1);
        assert_eq!(spec.series[0].points[0].value, Some(2.0));
        replace(&mut spec, Role::Browser, None, Overlay::default());
        assert_eq!(spec.note.as_deref(), Some(NOTHING_YET));
    }

    #[test]
    fn the_model_reach_is_a_marker_on_the_lab_charts() {
        let report = crate::tlb::run(&crate::tlb::TlbParams {
            entries: 64,
            page_bytes: 4096,
            max_kib: 1024,
            seed: 1,
        });
        let markers = charts::tlb_markers(&report);
        for name in charts::TLB_MARKED {
            let mut spec = charts::build(name, &[]).unwrap();
            set_x_markers(&mut spec, markers.clone());
            assert_eq!(spec.x.markers.len(), 1);
            assert_eq!(
                spec.x.markers[0].x, 262144.0,
                "{name}: reach in bytes, as the x axis"
            );
            assert!(spec.x.markers[0].label.contains("64 × 4 KiB = 256 KiB"));
            let svg =
                pagewalk_figures::render_svg(&spec, &pagewalk_figures::Palette::light(), 720, 0);
            assert!(svg.contains("pw-marker"), "{name}: the marker is not drawn");
        }
    }

    #[test]
    fn a_loaded_run_overlays_every_chart_it_has_numbers_for() {
        let (name, text) = example_text();
        let charts = [
            "first-touch-ns-per-page",
            "first-touch-faults",
            charts::FIRST_TOUCH,
            charts::TLB_MODEL,
            "someone-elses-chart",
        ]
        .map(String::from);
        let loaded = load_file(&name, text.as_bytes(), &charts).unwrap();
        assert!(loaded.describes.starts_with("collector run "));
        let ns = &loaded.overlays["first-touch-ns-per-page"];
        assert_eq!(ns.series.len(), 1);
        assert_eq!(ns.series[0].name, name);
        assert_eq!(ns.series[0].role, Role::File);
        assert!(!ns.categories.is_empty());
        let faults = &loaded.overlays["first-touch-faults"];
        assert!(faults
            .series
            .iter()
            .all(|s| s.name.starts_with(&format!("{name}: "))));
        let lab = &loaded.overlays[charts::FIRST_TOUCH];
        assert!(
            lab.series[0]
                .name
                .starts_with(&format!("{name}: first pass")),
            "{lab:?}"
        );
        assert_eq!(loaded.nothing_for, ["lab-tlb-model", "someone-elses-chart"]);

        // Laid over the build's own chart, next to the example run.
        let run = pagewalk_model::parse_run(&name, &text).unwrap();
        let mut spec = charts::build("first-touch-ns-per-page", &[&run]).unwrap();
        replace(&mut spec, Role::File, Some(&name), ns.clone());
        assert_eq!(spec.series.len(), 2);
        assert_eq!(spec.series[0].points, spec.series[1].points);
    }

    #[test]
    fn bad_files_are_named_with_the_field() {
        let (name, text) = example_text();
        let charts = ["first-touch-ns-per-page".to_string()];
        let e = load_file("bad.json", b"{ not json", &charts).unwrap_err();
        assert!(e.starts_with("bad.json: not valid JSON"), "{e}");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["schema_version"] = (pagewalk_model::SCHEMA_VERSION + 1).into();
        let newer = v.to_string();
        let e = load_file(&name, newer.as_bytes(), &charts).unwrap_err();
        assert!(
            e.contains(&name) && e.contains("`schema_version`") && e.contains("newer"),
            "{e}"
        );
        let e = load_file(
            "x.json",
            br#"{"schema_version": 1, "experiments": []}"#,
            &charts,
        )
        .unwrap_err();
        assert!(e.starts_with("x.json: ") && e.contains("provenance"), "{e}");
        let wrong = text.replacen("\"status\": \"ok\"", "\"status\": 3", 1);
        let e = load_file("w.json", wrong.as_bytes(), &charts).unwrap_err();
        assert!(e.contains("field `experiments[0].status`"), "{e}");
    }

    /// The page reads files by the CLI's rule: a byte-order mark is
    /// ignored, invalid UTF-8 and impossible numbers are refused by name.
    #[test]
    fn the_page_reads_files_by_the_models_rule() {
        let (name, text) = example_text();
        let charts = ["first-touch-ns-per-page".to_string()];
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        assert!(load_file(&name, &with_bom, &charts).is_ok());
        let mut latin1 = text.as_bytes().to_vec();
        latin1.extend_from_slice(b" \xE9");
        let e = load_file("l.json", &latin1, &charts).unwrap_err();
        assert!(e.starts_with("l.json: is not UTF-8 text"), "{e}");
        let huge = text.replacen("\"ns_per_page\": ", "\"ns_per_page\": 1.7e308, \"x\": ", 1);
        let e = load_file("h.json", huge.as_bytes(), &charts).unwrap_err();
        assert!(
            e.contains("ns_per_page`") && e.contains("more than an hour"),
            "{e}"
        );
    }

    /// Dropping R1's own file on a chart that already shows R1 adds
    /// nothing: the numbers are there once, as the reference.
    #[test]
    fn a_reference_already_on_the_chart_is_not_drawn_twice() {
        let (name, text) = example_text();
        let run = pagewalk_model::parse_run(&name, &text).unwrap();
        let r1_path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/reference/r1-first-touch.json"
        );
        let r1_text = std::fs::read_to_string(r1_path).unwrap();
        let r1 = pagewalk_model::parse_run("r1", &r1_text).unwrap();
        let chart = "first-touch-ns-per-page".to_string();
        let mut spec = charts::build(&chart, &[&run, &r1]).unwrap();
        let before = spec.series.len();
        let loaded = load_file(
            "r1-first-touch.json",
            r1_text.as_bytes(),
            std::slice::from_ref(&chart),
        )
        .unwrap();
        replace(
            &mut spec,
            Role::File,
            Some("r1-first-touch.json"),
            loaded.overlays[&chart].clone(),
        );
        assert_eq!(
            spec.series.len(),
            before,
            "{:?}",
            spec.series.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        // Another run's numbers still join the chart.
        let other = load_file("other.json", text.as_bytes(), std::slice::from_ref(&chart)).unwrap();
        replace(
            &mut spec,
            Role::File,
            Some("other.json"),
            other.overlays[&chart].clone(),
        );
        assert_eq!(spec.series.len(), before + 1);
    }
}
