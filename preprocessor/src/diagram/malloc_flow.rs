//! `malloc-flow`: glibc `malloc`'s four paths and the threshold that moves.

use std::fmt::Write;

use crate::helpers::escape_text;

use super::arrow::{ARROW_HEAD, WIDTH};

/// A box of the malloc flow: position, size, colour and its lines.
struct FlowBox {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    series: u32,
    dashed: bool,
    lines: &'static [&'static str],
}

/// The boxes top down, one column at [`WIDTH`]: the four paths tried in
/// turn, full width (their longest line, 223 units of 12 px text in a wide
/// system font, fits with room), then the threshold's two outcomes side by
/// side, and what freeing a mapped block does to it.
const FULL: u32 = WIDTH - 12;
const HALF: u32 = (FULL - 16) / 2;
const HEIGHT: u32 = 464;

const MALLOC_BOXES: [FlowBox; 8] = [
    FlowBox {
        x: 6,
        y: 6,
        w: FULL,
        h: 28,
        series: 6,
        dashed: false,
        lines: &["malloc(n)"],
    },
    FlowBox {
        x: 6,
        y: 58,
        w: FULL,
        h: 44,
        series: 1,
        dashed: false,
        lines: &[
            "1. tcache: a free chunk of this size",
            "class (up to 1032 B)? Pop it, no lock.",
        ],
    },
    FlowBox {
        x: 6,
        y: 126,
        w: FULL,
        h: 44,
        series: 2,
        dashed: false,
        lines: &[
            "2. arena bins, under a lock: fast,",
            "small, large, unsorted; split or merge",
        ],
    },
    FlowBox {
        x: 6,
        y: 194,
        w: FULL,
        h: 44,
        series: 3,
        dashed: false,
        lines: &["3. top of the heap: big enough?", "Cut a chunk from it."],
    },
    FlowBox {
        x: 6,
        y: 262,
        w: FULL,
        h: 44,
        series: 5,
        dashed: true,
        lines: &[
            "n at or above M_MMAP_THRESHOLD?",
            "(128 KiB at start; it moves)",
        ],
    },
    FlowBox {
        x: 6,
        y: 330,
        w: HALF,
        h: 44,
        series: 3,
        dashed: false,
        lines: &["brk grows the top;", "new pages fault"],
    },
    FlowBox {
        x: WIDTH - 6 - HALF,
        y: 330,
        w: HALF,
        h: 60,
        series: 4,
        dashed: false,
        lines: &["4. its own mmap;", "free is munmap", "(a fault, a flush)"],
    },
    FlowBox {
        x: 6,
        y: 414,
        w: FULL,
        h: 44,
        series: 4,
        dashed: true,
        lines: &[
            "freeing such a block raises the threshold to its",
            "size (at most 32 MiB): the next one uses the heap",
        ],
    },
];

/// glibc's `malloc` as the allocator chapter tells it: four paths tried
/// cheapest first, and the threshold that moves when mmap'd blocks are
/// freed. The threshold is asked last: `_int_malloc` tries the bins and
/// the top of the heap first, and only `sysmalloc`, called when neither
/// can serve the request, maps a block of its own (glibc 2.26 to 2.42).
pub(super) fn draw() -> String {
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-labelledby=\"pw-malloc-text\">",
    );
    for b in &MALLOC_BOXES {
        let dash = if b.dashed {
            " stroke-dasharray: 5 3;"
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" style=\"stroke: var(--pw-series-{});{dash}\"/>",
            b.x, b.y, b.w, b.h, b.series
        );
        for (i, line) in b.lines.iter().enumerate() {
            let _ = write!(
                svg,
                "<text x=\"{}\" y=\"{}\">{}</text>",
                b.x + 8,
                b.y + 18 + 15 * i as u32,
                escape_text(line)
            );
        }
    }
    // Arrows: down the main path, across to mmap, and the feedback from
    // the note back to the question.
    // Down the middle of the column; the threshold's "no" to the heap on
    // the left, its "yes" to a mapping on the right, and on to what its
    // free does.
    let mid = 6 + FULL / 2;
    let left = 6 + HALF / 2;
    let right = WIDTH - 6 - HALF / 2;
    let arrows: [(u32, u32, u32, u32, &str); 7] = [
        (mid, 34, mid, 57, ""),
        (mid, 102, mid, 125, "empty or too big"),
        (mid, 170, mid, 193, "no fit"),
        (mid, 238, mid, 261, "too small"),
        (left, 306, left, 329, "no"),
        (right, 306, right, 329, "yes"),
        (right, 390, right, 413, ""),
    ];
    for (x1, y1, x2, y2, label) in arrows {
        let _ = write!(
            svg,
            "<line class=\"pw-dg-arrow\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" marker-end=\"url(#pw-dg-head)\"/>"
        );
        if !label.is_empty() {
            let (lx, ly) = if y1 == y2 {
                (x1 + 4, y1 - 4)
            } else {
                (x1 + 6, y1 + 15)
            };
            let _ = write!(
                svg,
                "<text class=\"pw-dg-note\" x=\"{lx}\" y=\"{ly}\">{label}</text>"
            );
        }
    }
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    format!(
        "<figure class=\"pw-diagram\" id=\"diagram-malloc-flow\">{svg}\
         <figcaption><p id=\"pw-malloc-text\">How glibc serves malloc(n), cheapest first: \
         the thread's tcache for small sizes, then the arena's bins, then the top of the \
         heap. Only when none of them can serve it is the mmap threshold asked: at or \
         above it, a mapping of its own whose free is a munmap; below it, the heap grows. \
         Freeing an mmap'd block raises the threshold to that block's size, up to 32 MiB, \
         so the same request may next come from the heap.</p></figcaption></figure>\n"
    )
}
