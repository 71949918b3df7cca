//! Text from files and file names, made safe to print on a terminal or in
//! a log: every reader that echoes something it did not write (a file
//! name, a value, an error quoting either) goes through
//! [`quoted_for_terminal`], so an escape sequence in a name cannot clear
//! the screen or set the window title, a newline cannot forge a result
//! line, and a 100 KB string is not echoed whole.

use crate::load::ModelError;

/// `s` as it can be printed: unchanged when it holds nothing a terminal
/// acts on and has at most `max` characters; otherwise between double
/// quotes, with control characters (ESC, newline, carriage return, DEL,
/// the C1 controls) and the characters that reorder or split lines
/// (bidirectional overrides, U+2028/U+2029) written as Rust escapes
/// (`\u{1b}`, `\n`), `"` and `\` escaped, and cut to `max` characters of
/// escaped text followed by `…`.
pub fn quoted_for_terminal(s: &str, max: usize) -> String {
    let plain = !s.chars().any(|c| escape(c).is_some()) && s.chars().count() <= max;
    if plain {
        return s.to_string();
    }
    let mut out = String::from("\"");
    let mut used = 0;
    for c in s.chars() {
        // In quotes, the quote and the backslash mean something too.
        let piece = match c {
            '"' => Some("\\\"".to_string()),
            '\\' => Some("\\\\".to_string()),
            c => escape(c),
        };
        let len = piece.as_ref().map_or(1, |p| p.chars().count());
        if used + len > max {
            out.push('…');
            break;
        }
        used += len;
        match piece {
            Some(p) => out.push_str(&p),
            None => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` with every character [`quoted_for_terminal`] escapes written as
/// its escape, but without quotes and uncut: for text that is one piece of
/// a message (a line of clap's, an argument a run file records).
pub fn escaped_for_terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match escape(c) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    out
}

/// How `c` is written, if it must not reach a terminal as it is.
fn escape(c: char) -> Option<String> {
    match c {
        '\n' => Some("\\n".into()),
        '\r' => Some("\\r".into()),
        '\t' => Some("\\t".into()),
        c if unsafe_char(c) => Some(format!("\\u{{{:x}}}", c as u32)),
        _ => None,
    }
}

fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Bidirectional marks, embeddings, overrides and isolates: they
            // reorder what follows on the line.
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            // Line and paragraph separators: a new line to some terminals and logs.
            | '\u{2028}' | '\u{2029}'
            // Zero-width no-break space (byte-order mark) and its kin: invisible.
            | '\u{feff}' | '\u{200b}'..='\u{200d}'
        )
}

/// At most this many characters of a file name are echoed.
pub const MAX_NAME_CHARS: usize = 300;
/// At most this many characters of a message (which may quote a value).
pub const MAX_MESSAGE_CHARS: usize = 600;

/// At most this many characters of a whole line that quotes the above.
pub const MAX_LINE_CHARS: usize = 2000;

/// A [`ModelError`] as one safe line: `FILE: field `FIELD`: MESSAGE`, each
/// part through [`quoted_for_terminal`] (the message may quote the value
/// it refuses, which is the file's text).
pub fn error_for_terminal(e: &ModelError) -> String {
    let file = quoted_for_terminal(&e.file, MAX_NAME_CHARS);
    let message = quoted_for_terminal(&e.message, MAX_MESSAGE_CHARS);
    match &e.field {
        Some(field) => format!(
            "{file}: field `{}`: {message}",
            quoted_for_terminal(field, MAX_NAME_CHARS)
        ),
        None => format!("{file}: {message}"),
    }
}

/// A path as one safe line (see [`quoted_for_terminal`]).
pub fn path_for_terminal(path: &std::path::Path) -> String {
    quoted_for_terminal(&path.to_string_lossy(), MAX_NAME_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(
            quoted_for_terminal("data/runs/a b.json", 100),
            "data/runs/a b.json"
        );
        assert_eq!(quoted_for_terminal("été 2 µs", 100), "été 2 µs");
        assert_eq!(quoted_for_terminal("", 0), "");
    }

    #[test]
    fn control_characters_are_escaped_and_the_text_quoted() {
        let hostile = "x\x1b]0;pwned\x07\x1b[2J\ny\r\u{202e}\u{7f}\u{9b}";
        let shown = quoted_for_terminal(hostile, 1000);
        assert_eq!(
            shown,
            r#""x\u{1b}]0;pwned\u{7}\u{1b}[2J\ny\r\u{202e}\u{7f}\u{9b}""#
        );
        assert!(!shown.chars().any(unsafe_char), "{shown:?}");
    }

    #[test]
    fn escaped_text_has_no_quotes_and_no_control_character() {
        assert_eq!(escaped_for_terminal("plain été"), "plain été");
        assert_eq!(
            escaped_for_terminal("a\x1b[2J\tb\u{2028}"),
            r"a\u{1b}[2J\tb\u{2028}"
        );
    }

    #[test]
    fn quotes_and_backslashes_in_quoted_text_are_escaped() {
        assert_eq!(quoted_for_terminal("a\"b\\c\n", 100), r#""a\"b\\c\n""#);
        // Unquoted text keeps them as they are.
        assert_eq!(quoted_for_terminal("a\"b", 100), "a\"b");
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        let long = "7".repeat(100_000);
        let shown = quoted_for_terminal(&long, 20);
        assert_eq!(shown, format!("\"{}…\"", "7".repeat(20)));
        // An escape is never cut in half.
        let shown = quoted_for_terminal("ab\x1bcd", 5);
        assert_eq!(shown, "\"ab…\"");
        assert_eq!(quoted_for_terminal("abcde", 5), "abcde");
    }

    #[test]
    fn model_errors_print_on_one_safe_line() {
        let e = ModelError {
            file: "runs/\x1b[2Jx\n.json".into(),
            field: Some("schema_version".into()),
            message: format!("expected a whole number, found \"{}\"", "9".repeat(100_000)),
        };
        let line = error_for_terminal(&e);
        assert!(!line.contains('\n') && !line.contains('\x1b'), "{line}");
        assert!(line.len() < 1000, "{}", line.len());
        assert!(line.starts_with(r#""runs/\u{1b}[2Jx\n.json": field `schema_version`: "#));
    }
}
