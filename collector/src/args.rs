//! The raw command line: screened before clap reads it, and recorded as a
//! run file holds it.
//!
//! `run` and `inspect` record their command line in the file they write
//! (`provenance.command`), and the model refuses control characters there:
//! a line end would end a Markdown block where the book shows the command.
//! So an argument of theirs holding one is refused before anything is
//! measured (exit 2), never found by the model after minutes of measuring.
//! Other subcommands take file names as they are (a file may be called
//! anything; they quote what they echo).
//!
//! Whatever clap prints about an argument goes through the model's
//! terminal escaping too: clap quotes a refused value raw, and an ESC or a
//! BEL in it would reach the terminal.

use std::ffi::OsString;

use pagewalk_model::display::{escaped_for_terminal, quoted_for_terminal, MAX_NAME_CHARS};

/// Subcommands whose command line ends up in a run file.
const RECORDED: [&str; 2] = ["run", "inspect"];

/// The command line as the operating system gave it (a path need not be
/// UTF-8; `std::env::args` would panic on one).
pub fn command_line() -> Vec<OsString> {
    std::env::args_os().collect()
}

/// The command line as a run file records it: one string per argument,
/// bytes that are not UTF-8 as U+FFFD. [`screen`] has refused control
/// characters already; any left (a subcommand that did not screen) are
/// written as escapes, so the model never refuses the file for them.
pub fn recorded(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| escaped_for_terminal(&a.to_string_lossy()))
        .collect()
}

/// `Err(message)` naming the first argument of `run` or `inspect` that a
/// run file could not record, or that would reach a terminal as anything
/// but text.
pub fn screen(args: &[OsString]) -> Result<(), String> {
    let subcommand = args.get(1).map(|a| a.to_string_lossy());
    if !subcommand.is_some_and(|s| RECORDED.contains(&s.as_ref())) {
        return Ok(());
    }
    for (i, arg) in args.iter().enumerate().skip(2) {
        let text = arg.to_string_lossy();
        if escaped_for_terminal(&text) == text {
            continue;
        }
        return Err(format!(
            "{} holds a control or line-reordering character: {}; the run file records its command line and the data model refuses such characters, so it is refused before anything is measured",
            which(args, i),
            quoted_for_terminal(&text, MAX_NAME_CHARS)
        ));
    }
    Ok(())
}

/// How a message names argument `i`: `--modes`, the value of `--out`, or
/// its position.
fn which(args: &[OsString], i: usize) -> String {
    let text = args[i].to_string_lossy();
    if let Some((flag, _)) = text.split_once('=').filter(|(f, _)| f.starts_with("--")) {
        return format!("the value of {flag}");
    }
    let previous = args[i - 1].to_string_lossy();
    if previous.starts_with("--") && !previous.contains('=') && !text.starts_with('-') {
        return format!("the value of {previous}");
    }
    format!("argument {i}")
}

/// A message clap wrote about the command line, safe to print: every
/// character a terminal would act on, inside each line, written as an
/// escape (clap's own line breaks kept).
pub fn safe_message(text: &str) -> String {
    text.split('\n')
        .map(escaped_for_terminal)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn run_and_inspect_refuse_control_characters_naming_the_argument() {
        let err = screen(&os(&[
            "collector",
            "run",
            "first-touch",
            "--modes",
            "calloc\n",
        ]))
        .unwrap_err();
        assert!(err.starts_with("the value of --modes holds"), "{err}");
        assert!(err.contains(r#""calloc\n""#), "{err}");
        let err = screen(&os(&["collector", "run", "--all", "--out=/tmp/a\tb"])).unwrap_err();
        assert!(err.starts_with("the value of --out holds"), "{err}");
        let err = screen(&os(&["collector", "run", "\x1b]0;pwned\x07"])).unwrap_err();
        assert!(err.starts_with("argument 2 holds"), "{err}");
        assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
        assert!(screen(&os(&["collector", "inspect", "1", "--out", "a\u{202e}b"])).is_err());
    }

    #[test]
    fn plain_arguments_and_other_subcommands_pass() {
        assert_eq!(
            screen(&os(&["collector", "run", "--all", "--out", "runs/été"])),
            Ok(())
        );
        // A file may be called anything; validate quotes what it echoes.
        assert_eq!(screen(&os(&["collector", "validate", "a\nb.json"])), Ok(()));
        assert_eq!(screen(&os(&["collector"])), Ok(()));
    }

    #[test]
    fn the_recorded_command_holds_no_control_character() {
        use std::os::unix::ffi::OsStringExt;
        let args = vec![
            OsString::from("collector"),
            OsString::from("x\ny"),
            OsString::from_vec(vec![b'a', 0xff]),
        ];
        assert_eq!(recorded(&args), ["collector", r"x\ny", "a\u{fffd}"]);
    }

    #[test]
    fn clap_messages_keep_their_lines_and_lose_escapes() {
        let shown = safe_message("error: invalid value '\x1b[31mRED\r' for '--x'\n\nFor more");
        assert_eq!(
            shown,
            "error: invalid value '\\u{1b}[31mRED\\r' for '--x'\n\nFor more"
        );
    }
}
