//! `page-fault`: the seven steps of a first-touch page fault, the CPU's and
//! the kernel's.

use std::fmt::Write;

use crate::helpers::escape_text;

use super::arrow::{ARROW_HEAD, WIDTH};

/// The seven steps, who runs each, and the words in its box.
const FAULT_STEPS: [(&str, &str, &str); 7] = [
    (
        "CPU",
        "Translation fails: no present entry;",
        "fault, address in CR2, into the kernel",
    ),
    (
        "kernel",
        "Find the VMA holding the address",
        "and check it allows the write",
    ),
    (
        "kernel",
        "Build any missing page-table",
        "page on the path (1 in 512 faults)",
    ),
    (
        "kernel",
        "Get a page: a huge one if THP",
        "succeeds, else 4 KiB; charge the cgroup",
    ),
    (
        "kernel",
        "Clear the page: 4,096 zero bytes,",
        "so no previous owner's data shows",
    ),
    (
        "kernel",
        "Install the PTE: frame, present,",
        "writable, user; RSS grows by a page",
    ),
    (
        "CPU",
        "Return and run the store again:",
        "the walk finds the entry, the byte lands",
    ),
];

/// The CPU's steps start at `CPU_X`, the kernel's are indented to
/// `KERNEL_X`; every box is `STEP_W` wide: its number, two lines of up to
/// 240 units (a line of 12 px text in a wide system font), and who runs it
/// beside the first line.
const CPU_X: u32 = 6;
const KERNEL_X: u32 = 30;
const STEP_W: u32 = WIDTH - KERNEL_X - 6;

/// The steps top down, each arrow to the next.
pub(super) fn draw() -> String {
    let step_h = 50;
    let height = 20 + step_h * FAULT_STEPS.len() as u32;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"pw-fault-caption pw-fault-desc\">"
    );
    for (i, (who, line1, line2)) in FAULT_STEPS.iter().enumerate() {
        let y = 10 + step_h * i as u32;
        // The CPU's steps on the left, the kernel's indented: the two sides
        // of the one exception.
        let (x, series) = if *who == "CPU" {
            (CPU_X, 1)
        } else {
            (KERNEL_X, 2)
        };
        let _ = write!(
            svg,
            "<g class=\"pw-dg-step\" data-who=\"{who}\">\
             <rect class=\"pw-dg-field\" x=\"{x}\" y=\"{y}\" width=\"{STEP_W}\" height=\"38\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-num\" x=\"{nx}\" y=\"{ty}\" style=\"fill: var(--pw-series-{series})\">{n}</text>\
             <text x=\"{tx}\" y=\"{t1}\">{line1}</text><text x=\"{tx}\" y=\"{t2}\">{line2}</text>\
             <text class=\"pw-dg-note\" x=\"{wx}\" y=\"{t1}\" text-anchor=\"end\">{who}</text></g>",
            n = i + 1,
            nx = x + 8,
            ty = y + 25,
            tx = x + 28,
            t1 = y + 16,
            t2 = y + 31,
            wx = x + STEP_W - 8,
            line1 = escape_text(line1),
            line2 = escape_text(line2),
        );
        if i + 1 < FAULT_STEPS.len() {
            let next_x = if FAULT_STEPS[i + 1].0 == "CPU" {
                CPU_X
            } else {
                KERNEL_X
            };
            let _ = write!(
                svg,
                "<line class=\"pw-dg-arrow\" x1=\"{a}\" y1=\"{y1}\" x2=\"{b}\" y2=\"{y2}\" marker-end=\"url(#pw-dg-head)\"/>",
                a = x + STEP_W / 2,
                b = next_x + STEP_W / 2,
                y1 = y + 38,
                y2 = y + step_h - 1,
            );
        }
    }
    let text: Vec<String> = FAULT_STEPS
        .iter()
        .enumerate()
        .map(|(i, (who, a, b))| format!("{} ({who}) {a} {b}.", i + 1))
        .collect();
    let _ = write!(
        svg,
        "<desc id=\"pw-fault-desc\">{}</desc>",
        escape_text(&text.join(" "))
    );
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    format!(
        "<figure class=\"pw-diagram\" id=\"diagram-page-fault\">{svg}\
         <figcaption><p id=\"pw-fault-caption\">The seven steps of a first-touch page fault: \
         the CPU's on the left, the kernel's indented.</p></figcaption></figure>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_steps() {
        assert_eq!(draw().matches("class=\"pw-dg-step\"").count(), 7);
    }
}
