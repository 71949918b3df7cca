//! A run file the reader drops on the page, read with the build's own model
//! ([`pagewalk_model::parse_run_bytes`], whose errors name the file and the
//! field) and charted with the build's own [`crate::build`]; its measured
//! series, renamed after the file, become the overlay of each chart.

use std::collections::BTreeMap;

use pagewalk_model::json::FromJson;
use serde::{Deserialize, Serialize};

use super::layer::Overlay;
use crate::spec::{ChartSpec, Role, Series};

/// The overlay of a chart built from a loaded file alone: its measured
/// series (a collector run's, or a reference file's published ones), as
/// role [`Role::File`], named after the file: `label` for a chart with one
/// such series, `label: what` (e.g. `label: first pass`) for several or
/// for a chart of panels.
/// Series without a single value are left out.
pub fn file_overlay(label: &str, spec: &ChartSpec) -> Overlay {
    let measured: Vec<&Series> = spec
        .series
        .iter()
        .filter(|s| matches!(s.role, Role::Run | Role::Reference))
        .filter(|s| s.points.iter().any(|p| p.value.is_some()))
        .collect();
    // A panel's series keep its name (`label: first pass`), whatever their number.
    let one = measured.len() == 1 && spec.x.panels.is_empty();
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
            faint: false,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
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
/// chart in `charts`, the overlay from it. A chart no file is laid over
/// ([`crate::builders::build_overlaid`]) is listed in `nothing_for`.
pub fn load_file(label: &str, bytes: &[u8], charts: &[String]) -> Result<LoadedFile, String> {
    let run = pagewalk_model::parse_run_bytes(label, bytes).map_err(|e| e.to_string())?;
    let mut overlays = BTreeMap::new();
    let mut nothing_for = Vec::new();
    for chart in charts {
        let overlay = crate::builders::build_overlaid(chart, &[&run])
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
    use crate::overlay::replace;
    use crate::{build, lab};

    /// The committed example run: its file name and text.
    fn example_text() -> (String, String) {
        let path = crate::builders::fixtures::committed_path("example");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        (name, std::fs::read_to_string(path).unwrap())
    }

    #[test]
    fn a_loaded_run_overlays_every_chart_it_has_numbers_for() {
        let (name, text) = example_text();
        let charts = [
            "first-touch-ns-per-page",
            "first-touch-faults",
            lab::FIRST_TOUCH,
            lab::TLB_MODEL,
            "someone-elses-chart",
        ]
        .map(String::from);
        let loaded = load_file(&name, text.as_bytes(), &charts).unwrap();
        assert!(loaded.describes.starts_with("collector run "));
        let ns = &loaded.overlays["first-touch-ns-per-page"];
        let names: Vec<&str> = ns.series.iter().map(|s| s.name.as_str()).collect();
        let phase = |p: &str| format!("{name}: {p}");
        assert_eq!(
            names,
            [
                phase("allocation"),
                phase("first pass"),
                phase("second pass")
            ]
        );
        assert!(ns.series.iter().all(|s| s.role == Role::File));
        assert!(!ns.categories.is_empty());
        let faults = &loaded.overlays["first-touch-faults"];
        assert!(faults
            .series
            .iter()
            .all(|s| s.name.starts_with(&format!("{name}: "))));
        let first_touch = &loaded.overlays[lab::FIRST_TOUCH];
        assert!(
            first_touch.series[0]
                .name
                .starts_with(&format!("{name}: first pass")),
            "{first_touch:?}"
        );
        assert_eq!(loaded.nothing_for, ["lab-tlb-model", "someone-elses-chart"]);

        // Laid over the build's own chart, next to the example run.
        let run = pagewalk_model::parse_run(&name, &text).unwrap();
        let mut spec = build("first-touch-ns-per-page", &[&run]).unwrap();
        replace(&mut spec, Role::File, Some(&name), ns.clone());
        assert_eq!(spec.series.len(), 6);
        for i in 0..3 {
            assert_eq!(spec.series[i].points, spec.series[i + 3].points);
            assert_eq!(spec.panel_of(&spec.series[i + 3]), Some(i));
            assert_eq!(spec.legend_name(&spec.series[i + 3]), name);
        }
    }

    /// Every chart on a page a reader drops files on (the compare page and
    /// the labs' page) is one the worker can lay a file over: it links
    /// only [`crate::builders::build_overlaid`]'s builders.
    #[test]
    fn every_chart_on_a_drop_page_can_take_a_file() {
        let (_, text) = example_text();
        let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../book/");
        for page in ["compare-runs.md", "in-your-browser.md"] {
            let md = std::fs::read_to_string(format!("{book}{page}")).unwrap();
            let charts: Vec<String> = md
                .split("{{chart \"")
                .skip(1)
                .map(|s| s.split('"').next().unwrap().to_string())
                .collect();
            assert!(!charts.is_empty(), "{page}");
            let loaded = load_file("x.json", text.as_bytes(), &charts).unwrap();
            assert!(
                loaded.nothing_for.is_empty(),
                "{page}: {:?}",
                loaded.nothing_for
            );
        }
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
        let mut spec = build(&chart, &[&run, &r1]).unwrap();
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
        assert_eq!(spec.series.len(), before + 3);
    }
}
