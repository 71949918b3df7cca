//! `{{machines "staircase"}}`: a chart drawn for this run and, under it,
//! for every other machine whose full run is committed in `data/machines/`,
//! all on the same axes. Where a lesson is "the steps land where this
//! machine's sizes say", two machines side by side show the mechanism
//! holding while the numbers move.

use pagewalk_figures::{build, figure_html, ChartKind, ChartSpec, Scale};
use pagewalk_model::RunFile;

use crate::data::DataSet;
use crate::escape::escape_text;

/// The charts drawn this way: line charts built from one run alone, whose
/// axes can be shared.
pub const CHARTS: [&str; 6] = [
    "staircase",
    "staircase-ratio",
    "tlb-reach",
    "tlb-reach-ratio",
    "mlp",
    "mlp-ratio",
];

pub fn machines_html(data: &DataSet, name: &str) -> Result<String, String> {
    let mut html = String::from("<div class=\"pw-machines\">\n");
    for (i, (spec, run, own)) in figures(data, name)?.into_iter().enumerate() {
        let caption = caption(run, own, &spec);
        let mut figure = figure_html(name, &spec, &caption);
        if !own {
            // The chapter's sentence stands before this run's figure; the
            // other machine's says here what to look for in it.
            html.push_str(&format!(
                "<p class=\"pw-machines-lead\">{}</p>\n",
                escape_text(lead(name))
            ));
        }
        if i > 0 {
            // Unique ids; `data-chart` stays the chart's name.
            figure = figure.replacen(
                &format!("id=\"chart-{name}\""),
                &format!("id=\"chart-{name}-machine-{i}\""),
                1,
            );
        }
        html.push_str(&figure);
        html.push('\n');
    }
    html.push_str("</div>\n");
    Ok(html)
}

/// The specs `{{machines NAME}}` draws, this run's first, each machine's
/// after it in `data/machines/` order, all on one scale (what a test of
/// the built page compares the embedded specs with).
pub fn specs(data: &DataSet, name: &str) -> Result<Vec<ChartSpec>, String> {
    Ok(figures(data, name)?
        .into_iter()
        .map(|(s, _, _)| s)
        .collect())
}

/// Each figure's spec, the run it shows, and whether that is this run.
fn figures<'a>(
    data: &'a DataSet,
    name: &str,
) -> Result<Vec<(ChartSpec, &'a RunFile, bool)>, String> {
    if !CHARTS.contains(&name) {
        return Err(format!(
            "`{name}` is not drawn across machines (one of: {})",
            CHARTS.join(", ")
        ));
    }
    let run = data
        .run
        .as_ref()
        .ok_or("there is no run in data/ to chart")?;
    let mut figures = vec![(
        build(name, &data.chart_runs()).map_err(|e| e.to_string())?,
        run,
        true,
    )];
    for m in &data.machines {
        figures.push((build(name, &[m]).map_err(|e| e.to_string())?, m, false));
    }
    let (x, y) = extents(figures.iter().map(|(s, _, _)| s));
    for (spec, _, _) in &mut figures {
        // One scale for all: a step is compared by where it lands.
        (spec.x.min, spec.x.max) = (x.map(|r| r.0), x.map(|r| r.1));
        (spec.y.min, spec.y.max) = (y.map(|r| r.0), y.map(|r| r.1));
    }
    Ok(figures)
}

/// What to look for in another machine's figure of chart `name`, said
/// just before it: the point of a second machine is the same mechanism
/// at other numbers.
fn lead(name: &str) -> &'static str {
    match name {
        "staircase" => {
            "The same chase on another machine. Its steps should land at its own \
             cache and TLB sizes, not at this machine's."
        }
        "staircase-ratio" => {
            "The ratio on that machine. Where it rises above 1, 4 KiB pages cost \
             more than huge pages there: compare the sizes with this run's. \
             Where it falls below 1, huge pages were the slower ones there."
        }
        "tlb-reach" => {
            "The same pages on another machine. Its 4 KiB curve should step up \
             where its own TLB runs out, wherever that is."
        }
        "tlb-reach-ratio" => {
            "The ratio on that machine. It should leave 1 where that machine's \
             TLB runs out, not where this one's does. Where it falls below 1, \
             huge pages were the slower ones there."
        }
        "mlp" => {
            "The same chains on another machine, with other walkers and other \
             slots for misses. If walks cost parallelism there too, its curve for \
             4 KiB pages beyond the TLB's reach again bends away before the \
             huge-page one and ends below it."
        }
        "mlp-ratio" => {
            "The ratio on that machine, read the same way. Sinking toward 1, the \
             walks overlap; climbing, its walkers run out first."
        }
        _ => "The same chart from another machine.",
    }
}

