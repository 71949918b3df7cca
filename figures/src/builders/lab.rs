//! The lab charts of "Measuring in your browser": what the build draws for
//! them from `data/` (the shown run and the references). The page adds the
//! browser's own series (`pagewalk-lab`'s `charts`) and, until it does,
//! each chart says so with its [`ChartSpec::empty_note`].

use pagewalk_model::{first_touch::EXPERIMENT as FIRST_TOUCH_EXPERIMENT, Mode, RunFile, Summary};

use super::source::{role, series_name};
use crate::spec::{Axis, ChartKind, ChartSpec, Point, Series};

pub const FIRST_TOUCH: &str = "lab-first-touch";
pub const CHASE: &str = "lab-chase";
pub const TLB_MODEL: &str = "lab-tlb-model";
/// The lab charts, as `{{lab ...}}` places them.
pub const NAMES: &[&str] = &[FIRST_TOUCH, CHASE, TLB_MODEL];

/// The note of a lab chart with nothing to draw yet.
pub const NOTHING_YET: &str =
    "nothing measured yet: run the experiment above and this browser's numbers appear here";

const MIB: f64 = 1024.0 * 1024.0;

/// A line point from a summary: the median, with min/max whiskers when
/// there was more than one sample.
pub fn median_point(x: f64, s: &Summary, note: Option<String>) -> Point {
    let spread = s.n > 1;
    Point {
        min: spread.then_some(s.min),
        max: spread.then_some(s.max),
        note,
        ..Point::xy(x, Some(s.median))
    }
}

/// First touch by region size: each run file's first and second pass at
/// its one size (mode `default`, plain `mmap` as an engine's memory is,
/// else `MADV_NOHUGEPAGE`), next to what the browser measures.
pub fn first_touch(runs: &[&RunFile]) -> ChartSpec {
    let sources: Vec<&RunFile> = runs
        .first()
        .copied()
        .into_iter()
        .chain(
            runs.get(1..)
                .unwrap_or_default()
                .iter()
                .copied()
                .find(|r| r.is_reference() && r.experiment(FIRST_TOUCH_EXPERIMENT).is_some()),
        )
        .collect();
    let mut series = Vec::new();
    for src in sources {
        let Some(ft) = src.first_touch() else {
            continue;
        };
        let measured = [Mode::Default, Mode::Nohugepage]
            .into_iter()
            .find_map(|m| Some((m, ft.mode(m).filter(|r| r.summary.first_pass.is_some())?)));
        let Some((mode, result)) = measured else {
            continue;
        };
        let summary = &result.summary;
        let x = ft.size_bytes as f64 / MIB;
        let name = series_name(src);
        for (what, phase) in [
            ("first pass", &summary.first_pass),
            ("second pass", &summary.second_pass),
        ] {
            if let Some(p) = phase {
                series.push(Series {
                    name: format!("{name}: {what}, {}", mode.code()),
                    role: role(src),
                    faint: false,
                    points: vec![median_point(
                        x,
                        &p.ns_per_page,
                        Some(format!("{} pages", ft.pages)),
                    )],
                });
            }
        }
    }
    ChartSpec {
        id: FIRST_TOUCH.to_string(),
        title: "First touch: ns per 4 KiB page by region size".to_string(),
        description:
            "time per 4 KiB page to grow memory and to write it the first and the second time, \
                      in this browser by region size, next to the collector's runs"
                .to_string(),
        kind: ChartKind::Lines,
        x: Axis::log("region size", "MiB"),
        y: Axis::log(
            "ns per 4 KiB page (median, whiskers min to max)",
            "ns per page",
        ),
        categories: Vec::new(),
        series,
        note: None,
        empty_note: None,
    }
    .with_empty_note(NOTHING_YET)
}

/// The pointer chase by region size: the shown run's `staircase` curves
/// (4 KiB and huge pages), next to the browser's chase.
pub fn chase(runs: &[&RunFile]) -> ChartSpec {
    let mut series = Vec::new();
    if let Some(run) = runs.first() {
        for curve in run
            .staircase()
            .map(|s| s.curves.as_slice())
            .unwrap_or_default()
        {
            if curve.points.is_empty() {
                continue;
            }
            series.push(Series {
                name: format!("{}: {}", series_name(run), curve.regime.label()),
                role: role(run),
                faint: false,
                points: curve
                    .points
                    .iter()
                    .map(|p| {
                        median_point(
                            p.region_bytes as f64,
                            &p.ns_per_load,
                            p.loads_per_sample
                                .map(|l| format!("{} samples of {l} loads", p.ns_per_load.n)),
                        )
                    })
                    .collect(),
            });
        }
    }
    ChartSpec {
        id: CHASE.to_string(),
        title: "Pointer chase: ns per dependent load by region size".to_string(),
        description: "time per dependent load of a random pointer chase, by region size, \
                      in this browser next to the collector's staircase"
            .to_string(),
        kind: ChartKind::Lines,
        // Bytes, as the collector's `staircase` chart: the browser's series
        // are laid over that chart too when a page has it.
        x: region_axis(),
        y: Axis::log(
            "ns per dependent load (median, whiskers min to max)",
            "ns per load",
        ),
        categories: Vec::new(),
        series,
        note: None,
        empty_note: None,
    }
    .with_empty_note(NOTHING_YET)
}

/// The TLB model's chart: no data from files, only the page's sliders.
pub fn tlb_model() -> ChartSpec {
    ChartSpec {
        id: TLB_MODEL.to_string(),
        title: "TLB model: modelled misses by region size".to_string(),
        description: "share of the chase's loads that miss in a modelled least-recently-used TLB, by region size"
            .to_string(),
        kind: ChartKind::Lines,
        x: region_axis(),
        y: Axis {
            min: Some(0.0),
            max: Some(100.0),
            ..Axis::linear("modelled TLB misses, % of loads", "% of loads")
        },
        categories: Vec::new(),
        series: Vec::new(),
        note: None,
        empty_note: None,
    }
    .with_empty_note(NOTHING_YET)
}

/// The region-size axis of the chase and the model: bytes (as the
/// collector's `staircase` chart), over a fixed range so the two charts line
/// up one above the other and the reach marker shows before any data.
fn region_axis() -> Axis {
    Axis {
        min: Some(4096.0),
        max: Some((1u64 << 30) as f64),
        ..Axis::log("region size", "bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;

    fn example() -> RunFile {
        super::super::fixtures::committed("example")
    }

    #[test]
    fn first_touch_shows_the_runs_one_size() {
        let run = example();
        let spec = build(FIRST_TOUCH, &[&run]).unwrap();
        assert!(spec.note.is_none());
        assert_eq!(spec.empty_note.as_deref(), Some(NOTHING_YET));
        assert_eq!(spec.series.len(), 2, "{:?}", spec.series);
        let ft = run.first_touch().unwrap();
        let x = ft.size_bytes as f64 / MIB;
        let fp = &ft.mode(Mode::Default).unwrap().summary.first_pass;
        assert_eq!(spec.series[0].points[0].x, Some(x));
        assert_eq!(
            spec.series[0].points[0].value,
            Some(fp.as_ref().unwrap().ns_per_page.median)
        );
        assert!(spec.series.iter().all(|s| s.role == crate::Role::Run));
        assert!(spec.series[0].name.starts_with("this run: first pass"));
    }

    #[test]
    fn empty_lab_charts_say_why() {
        for name in NAMES {
            let spec = build(name, &[]).unwrap();
            assert_eq!(spec.note.as_deref(), Some(NOTHING_YET), "{name}");
            assert_eq!(spec.id, *name);
        }
    }
}
