//! The escape every value from a run file takes on its way into a chapter.

/// The one escape of every value that reaches a chapter, whatever writes
/// it: a bare `{{value}}`, `{{text}}`, `{{code}}`, the source line, drills,
/// labs and diagrams. A chapter is Markdown that becomes HTML, and Markdown
/// reads text even between inline HTML tags (`<code>[x](y)</code>` is a
/// link), so a value must be inert in both: HTML's special characters and
/// Markdown's punctuation become character references, which Markdown
/// shows as the character and never reads as syntax, and which HTML reads
/// as the character in text and attributes alike (a `[x](javascript:...)`
/// stays those characters, not a link). Charts are the exception that
/// needs none of this: a chart is one raw HTML block, which Markdown
/// passes through unread, drawn by `pagewalk_figures` with its own escape.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' | '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '#' | '|' | '~' | '{'
            | '}' | '+' | '$' | '^' => out.push_str(&format!("&#{};", c as u32)),
            // A line break would end the paragraph or table row the value
            // sits in; the model refuses them, this keeps it true anyway.
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
