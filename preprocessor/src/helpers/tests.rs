//! The helpers on templates: unit tests.

use super::*;

#[test]
fn paths_in_blocks_are_relative_and_units_follow_the_number() {
    let mut hb = Handlebars::new();
    hb.register_escape_fn(escape_text);
    register_text(&mut hb, "num", num);
    let ctx = serde_json::json!({"rows": [{"ms": 1.26, "gap": null}], "top": 3});
    let row = "{{#each rows}}{{num ms 1 unit=\"ms\"}} {{num gap.x unit=\"ms\"}} {{num @root.top}}{{/each}}";
    assert_eq!(hb.render_template(row, &ctx).unwrap(), "1.3 ms n/a 3");
    // A typo inside a block is still a typo, not "n/a".
    let e = hb
        .render_template("{{#each rows}}{{num nope}}{{/each}}", &ctx)
        .unwrap_err();
    assert!(
        e.to_string().contains("`nope` is not in the context"),
        "{e}"
    );
}

#[test]
fn every_value_helper_prints_a_gap_as_na_and_fails_on_a_typo() {
    let mut hb = Handlebars::new();
    hb.register_escape_fn(escape_text);
    for (name, f) in [
        ("num", num as fn(&Helper, &Context, &RenderContext) -> Text),
        ("dur", dur),
        ("ratio", ratio),
        ("pct", pct),
        ("text", text),
        ("code", code),
        ("spread", spread),
    ] {
        register_text(&mut hb, name, f);
    }
    let ctx = serde_json::json!({
        "rows": [{"ns": 1500.0, "of": 3.0, "s": "a*b", "gap": null, "none": null}],
        "top": "x",
    });
    let row =
        "{{#each rows}}{{dur ns}} {{ratio ns of}} {{pct of}} {{text s}} {{code s prefix=\"k=\"}} \
               {{dur gap}} {{ratio ns gap.x}} {{pct none}} {{text gap.s}} {{code gap}} \
               {{text none missing=\"not reported\"}} {{text @root.top}}{{/each}}";
    assert_eq!(
        hb.render_template(row, &ctx).unwrap(),
        "1.50 µs 500× 300% a&#42;b <code>k=a&#42;b</code> n/a n/a n/a n/a n/a not reported x"
    );
    for name in ["dur", "ratio", "pct", "text", "code", "spread"] {
        let t = format!("{{{{#each rows}}}}{{{{{name} nope ns}}}}{{{{/each}}}}");
        let e = hb.render_template(&t, &ctx).unwrap_err();
        assert!(
            e.to_string().contains("`nope` is not in the context"),
            "{name}: {e}"
        );
    }
}

#[test]
fn spread_reads_min_and_max_beside_the_median() {
    let mut hb = Handlebars::new();
    register_text(&mut hb, "spread", spread);
    let ctx = serde_json::json!({
        "at": {"ns": 3.04, "ns_min": 2.96, "ns_max": 3.4, "gap": null, "odd": 1.0},
        "rows": [{"ns": 12.0, "ns_min": null, "ns_max": 14.0}],
    });
    let r = |t: &str| hb.render_template(t, &ctx);
    assert_eq!(
        r("{{spread at.ns 1 unit=\"ns\"}}").unwrap(),
        "3.0 ns (3.0 to 3.4)"
    );
    assert_eq!(
        r("{{#each rows}}{{spread ns}}{{/each}}").unwrap(),
        "12 (n/a to 14)"
    );
    assert_eq!(
        r("{{spread at.gap 1}} {{spread at.gap.ns}}").unwrap(),
        "n/a n/a"
    );
    let e = r("{{spread at.odd}}").unwrap_err().to_string();
    assert!(e.contains("`at.odd_min` is not in the context"), "{e}");
}

#[test]
fn numbers() {
    assert_eq!(format_num(262144.0, 0), "262,144");
    assert_eq!(format_num(1234567.89, 1), "1,234,567.9");
    assert_eq!(format_num(999.6, 0), "1,000");
    assert_eq!(format_num(-1500.0, 0), "-1,500");
    assert_eq!(format_num(-0.2, 0), "0");
    assert_eq!(format_num(12.0, 0), "12");
}

#[test]
fn durations() {
    assert_eq!(format_dur(16.4), "16 ns");
    assert_eq!(format_dur(1119.2), "1.12 µs");
    assert_eq!(format_dur(293.4e6), "293.4 ms");
    assert_eq!(format_dur(1.7159e9), "1.72 s");
}

#[test]
fn ratios() {
    assert_eq!(format_ratio(5.84), "5.8×");
    assert_eq!(format_ratio(69.6), "70×");
    assert_eq!(format_ratio(0.912), "0.91×");
}

#[test]
fn a_share_past_f64s_range_as_a_percentage_is_refused_not_printed_as_inf() {
    let mut hb = Handlebars::new();
    hb.register_escape_fn(escape_text);
    register_text(&mut hb, "pct", pct);
    // 1e307 is a finite number; times 100 it is not.
    let ctx = serde_json::json!({"cv": 1e307, "ok": 0.25});
    let e = hb.render_template("{{pct cv}}", &ctx).unwrap_err();
    assert!(e.to_string().contains("not a finite number"), "{e}");
    assert_eq!(hb.render_template("{{pct ok}}", &ctx).unwrap(), "25%");
    assert_eq!(format_num(f64::INFINITY, 1), MISSING);
    assert_eq!(format_num(f64::NAN, 0), MISSING);
}
