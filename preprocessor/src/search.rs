//! What mdBook's search may read: the prose.
//!
//! mdBook 0.5 indexes every text node of a chapter but those inside
//! `<script>` and `<style>` (`mdbook-html`, `html_handlebars/search.rs`),
//! so a chart's title, legend, ticks and table, a lab's controls and a
//! table of measured numbers would be indexed, and its teasers would be
//! chart text. Moving that text into scripts would take it from readers
//! without JavaScript, and a step after the build would be skipped by one
//! build path or another (`mdbook serve`, `scripts/book`, CI's `mdbook
//! build`). So the rendered chapter marks what is not prose with two
//! invisible, empty-looking elements, [`START`] and [`END`]
//! (`<template>`: never drawn, not in the page's text or its accessibility
//! tree, but a text node to mdBook), and the page takes the marked text out
//! of the index as the index loads (`theme/head.hbs`), so every build path
//! and every way of opening the book gets the same search.
//!
//! Not prose, and marked:
//! * a `<figure>` but its `<figcaption>`: charts (SVG, tooltip, data
//!   table, spec) and diagrams, whose captions are the chapter's words;
//! * a lab (`<section class="pw-lab">`): controls, status and its chart;
//! * a `<form>` and a `<noscript>` (search needs JavaScript);
//! * a Markdown table with a body cell that starts with a digit: measured
//!   values, sizes and counts. A table of words (the symptom table, the
//!   levers) is prose and stays.
//!
//! Fenced code is left as it is: it is the book's text, and a `<figure>`
//! in a code block is an example, not a figure.

/// Opens text the search leaves out (U+E000, private use, in a template).
pub const START: &str = "<template>\u{E000}</template>";
/// Closes it (U+E001).
pub const END: &str = "<template>\u{E001}</template>";

/// `chapter` (rendered Markdown) with what is not prose between [`START`]
/// and [`END`].
pub fn mark_non_prose(chapter: &str) -> String {
    let code = fenced_code(chapter);
    // What is not prose, as (start, end) of the text between the marks.
    let mut regions: Vec<(usize, usize)> = Vec::new();
    let mut elements: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some((open, tag)) = next_open(chapter, at, &code, &TAGS) {
        let Some(body) = chapter[open..].find('>').map(|i| open + i + 1) else {
            break;
        };
        let Some(close) = matching_close(chapter, body, tag) else {
            // Unclosed: left alone rather than hide the prose after it.
            at = body;
            continue;
        };
        at = close;
        elements.push((open, close));
        match tag {
            // The caption is the chapter's prose: it stays.
            "figure" => {
                let mut from = body;
                while let Some(cap) = chapter[from..close].find("<figcaption").map(|i| from + i) {
                    let Some(end) = chapter[cap..close]
                        .find("</figcaption>")
                        .map(|i| cap + i + "</figcaption>".len())
                    else {
                        break;
                    };
                    regions.push((from, cap));
                    from = end;
                }
                regions.push((from, close));
            }
            "table" if !html_cells(&chapter[body..close]).any(starts_with_digit) => {}
            _ => regions.push((body, close)),
        }
    }
    for (first, last) in tables(chapter) {
        let inside = |pos: usize| {
            code.iter()
                .chain(&elements)
                .any(|&(a, b)| (a..b).contains(&pos))
        };
        if !inside(first) {
            regions.push((first, last));
        }
    }
    regions.retain(|&(a, b)| !chapter[a..b].trim().is_empty());
    regions.sort_unstable();
    let mut out = String::with_capacity(chapter.len() + regions.len() * 2 * START.len());
    let mut from = 0;
    for (a, b) in regions {
        out.push_str(&chapter[from..a]);
        out.push_str(START);
        out.push_str(&chapter[a..b]);
        out.push_str(END);
        from = b;
    }
    out.push_str(&chapter[from..]);
    out
}

/// The elements marked whole (a figure but its caption), and HTML tables,
/// marked when they hold numbers.
const TAGS: [&str; 5] = [
    "figure",
    "section class=\"pw-lab\"",
    "form",
    "noscript",
    "table",
];

