//! The in-page pointer chase run natively, for `scripts/report-browser`: the
//! same `pagewalk_lab::chase::run` the browser's worker runs, with
//! `std::time::Instant` as its clock, on the heap instead of in a
//! WebAssembly memory.
//!
//! ```text
//! native-chase [--max-kib 65536] [--samples 5] [--time-cap-s 300]
//! ```
//!
//! Prints the `ChaseReport` as one JSON line on stdout.

use std::io::IsTerminal;
use std::process::ExitCode;

use pagewalk_lab::chase::{run, ChaseParams, DEFAULT_SEED};
use pagewalk_lab::{timer_resolution, InstantClock};

fn main() -> ExitCode {
    let mut params = ChaseParams {
        max_kib: 65536,
        samples: 5,
        time_cap_s: 300.0,
        seed: DEFAULT_SEED,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> Option<f64> {
            let v = args.next().and_then(|v| v.parse().ok());
            if v.is_none() {
                eprintln!("native-chase: {name} takes a number");
            }
            v
        };
        match a.as_str() {
            "--max-kib" => match value("--max-kib") {
                Some(v) => params.max_kib = v as u64,
                None => return ExitCode::from(2),
            },
            "--samples" => match value("--samples") {
                Some(v) => params.samples = v as u32,
                None => return ExitCode::from(2),
            },
            "--time-cap-s" => match value("--time-cap-s") {
                Some(v) => params.time_cap_s = v,
                None => return ExitCode::from(2),
            },
            "-h" | "--help" => {
                println!("usage: native-chase [--max-kib 65536] [--samples 5] [--time-cap-s 300]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("native-chase: unknown argument {other}");
                return ExitCode::from(2);
            }
        }
    }
    let clock = InstantClock::new();
    let timer = timer_resolution(&clock, 10.0, false);
    // Progress only for a person watching: a pipe gets the JSON alone.
    let tty = std::io::stderr().is_terminal();
    let report = run(&params, timer, &clock, &mut |p| {
        if tty {
            eprint!(
                "\rnative-chase: {} of {}: {}        ",
                p.done, p.total, p.text
            );
        }
    });
    if tty {
        eprintln!();
    }
    println!(
        "{}",
        serde_json::to_string(&report).expect("a report serializes")
    );
    if report.error.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
