//! Every write to standard output goes through [`print`], never through
//! `print!`/`println!` (which panic when the write fails). A reader that
//! stopped reading (`collector list | head -1`: EPIPE) is not an error: the
//! rest of the output is dropped and the command ends with its own status,
//! quietly. Any other failure (`> /dev/full`: ENOSPC) is: [`finish`] says
//! so once on stderr and the status is 1.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Mutex;

/// The first write error, after which nothing more is written.
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);

/// Writes `text` to standard output (and flushes it, so that a failure is
/// seen here and not lost at exit).
pub fn print<T: fmt::Display + ?Sized>(text: &T) {
    write(format_args!("{text}"));
}

/// [`print`] with a line end.
pub fn println<T: fmt::Display + ?Sized>(line: &T) {
    write(format_args!("{line}\n"));
}

fn write(args: fmt::Arguments) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_some() {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        *failed = Some(e);
    }
}

/// A reader closed standard output: whatever is left to print is for
/// nobody.
pub fn closed() -> bool {
    FAILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .is_some_and(is_closed)
}

/// The status to exit with, given the command's own: that status if every
/// write succeeded or the reader went away, else 1 with one message.
pub fn finish(code: ExitCode) -> ExitCode {
    print("");
    let failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    match failed.as_ref() {
        None => code,
        Some(e) if is_closed(e) => code,
        Some(e) => {
            // stderr may be gone too: nothing more to say then.
            let _ = writeln!(
                io::stderr(),
                "collector: cannot write to standard output: {e}"
            );
            ExitCode::FAILURE
        }
    }
}

fn is_closed(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}
