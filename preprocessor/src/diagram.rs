//! `{{diagram "NAME"}}`: a mechanism drawn as inline SVG in the charts'
//! palette (`--pw-series-*`, mdBook's `--fg`/`--bg`), with real `<text>`
//! (selectable, found by the browser's find) and a text alternative.
//!
//! | NAME | what |
//! | --- | --- |
//! | `page-walk` | an address cut into its PML4/PDPT/PD/PT indexes and offset, beside the tables they select; with JavaScript (`theme/pagewalk-diagrams.js`) the reader types an address and picks 4 KiB, 2 MiB or 1 GiB pages |
//! | `page-fault` | the seven steps of a first-touch page fault, CPU and kernel |
//! | `nested-walk` | a guest's 4-level walk over a host's 4-level tables: the grid of 24 numbered references |
//! | `malloc-flow` | glibc `malloc`'s four paths (tcache, bins, top, `mmap`) and the moving threshold |
//! | `tlb-hierarchy` | where a load's translation is found: L1 dTLB, L2 TLB, walk caches, the walk; with the entries and reach CPUID gave the run (`tlb.cpuid`) |

use std::fmt::Write;

use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderErrorReason,
};
use pagewalk_figures::esc;
use serde_json::Value;

pub const DIAGRAMS: &[&str] = &[
    "page-walk",
    "page-fault",
    "tlb-hierarchy",
    "nested-walk",
    "malloc-flow",
];

/// The address the static page walk decodes: a typical user-space stack
/// address, so every index is non-trivial.
pub const EXAMPLE_ADDRESS: u64 = 0x0000_7ffd_8a3b_2c10;

pub fn register(hb: &mut handlebars::Handlebars<'static>) {
    hb.register_helper(
        "diagram",
        Box::new(
            |h: &Helper,
             _: &Handlebars,
             ctx: &Context,
             _: &mut RenderContext,
             out: &mut dyn Output|
             -> HelperResult {
                let name = h.param(0).and_then(|p| p.value().as_str()).ok_or_else(|| {
                    RenderErrorReason::Other(
                        "{{diagram}}: takes the diagram's name as a string".into(),
                    )
                })?;
                let html = match name {
                    "page-walk" => page_walk(),
                    "page-fault" => page_fault(),
                    "tlb-hierarchy" => tlb_hierarchy(ctx.data()),
                    "nested-walk" => nested_walk(),
                    "malloc-flow" => malloc_flow(),
                    _ => {
                        return Err(RenderErrorReason::Other(format!(
                            "{{{{diagram}}}}: unknown diagram `{name}` (known: {})",
                            DIAGRAMS.join(", ")
                        ))
                        .into())
                    }
                };
                out.write(&html)?;
                Ok(())
            },
        ),
    );
}

/// The page sizes a 4-level x86-64 walk can end at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSize {
    K4,
    M2,
    G1,
}

impl PageSize {
    /// Bits of the address that are the offset inside the page.
    pub fn offset_bits(self) -> u32 {
        match self {
            PageSize::K4 => 12,
            PageSize::M2 => 21,
            PageSize::G1 => 30,
        }
    }

    /// How many table levels the walk reads (4, 3 or 2).
    pub fn levels(self) -> usize {
        match self {
            PageSize::K4 => 4,
            PageSize::M2 => 3,
            PageSize::G1 => 2,
        }
    }
}

/// An address cut up for a walk: the index into each level that is read
/// (PML4, PDPT, then PD and PT when the page is that small) and the offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub indexes: Vec<u16>,
    pub offset: u64,
}

/// Cuts `va` into its indexes and offset; `None` when it is not canonical
/// (bits 63..48 must repeat bit 47), which the CPU refuses before any walk.
pub fn decode(va: u64, size: PageSize) -> Option<Decoded> {
    let top = va >> 47;
    if top != 0 && top != (1 << 17) - 1 {
        return None;
    }
    let indexes = (0..size.levels())
        .map(|level| ((va >> (39 - 9 * level)) & 0x1ff) as u16)
        .collect();
    Some(Decoded {
        indexes,
        offset: va & ((1u64 << size.offset_bits()) - 1),
    })
}

