//! What each chart's design must make obvious, held on the committed runs:
//! a quantity on a log axis is a dot at its value (a bar's length from an
//! arbitrary floor means nothing), a gap is said once per series in the
//! legend with its reason (not an "n/a" at every empty place), and the
//! marker lines' styles are explained in a key.

use pagewalk_figures::{build, render_svg, ChartKind, Palette, Scale, CHART_NAMES};
use pagewalk_model::{committed, read_run, RunFile};

fn runs() -> Vec<RunFile> {
    // The example first (the shown run), then the references.
    let mut files = committed::files();
    files.sort_by_key(|p| !p.to_string_lossy().contains("/example/"));
    files.iter().map(|p| read_run(p).unwrap()).collect()
}

#[test]
fn log_axis_bars_are_dots_and_gaps_are_said_once() {
    let runs = runs();
    let refs: Vec<&RunFile> = runs.iter().collect();
    let (mut dot_charts, mut gap_series) = (0, 0);
    for name in CHART_NAMES {
        let Ok(spec) = build(name, &refs) else {
            continue;
        };
        let svg = render_svg(&spec, &Palette::light(), 390, 0);
        let marks = svg.matches("class=\"pw-mark\"").count();
        if spec.kind == ChartKind::Bars && spec.y.scale == Scale::Log && marks > 0 {
            dot_charts += 1;
            // Each mark is a marker of its series' shape: a circle, a
            // path or a square, never a bar.
            for mark in svg.split('<').filter(|m| m.contains("class=\"pw-mark\"")) {
                let attr = |a: &str| {
                    let at = mark.find(&format!(" {a}=\""))? + a.len() + 3;
                    mark[at..].split('"').next()
                };
                assert!(
                    !mark.starts_with("rect ") || attr("width") == attr("height"),
                    "{name}: a bar on a log axis: {mark}"
                );
            }
        }
        assert!(
            !svg.contains(">n/a</text>"),
            "{name}: an n/a drawn at a gap"
        );
        // Per legend entry: a source drawn in several panels is one.
        for s in &spec.series {
            let entry = spec.legend_name(s);
            let points = || {
                spec.series
                    .iter()
                    .filter(|o| spec.legend_name(o) == entry)
                    .flat_map(|o| o.points.iter())
            };
            let gaps = points().filter(|p| p.value.is_none()).count();
            if gaps > 0 {
                gap_series += 1;
                let said = format!("{entry} (n/a for {gaps} of {}", points().count());
                assert!(svg.contains(&said), "{name}: {entry} does not say {said}");
            }
        }
    }
    assert!(dot_charts >= 2, "only {dot_charts} log-axis bar charts");
    assert!(gap_series >= 1, "no series with a gap to check");
}

#[test]
fn marker_line_styles_have_a_key() {
    let runs = runs();
    let refs: Vec<&RunFile> = runs.iter().collect();
    for name in ["staircase", "tlb-reach"] {
        let spec = build(name, &refs).unwrap();
        let svg = render_svg(&spec, &Palette::light(), 390, 0);
        assert!(
            svg.contains(">cache size</text>"),
            "{name}: no key for the cache lines"
        );
        assert!(
            svg.contains(">TLB reach</text>"),
            "{name}: no key for the TLB lines"
        );
    }
}
