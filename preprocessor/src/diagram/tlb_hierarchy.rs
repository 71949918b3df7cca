//! `tlb-hierarchy`: where a load's translation is found, L1 dTLB down to
//! the walk, with the entries and reach CPUID gave the run.

use std::fmt::Write;

use crate::helpers::escape_text;
use serde_json::Value;

use super::arrow::{ARROW_HEAD, WIDTH};

/// The levels a translation is looked up in, top down: name, what a hit
/// costs in words, and the `tlb.cpuid` keys whose entries it holds.
const TLB_LEVELS: [(&str, &str, &[&str]); 4] = [
    (
        "L1 dTLB",
        "hit: no delay, in parallel with the L1 cache",
        &["l1d_4k", "l1d_2m", "l1d_1g"],
    ),
    (
        "L2 TLB (STLB)",
        "hit: a few cycles more",
        &["l2_4k", "l2_2m", "l2_1g"],
    ),
    ("walk caches", "hit: the walk starts lower", &[]),
    ("page walk", "up to 4 dependent loads", &[]),
];

/// The lines of a level CPUID gives no sizes for.
fn fixed_detail(name: &str) -> &'static [&'static str] {
    match name {
        "walk caches" => &["recently used PML4, PDPT and PD entries"],
        _ => &["PML4 → PDPT → PD → PT,", "each from L1, L2, L3 or DRAM"],
    }
}

/// A level's box: its name, what a hit costs, then one line per page size
/// (`72 × 4 KiB = 288 KiB`) or per line of [`fixed_detail`], so that no
/// line outgrows the box however many page sizes CPUID reported.
const LINE_H: u32 = 16;
/// The space between two boxes, where the "miss" arrow runs.
const GAP: u32 = 16;
const BOX_X: u32 = 6;

fn box_height(lines: usize) -> u32 {
    44 + LINE_H * lines as u32
}