/// One row of the walk: the address field and the table it indexes.
const ROWS: [(&str, &str, &str); 5] = [
    ("pml4", "PML4 index", "PML4 table (from CR3)"),
    ("pdpt", "PDPT index", "page-directory-pointer table"),
    ("pd", "PD index", "page directory"),
    ("pt", "PT index", "page table"),
    ("offset", "offset", "the 4 KiB page"),
];

const ROW_H: u32 = 52;

fn page_walk() -> String {
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
    esc(&format!(
        "{hex} with 4 KiB pages: {}, offset {:#x} ({}).",
        parts.join(", "),
        d.offset,
        d.offset
    ))
}

const ARROW_HEAD: &str =
    "<defs><marker id=\"pw-dg-head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" \
     markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
     <path d=\"M0,0 L10,5 L0,10 z\" class=\"pw-dg-arrowhead\"/></marker></defs>";

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

fn page_fault() -> String {
    let step_h = 50;
    let height = 20 + step_h * FAULT_STEPS.len() as u32;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 420 {height}\" role=\"img\" aria-labelledby=\"pw-fault-caption pw-fault-desc\">"
    );
    for (i, (who, line1, line2)) in FAULT_STEPS.iter().enumerate() {
        let y = 10 + step_h * i as u32;
        // The CPU's steps on the left, the kernel's indented: the two sides
        // of the one exception.
        let (x, series) = if *who == "CPU" { (10, 1) } else { (60, 2) };
        let _ = write!(
            svg,
            "<g class=\"pw-dg-step\" data-who=\"{who}\">\
             <rect class=\"pw-dg-field\" x=\"{x}\" y=\"{y}\" width=\"350\" height=\"38\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-num\" x=\"{nx}\" y=\"{ty}\" style=\"fill: var(--pw-series-{series})\">{n}</text>\
             <text x=\"{tx}\" y=\"{t1}\">{line1}</text><text x=\"{tx}\" y=\"{t2}\">{line2}</text>\
             <text class=\"pw-dg-note\" x=\"{wx}\" y=\"{t1}\" text-anchor=\"end\">{who}</text></g>",
            n = i + 1,
            nx = x + 10,
            ty = y + 25,
            tx = x + 34,
            t1 = y + 16,
            t2 = y + 31,
            wx = x + 344,
            line1 = esc(line1),
            line2 = esc(line2),
        );
        if i + 1 < FAULT_STEPS.len() {
            let next_x = if FAULT_STEPS[i + 1].0 == "CPU" {
                10
            } else {
                60
            };
            let _ = write!(
                svg,
                "<line class=\"pw-dg-arrow\" x1=\"{a}\" y1=\"{y1}\" x2=\"{b}\" y2=\"{y2}\" marker-end=\"url(#pw-dg-head)\"/>",
                a = x + 175,
                b = next_x + 175,
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
        esc(&text.join(" "))
    );
    svg.push_str(ARROW_HEAD);
    svg.push_str("</svg>");
    format!(
        "<figure class=\"pw-diagram\" id=\"diagram-page-fault\">{svg}\
         <figcaption><p id=\"pw-fault-caption\">The seven steps of a first-touch page fault: \
         the CPU's on the left, the kernel's indented.</p></figcaption></figure>\n"
    )
}

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
fn tlb_hierarchy(ctx: &Value) -> String {
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
            name = esc(name),
            cost = esc(cost),
            detail = esc(&detail),
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
        esc(&words.join("; then "))
    )
}

/// Row labels of the nested walk: the guest-physical address each row
/// translates, and what is read once it is translated.
const NESTED_ROWS: [(&str, &str); 5] = [
    ("guest CR3", "gL4 entry"),
    ("gL4 entry", "gL3 entry"),
    ("gL3 entry", "gL2 entry"),
    ("gL2 entry", "gL1 entry"),
    ("gL1 entry", "the data"),
];

