//! `compare_runs` on the committed example run: against itself, against a
//! copy with one figure doubled, and against copies with another setup.

use std::path::Path;

use pagewalk_model::comparison::{compare_runs, Outcome};
use pagewalk_model::{read_run, Provenance, Results, RunFile};

fn example() -> RunFile {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/example");
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("an example run in data/example");
    read_run(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn first_touch(run: &mut RunFile) -> &mut pagewalk_model::FirstTouchResults {
    let e = run
        .experiments
        .iter_mut()
        .find(|e| e.name == "first-touch")
        .unwrap();
    match e.results.as_mut().unwrap() {
        Results::FirstTouch(r) => r,
        _ => unreachable!(),
    }
}

#[test]
fn a_run_against_itself_is_within_noise_everywhere() {
    let run = example();
    let c = compare_runs(&[run.clone(), run]);
    assert!(c.setup.is_empty(), "{:?}", c.setup);
    // Every experiment of the example with numbers has figures compared.
    for name in [
        "first-touch",
        "staircase",
        "tlb-reach",
        "thp",
        "tail",
        "alloc",
        "syscall",
        "noise",
    ] {
        assert!(c.rows.iter().any(|r| r.experiment == name), "{name}");
    }
    for r in &c.rows {
        assert_eq!(r.outcome, Outcome::WithinNoise, "{r:?}");
        assert_eq!(r.ratio, Some(1.0), "{r:?}");
    }
}

#[test]
fn one_figure_doubled_is_named_and_only_it() {
    let base = example();
    let mut slower = base.clone();
    // The steadiest mode: doubled, it is past its own noise both ways.
    let modes = &mut first_touch(&mut slower).modes;
    let spread = |m: &pagewalk_model::ModeResult| {
        m.summary
            .first_pass
            .as_ref()
            .map_or(f64::INFINITY, |p| p.ns_per_page.spread())
    };
    let steadiest = (0..modes.len())
        .min_by(|&a, &b| spread(&modes[a]).total_cmp(&spread(&modes[b])))
        .unwrap();
    let mode = &mut modes[steadiest];
    let mode_name = mode.mode.name();
    let s = &mut mode.summary.first_pass.as_mut().unwrap().ns_per_page;
    for v in [&mut s.min, &mut s.median, &mut s.max, &mut s.mean] {
        *v *= 2.0;
    }
    let c = compare_runs(&[base.clone(), slower.clone()]);
    let changed: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.outcome != Outcome::WithinNoise)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:#?}");
    let r = changed[0];
    assert_eq!(
        (r.experiment.as_str(), r.figure.clone(), r.outcome),
        (
            "first-touch",
            format!("{mode_name} first pass"),
            Outcome::Slower
        )
    );
    assert!((r.ratio.unwrap() - 2.0).abs() < 1e-12);
    assert!(r.basis.contains("A-vs-A floor"), "{}", r.basis);

    // The other way round, the same figure is faster.
    let c = compare_runs(&[slower, base]);
    let faster: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::Faster)
        .collect();
    assert_eq!(faster.len(), 1);
    assert_eq!(faster[0].figure, format!("{mode_name} first pass"));
}

#[test]
fn setup_differences_are_listed_and_other_sizes_not_compared() {
    let base = example();
    let mut other = base.clone();
    let m = other.machine.as_mut().unwrap();
    m.kernel_release = "9.9.9-test".into();
    m.thp.enabled = Some("never".into());
    if let Provenance::Collector { quick, .. } = &mut other.provenance {
        *quick = true;
    }
    first_touch(&mut other).size_bytes = 64 << 20;
    let c = compare_runs(&[base, other]);
    let what: Vec<_> = c.setup.iter().map(|d| d.what.as_str()).collect();
    assert_eq!(what, ["kernel", "THP enabled", "quick run"]);
    assert_eq!(c.setup[0].values[1], "9.9.9-test");

    let first_touch_rows: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.experiment == "first-touch")
        .collect();
    assert!(!first_touch_rows.is_empty());
    for r in first_touch_rows {
        assert_eq!(r.outcome, Outcome::NotCompared, "{r:?}");
        assert!(r.basis.contains("different sizes"), "{}", r.basis);
        assert!(r.basis.contains("64 MiB"), "{}", r.basis);
    }
    // Only first-touch changed size: the rest is still compared.
    assert!(c
        .rows
        .iter()
        .filter(|r| r.experiment != "first-touch")
        .all(|r| r.outcome == Outcome::WithinNoise));
}

#[test]
fn a_figure_missing_from_one_run_says_so() {
    let base = example();
    let mut other = base.clone();
    other.experiments.retain(|e| e.name != "syscall");
    let c = compare_runs(&[base.clone(), other.clone()]);
    let syscall: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.experiment == "syscall")
        .collect();
    assert!(!syscall.is_empty());
    assert!(syscall
        .iter()
        .all(|r| r.outcome == Outcome::NotCompared && r.basis.contains("not in this run")));
    let c = compare_runs(&[other, base]);
    assert!(c
        .rows
        .iter()
        .filter(|r| r.experiment == "syscall")
        .all(|r| r.basis.contains("not in the baseline")));
}

