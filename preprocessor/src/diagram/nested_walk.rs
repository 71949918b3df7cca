//! `nested-walk`: a guest's 4-level walk over a host's 4-level nested
//! tables, the 24 memory references numbered in order.

use std::fmt::Write;

use super::arrow::{ARROW_HEAD, WIDTH};

/// Row labels of the nested walk: the guest-physical address each row
/// translates, and what is read once it is translated.
const NESTED_ROWS: [(&str, &str); 5] = [
    ("guest CR3", "gL4 entry"),
    ("gL4 entry", "gL3 entry"),
    ("gL3 entry", "gL2 entry"),
    ("gL2 entry", "gL1 entry"),
    ("gL1 entry", "the data"),
];

/// The guest-physical address each row starts from is named in the first
/// column; the host's four cells start at `CELLS_X`, `CELL_STEP` apart and
/// `CELL_W` wide; the guest entry read after them at `READ_X`, `READ_W`
/// wide. At [`WIDTH`] every label fits its cell in a wide system font.
const CELLS_X: u32 = 72;
const CELL_STEP: u32 = 46;
const CELL_W: u32 = 42;
const READ_X: u32 = 272;
const READ_W: u32 = WIDTH - READ_X - 4;

/// The 2D walk: each of the guest's five guest-physical addresses (its
/// CR3 and four entries) needs a 4-step host walk before the next guest
/// entry can be read; numbered in the order the walker issues them.
pub(super) fn draw() -> String {
    let row_h = 44;
    let height = 30 + row_h * NESTED_ROWS.len() as u32;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"pw-nested-text\">\
         <text class=\"pw-dg-head\" x=\"{CELLS_X}\" y=\"18\">host walk (nested tables)</text>\
         <text class=\"pw-dg-head\" x=\"{READ_X}\" y=\"18\">then read</text>"
    );
    let mut n = 0;
    for (r, (from, read)) in NESTED_ROWS.iter().enumerate() {
        let y = 28 + row_h * r as u32;
        let _ = write!(svg, "<text x=\"4\" y=\"{ty}\">{from}</text>", ty = y + 22);
        for (c, level) in ["nL4", "nL3", "nL2", "nL1"].iter().enumerate() {
            n += 1;
            let x = CELLS_X + CELL_STEP * c as u32;
            let _ = write!(
                svg,
                "<g class=\"pw-dg-ref\" data-n=\"{n}\"><rect x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"36\" rx=\"4\" style=\"stroke: var(--pw-series-1)\"/>\
                 <text class=\"pw-dg-num\" x=\"{tx}\" y=\"{t1}\">{n}</text>\
                 <text class=\"pw-dg-note\" x=\"{tx}\" y=\"{t2}\">{level}</text></g>",
                tx = x + 7,
                t1 = y + 16,
                t2 = y + 30,
            );
        }
        let last = r + 1 == NESTED_ROWS.len();
        let (label, series) = if last {
            (String::new(), 3)
        } else {
            n += 1;
            (n.to_string(), 2)
        };
        let _ = write!(
            svg,
            "<line class=\"pw-dg-arrow\" x1=\"{a1}\" y1=\"{my}\" x2=\"{a2}\" y2=\"{my}\" marker-end=\"url(#pw-dg-head)\"/>\
             <g class=\"pw-dg-ref\"{data}><rect x=\"{READ_X}\" y=\"{y}\" width=\"{READ_W}\" height=\"36\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-num\" x=\"{rx}\" y=\"{t1}\">{label}</text>\
             <text class=\"pw-dg-note\" x=\"{rx}\" y=\"{t2}\">{read}</text></g>",
            my = y + 18,
            a1 = CELLS_X + CELL_STEP * 3 + CELL_W + 2,
            a2 = READ_X - 4,
            rx = READ_X + 7,
            t1 = y + 16,
            t2 = y + 30,
            data = if last {
                String::new()
            } else {
                format!(" data-n=\"{n}\"")
            },
        );
    }
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    format!(
        "<figure class=\"pw-diagram\" id=\"diagram-nested-walk\">{svg}\
         <figcaption><p id=\"pw-nested-text\">A TLB miss in a guest with four-level tables on a \
         host with four-level nested tables: each of the five guest-physical addresses (the \
         guest's CR3 and the four guest entries) is first walked through the host's four \
         levels, and only then is the next guest entry read. {n} memory references in all, \
         numbered in order, before the data itself.</p></figcaption></figure>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nested_walk_numbers_24_references() {
        let html = draw();
        assert_eq!(html.matches(" data-n=").count(), 24);
        assert!(html.contains("data-n=\"24\"") && !html.contains("data-n=\"25\""));
        assert!(html.contains("24 memory references in all"));
    }
}
