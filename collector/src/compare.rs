//! `collector compare`: reads run files, holds each against the first with
//! `pagewalk_model::comparison` (the rule lives there so the page can run
//! it too) and prints the result as text, markdown or JSON.

use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};
use pagewalk_model::comparison::display::{self, cells, tally, RULE};
use pagewalk_model::comparison::{compare_named, Outcome, RunComparison};
use pagewalk_model::RunFile;

use crate::cli::CompareFormat;

pub fn run(files: &[PathBuf], format: CompareFormat) -> ExitCode {
    let mut runs = Vec::new();
    for file in files {
        match pagewalk_model::read_run(file) {
            Ok(run) => runs.push(run),
            Err(e) => {
                eprintln!(
                    "collector compare: {}",
                    pagewalk_model::display::error_for_terminal(&e)
                );
                return ExitCode::FAILURE;
            }
        }
    }
    let refs: Vec<&RunFile> = runs.iter().collect();
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let named: Vec<(String, &RunFile)> = display::labels(&refs, &names)
        .into_iter()
        .zip(refs)
        .collect();
    let c = compare_named(&named);
    let text = match format {
        CompareFormat::Text => text(&c),
        CompareFormat::Markdown => markdown(&c),
        CompareFormat::Json => match serde_json::to_string_pretty(&c) {
            Ok(json) => json + "\n",
            Err(e) => {
                eprintln!("collector compare: cannot serialise: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    crate::stdout::print(&text);
    ExitCode::SUCCESS
}

fn text(c: &RunComparison) -> String {
    let mut out = String::new();
    runs_header(&mut out, c, "", clean);
    if c.setup.is_empty() {
        let _ = writeln!(out, "Setup: the same in every run.");
    } else {
        let _ = writeln!(out, "Setup differences (they change what a figure means):");
        for d in &c.setup {
            let values: Vec<_> = d.values.iter().map(|v| clean(v)).collect();
            let _ = writeln!(out, "  {}: {}", d.what, values.join(" | "));
        }
    }
    let _ = writeln!(out, "\n{RULE}");
    let many = c.runs.len() > 2;
    let mut table = Table::new();
    let mut header = vec!["experiment", "figure"];
    if many {
        header.push("run");
    }
    header.extend(display::VALUE_COLUMNS);
    table.load_style(UTF8_FULL_CONDENSED).set_header(header);
    for r in &c.rows {
        let mut row = vec![clean(&r.experiment), clean(&r.figure)];
        if many {
            row.push(clean(&r.run));
        }
        row.extend(cells(r));
        table.add_row(row);
    }
    let first_number = if many { 3 } else { 2 };
    for i in first_number..first_number + 4 {
        if let Some(col) = table.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let _ = writeln!(out, "{table}");
    let notes: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::NotCompared)
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "Not compared:");
        for r in notes {
            let what = format!("{} / {} ({})", r.experiment, r.figure, r.run);
            let _ = writeln!(out, "  {}: {}", clean(&what), clean(&r.basis));
        }
    }
    let _ = writeln!(out, "{}", tally(c));
    out
}

/// Ready to paste into a pull request: the setup, the rule, one table with
/// the noise basis of every row.
fn markdown(c: &RunComparison) -> String {
    let mut out = String::new();
    runs_header(&mut out, c, "- ", cell);
    out.push('\n');
    if c.setup.is_empty() {
        let _ = writeln!(out, "Setup: the same in every run.\n");
    } else {
        let _ = writeln!(
            out,
            "| setup | {} |",
            c.runs
                .iter()
                .map(|r| cell(r))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(out, "|---|{}", "---|".repeat(c.runs.len()));
        for d in &c.setup {
            let values: Vec<_> = d.values.iter().map(|v| cell(v)).collect();
            let _ = writeln!(out, "| {} | {} |", cell(&d.what), values.join(" | "));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{RULE}\n");
    let _ = writeln!(
        out,
        "| experiment | figure | run | baseline | run value | ratio | noise | verdict | noise basis |"
    );
    let _ = writeln!(out, "|---|---|---|--:|--:|--:|--:|---|---|");
    for r in &c.rows {
        let v: Vec<String> = cells(r).iter().map(|c| cell(c)).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&r.experiment),
            cell(&r.figure),
            cell(&r.run),
            v.join(" | "),
            cell(&r.basis)
        );
    }
    let _ = writeln!(out, "\n{}", tally(c));
    out
}

/// The runs compared, one a line: `text` makes a label safe for where it
/// goes (`clean` for a terminal, `cell` for Markdown, whose backslashes a
/// terminal would print).
fn runs_header(out: &mut String, c: &RunComparison, bullet: &str, text: fn(&str) -> String) {
    for (i, label) in c.runs.iter().enumerate() {
        let role = if i == 0 { "baseline" } else { "run" };
        let _ = writeln!(out, "{bullet}{role}: {}", text(label));
    }
}

/// Labels and setup values come from files: no control character (an
/// escape sequence, a newline) reaches the terminal or a table.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A Markdown cell (or list item) that reads as the text it holds, on
/// GitHub or anywhere: every ASCII punctuation character is
/// backslash-escaped (CommonMark lets any of them be), so no `|` ends the
/// cell, no `[x](y)` or `https\://` becomes a link, no `<!--` or `<img>`
/// becomes HTML, and no `&lt;` becomes a character.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in clean(text).chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_header_is_the_run_id_as_written() {
        let mut out = String::new();
        let c = RunComparison {
            runs: vec!["20261130T090014Z-66e994".into(), "run\x1b[2J".into()],
            setup: Vec::new(),
            rows: Vec::new(),
        };
        runs_header(&mut out, &c, "", clean);
        assert_eq!(out, "baseline: 20261130T090014Z-66e994\nrun: run [2J\n");
        out.clear();
        runs_header(&mut out, &c, "- ", cell);
        assert!(
            out.starts_with("- baseline: 20261130T090014Z\\-66e994\n"),
            "{out}"
        );
    }

    #[test]
    fn markdown_cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        assert_eq!(clean("run\x1b[2J"), "run [2J");
    }

    /// A kernel string `6.1 <!-- hidden` hid the rest of a pull-request
    /// comment, and `<img src=...>` passed through as HTML.
    #[test]
    fn markdown_cells_are_text_not_markup() {
        for hostile in [
            "6.1 <!-- hidden",
            "<img src=x onerror=alert(1)>",
            "[x](javascript:alert(1))",
            "![i](https://evil.example/i.png)",
            "&lt;b&gt;",
            "`code` *em* _u_ # h | t",
        ] {
            let c = cell(hostile);
            // Each punctuation character stands behind a backslash, so
            // Markdown reads none of them as syntax...
            let mut chars = c.chars();
            while let Some(ch) = chars.next() {
                if ch == '\\' {
                    assert!(chars.next().is_some_and(|n| n.is_ascii_punctuation()));
                } else {
                    assert!(!ch.is_ascii_punctuation(), "{hostile:?} -> {c:?}");
                }
            }
            // ...and what it shows is the text as it was.
            assert_eq!(c.replace('\\', ""), hostile);
        }
    }
}
