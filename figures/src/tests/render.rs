//! Specs drawn as SVG, written as tables and CSV, and read back from JSON;
//! ticks of linear, log and byte axes.

use pagewalk_model::Results;

use super::fixtures::{reference, run};
use crate::*;

#[test]
fn svg_has_one_mark_per_present_value_with_exact_value() {
    let (r, refr) = (run(), reference());
    let spec = first_touch_ns_per_page(&r, Some(&refr));
    let svg = render_svg(&spec, &Palette::light(), 720, 0);
    let present: usize = spec
        .series
        .iter()
        .map(|s| s.points.iter().filter(|p| p.value.is_some()).count())
        .sum();
    assert_eq!(svg.matches("class=\"pw-mark\"").count(), present);
    assert_eq!(svg.matches("tabindex=\"0\"").count(), present);
    assert!(svg.contains(
        "data-series=\"this run: first pass\" data-category=\"nohugepage\" data-value=\"250.5\" data-role=\"run\" tabindex=\"0\" \
         role=\"graphics-symbol\" aria-label=\"MADV_NOHUGEPAGE, this run: first pass: 250 ns per page (min 200 ns per page, max 300 ns per page, median of 3 repetitions)\""
    ));
    assert!(svg.contains(
        "data-series=\"the reference laptop: first pass\" data-category=\"calloc\" data-value=\"90\""
    ));
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(!svg.contains('\n'));
}

#[test]
fn palette_colours_are_used() {
    let spec = first_touch_faults(&run());
    let mut pal = Palette::light();
    pal.series = vec!["#aa0001".into(), "#aa0002".into(), "#aa0003".into()];
    pal.bg = "#000011".into();
    let svg = render_svg(&spec, &pal, 500, 0);
    for c in ["#aa0001", "#aa0002", "#aa0003", "#000011"] {
        assert!(svg.contains(c), "{c}");
    }
}

#[test]
fn table_has_every_value_caption_and_scopes() {
    let (r, refr) = (run(), reference());
    let spec = first_touch_ns_per_page(&r, Some(&refr));
    let t = table_html(&spec);
    assert!(t.starts_with(
        "<table class=\"pw-table\"><caption><span>First touch: where each mode pays, per 4 KiB page"
    ));
    assert!(t.contains("<th scope=\"col\">the reference laptop: first pass</th>"));
    // The whiskers in a column of their own, a number and its unit never
    // apart, no unit in a header above values that carry theirs.
    assert!(t.contains("<th scope=\"col\">this run: first pass</th><th scope=\"col\" class=\"pw-range\" aria-label=\"this run: first pass: min to max\">min\u{a0}–\u{a0}max</th>"), "{t}");
    assert!(t.contains("<td class=\"pw-num\" data-value=\"250.5\">250\u{a0}ns</td><td class=\"pw-num pw-range\">200\u{a0}–\u{a0}300\u{a0}ns</td><td class=\"pw-num\" data-value=\"180\">180\u{a0}ns</td>"), "{t}");
    assert!(t.contains("<caption><span>First touch: where each mode pays, per 4 KiB page: ns per 4 KiB page (median, whiskers min to max)</span></caption>"), "{t}");
    assert!(
        t.contains("<th scope=\"row\">vec![0u8; n]</th>")
            || !spec.categories.iter().any(|c| c.key == "vec-macro")
    );
    assert!(t.contains("<td class=\"pw-num\" data-value=\"90\">90\u{a0}ns</td>"));
    assert_eq!(
        t.matches("<th scope=\"row\">").count(),
        spec.categories.len()
    );
}

#[test]
fn linear_and_log_ticks() {
    assert_eq!(
        linear_ticks(0.0, 300.0, 5.0),
        vec![0.0, 50.0, 100.0, 150.0, 200.0, 250.0, 300.0]
    );
    assert_eq!(
        log_ticks(1.0, 1e6),
        vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]
    );
    assert_eq!(log_ticks(1e-2, 1e1), vec![0.01, 0.1, 1.0, 10.0]);
    assert_eq!(log_ticks(1.0, 1e12).len(), 7);
    let axis = Axis::log("pages", "pages");
    let s = ValueScale::fit(&axis, &[3.0, 4500.0, 0.0, -1.0], false, 0.0, 400.0);
    assert_eq!((s.lo, s.hi), (1.0, 1e4));
    assert_eq!(s.map(1.0), 0.0);
    assert_eq!(s.map(100.0), 200.0);
    assert!(!s.places(0.0));
    assert_eq!(tick_label(1e6, true), "1M");
    assert_eq!(tick_label(4096.0, true), "4,096");
    assert_eq!(tick_label(262144.0, false), "262,144");
    assert_eq!(tick_label(0.5, false), "0.5");
    let s = ValueScale::fit(&Axis::linear("ns", "ns"), &[12.0, 287.0], true, 0.0, 100.0);
    assert_eq!((s.lo, s.hi), (0.0, 300.0));
}

