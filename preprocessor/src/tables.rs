//! Tables a phone can read: in a chapter's tables a number and its unit
//! never part (`36 ns`, `1,048,576 B`, `72 pages`), since a narrow column
//! would otherwise put the unit under its number. The space between them
//! becomes a no-break space; prose outside tables wraps as it likes, and
//! code keeps its spaces (it is copied). A chart's data table is
//! `pagewalk_figures::table_html`'s, which does the same.

use crate::search::{html_tables, markdown_tables};

/// The units a number keeps beside it.
const UNITS: [&str; 18] = [
    "ns", "µs", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "pages",
    "entries", "lines", "Hz", "%",
];

/// `chapter` (rendered Markdown) with each number in a table joined to
/// its unit.
pub fn keep_numbers_whole(chapter: &str) -> String {
    let mut spans: Vec<(usize, usize)> = markdown_tables(chapter)
        .into_iter()
        .map(|t| t.lines)
        .chain(html_tables(chapter))
        .collect();
    spans.sort_unstable();
    let mut out = String::with_capacity(chapter.len());
    let mut from = 0;
    for (a, b) in spans {
        if a < from {
            continue;
        }
        out.push_str(&chapter[from..a]);
        join_units(&chapter[a..b], &mut out);
        from = b;
    }
    out.push_str(&chapter[from..]);
    out
}

/// `text` into `out`, each `DIGIT SPACE UNIT` written with a no-break
/// space, outside code (backticks or `<code>`).
fn join_units(text: &str, out: &mut String) {
    let mut in_code = false;
    let mut prev = '\0';
    for (i, c) in text.char_indices() {
        if c == '`' {
            in_code = !in_code;
        } else if c == '<' {
            if text[i..].starts_with("<code") {
                in_code = true;
            } else if text[i..].starts_with("</code>") {
                in_code = false;
            }
        }
        if c == ' ' && !in_code && prev.is_ascii_digit() && unit_at(&text[i + 1..]) {
            out.push('\u{a0}');
        } else {
            out.push(c);
        }
        prev = c;
    }
}

/// Whether `rest` starts with one of [`UNITS`] as a whole word.
fn unit_at(rest: &str) -> bool {
    UNITS.iter().any(|u| {
        rest.strip_prefix(u)
            .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_tables_keep_their_units() {
        let ch = "Prose 36 ns wraps.\n\n| path | p50 |\n| --- | --- |\n| tcache 64 B | 9 ns (2 s) |\n| `--size 4 KiB` | <code>1 MiB</code> |\n\n\
                  <table><tr><td>718942 minor faults, 0 KiB</td></tr></table>\n\
                  <figure><table><tr><td>1 MiB</td></tr></table></figure>\n";
        assert_eq!(
            keep_numbers_whole(ch),
            "Prose 36 ns wraps.\n\n| path | p50 |\n| --- | --- |\n| tcache 64\u{a0}B | 9\u{a0}ns (2\u{a0}s) |\n| `--size 4 KiB` | <code>1 MiB</code> |\n\n\
             <table><tr><td>718942 minor faults, 0\u{a0}KiB</td></tr></table>\n\
             <figure><table><tr><td>1 MiB</td></tr></table></figure>\n"
        );
    }

    #[test]
    fn a_unit_is_a_whole_word() {
        let ch = "| a | b |\n| - | - |\n| 2 sizes | 3 Bytes |\n";
        assert_eq!(keep_numbers_whole(ch), ch);
    }
}