/// The 2D walk: each of the guest's five guest-physical addresses (its
/// CR3 and four entries) needs a 4-step host walk before the next guest
/// entry can be read; numbered in the order the walker issues them.
fn nested_walk() -> String {
    let row_h = 44;
    let height = 30 + row_h * NESTED_ROWS.len() as u32;
    let mut svg = format!(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 420 {height}\" role=\"img\" aria-labelledby=\"pw-nested-text\">\
         <text class=\"pw-dg-head\" x=\"92\" y=\"18\">host walk (nested tables)</text>\
         <text class=\"pw-dg-head\" x=\"326\" y=\"18\">then read</text>"
    );
    let mut n = 0;
    for (r, (from, read)) in NESTED_ROWS.iter().enumerate() {
        let y = 28 + row_h * r as u32;
        let _ = write!(svg, "<text x=\"10\" y=\"{ty}\">{from}</text>", ty = y + 22);
        for (c, level) in ["nL4", "nL3", "nL2", "nL1"].iter().enumerate() {
            n += 1;
            let x = 92 + 54 * c as u32;
            let _ = write!(
                svg,
                "<g class=\"pw-dg-ref\" data-n=\"{n}\"><rect x=\"{x}\" y=\"{y}\" width=\"50\" height=\"36\" rx=\"4\" style=\"stroke: var(--pw-series-1)\"/>\
                 <text class=\"pw-dg-num\" x=\"{tx}\" y=\"{t1}\">{n}</text>\
                 <text class=\"pw-dg-note\" x=\"{tx}\" y=\"{t2}\">{level}</text></g>",
                tx = x + 8,
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
            "<line class=\"pw-dg-arrow\" x1=\"306\" y1=\"{my}\" x2=\"322\" y2=\"{my}\" marker-end=\"url(#pw-dg-head)\"/>\
             <g class=\"pw-dg-ref\"{data}><rect x=\"326\" y=\"{y}\" width=\"84\" height=\"36\" rx=\"4\" style=\"stroke: var(--pw-series-{series})\"/>\
             <text class=\"pw-dg-num\" x=\"334\" y=\"{t1}\">{label}</text>\
             <text class=\"pw-dg-note\" x=\"334\" y=\"{t2}\">{read}</text></g>",
            my = y + 18,
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

const MALLOC_BOXES: [FlowBox; 7] = [
    FlowBox {
        x: 10,
        y: 10,
        w: 250,
        h: 28,
        series: 6,
        dashed: false,
        lines: &["malloc(n)"],
    },
    FlowBox {
        x: 10,
        y: 58,
        w: 250,
        h: 44,
        series: 1,
        dashed: false,
        lines: &[
            "1. tcache: a free chunk of this size",
            "class (up to 1032 B)? Pop it, no lock.",
        ],
    },
    FlowBox {
        x: 10,
        y: 126,
        w: 250,
        h: 44,
        series: 5,
        dashed: true,
        lines: &[
            "n at or above M_MMAP_THRESHOLD?",
            "(128 KiB at start; it moves)",
        ],
    },
    FlowBox {
        x: 10,
        y: 194,
        w: 250,
        h: 44,
        series: 2,
        dashed: false,
        lines: &[
            "2. arena bins, under a lock: fast,",
            "small, large, unsorted; split or merge",
        ],
    },
    FlowBox {
        x: 10,
        y: 262,
        w: 250,
        h: 44,
        series: 3,
        dashed: false,
        lines: &[
            "3. top of the heap: cut a chunk;",
            "brk grows it, new pages fault",
        ],
    },
    FlowBox {
        x: 290,
        y: 118,
        w: 120,
        h: 60,
        series: 4,
        dashed: false,
        lines: &["4. its own mmap;", "free is munmap", "(a fault, a flush)"],
    },
    FlowBox {
        x: 290,
        y: 200,
        w: 120,
        h: 106,
        series: 4,
        dashed: true,
        lines: &[
            "freeing such a",
            "block raises the",
            "threshold to its",
            "size (at most",
            "32 MiB): the next",
            "one uses the heap",
        ],
    },
];

/// glibc's `malloc` as the allocator chapter tells it: four paths tried
/// cheapest first, and the threshold that moves when mmap'd blocks are
/// freed.
fn malloc_flow() -> String {
    let mut svg = String::from(
        "<svg class=\"pw-diagram-svg\" viewBox=\"0 0 420 316\" role=\"img\" aria-labelledby=\"pw-malloc-text\">",
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
                esc(line)
            );
        }
    }
    // Arrows: down the main path, across to mmap, and the feedback from
    // the note back to the question.
    let arrows: [(u32, u32, u32, u32, &str); 6] = [
        (135, 38, 135, 57, ""),
        (135, 102, 135, 125, "empty or too big"),
        (135, 170, 135, 193, "no"),
        (135, 238, 135, 261, "no fit"),
        (260, 148, 289, 148, "yes"),
        (350, 178, 350, 199, ""),
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
         the thread's tcache for small sizes; at or above the mmap threshold, a mapping of \
         its own whose free is a munmap; otherwise the arena's bins, then the top of the \
         heap. Freeing an mmap'd block raises the threshold to that block's size, up to \
         32 MiB, so the same request may next come from the heap.</p></figcaption></figure>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_known_addresses() {
        // The top of a user stack: the last user PML4 slot, the page below the top.
        assert_eq!(
            decode(0x0000_7fff_ffff_e000, PageSize::K4),
            Some(Decoded {
                indexes: vec![255, 511, 511, 510],
                offset: 0
            })
        );
        // A non-PIE program's text at 4 MiB + 4 KiB + 0x123.
        assert_eq!(
            decode(0x0000_0000_0040_1123, PageSize::K4),
            Some(Decoded {
                indexes: vec![0, 0, 2, 1],
                offset: 0x123
            })
        );
        // The kernel's text mapping on 2 MiB pages: upper half, slot 511.
        assert_eq!(
            decode(0xffff_ffff_8100_0abc, PageSize::M2),
            Some(Decoded {
                indexes: vec![511, 510, 8],
                offset: 0xabc
            })
        );
    }

    #[test]
    fn huge_pages_widen_the_offset_and_shorten_the_walk() {
        let va = 0x0000_7ffd_8a3b_2c10;
        let g = decode(va, PageSize::G1).unwrap();
        assert_eq!(g.indexes.len(), 2);
        assert_eq!(g.offset, va & 0x3fff_ffff);
        let k = decode(va, PageSize::K4).unwrap();
        // Same upper indexes whatever the page size.
        assert_eq!(k.indexes[..2], g.indexes[..]);
    }

    #[test]
    fn non_canonical_addresses_are_refused() {
        assert_eq!(decode(0x0000_8000_0000_0000, PageSize::K4), None);
        assert_eq!(decode(0xffff_7fff_ffff_ffff, PageSize::K4), None);
        assert!(decode(0xffff_8000_0000_0000, PageSize::K4).is_some());
    }

    #[test]
    fn the_static_walk_shows_the_example_decoded() {
        let html = page_walk();
        let d = decode(EXAMPLE_ADDRESS, PageSize::K4).unwrap();
        for (i, key) in ["pml4", "pdpt", "pd", "pt"].iter().enumerate() {
            assert!(html.contains(&format!("data-value=\"{key}\">{}</text>", d.indexes[i])));
        }
        assert!(html.contains("<form class=\"pw-decoder\" hidden>"));
        assert_eq!(page_fault().matches("class=\"pw-dg-step\"").count(), 7);
    }

    #[test]
    fn every_diagram_has_a_text_alternative_it_points_at() {
        for html in [
            page_walk(),
            page_fault(),
            nested_walk(),
            malloc_flow(),
            tlb_hierarchy(&Value::Null),
        ] {
            let ids = html
                .split("aria-labelledby=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            for id in ids.split(' ') {
                assert!(html.contains(&format!("id=\"{id}\"")), "no element {id}");
            }
            assert!(html.contains("<figcaption>"));
        }
    }

    #[test]
    fn the_nested_walk_numbers_24_references() {
        let html = nested_walk();
        assert_eq!(html.matches(" data-n=").count(), 24);
        assert!(html.contains("data-n=\"24\"") && !html.contains("data-n=\"25\""));
        assert!(html.contains("24 memory references in all"));
    }

    #[test]
    fn the_tlb_hierarchy_shows_the_runs_cpuid_figures() {
        let ctx = serde_json::json!({"tlb": {"cpuid": {
            "l1d_4k": {"arithmetic": "72 × 4 KiB = 288 KiB"},
            "l1d_2m": {"arithmetic": "32 × 2 MiB = 64 MiB"},
            "l2_4k": null
        }}});
        let html = tlb_hierarchy(&ctx);
        assert!(html.contains("72 × 4 KiB = 288 KiB; 32 × 2 MiB = 64 MiB"));
        assert!(html.contains("data-level=\"1\">sizes not reported by CPUID"));
        // No run at all: still drawn, nothing invented.
        let empty = tlb_hierarchy(&serde_json::json!({"tlb": null}));
        assert_eq!(empty.matches("sizes not reported by CPUID").count(), 4);
    }
}
