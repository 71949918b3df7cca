//! `page-walk`: the example address cut into its indexes and offset,
//! beside the tables they select; `theme/pagewalk-diagrams.js` turns it into
//! a decoder for any address and page size.

use std::fmt::Write;

use crate::helpers::escape_text;

use super::arrow::ARROW_HEAD;
use super::{decode, Decoded, PageSize};

/// The address the static page walk decodes: a typical user-space stack
/// address, so every index is non-trivial.
pub const EXAMPLE_ADDRESS: u64 = 0x0000_7ffd_8a3b_2c10;

/// One row of the walk: the address field and the table it indexes.
const ROWS: [(&str, &str, &str); 5] = [
    ("pml4", "PML4 index", "PML4 table (from CR3)"),
    ("pdpt", "PDPT index", "page-directory-pointer table"),
    ("pd", "PD index", "page directory"),
    ("pt", "PT index", "page table"),
    ("offset", "offset", "the 4 KiB page"),
];

const ROW_H: u32 = 52;

/// The static walk of [`EXAMPLE_ADDRESS`] with 4 KiB pages, and the
/// decoder's form (hidden until the script shows it).
pub(super) fn draw() -> String {
    let d = decode(EXAMPLE_ADDRESS, PageSize::K4).expect("the example is canonical");
    let hex = format!("{EXAMPLE_ADDRESS:#x}");
    let mut svg = String::new();
    let height = 30 + ROW_H * ROWS.len() as u32;
    let _ = write!(
        svg,
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 420 {height}\" role=\"img\" aria-labelledby=\"pw-walk-text\">"
    );
    let _ = write!(
        svg,
        "<text class=\"pw-dg-head\" x=\"10\" y=\"18\">address field</text>\
         <text class=\"pw-dg-head\" x=\"228\" y=\"18\">what it selects</text>"
    );
    let bits = ["47–39", "38–30", "29–21", "20–12", "11–0"];
    for (i, (key, field, table)) in ROWS.iter().enumerate() {
        let y = 30 + ROW_H * i as u32;
        let value = match d.indexes.get(i) {
            Some(v) => v.to_string(),
            None => format!("{:#x}", d.offset),
        };
        let series = i % 5 + 1;
        let _ = write!(
            svg,
            "<g class=\"pw-dg-row pw-dg-row-{key}\">\
             <rect class=\"pw-dg-field\" x=\"10\" y=\"{y}\" width=\"180\" height=\"40\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text x=\"20\" y=\"{ty}\">{field} <tspan class=\"pw-dg-bits\" data-bits=\"{key}\">bits {b}</tspan></text>\
             <text class=\"pw-dg-value\" x=\"20\" y=\"{vy}\" data-value=\"{key}\">{value}</text>\
             <line class=\"pw-dg-arrow\" x1=\"192\" y1=\"{my}\" x2=\"222\" y2=\"{my}\" marker-end=\"url(#pw-dg-head)\"/>\
             <rect class=\"pw-dg-table\" x=\"228\" y=\"{y}\" width=\"182\" height=\"40\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text x=\"238\" y=\"{ty}\" data-table=\"{key}\">{table}</text>\
             <text class=\"pw-dg-note\" x=\"238\" y=\"{vy}\" data-note=\"{key}\">{note}</text></g>",
            ty = y + 16,
            vy = y + 33,
            my = y + 20,
            b = bits[i],
            note = if *key == "offset" {
                format!("byte {value}")
            } else {
                format!("entry {value} of 512")
            },
        );
        if i + 1 < ROWS.len() {
            let _ = write!(
                svg,
                "<line class=\"pw-dg-arrow pw-dg-chain pw-dg-chain-{key}\" x1=\"319\" y1=\"{a}\" x2=\"319\" y2=\"{b2}\" marker-end=\"url(#pw-dg-head)\"/>",
                a = y + 40,
                b2 = y + ROW_H - 1,
            );
        }
    }
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    let text = walk_sentence(&hex, &d);
    format!(
        "<figure class=\"pw-diagram pw-walk\" id=\"diagram-page-walk\" data-size=\"4k\">\
         <form class=\"pw-decoder\" hidden>\
         <label for=\"pw-walk-address\">Virtual address (hexadecimal)</label> \
         <input id=\"pw-walk-address\" class=\"pw-walk-address\" type=\"text\" spellcheck=\"false\" autocomplete=\"off\" value=\"{hex}\"> \
         <fieldset class=\"pw-walk-sizes\"><legend>Page size</legend>\
         <label><input type=\"radio\" name=\"pw-walk-size\" value=\"4k\" checked> 4 KiB</label> \
         <label><input type=\"radio\" name=\"pw-walk-size\" value=\"2m\"> 2 MiB</label> \
         <label><input type=\"radio\" name=\"pw-walk-size\" value=\"1g\"> 1 GiB</label>\
         </fieldset></form>\
         {svg}\
         <figcaption><p id=\"pw-walk-text\" class=\"pw-walk-text\" aria-live=\"polite\">{text}</p>\
         <p>Each index picks one of 512 eight-byte entries in its table; the entry holds \
         the physical address of the next table, and the last one read holds the page's. \
         With 2 MiB pages the walk stops at the page directory and the PT bits join the \
         offset; with 1 GiB pages it stops at the PDPT.</p></figcaption></figure>\n"
    )
}

/// The decoded address in words: the diagram's text alternative.
fn walk_sentence(hex: &str, d: &Decoded) -> String {
    let names = ["PML4", "PDPT", "PD", "PT"];
    let parts: Vec<String> = d
        .indexes
        .iter()
        .zip(names)
        .map(|(i, n)| format!("{n} entry {i}"))
        .collect();
    escape_text(&format!(
        "{hex} with 4 KiB pages: {}, offset {:#x} ({}).",
        parts.join(", "),
        d.offset,
        d.offset
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_static_walk_shows_the_example_decoded() {
        let html = draw();
        let d = decode(EXAMPLE_ADDRESS, PageSize::K4).unwrap();
        for (i, key) in ["pml4", "pdpt", "pd", "pt"].iter().enumerate() {
            assert!(html.contains(&format!("data-value=\"{key}\">{}</text>", d.indexes[i])));
        }
        assert!(html.contains("<form class=\"pw-decoder\" hidden>"));
    }
}
