//! `mdbook-pagewalk`: the book's numbers and charts, filled in from `data/`.
//!
//! mdBook runs it twice per build: `mdbook-pagewalk supports <renderer>`,
//! then with the book as JSON on stdin, expecting the book back on stdout.

use std::io;
use std::process::ExitCode;

use mdbook_pagewalk::Pagewalk;
use mdbook_preprocessor::Preprocessor;
use pagewalk_model::display::{quoted_for_terminal, MAX_LINE_CHARS};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("supports") {
        // Only the HTML renderer knows what to do with the chart markup;
        // `mdbook test` gets the code blocks (see `doctest`).
        let supported = matches!(args.get(1).map(String::as_str), Some("html" | "test"));
        return if supported {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let result = mdbook_preprocessor::parse_input(io::stdin())
        .and_then(|(ctx, book)| Pagewalk.run(&ctx, book))
        .and_then(|book| Ok(serde_json::to_writer(io::stdout(), &book)?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The error may quote a file's name or text: made safe to
            // print, line by line (a template error shows the template's
            // lines; a reader's file name was escaped where it was named).
            let text = format!("{e:#}");
            let lines: Vec<String> = text
                .lines()
                .map(|l| quoted_for_terminal(l, MAX_LINE_CHARS))
                .collect();
            eprintln!("mdbook-pagewalk: {}", lines.join("\n"));
            ExitCode::FAILURE
        }
    }
}
