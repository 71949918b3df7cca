//! The preprocessor on fixture data: which run is shown, how bad files are
//! reported, and what the templates render.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};
use pagewalk_model::*;

fn phase(wall_ms: f64, faults: u64, pages: u64) -> PhaseSample {
    PhaseSample {
        wall_ns: wall_ms * 1e6,
        ns_per_page: wall_ms * 1e6 / pages as f64,
        minor_faults: Some(faults),
        major_faults: Some(0),
        thp: Some(ThpFaultCounters {
            thp_fault_alloc: 0,
            thp_fault_fallback: 0,
            thp_fault_fallback_charge: None,
        }),
    }
}

/// A small collector run: nohugepage and hugepage only, `first_ms` for the
/// 4 KiB first pass.
fn collector_run(started: &str, first_ms: f64) -> RunFile {
    let pages = 1024;
    let sample = |first: PhaseSample, huge_kib| Sample {
        allocation: Some(phase(0.01, 0, pages)),
        first_pass: Some(first),
        second_pass: Some(phase(0.02, 0, pages)),
        rss_kib: Some(4096),
        anon_huge_pages_kib: Some(huge_kib),
        allocator_calls: None,
    };
    let results = FirstTouchResults {
        requested_bytes: 4 << 20,
        size_bytes: 4 << 20,
        size_note: None,
        stride_bytes: 4096,
        pages,
        repetitions: 1,
        memory_before: None,
        modes: vec![
            ModeResult::from_samples(
                Mode::Nohugepage,
                vec![sample(phase(first_ms, pages, pages), 0)],
            ),
            ModeResult::from_samples(
                Mode::Hugepage,
                vec![sample(phase(first_ms / 4.0, 2, pages), 4096)],
            ),
            ModeResult::skipped(Mode::Populate, "not on this kernel"),
        ],
        stated: Default::default(),
    };
    RunFile {
        schema_version: SCHEMA_VERSION,
        provenance: Provenance::Collector {
            collector_version: "0.1.0".into(),
            run_id: format!(
                "run-{}",
                started.replace(|c: char| !c.is_ascii_alphanumeric(), "")
            ),
            started_utc: started.into(),
            finished_utc: None,
            quick: true,
            command: vec!["collector".into()],
            interrupted: false,
            signal: None,
        },
        machine: None,
        experiments: vec![ExperimentRecord {
            name: "first-touch".into(),
            status: Status::Ok,
            reason: None,
            duration_s: Some(0.1),
            background: None,
            checks: vec![Check::new(
                "hugepage: AnonHugePages > 0",
                true,
                "> 0 kB",
                "4096 kB",
            )],
            results: Some(Results::FirstTouch(results)),
        }],
    }
}

fn write(dir: &Path, sub: &str, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join(sub)).unwrap();
    std::fs::write(dir.join(sub).join(name), text).unwrap();
}

fn write_run(dir: &Path, sub: &str, name: &str, run: &RunFile) {
    write(dir, sub, name, &serde_json::to_string_pretty(run).unwrap());
}

fn reference() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/reference/r1-first-touch.json"),
    )
    .unwrap()
}

