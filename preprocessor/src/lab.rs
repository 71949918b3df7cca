//! `{{lab "NAME"}}`: the static HTML of an in-page experiment. The
//! controls start disabled and a `<noscript>` says why; the page's
//! `theme/pagewalk-lab.js` enables them and runs the experiment in a
//! worker. A lab with a chart carries it as a normal chart figure (drawn
//! from `data/` at build time by `pagewalk_lab::charts`), so the page's
//! own results and the files a reader loads are laid over it.
//!
//! | NAME | what |
//! | --- | --- |
//! | `first-touch` | grow memory, write each 4 KiB page twice; chart `lab-first-touch` |
//! | `chase` | the pointer chase over region sizes; chart `lab-chase` |
//! | `tlb-model` | sliders for an LRU TLB model; chart `lab-tlb-model` |
//! | `compare` | load collector JSON files to overlay on every chart of the page; two or more get the verdict table of `collector compare` |

use std::fmt::Write;
use std::sync::Arc;

use handlebars::Handlebars;
use pagewalk_figures::figure_html;

use crate::helpers::escape_text;
use pagewalk_lab::charts;

use crate::helpers::register_named;
use crate::DataSet;

pub const LABS: &[&str] = &["first-touch", "chase", "tlb-model", "compare"];

/// TLB entry counts the model's slider steps through.
const ENTRIES: &[u32] = &[
    8, 16, 32, 48, 64, 72, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096,
];
const PAGES: &[(u64, &str)] = &[
    (4096, "4 KiB"),
    (16384, "16 KiB"),
    (65536, "64 KiB"),
    (2 * 1024 * 1024, "2 MiB"),
    (1024 * 1024 * 1024, "1 GiB"),
];

pub fn register(hb: &mut Handlebars<'static>, data: Arc<DataSet>) {
    register_named(hb, "lab", "the lab's name", move |_, name| {
        lab_html(&data, name)
    });
}

/// The HTML for `{{lab "NAME"}}`: one block without blank lines, so
/// Markdown passes it through.
pub fn lab_html(data: &DataSet, name: &str) -> Result<String, String> {
    let (title, body) = match name {
        "first-touch" => ("First touch in this browser", first_touch()),
        "chase" => ("Pointer chase in this browser", chase()),
        "tlb-model" => ("A TLB model to play with", tlb_model(data)),
        "compare" => ("Compare machines", compare()),
        _ => return Err(format!("unknown lab `{name}` (known: {})", LABS.join(", "))),
    };
    let chart = match name {
        "first-touch" => Some(charts::FIRST_TOUCH),
        "chase" => Some(charts::CHASE),
        "tlb-model" => Some(charts::TLB_MODEL),
        _ => None,
    };
    // No chart before there is data: the figure (the collector's numbers
    // alone would sit at one size, pinned to an edge) stays hidden until
    // theme/pagewalk-lab.js lays this browser's results over it, and a
    // line says what will appear there.
    let figure = match chart {
        Some(chart) => {
            let runs: Vec<_> = data.run.iter().chain(&data.references).collect();
            let spec = charts::build(chart, &runs).map_err(|e| e.to_string())?;
            let empty = if name == "tlb-model" {
                "Move a control and the model's misses by region size are drawn here."
            } else {
                "Press Run and this browser's results are drawn here, beside the collector's."
            };
            let figure = figure_html(chart, &spec, &spec.title);
            // The line holds the place of the figure it stands for, at the
            // static layouts' proportions, so the figure that replaces it
            // moves nothing below (no layout shift when results arrive).
            let ratio = |layout: &str| {
                let at = figure.find(&format!("data-layout=\"{layout}\""))?;
                let view = &figure[at..];
                let v = view.find("viewBox=\"0 0 ")? + "viewBox=\"0 0 ".len();
                let dims = view.get(v..)?.split('"').next()?;
                let (w, h) = dims.split_once(' ')?;
                Some(format!(
                    "{}/{}",
                    w.parse::<f64>().ok()?,
                    h.parse::<f64>().ok()?
                ))
            };
            let style = match (ratio("wide"), ratio("narrow")) {
                (Some(w), Some(n)) => format!(" style=\"--pw-wide: {w}; --pw-narrow: {n}\""),
                _ => String::new(),
            };
            format!(
                "<p class=\"pw-lab-empty\"{style}>{}</p>\n<div class=\"pw-lab-chart\" hidden>\n{figure}</div>\n",
                escape_text(empty),
            )
        }
        None => String::new(),
    };
    let noscript = if name == "compare" {
        "Loading files and overlaying them needs JavaScript and WebAssembly, which are off here. \
         Nothing would be sent anywhere: the files are read in this page."
    } else {
        "This experiment runs in your browser with JavaScript and WebAssembly, which are off here; \
         the collector's numbers are in the charts of their chapters."
    };
    Ok(format!(
        "<section class=\"pw-lab\" id=\"lab-{id}\" data-lab=\"{id}\" data-pw-lab-state=\"static\" aria-label=\"{title}\">\n\
         {body}\
         <p class=\"pw-lab-error\" role=\"alert\" hidden></p>\n\
         <noscript><p class=\"pw-lab-noscript\">{noscript}</p></noscript>\n\
         {figure}</section>",
        id = escape_text(name),
        title = escape_text(title),
    ))
}

