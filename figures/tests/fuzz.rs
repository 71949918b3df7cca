//! A seeded mutation fuzz of "run file -> model -> every chart -> SVG".
//!
//! Each mutant of the committed example run swaps a number for an extreme
//! one, a string for markup or control characters, an array for a longer
//! or shorter one, drops a field or flips bytes. Whatever the model
//! accepts must chart and render without a panic and with output bounded by
//! the number of points, not by the values; whatever it refuses must say
//! which file. `PAGEWALK_FUZZ_ITERS` sets the number of mutants (default
//! 300, a few seconds); `cargo fuzz` (see `fuzz/`) runs the same pipeline
//! for as long as one likes.

use pagewalk_figures::{build, render_svg, Palette, CHART_NAMES};
use pagewalk_model::{limits::MAX_FILE_BYTES, parse_run_bytes};
use serde_json::Value;

fn example() -> Value {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/example");
    let path = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const NUMBERS: &[f64] = &[
    0.0,
    -1.0,
    5e-324,
    1e-9,
    0.05,
    1.7e308,
    1e15,
    4.2e12,
    9.007199254740993e15,
    1e300,
    // u64::MAX and u32::MAX: a page count, a repetition count.
    1.8446744073709552e19,
    4294967295.0,
];
const STRINGS: &[&str] = &[
    "",
    "[x](javascript:alert(3))",
    "<img src=x onerror=alert(9)>",
    "a\nb",
    "\u{202e}evil",
    "2099-12-3\u{e9}<img>",
    // A real timestamp from the future: it would shadow every later run.
    "9999-12-31T00:00:00Z",
    "é",
];

/// Every value in the tree, by a path of keys and indices.
fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Step::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// The value at `path`, if an earlier mutation of the same mutant (a list
/// cut short, a field dropped) left it there.
fn at<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        Step::Key(k) => v.get_mut(k.as_str()),
        Step::Index(i) => v.get_mut(*i),
    })
}

fn mutate(base: &Value, all: &[Vec<Step>], rng: &mut fastrand::Rng) -> Vec<u8> {
    let mut v = base.clone();
    for _ in 0..rng.usize(1..4) {
        let path = &all[rng.usize(..all.len())];
        let Some(target) = at(&mut v, path) else {
            continue;
        };
        *target = match target.take() {
            Value::Number(_) => NUMBERS[rng.usize(..NUMBERS.len())].into(),
            Value::String(_) => STRINGS[rng.usize(..STRINGS.len())].into(),
            Value::Array(mut a) if !a.is_empty() => {
                // Longer (up to past the model's limits) or shorter.
                let n = [0, 1, 600, 5000][rng.usize(..4)];
                let first = a[0].clone();
                a.resize(n, first);
                Value::Array(a)
            }
            Value::Object(mut m) if !m.is_empty() => {
                let key = m.keys().nth(rng.usize(..m.len())).unwrap().clone();
                m.remove(&key);
                Value::Object(m)
            }
            other => other,
        };
    }
    let mut bytes = serde_json::to_vec(&v).unwrap();
    // A key given twice (serde_json would keep the last).
    if rng.u8(..8) == 0 {
        let text = String::from_utf8(bytes).unwrap();
        let (at, twice) = [
            ("{", "{\"schema_version\":99,"),
            ("\"status\":", "\"status\":\"failed\",\"status\":"),
        ][rng.usize(..2)];
        bytes = text.replacen(at, twice, 1).into_bytes();
    }
    if rng.u8(..8) == 0 {
        for _ in 0..rng.usize(1..8) {
            let i = rng.usize(..bytes.len());
            bytes[i] = rng.u8(..);
        }
    }
    bytes
}

#[test]
fn mutants_of_the_example_run_never_panic_or_grow_with_their_values() {
    let iters: usize = std::env::var("PAGEWALK_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let base = example();
    let mut all = Vec::new();
    paths(&base, &mut Vec::new(), &mut all);
    let mut rng = fastrand::Rng::with_seed(0x9a6e_3a1c);
    let (mut accepted, mut refused, mut charts) = (0, 0, 0);
    for i in 0..iters {
        let bytes = mutate(&base, &all, &mut rng);
        assert!(bytes.len() <= 4 * MAX_FILE_BYTES);
        let run = match parse_run_bytes("mutant.json", &bytes) {
            Ok(run) => run,
            Err(e) => {
                assert_eq!(e.file, "mutant.json");
                refused += 1;
                continue;
            }
        };
        accepted += 1;
        let points: usize = run
            .experiments
            .iter()
            .map(|e| serde_json::to_string(e).map_or(0, |s| s.len()))
            .sum();
        for name in CHART_NAMES {
            let Ok(spec) = build(name, &[&run]) else {
                continue;
            };
            charts += 1;
            let svg = render_svg(&spec, &Palette::light(), 640, 0);
            // Output follows the input's size, never its values: a few
            // hundred bytes a value at most, plus a fixed frame.
            assert!(
                svg.len() < 64 * 1024 + points * 64,
                "mutant {i}, chart {name}: {} bytes of SVG",
                svg.len()
            );
        }
    }
    // Read by scripts/report.
    println!("fuzz: {iters} mutants, {accepted} accepted and charted ({charts} charts), {refused} refused with the file named");
    assert!(accepted > 0 && refused > 0, "the mutations test both paths");
}
