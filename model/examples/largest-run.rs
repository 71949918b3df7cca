//! Writes the largest run file the model accepts, built from a real one:
//! every staircase and tlb-reach curve grown to the most points a curve
//! may have, each with the most samples kept. `scripts/report-limits`
//! builds the book from it to report what the limits cost.
//!
//!     cargo run -p pagewalk-model --example largest-run -- IN.json > OUT.json

use pagewalk_model::limits::{MAX_CURVE_POINTS, MAX_FILE_BYTES};
use pagewalk_model::{read_run, Results};

/// Samples per point: as many as keep the file under the size limit.
const SAMPLES: usize = 64;

fn main() {
    let path = std::env::args().nth(1).expect("usage: largest-run IN.json");
    let mut run = read_run(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    for e in &mut run.experiments {
        let curves = match &mut e.results {
            Some(Results::Staircase(r)) => &mut r.curves,
            Some(Results::TlbReach(r)) => &mut r.curves,
            _ => continue,
        };
        for curve in curves.iter_mut().filter(|c| !c.points.is_empty()) {
            let have = curve.points.clone();
            curve.points = (0..MAX_CURVE_POINTS)
                .map(|i| {
                    let mut p = have[i * have.len() / MAX_CURVE_POINTS].clone();
                    let s = p.samples_ns_per_load.first().copied().unwrap_or(1.0);
                    p.samples_ns_per_load = vec![s; SAMPLES];
                    p
                })
                .collect();
        }
    }
    let text = serde_json::to_string(&run).unwrap();
    assert!(text.len() <= MAX_FILE_BYTES, "{} bytes", text.len());
    pagewalk_model::parse_run("largest", &text).unwrap_or_else(|e| panic!("not accepted: {e}"));
    println!("{text}");
}