fn select(name: &str, label: &str, options: &[(String, String)], selected: &str) -> String {
    let mut s = format!(
        "<label>{} <select name=\"{}\" disabled>",
        escape_text(label),
        escape_text(name)
    );
    for (value, text) in options {
        let _ = write!(
            s,
            "<option value=\"{}\"{}>{}</option>",
            escape_text(value),
            if value == selected { " selected" } else { "" },
            escape_text(text)
        );
    }
    s.push_str("</select></label>\n");
    s
}

fn number(name: &str, label: &str, value: u32, min: u32, max: u32, unit: &str) -> String {
    format!(
        "<label>{} <input name=\"{}\" type=\"number\" value=\"{value}\" min=\"{min}\" max=\"{max}\" disabled> {}</label>\n",
        escape_text(label),
        escape_text(name),
        escape_text(unit)
    )
}

fn actions() -> &'static str {
    "<div class=\"pw-lab-actions\"><button type=\"button\" class=\"pw-lab-run\" disabled>Run</button> \
     <button type=\"button\" class=\"pw-lab-cancel\" disabled>Cancel</button> \
     <progress class=\"pw-lab-progress\" max=\"1\" value=\"0\"></progress> \
     <span class=\"pw-lab-status\" role=\"status\" aria-live=\"polite\"></span></div>\n\
     <p class=\"pw-lab-summary\"></p>\n"
}

fn mib_options(sizes: &[u64]) -> Vec<(String, String)> {
    sizes
        .iter()
        .map(|&m| {
            (
                m.to_string(),
                pagewalk_lab::size_label(m * pagewalk_lab::MIB),
            )
        })
        .collect()
}

fn first_touch() -> String {
    let reps: Vec<_> = (1..=5).map(|r| (r.to_string(), r.to_string())).collect();
    format!(
        "<div class=\"pw-lab-params\">\n{}{}{}{}</div>\n{}",
        select(
            "max-mib",
            "Largest size",
            &mib_options(&[16, 32, 64, 128, 256, 512]),
            "64"
        ),
        select("repetitions", "Repetitions", &reps, "3"),
        number("memory-cap-mib", "Memory cap", 1024, 16, 3072, "MiB"),
        number("time-cap-s", "Time cap", 60, 1, 600, "s"),
        actions()
    )
}

fn chase() -> String {
    let bounds: Vec<_> = [1u64, 4, 16, 64, 256, 512, 1024]
        .iter()
        .map(|&m| {
            (
                (m * 1024).to_string(),
                pagewalk_lab::size_label(m * pagewalk_lab::MIB),
            )
        })
        .collect();
    let samples: Vec<_> = [3, 5, 9]
        .iter()
        .map(|s| (s.to_string(), s.to_string()))
        .collect();
    format!(
        "<div class=\"pw-lab-params\">\n{}{}{}</div>\n{}",
        select(
            "max-kib",
            "Largest region (and memory cap)",
            &bounds,
            "65536"
        ),
        select("samples", "Samples per size", &samples, "5"),
        number("time-cap-s", "Time cap", 60, 1, 600, "s"),
        actions()
    )
}

