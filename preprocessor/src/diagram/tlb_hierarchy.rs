//! `tlb-hierarchy`: where a load's translation is found, L1 dTLB down to
//! the walk, with the entries and reach CPUID gave the run.

use std::fmt::Write;

use crate::helpers::escape_text;
use serde_json::Value;

use super::arrow::ARROW_HEAD;

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

/// The second line of a level CPUID gives no sizes for.
fn fixed_detail(name: &str) -> &'static str {
    match name {
        "walk caches" => "recently used PML4, PDPT and PD entries",
        _ => "PML4 → PDPT → PD → PT, each from L1, L2, L3 or DRAM",
    }
}

/// The TLB hierarchy with the run's CPUID figures (`tlb.cpuid`): entries
/// and reach per page size, or "not reported".
pub(super) fn draw(ctx: &Value) -> String {
    let cpuid = &ctx["tlb"]["cpuid"];
    let box_h = 58;
    let height = 10 + (box_h + 14) * TLB_LEVELS.len() as u32;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 420 {height}\" role=\"img\" aria-labelledby=\"pw-tlb-text\">"
    );
    let mut words = Vec::new();
    for (i, (name, cost, keys)) in TLB_LEVELS.iter().enumerate() {
        let y = 10 + (box_h + 14) * i as u32;
        let figures: Vec<String> = keys
            .iter()
            .filter_map(|k| cpuid[*k]["arithmetic"].as_str().map(str::to_owned))
            .collect();
        let detail = match (keys.is_empty(), figures.is_empty()) {
            (true, _) => fixed_detail(name).to_string(),
            (false, true) => "sizes not reported by CPUID".to_string(),
            (false, false) => figures.join("; "),
        };
        let _ = write!(
            svg,
            "<g class=\"pw-dg-level\"><rect x=\"10\" y=\"{y}\" width=\"400\" height=\"{box_h}\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-head\" x=\"20\" y=\"{t1}\">{name}</text>\
             <text class=\"pw-dg-note\" x=\"400\" y=\"{t1}\" text-anchor=\"end\">{cost}</text>\
             <text x=\"20\" y=\"{t2}\" data-level=\"{i}\">{detail}</text></g>",
            series = i + 1,
            t1 = y + 20,
            t2 = y + 44,
            name = escape_text(name),
            cost = escape_text(cost),
            detail = escape_text(&detail),
        );
        if i + 1 < TLB_LEVELS.len() {
            let _ = write!(
                svg,
                "<line class=\"pw-dg-arrow\" x1=\"60\" y1=\"{a}\" x2=\"60\" y2=\"{b}\" marker-end=\"url(#pw-dg-head)\"/>\
                 <text class=\"pw-dg-note\" x=\"70\" y=\"{m}\">miss</text>",
                a = y + box_h,
                b = y + box_h + 13,
                m = y + box_h + 11,
            );
        }
        words.push(format!("{name} ({cost}): {detail}"));
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
        assert!(html.contains("data-level=\"1\">sizes not reported by CPUID"));
        // No run at all: still drawn, nothing invented.
        let empty = draw(&serde_json::json!({"tlb": null}));
        assert_eq!(empty.matches("sizes not reported by CPUID").count(), 4);
    }
}
