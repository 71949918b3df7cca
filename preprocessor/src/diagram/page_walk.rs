//! `page-walk`: the example address cut into its indexes and offset,
//! beside the tables they select; `theme/pagewalk-diagrams.js` turns it into
//! a decoder for any address and page size.

use std::fmt::Write;

use crate::helpers::escape_text;

use super::arrow::{ARROW_HEAD, WIDTH};
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

/// Rows are `ROW_H` apart: a box `BOX_H` tall and the arrow to the next
/// table. The field's box holds its name, its bits and its value on three
/// lines; the table's box its name and the entry read, so that the longest
/// name ("page-directory-pointer table") fits at [`WIDTH`].
const ROW_H: u32 = 62;
const BOX_H: u32 = 52;
/// The first row's top, under the two column heads.
const TOP: u32 = 26;
/// The field boxes' and the table boxes' left edges and widths.
const FIELD: (u32, u32) = (6, 112);
const TABLE: (u32, u32) = (148, 186);

/// The static walk of [`EXAMPLE_ADDRESS`] with 4 KiB pages, and the
/// decoder's form (hidden until the script shows it).
pub(super) fn draw() -> String {
    let d = decode(EXAMPLE_ADDRESS, PageSize::K4).expect("the example is canonical");
    let hex = format!("{EXAMPLE_ADDRESS:#x}");
    let mut svg = String::new();
    let height = TOP + ROW_H * ROWS.len() as u32 - (ROW_H - BOX_H) + 4;
    let (fx, fw) = FIELD;
    let (tx, tw) = TABLE;
    let _ = write!(
        svg,
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"pw-walk-text\">\
         <text class=\"pw-dg-head\" x=\"{fx}\" y=\"16\">address field</text>\
         <text class=\"pw-dg-head\" x=\"{tx}\" y=\"16\">what it selects</text>"
    );
    let bits = ["47–39", "38–30", "29–21", "20–12", "11–0"];
    for (i, (key, field, table)) in ROWS.iter().enumerate() {
        let y = TOP + ROW_H * i as u32;
        let value = match d.indexes.get(i) {
            Some(v) => v.to_string(),
            None => format!("{:#x}", d.offset),
        };
        let series = i % 5 + 1;
        let _ = write!(
            svg,
            "<g class=\"pw-dg-row pw-dg-row-{key}\">\
             <rect class=\"pw-dg-field\" x=\"{fx}\" y=\"{y}\" width=\"{fw}\" height=\"{BOX_H}\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text x=\"{ftx}\" y=\"{f1}\">{field}</text>\
             <text class=\"pw-dg-bits\" x=\"{ftx}\" y=\"{f2}\" data-bits=\"{key}\">bits {b}</text>\
             <text class=\"pw-dg-value\" x=\"{ftx}\" y=\"{f3}\" data-value=\"{key}\">{value}</text>\
             <line class=\"pw-dg-arrow\" x1=\"{a1}\" y1=\"{my}\" x2=\"{a2}\" y2=\"{my}\" marker-end=\"url(#pw-dg-head)\"/>\
             <rect class=\"pw-dg-table\" x=\"{tx}\" y=\"{y}\" width=\"{tw}\" height=\"{BOX_H}\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text x=\"{ttx}\" y=\"{t1}\" data-table=\"{key}\">{table}</text>\
             <text class=\"pw-dg-note\" x=\"{ttx}\" y=\"{t2}\" data-note=\"{key}\">{note}</text></g>",
            ftx = fx + 8,
            f1 = y + 17,
            f2 = y + 31,
            f3 = y + 46,
            a1 = fx + fw + 2,
            a2 = tx - 4,
            my = y + BOX_H / 2,
            ttx = tx + 8,
            t1 = y + 22,
            t2 = y + 39,
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
                "<line class=\"pw-dg-arrow pw-dg-chain pw-dg-chain-{key}\" x1=\"{cx}\" y1=\"{a}\" x2=\"{cx}\" y2=\"{b2}\" marker-end=\"url(#pw-dg-head)\"/>",
                cx = tx + tw / 2,
                a = y + BOX_H,
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
