//! `collector`: measures virtual-memory costs on the reader's machine and
//! writes them as pagewalk JSON. This file is only the command line; the
//! work lives in the modules below.

mod affinity;
mod alloc_count;
mod background;
mod cli;
mod compare;
mod experiments;
mod faults;
mod guard;
mod inspect;
mod interrupt;
mod lockfile;
mod machine;
mod mapping;
mod output;
mod probe;
mod procfs;
mod progress;
mod run;
mod scratch;
mod stdout;
mod strace;
mod timing;

use std::process::ExitCode;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse_checked();
    let code = command(cli.command);
    // Standard output that could not be written decides the status here.
    stdout::finish(code)
}

fn command(command: Command) -> ExitCode {
    match command {
        Command::List => {
            for e in experiments::all() {
                stdout::println(&format_args!("{:<14} {}", e.name(), e.description));
            }
            ExitCode::SUCCESS
        }
        Command::Validate { files } => run::validate(&files),
        Command::Compare { files, format } => compare::run(&files, format),
        Command::Inspect(args) => {
            inspect::run(&args, std::env::args().collect()).unwrap_or_else(|e| {
                eprintln!("collector inspect: {e}");
                ExitCode::FAILURE
            })
        }
        Command::Probe { probe } => probe::run(&probe),
        Command::Run(args) => run::run(&args, std::env::args().collect()).unwrap_or_else(|e| {
            eprintln!("collector: {e}");
            ExitCode::FAILURE
        }),
    }
}