/// A figure's caption: this run's keeps its title (the page's "Whose
/// numbers" says which run and machine each experiment came from, which
/// may not be the newest run's); another machine's names that machine and
/// says why it is there.
fn caption(run: &RunFile, own: bool, spec: &ChartSpec) -> String {
    if own {
        return spec.title.clone();
    }
    let who = run
        .machine
        .as_ref()
        .map_or("a machine the file does not describe".into(), |m| {
            format!(
                "{}, {} CPUs, kernel {}",
                m.cpu.model_name, m.cpu.logical_cpus, m.kernel_release
            )
        });
    format!(
        "The same chart from another machine: {who}, whose full run is committed \
         with the book. Its numbers are its own; the mechanism, if the chapter is \
         right, is the same."
    )
}

type Range = Option<(f64, f64)>;

/// The x and y ranges covering every figure's values (log axes: positive
/// values only), for a line chart; none for bars.
fn extents<'a>(specs: impl Iterator<Item = &'a ChartSpec>) -> (Range, Range) {
    let (mut x, mut y): (Range, Range) = (None, None);
    let widen = |r: &mut Range, v: f64, log: bool| {
        if !v.is_finite() || (log && v <= 0.0) {
            return;
        }
        *r = Some(r.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
    };
    for spec in specs {
        if spec.kind != ChartKind::Lines {
            return (None, None);
        }
        let (xlog, ylog) = (spec.x.scale == Scale::Log, spec.y.scale == Scale::Log);
        for p in spec.series.iter().flat_map(|s| &s.points) {
            if p.value.is_none() {
                continue;
            }
            if let Some(v) = p.x {
                widen(&mut x, v, xlog);
            }
            for v in [p.value, p.min, p.max].into_iter().flatten() {
                widen(&mut y, v, ylog);
            }
        }
        for v in spec.y.band.iter().flat_map(|b| [b.low, b.high]) {
            widen(&mut y, v, ylog);
        }
    }
    (x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> DataSet {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
        DataSet::load(std::path::Path::new(dir)).unwrap()
    }

    /// The spec JSON of every figure in `html`.
    fn specs(html: &str) -> Vec<ChartSpec> {
        html.split("<script type=\"application/json\" class=\"pw-chart-spec\">")
            .skip(1)
            .map(|s| ChartSpec::from_json(s.split("</script>").next().unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn every_machine_on_one_scale_with_its_own_id() {
        let data = data();
        assert!(!data.machines.is_empty(), "data/machines/ holds a run");
        for name in CHARTS {
            let html = machines_html(&data, name).unwrap();
            let specs = specs(&html);
            assert_eq!(specs.len(), 1 + data.machines.len(), "{name}");
            assert!(html.contains(&format!("id=\"chart-{name}\"")));
            assert!(html.contains(&format!("id=\"chart-{name}-machine-1\"")));
            let (x, y) = (&specs[0].x, &specs[0].y);
            for s in &specs[1..] {
                assert_eq!(
                    (s.x.min, s.x.max, s.y.min, s.y.max),
                    (x.min, x.max, y.min, y.max)
                );
            }
            // The shared range covers every value of every figure.
            for s in &specs {
                for p in s.series.iter().flat_map(|s| &s.points) {
                    if let (Some(px), Some(v)) = (p.x, p.value) {
                        assert!(x.min.unwrap() <= px && px <= x.max.unwrap(), "{name}");
                        assert!(y.min.unwrap() <= v && v <= y.max.unwrap(), "{name}");
                    }
                }
            }
        }
        assert!(machines_html(&data, "walk").is_err());
    }

    /// Each other machine's figure has a sentence before it saying what to
    /// look for, and a caption saying why a second machine is there, not
    /// only whose run it is.
    #[test]
    fn another_machine_says_what_to_look_for() {
        let data = data();
        for name in CHARTS {
            let html = machines_html(&data, name).unwrap();
            let leads = html.matches("<p class=\"pw-machines-lead\">").count();
            assert_eq!(leads, data.machines.len(), "{name}");
            assert_ne!(lead(name), lead("walk"), "{name} has its own lead");
            let own = html.find(&format!("id=\"chart-{name}\"")).unwrap();
            let lead_at = html.find("pw-machines-lead").unwrap();
            let other = html
                .find(&format!("id=\"chart-{name}-machine-1\""))
                .unwrap();
            assert!(
                own < lead_at && lead_at < other,
                "{name}: the lead sits between"
            );
            assert!(html.contains("Its numbers are its own"), "{name}");
        }
    }
}
