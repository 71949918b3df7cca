//! `collector`: measures virtual-memory costs on the reader's machine and
//! writes them as pagewalk JSON. This file is only the command line; the
//! work lives in the modules below.

mod affinity;
mod alloc_count;
mod args;
mod background;
mod child;
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
mod rlimits;
mod run;
mod scratch;
mod stdout;
mod strace;
mod timing;

use std::process::ExitCode;

use cli::{Cli, Command};
use pagewalk_model::display::escaped_for_terminal;

fn main() -> ExitCode {
    // A write past the file-size limit (`ulimit -f`) then fails with EFBIG,
    // which the writers handle by keeping the run elsewhere, instead of
    // SIGXFSZ killing the process mid-write with the run unsaved.
    // SAFETY: setting a signal's disposition to SIG_IGN has no handler to
    // be unsafe in.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let argv = args::command_line();
    let cli = Cli::parse_checked(&argv);
    let code = command(cli.command, args::recorded(&argv));
    // Standard output that could not be written decides the status here.
    stdout::finish(code)
}

fn command(command: Command, recorded: Vec<String>) -> ExitCode {
    match command {
        Command::List => {
            for e in experiments::all() {
                stdout::println(&format_args!("{:<14} {}", e.name(), e.description));
            }
            ExitCode::SUCCESS
        }
        Command::Validate { files } => run::validate(&files),
        Command::Compare { files, format } => compare::run(&files, format),
        Command::Inspect(args) => inspect::run(&args, recorded).unwrap_or_else(|e| {
            eprintln!("collector inspect: {}", escaped_for_terminal(&e));
            ExitCode::FAILURE
        }),
        Command::Probe { probe } => probe::run(&probe),
        Command::Run(args) => run::run(&args, recorded).unwrap_or_else(|e| {
            eprintln!("collector: {}", escaped_for_terminal(&e));
            ExitCode::FAILURE
        }),
    }
}