/// The TLB hierarchy with the run's CPUID figures (`tlb.cpuid`): entries
/// and reach per page size, or "not reported".
pub(super) fn draw(ctx: &Value) -> String {
    let cpuid = &ctx["tlb"]["cpuid"];
    // Each level's lines, and what joins them in words: the figures are a
    // list, a fixed detail one sentence broken in two.
    let levels: Vec<(&str, &str, Vec<String>, &str)> = TLB_LEVELS
        .iter()
        .map(|(name, cost, keys)| {
            let figures: Vec<String> = keys
                .iter()
                .filter_map(|k| cpuid[*k]["arithmetic"].as_str().map(str::to_owned))
                .collect();
            let (lines, sep) = match (keys.is_empty(), figures.is_empty()) {
                (true, _) => (
                    fixed_detail(name).iter().map(|l| l.to_string()).collect(),
                    " ",
                ),
                (false, true) => (vec!["sizes not reported by CPUID".to_string()], " "),
                (false, false) => (figures, "; "),
            };
            (*name, *cost, lines, sep)
        })
        .collect();
    let height = 6 + levels
        .iter()
        .map(|(_, _, lines, _)| box_height(lines.len()) + GAP)
        .sum::<u32>()
        - GAP
        + 4;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"pw-tlb-text\">"
    );
    let mut words = Vec::new();
    let mut y = 6;
    for (i, (name, cost, lines, sep)) in levels.iter().enumerate() {
        let box_h = box_height(lines.len());
        let _ = write!(
            svg,
            "<g class=\"pw-dg-level\"><rect x=\"{BOX_X}\" y=\"{y}\" width=\"{w}\" height=\"{box_h}\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-head\" x=\"{tx}\" y=\"{t1}\">{name}</text>\
             <text class=\"pw-dg-note\" x=\"{tx}\" y=\"{t2}\">{cost}</text>\
             <text x=\"{tx}\" y=\"{t3}\" data-level=\"{i}\">",
            w = WIDTH - 2 * BOX_X,
            series = i + 1,
            tx = BOX_X + 10,
            t1 = y + 18,
            t2 = y + 34,
            t3 = y + 34 + LINE_H,
            name = escape_text(name),
            cost = escape_text(cost),
        );
        // One line each; what joins two lines in words stays between them
        // (at the end of the first), for the text copied or searched.
        for (k, line) in lines.iter().enumerate() {
            if k > 0 {
                svg.push_str(sep.trim_end());
                svg.push(' ');
            }
            let _ = write!(
                svg,
                "<tspan x=\"{tx}\" y=\"{ty}\">{line}</tspan>",
                tx = BOX_X + 10,
                ty = y + 34 + LINE_H * (k as u32 + 1),
                line = escape_text(line),
            );
        }
        svg.push_str("</text></g>");
        if i + 1 < levels.len() {
            let _ = write!(
                svg,
                "<line class=\"pw-dg-arrow\" x1=\"60\" y1=\"{a}\" x2=\"60\" y2=\"{b}\" marker-end=\"url(#pw-dg-head)\"/>\
                 <text class=\"pw-dg-note\" x=\"70\" y=\"{m}\">miss</text>",
                a = y + box_h,
                b = y + box_h + GAP - 1,
                m = y + box_h + 12,
            );
        }
        words.push(format!("{name} ({cost}): {}", lines.join(sep)));
        y += box_h + GAP;
    }
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    format!(
        "<figure class=\"pw-diagram\" id=\"diagram-tlb-hierarchy\">{svg}\
         <figcaption><p id=\"pw-tlb-text\">Where a load's translation is found, each level \
         tried on a miss in the one above: {}. Entries and reach are what CPUID reported \
         on the run this book shows.</p></figcaption></figure>\n",
        escape_text(&words.join("; then "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tlb_hierarchy_shows_the_runs_cpuid_figures() {
        let ctx = serde_json::json!({"tlb": {"cpuid": {
            "l1d_4k": {"arithmetic": "72 × 4 KiB = 288 KiB"},
            "l1d_2m": {"arithmetic": "32 × 2 MiB = 64 MiB"},
            "l2_4k": null
        }}});
        let html = draw(&ctx);
        assert!(html.contains("72 × 4 KiB = 288 KiB; 32 × 2 MiB = 64 MiB"));
        let level = |i: usize| {
            let after = html.split(&format!("data-level=\"{i}\">")).nth(1).unwrap();
            after.split("</text>").next().unwrap().to_string()
        };
        assert!(level(1).ends_with(">sizes not reported by CPUID</tspan>"));
        // One line per page size, the first ending in the list's "; ".
        assert!(html.contains(">72 × 4 KiB = 288 KiB</tspan>; <tspan"));
        // Three page sizes per level (a run with 1 GiB entries): three
        // lines, each short enough for the box in a wide font (about 7
        // units a character at 12 px), and the box as tall as its lines.
        let all = draw(&serde_json::json!({"tlb": {"cpuid": {
            "l1d_4k": {"arithmetic": "72 × 4 KiB = 288 KiB"},
            "l1d_2m": {"arithmetic": "72 × 2 MiB = 144 MiB"},
            "l1d_1g": {"arithmetic": "4 × 1 GiB = 4 GiB"},
            "l2_4k": {"arithmetic": "3072 × 4 KiB = 12 MiB"},
            "l2_2m": {"arithmetic": "3072 × 2 MiB = 6 GiB"},
            "l2_1g": {"arithmetic": "1024 × 1 GiB = 1 TiB"}
        }}}));
        let l2 = all.split("data-level=\"1\">").nth(1).unwrap();
        let l2 = l2.split("</text>").next().unwrap();
        assert_eq!(l2.matches("<tspan").count(), 3);
        assert!(all.contains(&format!("height=\"{}\"", box_height(3))));
        let room = (WIDTH - 2 * BOX_X - 20) as usize / 7;
        for line in all.split("<tspan").skip(1) {
            let text = line.split('>').nth(1).unwrap().split('<').next().unwrap();
            assert!(
                text.chars().count() <= room,
                "{text:?} is wider than its box"
            );
        }
        // No run at all: still drawn, nothing invented.
        let empty = draw(&serde_json::json!({"tlb": null}));
        assert_eq!(empty.matches("sizes not reported by CPUID").count(), 4);
    }
}
