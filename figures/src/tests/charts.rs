//! The first-touch charts built from the fixtures, the registry that builds
//! a chart by name, and the chart names themselves.

use pagewalk_model::Status;

use super::fixtures::{reference, run, value};
use crate::*;

#[test]
fn ns_per_page_values_land_in_their_category_and_series() {
    let (r, refr) = (run(), reference());
    let spec = first_touch_ns_per_page(&r, Some(&refr));
    let keys: Vec<&str> = spec.categories.iter().map(|c| c.key.as_str()).collect();
    // The modes that pay at allocation first (populate has no figures in
    // this fixture: it goes by where it is expected to pay), then the rest.
    assert_eq!(keys, ["populate", "nohugepage", "hugepage", "calloc"]);
    // A panel per phase, each with the run and the reference.
    let panels: Vec<&str> = spec.x.panels.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(panels, ["allocation", "first pass", "second pass"]);
    let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "this run: allocation",
            "the reference laptop: allocation",
            "this run: first pass",
            "the reference laptop: first pass",
            "this run: second pass",
            "the reference laptop: second pass"
        ]
    );
    for (i, s) in spec.series.iter().enumerate() {
        assert_eq!(spec.panel_of(s), Some(i / 2));
        let role = [Role::Run, Role::Reference][i % 2];
        assert_eq!(s.role, role);
        assert_eq!(
            spec.legend_name(s),
            ["this run", "the reference laptop"][i % 2]
        );
    }
    let p = spec.series[2].at("nohugepage").unwrap();
    assert_eq!(
        (p.value, p.min, p.max),
        (Some(250.5), Some(200.25), Some(300.0))
    );
    assert_eq!(value(&spec, 2, "hugepage"), Some(13.0));
    assert_eq!(value(&spec, 3, "nohugepage"), Some(180.0));
    assert_eq!(value(&spec, 3, "calloc"), Some(90.0));
    // The bill's other two places.
    assert_eq!(value(&spec, 0, "nohugepage"), Some(1.0));
    assert_eq!(value(&spec, 5, "calloc"), Some(2.0));
}

#[test]
fn missing_modes_are_gaps_not_zeros() {
    let (r, refr) = (run(), reference());
    let spec = first_touch_ns_per_page(&r, Some(&refr));
    // The run lacks calloc; the reference lacks hugepage; populate was skipped.
    let gap = spec.series[2].at("calloc").unwrap();
    assert_eq!(gap.value, None);
    assert_eq!(gap.note.as_deref(), Some("not reported by this source"));
    assert_eq!(value(&spec, 3, "hugepage"), None);
    let skipped = spec.series[2].at("populate").unwrap();
    assert_eq!(skipped.value, None);
    assert!(skipped.note.as_deref().unwrap().contains("no memory"));
    // Gaps draw no mark and read n/a in the table.
    let svg = render_svg(&spec, &Palette::light(), 720, 0);
    assert!(!svg.contains("data-category=\"calloc\" data-value=\"0\""));
    assert_eq!(svg.matches("class=\"pw-mark\"").count(), 12);
    assert!(table_html(&spec).contains("n/a (skipped: no memory)"));
}

#[test]
fn without_reference_there_is_one_series() {
    let spec = first_touch_ns_per_page(&run(), None);
    assert_eq!(spec.series.len(), 3);
    assert_eq!(spec.categories.len(), 3);
}

#[test]
fn faults_per_phase_and_mode() {
    let spec = first_touch_faults(&run());
    let names: Vec<&str> = spec.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["allocation", "first pass", "second pass"]);
    assert_eq!(value(&spec, 1, "nohugepage"), Some(1000.0));
    assert_eq!(spec.series[1].at("nohugepage").unwrap().max, Some(1001.0));
    assert_eq!(value(&spec, 1, "hugepage"), Some(2.0));
    assert_eq!(value(&spec, 0, "hugepage"), Some(0.0));
    assert_eq!(value(&spec, 2, "populate"), None);
    // A reference that did not report faults leaves gaps.
    let spec = first_touch_faults(&reference());
    assert_eq!(value(&spec, 1, "nohugepage"), None);
    assert_eq!(value(&spec, 1, "calloc"), Some(0.0));
}

#[test]
fn registry_builds_by_name() {
    let (r, refr) = (run(), reference());
    let spec = build("first-touch-ns-per-page", &[&r, &refr]).unwrap();
    assert_eq!(spec.series.len(), 6);
    assert_eq!(
        build("first-touch-faults", &[&r]).unwrap().id,
        "first-touch-faults"
    );
    for name in CHART_NAMES {
        assert_eq!(build(name, &[&r]).unwrap().id, *name);
    }
    assert!(matches!(
        build("nope", &[&r]),
        Err(BuildError::UnknownChart(_))
    ));
    assert!(matches!(
        build("first-touch-faults", &[]),
        Err(BuildError::NoRun(_))
    ));
}

#[test]
fn run_without_first_touch_gives_an_empty_chart_with_a_reason() {
    let mut r = run();
    r.experiments[0].status = Status::Skipped;
    r.experiments[0].results = None;
    r.experiments[0].reason = Some("not Linux".into());
    let spec = first_touch_faults(&r);
    assert!(spec.categories.is_empty());
    assert!(spec.note.as_deref().unwrap().contains("not Linux"));
    let svg = render_svg(&spec, &Palette::light(), 600, 0);
    assert!(svg.contains("No data to draw"));
    assert!(!svg.contains("class=\"pw-mark\""));
}

/// The chart names are exactly the charts of every kind, in the model's
/// order: a chart added to one list and not the other fails here.
#[test]
fn chart_names_are_the_charts_of_every_kind() {
    let per_kind: Vec<&str> = pagewalk_model::Kind::ALL
        .iter()
        .flat_map(|&k| charts_of(k).iter().copied())
        .collect();
    let mut sorted = per_kind.clone();
    sorted.sort();
    let mut names = CHART_NAMES.to_vec();
    names.sort();
    assert_eq!(sorted, names);
    assert_eq!(per_kind.len(), CHART_NAMES.len(), "a chart listed twice");
}