/// A log axis ends on the decimal powers themselves (as their text
/// reads), from 10^-22 to 10^22, and a byte axis on powers of two.
#[test]
fn log_axis_ends_are_exact_powers() {
    for k in -22..22 {
        let lo: f64 = format!("1e{k}").parse().unwrap();
        let hi: f64 = format!("1e{}", k + 1).parse().unwrap();
        let s = ValueScale::fit(&Axis::log("v", "ns"), &[lo * 1.5], false, 0.0, 400.0);
        assert_eq!((s.lo, s.hi), (lo, hi), "10^{k}");
        assert_eq!(nice_step(lo * 5.0, 5.0), lo, "step 10^{k}");
    }
    for k in -60..60 {
        let lo = f64::from_bits(((1023 + k) as u64) << 52);
        let s = ValueScale::fit(&Axis::log("v", "bytes"), &[lo * 1.5], false, 0.0, 400.0);
        assert_eq!((s.lo, s.hi), (lo, lo * 2.0), "2^{k}");
    }
}

#[test]
fn byte_axes_tick_in_powers_of_two() {
    let s = ValueScale::fit(
        &Axis::log("size", "bytes"),
        &[3.0, 4500.0],
        false,
        0.0,
        400.0,
    );
    assert_eq!((s.lo, s.hi), (2.0, 8192.0));
    assert_eq!(
        byte_ticks(4096.0, 1073741824.0).len(),
        5,
        "every x16: 4 KiB .. 1 GiB"
    );
    assert_eq!(byte_ticks(1024.0, 4096.0), vec![1024.0, 2048.0, 4096.0]);
    assert_eq!(byte_label(4096.0), "4 KiB");
    assert_eq!(byte_label(1536.0 * 1024.0), "1.5 MiB");
    assert_eq!(byte_label(1073741824.0), "1 GiB");
    assert_eq!(byte_label(512.0), "512 B");
    assert_eq!(s.label(1024.0), "1 KiB");
}

#[test]
fn log_log_lines_render_marks_and_break_at_gaps() {
    let spec = ChartSpec {
        id: "staircase".into(),
        title: "Latency by working set".into(),
        description: String::new(),
        kind: ChartKind::Lines,
        x: Axis::log("working set", "bytes"),
        y: Axis::log("latency", "ns"),
        categories: vec![],
        series: vec![Series {
            name: "this run".into(),
            role: Role::Run,
            faint: false,
            points: vec![
                Point::xy(4096.0, Some(1.5)),
                Point::xy(65536.0, Some(4.0)),
                Point::xy(1048576.0, None),
                Point::xy(16777216.0, Some(80.0)),
                Point::xy(1e9, Some(0.0)),
            ],
        }],
        note: None,
        empty_note: None,
    };
    let svg = render_svg(&spec, &Palette::light(), 640, 0);
    assert_eq!(
        svg.matches("class=\"pw-mark\"").count(),
        3,
        "gap and unplaceable zero draw no mark"
    );
    assert!(svg.contains("data-category=\"65536\" data-value=\"4\""));
    assert!(
        svg.contains(">1 MiB</text>") && svg.contains(">100</text>"),
        "{svg}"
    );
    // The gap breaks the line: two sub-paths.
    let d = svg
        .split("<path d=\"")
        .filter(|p| p.starts_with('M') && p.contains("stroke-width=\"2\""))
        .count();
    assert_eq!(d, 1);
    assert!(svg.contains("L") && svg.matches("stroke-width=\"2\"").count() == 1);
    let table = table_html(&spec);
    assert!(
        table.contains("<th scope=\"row\" class=\"pw-num\" data-value=\"65536\">64\u{a0}KiB</th>")
            && table.contains("<th scope=\"col\">working set</th>"),
        "{table}"
    );
}