/// The entries slider starts at the shown run's L1 dTLB for 4 KiB pages
/// when its staircase recorded one, else at 64.
fn tlb_model(data: &DataSet) -> String {
    let measured = data
        .run
        .as_ref()
        .and_then(|r| r.staircase())
        .and_then(|s| s.geometry.data_tlb(1, 4096))
        .map(|t| t.entries);
    let start = measured.unwrap_or(64);
    let index = ENTRIES
        .iter()
        .enumerate()
        .min_by_key(|(_, &e)| e.abs_diff(start))
        .map_or(4, |(i, _)| i);
    let entries = ENTRIES[index];
    let values = ENTRIES
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let pages: Vec<_> = PAGES
        .iter()
        .map(|(b, l)| (b.to_string(), l.to_string()))
        .collect();
    format!(
        "<div class=\"pw-lab-params\">\n\
         <label>TLB entries <input name=\"entries\" type=\"range\" min=\"0\" max=\"{max}\" step=\"1\" value=\"{index}\" \
         data-values=\"{values}\" disabled></label>\n\
         {page}\
         <output class=\"pw-lab-reach\">{entries} entries × 4 KiB = reach {reach}</output>\n\
         </div>\n",
        max = ENTRIES.len() - 1,
        page = select("page-bytes", "Page size", &pages, "4096"),
        reach = pagewalk_lab::size_label(u64::from(entries) * 4096),
    )
}

fn compare() -> String {
    // The page refuses a file over the model's own limit before reading it.
    format!(
        "<div class=\"pw-lab-drop\" data-max-file-bytes=\"{max}\"><p>Drop collector JSON files here, or</p> \
         <label class=\"pw-lab-choose\">choose files<input type=\"file\" accept=\".json,application/json\" multiple disabled></label> \
         <p>They are read in this page and sent nowhere.</p></div>\n\
         <ul class=\"pw-lab-files\"></ul>\n\
         <div class=\"pw-lab-verdicts\" aria-live=\"polite\" hidden></div>\n\
         <p><label><input type=\"checkbox\" name=\"keep\" disabled> Keep my in-page results in this browser \
         (localStorage), so they are here next time</label></p>\n",
        max = pagewalk_model::limits::MAX_FILE_BYTES
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> DataSet {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
        DataSet::load(std::path::Path::new(dir)).unwrap()
    }

    #[test]
    fn every_lab_is_one_markdown_block_with_a_noscript() {
        let data = data();
        for name in LABS {
            let html = lab_html(&data, name).unwrap();
            assert!(
                !html.contains("\n\n"),
                "{name}: a blank line ends the HTML block"
            );
            assert!(html.starts_with(&format!("<section class=\"pw-lab\" id=\"lab-{name}\"")));
            assert!(html.contains("<noscript>"), "{name}");
            assert!(html.ends_with("</section>"));
        }
    }

    #[test]
    fn labs_with_charts_carry_their_figure() {
        let data = data();
        for (lab, chart) in [
            ("first-touch", charts::FIRST_TOUCH),
            ("chase", charts::CHASE),
            ("tlb-model", charts::TLB_MODEL),
        ] {
            let html = lab_html(&data, lab).unwrap();
            assert!(
                html.contains(&format!("data-chart=\"{chart}\"")),
                "{lab} has no {chart} figure"
            );
            assert!(html.contains("class=\"pw-lab-") && html.contains(" disabled"));
            // Hidden until this browser has results to draw.
            assert!(
                html.contains("<div class=\"pw-lab-chart\" hidden>\n<figure class=\"pw-chart\""),
                "{lab}"
            );
        }
        assert!(!lab_html(&data, "compare").unwrap().contains("pw-chart"));
    }

    #[test]
    fn unknown_lab_names_the_known_ones() {
        let e = lab_html(&data(), "nope").unwrap_err();
        assert!(e.contains("first-touch, chase, tlb-model, compare"), "{e}");
    }
}
