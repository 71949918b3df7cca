//! `collector probe ...` (hidden from `--help`): a measurement in a fresh
//! process that prints JSON on stdout for the collector that started it.

use std::process::ExitCode;

use crate::cli::Probe;
use crate::experiments::{alloc, first_touch, syscall};

pub fn run(probe: &Probe) -> ExitCode {
    let value = match probe {
        Probe::Getpid(s) => syscall::getpid_report(s.batches, s.per_batch),
        Probe::Alloc { path, size } => alloc::report(*path, size.batches, size.per_batch),
        Probe::FirstTouch(p) => match first_touch::report(p.mode, p.size, p.stride) {
            Ok(value) => value,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        },
    };
    crate::stdout::println(&value);
    ExitCode::SUCCESS
}
