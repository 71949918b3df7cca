//! What `mdbook test` hands to rustdoc.
//!
//! rustdoc names a failing block by its line in the text it is given, and a
//! rendered chapter no longer has the file's lines once its `{{#if}}`
//! sections have collapsed. So for the `test` renderer each code block is
//! rendered on its own and left on the line where it stands in the chapter
//! file; the prose around it is blanked.

/// The chapter's code blocks, each passed through `render`, at their source
/// lines; every line outside a block is empty.
pub fn code_blocks_in_place<E>(
    chapter: &str,
    mut render: impl FnMut(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(chapter.len());
    let mut block = String::new();
    let mut fence: Option<&str> = None;
    for line in chapter.lines() {
        match fence {
            None if fence_of(line).is_some() => {
                fence = fence_of(line);
                block = format!("{line}\n");
            }
            None => out.push('\n'),
            Some(open) => {
                block.push_str(line);
                block.push('\n');
                if fence_of(line).is_some_and(|close| close.len() >= open.len()) {
                    out.push_str(&render(&block)?);
                    fence = None;
                }
            }
        }
    }
    // An unclosed block runs to the end of the chapter, as in CommonMark.
    if fence.is_some() {
        out.push_str(&render(&block)?);
    }
    Ok(out)
}

/// The run of backticks that opens or closes a fenced block on this line.
fn fence_of(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
    (line.len() - trimmed.len() <= 3 && ticks >= 3).then(|| &trimmed[..ticks])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(block: &str) -> Result<String, ()> {
        Ok(block.to_uppercase())
    }

    #[test]
    fn blocks_stay_on_their_lines_and_prose_is_blanked() {
        let chapter = "# Title\n{{#if x}}\nmany\nlines\n{{/if}}\n```rust\nlet a = 1;\n```\nprose\n";
        let out = code_blocks_in_place(chapter, upper).unwrap();
        assert_eq!(out, "\n\n\n\n\n```RUST\nLET A = 1;\n```\n\n");
    }

    #[test]
    fn a_longer_fence_holds_a_shorter_one() {
        let chapter = "````md\n```c\nx\n```\n````\n";
        let out = code_blocks_in_place(chapter, |b| Ok::<_, ()>(b.replace('x', "y"))).unwrap();
        assert_eq!(out, "````md\n```c\ny\n```\n````\n");
    }

    #[test]
    fn a_render_error_is_returned() {
        let failed = code_blocks_in_place("```c\n{{x\n```\n", |_| Err("bad template"));
        assert_eq!(failed, Err("bad template"));
    }
}