/// The contents of each `<td>` of an HTML table.
fn html_cells(table: &str) -> impl Iterator<Item = &str> {
    table.split("<td").skip(1).filter_map(|cell| {
        let open_end = cell.find('>')?;
        // The tag's name is `td`: `<td>` or `<td class=...>`, not `<tdx>`.
        if !matches!(cell.as_bytes().first(), Some(b'>' | b' ' | b'\n')) {
            return None;
        }
        let content = &cell[open_end + 1..];
        Some(content.find("</td>").map_or(content, |end| &content[..end]))
    })
}

/// The next opening tag of `tags` at or after `at`, outside fenced code:
/// its offset and its element name.
fn next_open(
    s: &str,
    at: usize,
    code: &[(usize, usize)],
    tags: &[&'static str],
) -> Option<(usize, &'static str)> {
    let mut from = at;
    loop {
        let lt = s[from..].find('<').map(|i| from + i)?;
        if let Some(&(_, end)) = code.iter().find(|&&(a, b)| (a..b).contains(&lt)) {
            from = end;
            continue;
        }
        let rest = &s[lt + 1..];
        for &tag in tags {
            let name = tag.split(' ').next().unwrap_or(tag);
            let after = rest.as_bytes().get(tag.len()).copied();
            if rest.starts_with(tag)
                && (tag.len() > name.len() || matches!(after, Some(b' ' | b'>' | b'\n')))
            {
                return Some((lt, name));
            }
        }
        from = lt + 1;
    }
}

/// The offset of the `</tag>` that closes the element whose content starts
/// at `body`, counting nested elements of the same name.
fn matching_close(s: &str, body: usize, tag: &str) -> Option<usize> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut depth = 1;
    let mut at = body;
    loop {
        let c = s[at..].find(&close).map(|i| at + i)?;
        depth += s[at..c]
            .match_indices(&open)
            .filter(|(i, _)| {
                matches!(
                    s.as_bytes().get(at + i + open.len()),
                    Some(b' ' | b'>' | b'\n')
                )
            })
            .count();
        depth -= 1;
        if depth == 0 {
            return Some(c);
        }
        at = c + close.len();
    }
}

/// Byte ranges of fenced code blocks (``` or ~~~), fences included.
fn fenced_code(s: &str) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, char, usize)> = None;
    for (start, line) in lines(s) {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let fence = ['`', '~'].into_iter().find_map(|c| {
            let n = trimmed.len() - trimmed.trim_start_matches(c).len();
            (indent <= 3 && n >= 3).then_some((c, n))
        });
        match (open, fence) {
            (None, Some((c, n))) => open = Some((start, c, n)),
            (Some((from, c, n)), Some((c2, n2)))
                if c == c2 && n2 >= n && trimmed.trim_start_matches(c).trim().is_empty() =>
            {
                blocks.push((from, start + line.len()));
                open = None;
            }
            _ => {}
        }
    }
    if let Some((from, _, _)) = open {
        blocks.push((from, s.len()));
    }
    blocks
}

/// Each line with its offset, without its line break.
fn lines(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    s.split_inclusive('\n').map(move |l| {
        let start = at;
        at += l.len();
        (start, l.trim_end_matches(['\n', '\r']))
    })
}

/// Markdown tables of numbers: for each, where its first cell's text
/// starts and where its last cell's text ends.
fn tables(s: &str) -> Vec<(usize, usize)> {
    markdown_tables(s)
        .into_iter()
        .filter(|t| t.numeric)
        .map(|t| (t.first, t.last))
        .collect()
}

/// A Markdown table in a chapter (offsets into it).
pub(crate) struct Table {
    /// Where its header line starts and its last line ends.
    pub lines: (usize, usize),
    /// Where its first cell's text starts and its last cell's text ends.
    pub first: usize,
    pub last: usize,
    /// A body cell starts with a digit.
    pub numeric: bool,
}

