//! Writes a standalone HTML page with every chart, for trying the chart
//! component by hand without the book:
//!
//! ```sh
//! scripts/build-wasm
//! cargo run -p pagewalk-figures --example demo-page -- RUN.json [REFERENCE.json] > target/demo.html
//! cp book/gen/pagewalk-viz.js target/
//! # open target/demo.html (file:// works); switch themes with the buttons
//! ```

use std::path::Path;

use pagewalk_figures::{build, figure_html, CHART_NAMES};

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: demo-page RUN.json [REFERENCE.json]");
        std::process::exit(2);
    }
    let runs: Vec<_> = paths
        .iter()
        .map(|p| {
            pagewalk_model::read_run(Path::new(p)).unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1)
            })
        })
        .collect();
    let refs: Vec<&_> = runs.iter().collect();
    let mut body = String::new();
    for name in CHART_NAMES {
        match build(name, &refs) {
            Ok(spec) => {
                body.push_str(&figure_html(
                    name,
                    &spec,
                    &format!("Demo of the chart `{name}`."),
                ));
                body.push_str("\n\n");
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    let themes = ["light", "rust", "coal", "navy", "ayu"]
        .map(|t| {
            format!("<button onclick=\"document.documentElement.className='{t}'\">{t}</button>")
        })
        .join(" ");
    println!(
        "<!DOCTYPE html>\n<html lang=\"en\" class=\"light\"><head><meta charset=\"utf-8\"><title>pagewalk charts demo</title>\n\
         <style>:root{{--bg:#fff;--fg:#000}} html.rust{{--bg:#e1e1db;--fg:#262625}} html.coal{{--bg:#141617;--fg:#98a3ad}} \
         html.navy{{--bg:#161923;--fg:#bcbdd0}} html.ayu{{--bg:#0f1419;--fg:#c5c5c5}} \
         body{{background:var(--bg);color:var(--fg);font-family:sans-serif;max-width:50em;margin:2em auto}}</style>\n\
         <link rel=\"stylesheet\" href=\"../pagewalk.css\"></head><body>\n<p>{themes}</p>\n{body}\
         <script src=\"pagewalk-viz.js\"></script>\n</body></html>"
    );
}