/// example run + R1 + the given reader runs.
fn data_dir(own: &[(&str, f64)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_run(
        dir.path(),
        "example",
        "example.json",
        &collector_run("2026-01-01T00:00:00Z", 1.0),
    );
    write(dir.path(), "reference", "r1.json", &reference());
    for (started, ms) in own {
        write_run(
            dir.path(),
            "runs",
            &format!("{started}.json"),
            &collector_run(started, *ms),
        );
    }
    dir
}

fn render(dir: &Path, template: &str) -> Result<String, String> {
    let data = DataSet::load(dir).map_err(|e| e.to_string())?;
    Renderer::new(Arc::new(data))
        .render("test.md", template)
        .map_err(|e| e.to_string())
}

#[test]
fn example_run_is_shown_when_the_reader_has_none() {
    let dir = data_dir(&[]);
    let out = render(
        dir.path(),
        "{{run.kind}} {{run.own}} {{num ft.modes.nohugepage.first.ns}}",
    )
    .unwrap();
    assert_eq!(out, "the example machine false 977");
}

#[test]
fn newest_own_run_wins() {
    let dir = data_dir(&[
        ("2026-05-01T00:00:00Z", 2.0),
        ("2026-06-01T00:00:00Z", 3.0),
        ("2026-04-01T00:00:00Z", 5.0),
    ]);
    let out = render(
        dir.path(),
        "{{run.kind}}: {{run.date}} {{dur ft.modes.nohugepage.first.wall_ns}}",
    )
    .unwrap();
    assert_eq!(out, "your machine: 2026-06-01 3.0 ms");
}

#[test]
fn malformed_reader_file_is_named_and_passed_over() {
    let dir = data_dir(&[("2026-05-01T00:00:00Z", 2.0)]);
    let bad = serde_json::to_string(&collector_run("2026-07-01T00:00:00Z", 9.0))
        .unwrap()
        .replace("\"pages\":1024", "\"pages\":\"many\"");
    write(dir.path(), "runs", "zz-bad.json", &bad);
    let data = DataSet::load(dir.path()).unwrap();
    assert_eq!(data.warnings.len(), 1, "{:?}", data.warnings);
    let w = &data.warnings[0];
    assert!(
        w.contains("zz-bad.json") && w.contains("experiments[0].results.first-touch.pages"),
        "{w}"
    );
    // The good, older run is shown instead.
    assert!(data.own);
}

#[test]
fn newer_schema_reader_file_says_so() {
    let dir = data_dir(&[]);
    let newer = serde_json::to_string(&collector_run("2026-07-01T00:00:00Z", 9.0))
        .unwrap()
        .replace(
            &format!("\"schema_version\":{SCHEMA_VERSION}"),
            "\"schema_version\":999",
        );
    write(dir.path(), "runs", "newer.json", &newer);
    let data = DataSet::load(dir.path()).unwrap();
    assert!(!data.own);
    assert!(
        data.warnings[0].contains("newer.json: field `schema_version`"),
        "{:?}",
        data.warnings
    );
}

#[test]
fn malformed_committed_file_fails_the_build_naming_file_and_field() {
    let dir = data_dir(&[]);
    write(
        dir.path(),
        "reference",
        "broken.json",
        &reference().replace("\"stride_bytes\": 4096", "\"stride_bytes\": -1"),
    );
    let e = DataSet::load(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("broken.json") && e.contains("stride_bytes"),
        "{e}"
    );
}

#[test]
fn reference_figures_sit_beside_the_run() {
    let dir = data_dir(&[]);
    let out = render(
        dir.path(),
        "{{num r1.ft.pages}} {{num r1.ft.modes.nohugepage.first.ns}} {{ratio r1.ft.modes.nohugepage.first.ns r1.ft.modes.nohugepage.second.ns}} \
         {{num r1.ft.modes.default.thp_alloc}}+{{num r1.ft.modes.default.thp_fallback}} {{num r1.ft.before.free_huge_blocks}}",
    )
    .unwrap();
    assert_eq!(out, "262,144 1,119 68× 1+510 2");
}

#[test]
fn conditional_prose_follows_the_numbers() {
    let t = "{{#if (gt ft.modes.hugepage.first.ns ft.modes.nohugepage.first.ns)}}slower{{else}}faster{{/if}}";
    assert_eq!(render(data_dir(&[]).path(), t).unwrap(), "faster");
    let t = "{{#if ft.modes.populate.skipped}}skipped: {{ft.modes.populate.skipped}}{{/if}} {{num ft.modes.calloc.first.ns}}";
    assert_eq!(
        render(data_dir(&[]).path(), t).unwrap(),
        "skipped: not on this kernel n/a"
    );
}

#[test]
fn a_typo_in_a_template_fails_the_build() {
    let e = render(data_dir(&[]).path(), "{{num ft.modes.nohugepage.frist.ns}}").unwrap_err();
    assert!(
        e.contains("test.md") && e.contains("not in the context"),
        "{e}"
    );
}

#[test]
fn a_chart_embeds_spec_fallback_svg_and_table() {
    let out = render(
        data_dir(&[]).path(),
        "{{chart \"first-touch-ns-per-page\"}}",
    )
    .unwrap();
    assert!(
        out.contains("data-chart=\"first-touch-ns-per-page\""),
        "{out}"
    );
    assert!(out.contains("<svg") && out.contains("<table"), "{out}");
    assert!(out.contains("class=\"pw-chart-spec\""));
    assert!(
        !out.contains("\n\n"),
        "a blank line would end the raw HTML block"
    );
    let e = render(data_dir(&[]).path(), "{{chart \"no-such-chart\"}}").unwrap_err();
    assert!(e.contains("no-such-chart"), "{e}");
}

#[test]
fn percentages_take_optional_decimals() {
    let out = render(
        data_dir(&[]).path(),
        "{{pct 0.33}} {{pct 0.0042}} {{pct 0.0042 1}} {{pct 0.000024 1}} {{pct 0}}",
    )
    .unwrap();
    // A share that is not zero never prints as 0%: it gets the decimals it
    // needs for one significant digit (an A-vs-A floor of 0.0024%).
    assert_eq!(out, "33% 0.4% 0.4% 0.002% 0%");
}

/// The example run's record of `name`, in a run of its own started at
/// `started`.
fn only(name: &str, started: &str) -> RunFile {
    let example = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut run = read_run(&example).unwrap();
    run.experiments.retain(|e| e.name == name);
    if let Provenance::Collector {
        run_id,
        started_utc,
        ..
    } = &mut run.provenance
    {
        *run_id = format!("only-{name}");
        *started_utc = started.into();
    }
    run
}

#[test]
fn one_rerun_does_not_blank_the_other_chapters() {
    // An older full first-touch run, then a newer run of syscall alone.
    let dir = data_dir(&[("2026-05-01T00:00:00Z", 2.0)]);
    write_run(
        dir.path(),
        "runs",
        "newer.json",
        &only("syscall", "2026-06-01T00:00:00Z"),
    );
    let out = render(
        dir.path(),
        "{{dur ft.modes.nohugepage.first.wall_ns}} {{num syscall.ops.getpid.ns}} | {{source \"first-touch\" \"syscall\"}}",
    )
    .unwrap();
    let (numbers, _) = out.split_once(" | ").unwrap();
    let (ft, getpid) = numbers.split_once(" ms ").unwrap();
    assert_eq!(ft, "2.0", "the older run's first touch: {out}");
    assert!(
        getpid.parse::<f64>().is_ok(),
        "the newer run's getpid: {out}"
    );
    assert!(
        out.contains("first-touch: your run <code>run-20260501T000000Z</code> of 2026-05-01"),
        "{out}"
    );
    assert!(
        out.contains("syscall: your run <code>only-syscall</code>"),
        "{out}"
    );
}

#[test]
fn a_complete_run_is_preferred_to_a_newer_interrupted_one() {
    let dir = data_dir(&[("2026-05-01T00:00:00Z", 2.0)]);
    let mut cut = collector_run("2026-06-01T00:00:00Z", 7.0);
    cut.experiments[0].status = Status::Interrupted;
    cut.experiments[0].reason = Some("cut short by SIGTERM".into());
    write_run(dir.path(), "runs", "cut.json", &cut);
    let template = "{{dur ft.modes.nohugepage.first.wall_ns}} {{source \"first-touch\"}}";
    let out = render(dir.path(), template).unwrap();
    assert!(out.starts_with("2.0 ms "), "{out}");
    assert!(!out.contains("cut short"), "{out}");

    // With nothing better, the partial run is shown, and said to be partial.
    std::fs::remove_file(dir.path().join("runs/2026-05-01T00:00:00Z.json")).unwrap();
    let out = render(dir.path(), template).unwrap();
    assert!(out.starts_with("7.0 ms "), "{out}");
    assert!(
        out.contains("cut short</strong> (cut short by SIGTERM)"),
        "{out}"
    );
}

#[test]
fn strings_from_a_run_are_text_never_markup() {
    let dir = data_dir(&[]);
    let mut run = only("first-touch", "2026-06-01T00:00:00Z");
    let payload =
        "[x](javascript:alert(3)) ![p](http://evil.example/t.png) <img src=x onerror=alert(9)>";
    run.machine.as_mut().unwrap().cpu.model_name = payload.into();
    run.machine.as_mut().unwrap().kernel_release = "6.1`</code><b>".into();
    // `{{code}}` escaped HTML only, and Markdown made this a live link.
    run.machine.as_mut().unwrap().thp.enabled = Some("[y](javascript:alert(4))".into());
    write_run(dir.path(), "runs", "hostile.json", &run);
    let out = render(
        dir.path(),
        "{{code run.machine.thp_enabled}} {{run.machine.cpu}} / {{code run.machine.kernel}}",
    )
    .unwrap();
    for live in ["](", "<img", "![", "</code><b>"] {
        assert!(!out.contains(live), "{live:?} survived: {out}");
    }
    // Still readable: the characters come back when Markdown renders them.
    assert!(
        out.contains("&#91;x&#93;&#40;javascript:alert&#40;3&#41;&#41;"),
        "{out}"
    );
    // Inside `<code>` too: Markdown reads text between inline tags.
    assert!(
        out.ends_with("<code>6.1&#96;&lt;/code&gt;&lt;b&gt;</code>"),
        "{out}"
    );
}

#[test]
fn a_run_whose_date_is_not_a_timestamp_is_passed_over_with_its_field() {
    let dir = data_dir(&[("2026-05-01T00:00:00Z", 2.0)]);
    let mut run = collector_run("2026-06-01T00:00:00Z", 9.0);
    if let Provenance::Collector { started_utc, .. } = &mut run.provenance {
        *started_utc = "2099-12-3\u{e9}<img src=x onerror=alert(9)>".into();
    }
    write_run(dir.path(), "runs", "zz-date.json", &run);
    let data = DataSet::load(dir.path()).unwrap();
    assert!(
        data.warnings
            .iter()
            .any(|w| w.contains("zz-date.json") && w.contains("provenance.started_utc")),
        "{:?}",
        data.warnings
    );
    let out = render(dir.path(), "{{run.date}}").unwrap();
    assert_eq!(out, "2026-05-01");
}