/// Every Markdown table of `s`, fenced code aside.
pub(crate) fn markdown_tables(s: &str) -> Vec<Table> {
    let code = fenced_code(s);
    let all: Vec<(usize, &str)> = lines(s)
        .filter(|(at, _)| !code.iter().any(|&(a, b)| (a..b).contains(at)))
        .collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < all.len() {
        let (head_at, head) = all[i];
        let (delimiter_at, delimiter) = all[i + 1];
        if !head.contains('|')
            || !is_delimiter(delimiter)
            || cells(delimiter_at, delimiter).len() != cells(head_at, head).len()
            || delimiter_at > head_at + head.len() + 2
        {
            i += 1;
            continue;
        }
        let mut end = i + 2;
        while end < all.len()
            && all[end].1.contains('|')
            && !all[end].1.trim().is_empty()
            && all[end].0 <= all[end - 1].0 + all[end - 1].1.len() + 2
        {
            end += 1;
        }
        let body = &all[i + 2..end];
        let numeric = body
            .iter()
            .flat_map(|(at, l)| cells(*at, l))
            .any(|(a, b)| starts_with_digit(&s[a..b]));
        let (last_at, last_line) = all[end - 1];
        if let (Some(first), Some(last)) = (
            cells(head_at, head).first().copied(),
            cells(last_at, last_line).last().copied(),
        ) {
            found.push(Table {
                lines: (head_at, last_at + last_line.len()),
                first: first.0,
                last: last.1,
                numeric,
            });
        }
        i = end;
    }
    found
}

/// Every HTML `<table>` of `s` outside fenced code and figures (a chart's
/// data table is its builder's), as (start of its opening tag, end of its
/// closing tag).
pub(crate) fn html_tables(s: &str) -> Vec<(usize, usize)> {
    let code = fenced_code(s);
    let mut found = Vec::new();
    let mut at = 0;
    while let Some((open, tag)) = next_open(s, at, &code, &["figure", "table"]) {
        let Some(body) = s[open..].find('>').map(|i| open + i + 1) else {
            break;
        };
        match matching_close(s, body, tag) {
            Some(close) => {
                if tag == "table" {
                    found.push((open, close + "</table>".len()));
                }
                at = close;
            }
            None => at = body,
        }
    }
    found
}

/// A table's delimiter row: `| --- | :-: |`.
fn is_delimiter(line: &str) -> bool {
    let t = line.trim().trim_matches('|');
    !t.is_empty()
        && t.contains('-')
        && t.split('|').all(|c| {
            let c = c.trim();
            !c.is_empty() && c.trim_matches(':').chars().all(|ch| ch == '-')
        })
}

/// The cells of a table row, each its text without the spaces around it
/// (offsets into the chapter). Cells split at pipes that are not escaped
/// (a value's are, as `&#124;`: `helpers::escape_text`) and not inside a
/// code span; a leading or trailing pipe leaves no cell of its own.
fn cells(at: usize, line: &str) -> Vec<(usize, usize)> {
    let mut pipes = Vec::new();
    let mut in_code = false;
    let mut prev = '\0';
    for (i, c) in line.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '|' if !in_code && prev != '\\' => pipes.push(i),
            _ => {}
        }
        prev = c;
    }
    let start = line.len() - line.trim_start().len();
    let end = line.trim_end().len();
    let mut segments = Vec::new();
    let mut from = start;
    for &p in &pipes {
        segments.push((from, p));
        from = p + 1;
    }
    segments.push((from, end));
    if pipes.first() == Some(&start) {
        segments.remove(0);
    }
    if end > start && pipes.last() == Some(&(end - 1)) {
        segments.pop();
    }
    segments
        .into_iter()
        .map(|(a, b)| {
            let cell = &line[a..b];
            let a = a + (cell.len() - cell.trim_start().len());
            let b = a + cell.trim().len();
            (at + a, at + b)
        })
        .collect()
}

/// Whether a cell's text, as the page shows it, starts with a digit:
/// Markdown emphasis, code and link punctuation, list bullets and HTML
/// tags are not shown, a character reference is its character.
fn starts_with_digit(cell: &str) -> bool {
    let mut rest = cell;
    loop {
        rest = rest.trim_start();
        let bullet = ["- ", "* ", "+ ", "-\n", "*\n", "+\n"]
            .iter()
            .find_map(|b| rest.strip_prefix(b));
        if let Some(after) = bullet {
            rest = after;
        } else if rest.starts_with(['*', '_', '`', '[']) {
            rest = &rest[1..];
        } else if rest.starts_with('<') {
            match rest.find('>') {
                Some(i) => rest = &rest[i + 1..],
                None => return false,
            }
        } else if let Some(entity) = rest.strip_prefix("&#") {
            let n: String = entity.chars().take_while(char::is_ascii_digit).collect();
            return n
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .is_some_and(|c| c.is_ascii_digit());
        } else {
            return rest.starts_with(|c: char| c.is_ascii_digit());
        }
    }
}

#[cfg(test)]
mod tests;
