//! What a reader's recount of the drawn charts found, held: dropped files
//! in hues of their own under the run, bands that show however thin,
//! labels no line or whisker crosses, ticks that reach the highest value,
//! dot rows apart and legend swatches in the marks' shapes.

use crate::*;

fn series(name: &str, role: Role, points: Vec<Point>) -> Series {
    Series {
        name: name.into(),
        role,
        faint: false,
        points,
    }
}

fn line(name: &str, role: Role, ys: &[f64]) -> Series {
    let points = ys
        .iter()
        .enumerate()
        .map(|(i, &y)| Point::xy(i as f64 + 1.0, Some(y)))
        .collect();
    series(name, role, points)
}

fn lines_spec(series: Vec<Series>) -> ChartSpec {
    ChartSpec {
        id: "t".into(),
        title: "t".into(),
        description: String::new(),
        kind: ChartKind::Lines,
        x: Axis::linear("x", ""),
        y: Axis::linear("y", ""),
        categories: Vec::new(),
        series,
        note: None,
        empty_note: None,
    }
}

fn bars_spec(y: Axis, cats: &[&str], series: Vec<Series>) -> ChartSpec {
    ChartSpec {
        kind: ChartKind::Bars,
        y,
        categories: cats.iter().map(|c| Category::new(*c, *c)).collect(),
        ..lines_spec(series)
    }
}

/// The numbers of attribute `name` in `svg`'s elements that contain `mark`.
fn attr_of(svg: &str, mark: &str, name: &str) -> Vec<f64> {
    svg.split('<')
        .filter(|e| e.contains(mark))
        .filter_map(|e| {
            let at = e.find(&format!(" {name}=\""))? + name.len() + 3;
            e[at..].split('"').next()?.parse().ok()
        })
        .collect()
}

#[test]
fn each_dropped_file_takes_a_hue_of_its_own_never_the_runs() {
    let mut spec = lines_spec(vec![
        line("this run, 4 KiB pages", Role::Run, &[1.0, 2.0]),
        line("this run, huge pages", Role::Run, &[1.0, 2.0]),
        line("a.json: this run, 4 KiB pages", Role::File, &[1.0, 2.0]),
        line("a.json: this run, huge pages", Role::File, &[1.0, 2.0]),
        line("b.json: this run, 4 KiB pages", Role::File, &[1.5, 2.5]),
        line("b.json: this run, huge pages", Role::File, &[1.5, 2.5]),
        line("c.json", Role::File, &[1.5, 2.5]),
    ]);
    spec.x.markers = vec![Marker {
        x: 1.5,
        label: "L1d".into(),
        kind: MarkerKind::Cache,
        tag: String::new(),
    }];
    let st = styles(&spec);
    // One file keeps the files' hue; its series differ by shape.
    assert_eq!(st[2].hue, Hue::File);
    assert_eq!(st[3].hue, Hue::File);
    assert_ne!(st[2].shape, st[3].shape);
    // The next files: hues no other entry (nor the cache lines) has.
    assert_eq!(st[4].hue, st[5].hue);
    let hues = [st[0].hue, st[1].hue, st[2].hue, st[4].hue, st[6].hue];
    for (i, a) in hues.iter().enumerate() {
        assert!(!hues[i + 1..].contains(a), "{hues:?}");
    }
    assert!(![Hue::Series(4), Hue::Series(0), Hue::Series(1)].contains(&st[4].hue));
    // Drawn under the run: the run's curves come last.
    let svg = render_svg(&spec, &Palette::light(), 720, 0);
    let run = svg.rfind("data-series=\"this run, huge pages\"").unwrap();
    let file = svg.rfind("data-series=\"c.json\"").unwrap();
    assert!(file < run);
}

#[test]
fn a_thin_band_is_drawn_at_least_4_px_thick_with_its_true_ends_in_its_title() {
    let y = Axis::linear("percent apart", "%").with_band(0.0, 0.0361, "A vs A");
    let spec = bars_spec(
        y,
        &["a", "b"],
        vec![series(
            "this run",
            Role::Run,
            vec![Point::bar("a", Some(0.0361)), Point::bar("b", Some(9.94))],
        )],
    );
    for w in [350, 720] {
        let svg = render_svg(&spec, &Palette::light(), w, 0);
        let width = attr_of(&svg, "pw-band", "width");
        assert_eq!(width.len(), 1);
        assert!(width[0] >= 4.0, "{width:?}");
        assert!(
            svg.contains("<title>A vs A: 0 % to 0.0361 %</title>") || svg.contains("A vs A: 0"),
            "{svg}"
        );
    }
    let mut spec = lines_spec(vec![line("ratio", Role::Run, &[1.0, 2.2])]);
    spec.y = Axis::linear("ratio", "").with_band(0.9996, 1.0004, "noise");
    let svg = render_svg(&spec, &Palette::light(), 350, 0);
    assert!(attr_of(&svg, "pw-band", "height")[0] >= 4.0);
}