#[test]
fn one_repetition_each_is_not_judged() {
    let mut one = example();
    let mode = &mut first_touch(&mut one).modes[0];
    let name = format!("{} first pass", mode.mode.name());
    let s = &mut mode.summary.first_pass.as_mut().unwrap().ns_per_page;
    s.n = 1;
    (s.min, s.max) = (s.median, s.median);
    let mut other = one.clone();
    let s = &mut first_touch(&mut other).modes[0]
        .summary
        .first_pass
        .as_mut()
        .unwrap()
        .ns_per_page;
    for v in [&mut s.min, &mut s.median, &mut s.max, &mut s.mean] {
        *v *= 1.5;
    }
    let c = compare_runs(&[one.clone(), other]);
    let r = c.rows.iter().find(|r| r.figure == name).unwrap();
    assert_eq!(r.outcome, Outcome::NotCompared, "{r:?}");
    assert!(r.basis.contains("one repetition in a run"), "{}", r.basis);
    // The same single number twice is still the same.
    let c = compare_runs(&[one.clone(), one]);
    let r = c.rows.iter().find(|r| r.figure == name).unwrap();
    assert_eq!(r.outcome, Outcome::WithinNoise);
}

/// Two real `--quick` runs recorded on one machine by
/// `scripts/record-fixtures`, THP `never` then `always`: the comparison
/// names the setting first, and finds what the first-touch chapter
/// predicts (with `always` the kernel backs plain, zeroed mappings with
/// huge pages, so their first pass costs fewer faults per 4 KiB page),
/// while the huge-page regime `never` could not run is not compared.
#[test]
fn thp_always_against_never_names_what_the_chapters_predict() {
    let fixture = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../preprocessor/tests/fixtures/matrix")
            .join(name);
        read_run(&path).unwrap_or_else(|e| panic!("{e}"))
    };
    let c = compare_runs(&[fixture("thp-never.json"), fixture("thp-always.json")]);
    let thp = c
        .setup
        .iter()
        .find(|d| d.what.contains("THP enabled"))
        .expect("the THP setting is listed as a setup difference");
    assert_eq!(thp.values, ["never", "always"]);
    let row = |figure: &str| {
        c.rows
            .iter()
            .find(|r| r.experiment == "first-touch" && r.figure == figure)
            .unwrap_or_else(|| panic!("no row {figure}"))
    };
    // A zeroed allocation that THP may back: faster per page with `always`.
    for figure in ["calloc first pass", "vec-macro first pass"] {
        assert_eq!(row(figure).outcome, Outcome::Faster, "{:?}", row(figure));
    }
    // With THP never there is no huge-page regime to hold `always` against.
    let huge: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.figure.starts_with("huge pages") || r.figure.starts_with("hugepage"))
        .collect();
    assert!(!huge.is_empty());
    assert!(
        huge.iter().all(|r| r.outcome == Outcome::NotCompared),
        "{huge:?}"
    );
}

/// A run made on a busy machine says so among the setup differences, with
/// its steal time and the CPUs others used, recomputed here from the records.
#[test]
fn a_busier_machine_is_a_setup_difference() {
    let bg = |steal: f64, others_cpu_s: f64| pagewalk_model::Background {
        window_s: 2.0,
        user_fraction: 0.5,
        system_fraction: 0.1,
        idle_fraction: 0.4 - steal,
        iowait_fraction: 0.0,
        irq_fraction: 0.0,
        steal_fraction: steal,
        other_runnable: Some(2.0),
        load_1m: Some(3.0),
        others_cpu_s: Some(others_cpu_s),
        busiest: Vec::new(),
        memory_some_us: None,
        memory_full_us: None,
        cpu_some_us: None,
    };
    let (mut quiet, mut busy) = (example(), example());
    for e in &mut quiet.experiments {
        e.background = Some(bg(0.0, 0.0));
    }
    for e in &mut busy.experiments {
        e.background = Some(bg(0.31, 1.8));
    }
    let c = compare_runs(&[quiet.clone(), busy]);
    let d = c
        .setup
        .iter()
        .find(|d| d.what == "machine busy while measuring")
        .expect("the background is listed");
    assert_eq!(
        d.values[0],
        "0% steal, 2.0 other runnable tasks, other processes 0.0 CPUs"
    );
    assert_eq!(
        d.values[1],
        "31% steal, 2.0 other runnable tasks, other processes 0.9 CPUs"
    );
    // The same background twice is no difference.
    assert!(compare_runs(&[quiet.clone(), quiet]).setup.is_empty());
}