#[test]
fn spec_round_trips_and_figure_html_is_one_block() {
    let (r, refr) = (run(), reference());
    let mut spec = first_touch_ns_per_page(&r, Some(&refr));
    spec.note = Some("a </script><!-- trick".into());
    let html = figure_html(
        "first-touch-ns-per-page",
        &spec,
        "Cost of first touch <by mode>",
    );
    assert!(html.starts_with(
        "<figure class=\"pw-chart\" id=\"chart-first-touch-ns-per-page\" data-chart=\"first-touch-ns-per-page\">\n\
         <div class=\"pw-chart-plot\" role=\"group\" aria-label=\"First touch: where each mode pays, per 4 KiB page: time per 4 KiB page of allocation"
    ));
    assert!(html.ends_with("</script>\n</figure>"));
    assert!(
        !html.contains("\n\n"),
        "a blank line would end the Markdown HTML block"
    );
    assert!(html.contains("<figcaption>Cost of first touch &lt;by mode&gt;</figcaption>"));
    let plain = first_touch_ns_per_page(&run(), None);
    let titled = figure_html("first-touch-ns-per-page", &plain, &plain.title);
    assert!(!titled.contains("<figcaption>"), "the title is drawn once");
    assert!(html.contains("<div class=\"pw-tooltip\" role=\"status\" aria-live=\"polite\"></div>"));
    // The table is in the page as HTML (no script needed to read it), the
    // hostile note escaped inside it; no CSV is shipped.
    let table_at = "<details class=\"pw-chart-data\"><summary>Data table</summary><table";
    let start = html.find(table_at).expect("the table in the page") + table_at.len();
    let end = start + html[start..].find("</details>").unwrap();
    assert!(html[start..end]
        .ends_with("</table><p class=\"pw-chart-note\">a &lt;/script&gt;&lt;!-- trick</p>"));
    assert!(!html.contains("data:text/csv") && !html.contains("<noscript>"));
    let start = html.find("class=\"pw-chart-spec\">").unwrap() + "class=\"pw-chart-spec\">".len();
    let json = &html[start..html.rfind("</script>").unwrap()];
    assert!(!json.contains("</") && !json.contains("<!--"));
    assert_eq!(ChartSpec::from_json(json).unwrap(), spec);
    assert!(ChartSpec::from_json("{\"id\": 3}")
        .unwrap_err()
        .contains("not valid"));
}

/// Values the model refuses still reach the renderer through specs built
/// by hand or by an older build: the work stays proportional to the
/// number of points, and every drawn coordinate is a number.
#[test]
fn extreme_values_render_in_bounded_work() {
    for (lo, hi) in [
        (5e-324, 1.0),
        (1.0, 1.7e308),
        (5e-324, 1.7e308),
        (-1.7e308, 1.7e308),
        (0.0, f64::MIN_POSITIVE),
    ] {
        for axis in [
            Axis::log("ns", "ns"),
            Axis::log("size", "bytes"),
            Axis::linear("ns", "ns"),
        ] {
            let s = ValueScale::fit(&axis, &[lo, hi], false, 0.0, 400.0);
            let ticks = s.ticks();
            assert!(ticks.len() <= 24, "{lo} {hi}: {} ticks", ticks.len());
            assert!(s.map(hi).is_finite() && s.map(lo).is_finite());
        }
    }
    assert!(log_ticks(0.0, f64::INFINITY).len() <= 24);
    assert!(byte_ticks(f64::NAN, f64::INFINITY).len() <= 24);
    assert!(linear_ticks(f64::NEG_INFINITY, f64::INFINITY, 5.0).is_empty());

    let mut r = run();
    if let Some(Results::FirstTouch(ft)) = &mut r.experiments[0].results {
        ft.modes[0]
            .summary
            .first_pass
            .as_mut()
            .unwrap()
            .ns_per_page
            .median = 1.7e308;
        ft.modes[1]
            .summary
            .first_pass
            .as_mut()
            .unwrap()
            .ns_per_page
            .median = 5e-324;
    }
    for name in CHART_NAMES {
        if let Ok(spec) = build(name, &[&r]) {
            let svg = render_svg(&spec, &Palette::light(), 640, 0);
            // A coordinate that is not a number ("NaN", "inf", "-inf").
            let broken = ["NaN", "\"inf", "-inf", " inf"]
                .iter()
                .any(|b| svg.contains(b));
            assert!(!broken, "{name}");
        }
    }
}

#[test]
fn csv_keeps_the_exact_values_and_whisker_ends() {
    let (r, refr) = (run(), reference());
    let spec = first_touch_ns_per_page(&r, Some(&refr));
    let csv = table_csv(&spec);
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert!(
        rows[0].starts_with(
            "allocation mode,this run: allocation (ns per page),this run: allocation min,this run: allocation max,\
             the reference laptop: allocation (ns per page),this run: first pass (ns per page),this run: first pass min,"
        ),
        "{}",
        rows[0]
    );
    assert!(
        rows[2].starts_with("MADV_NOHUGEPAGE,1,1,1,1,250.5,200.25,300,180,2,"),
        "{}",
        rows[2]
    );
    assert_eq!(rows[1], "MAP_POPULATE,,,,,,,,,,,,");
    // A label with a comma is quoted.
    let mut odd = spec.clone();
    odd.categories[0].label = "a, \"b\"".into();
    odd.categories[1].label = "a, \"b\"".into();
    assert!(table_csv(&odd).contains("\r\n\"a, \"\"b\"\"\",1,"));
}