#[test]
fn the_top_tick_is_at_or_above_the_highest_value() {
    let axis = Axis::linear("ratio", "");
    for (lo, hi) in [
        (0.73, 2.27),
        (1.0, 2.4),
        (0.25, 1.61),
        (0.97, 1.15),
        (3.0, 87.0),
    ] {
        for zero in [false, true] {
            let s = ValueScale::fit(&axis, &[lo, hi], zero, 0.0, 100.0);
            let ticks = s.ticks();
            assert!(*ticks.last().unwrap() >= hi, "{lo}..{hi}: {ticks:?}");
            assert!(ticks[0] <= lo, "{lo}..{hi}: {ticks:?}");
        }
    }
    // Fixed ends (two ratio charts sharing an axis at their data's ends)
    // are rounded out too; ends already round stay where they were.
    let shared = Axis {
        min: Some(0.2417),
        max: Some(2.4587),
        ..Axis::linear("ratio", "")
    };
    let s = ValueScale::fit(&shared, &[0.98, 1.22], false, 0.0, 100.0);
    assert_eq!((s.lo, s.hi), (0.0, 2.5));
    assert_eq!(s.ticks(), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]);
    let percent = Axis {
        min: Some(0.0),
        max: Some(100.0),
        ..Axis::linear("%", "%")
    };
    let s = ValueScale::fit(&percent, &[3.0], false, 0.0, 100.0);
    assert_eq!((s.lo, s.hi), (0.0, 100.0));
    // Ends that were already round stay where they were.
    let s = ValueScale::fit(&axis, &[12.0, 287.0], true, 0.0, 100.0);
    assert_eq!((s.lo, s.hi), (0.0, 300.0));
}

#[test]
fn value_labels_start_after_their_whiskers() {
    let mut p = Point::bar("a", Some(77.5));
    p.min = Some(60.0);
    p.max = Some(220.0);
    let spec = bars_spec(
        Axis::linear("ns per load", "ns").with_value_labels(),
        &["a"],
        vec![series("4 KiB pages", Role::Run, vec![p])],
    );
    for w in [350, 720] {
        let svg = render_svg(&spec, &Palette::light(), w, 0);
        let whisker_end = svg
            .split("<path d=\"M")
            .skip(1)
            .filter_map(|d| d.split(['H', 'M']).nth(1)?.parse::<f64>().ok())
            .fold(0.0, f64::max);
        let label = attr_of(&svg, "pw-value", "x");
        assert!(
            whisker_end > 0.0 && label[0] > whisker_end,
            "{whisker_end} {label:?}"
        );
    }
}

#[test]
fn end_labels_sit_past_the_plot_where_no_line_runs() {
    let mut spec = lines_spec(vec![
        line("a", Role::Run, &[1.0, 10.0, 18.3]),
        line("b", Role::Run, &[1.0, 11.0, 20.3]),
        line("c", Role::Run, &[1.0, 10.0, 17.5]),
    ]);
    spec.y.value_labels = true;
    let svg = render_svg(&spec, &Palette::light(), 350, 0);
    let last_x = attr_of(&svg, "pw-mark", "cx")
        .into_iter()
        .fold(0.0, f64::max);
    let labels = attr_of(&svg, "pw-value", "x");
    assert_eq!(labels.len(), 3);
    assert!(labels.iter().all(|&x| x > last_x), "{labels:?} {last_x}");
    // Three labels of four characters fit in the chart.
    assert!(labels.iter().all(|&x| x + 24.0 <= 350.0), "{labels:?}");
}

#[test]
fn dot_charts_draw_their_legend_as_dots_and_their_rows_apart() {
    let spec = bars_spec(
        Axis::log("ns", "ns"),
        &["p50", "p99.9", "max"],
        vec![
            series(
                "this run",
                Role::Run,
                vec![Point::bar("p50", Some(400.0)), Point::bar("max", Some(1e5))],
            ),
            series(
                "the reference",
                Role::Reference,
                vec![Point::bar("p99.9", Some(7e3))],
            ),
        ],
    );
    let svg = render_svg(&spec, &Palette::light(), 720, 0);
    let legend = &svg[svg.find("pw-legend").unwrap()..];
    let legend = &legend[..legend.find("</g>").unwrap()];
    assert!(!legend.contains("<rect"), "{legend}");
    assert_eq!(
        legend.matches("<circle").count() + legend.matches("<path").count(),
        2
    );
    // A line between each two rows.
    let grid = spec.categories.len() - 1;
    assert_eq!(
        svg.matches(&format!("H{}\" stroke=\"#e3e3e3\"/>", 720 - 12 - 16))
            .count(),
        grid
    );
}

#[test]
fn on_a_phone_a_panel_chart_gives_each_row_label_a_strip_of_its_own() {
    let spec =
        first_touch_ns_per_page(&super::fixtures::run(), Some(&super::fixtures::reference()));
    let svg = render_svg(&spec, &Palette::light(), 350, 0);
    let strips = svg.matches("width=\"326\" height=").count();
    assert_eq!(strips, spec.categories.len());
    // No halo needed any more: nothing crosses the labels.
    let cats = &svg[svg.find("pw-categories").unwrap()..];
    assert!(!cats[..cats.find("</g>").unwrap()].contains("paint-order"));
}
