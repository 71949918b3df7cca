//! Every term of the glossary is linked where a reader of the book first
//! meets it.
//!
//! The rule, as this test applies it:
//!
//! - **Terms.** Each `## Heading` of `book/glossary.md` is a term; its anchor
//!   is the heading's id as mdBook writes it (`## Page-walk cache` is
//!   `glossary.md#page-walk-cache`). The few entries whose heading is not a
//!   phrase the prose can use as it stands ("Minor and major faults") or
//!   that the chapters teach under a short form (VMA, "frame", "colour")
//!   have extra forms in [`ALIASES`].
//! - **Uses.** The chapters are read in `book/SUMMARY.md` order, up to the
//!   glossary (what follows it, the sources table, is reference matter read
//!   after it). What counts is the prose: fenced code blocks,
//!   headings (a heading is its section's own anchor and carries no links),
//!   Handlebars expressions (`{{...}}`, whose values are measured data),
//!   HTML tags and comments, images and link targets are skipped; inline
//!   code and link text count, but not a term that is part of a path
//!   (`khugepaged/pages_to_scan`). A use matches a form case-insensitively,
//!   on word boundaries, with a hyphen and a space (or a line break) taken as
//!   the same, in the singular or the plural with `s` or `es`. Where forms of two
//!   terms overlap the longer one is the use (a mention of an "L2 TLB" is a
//!   use of that term, not of "TLB").
//! - **Linked.** A use is linked when the whole of it lies in the text of a
//!   link to `glossary.md#ANCHOR`, or of a link to a section the glossary
//!   entry itself points to (the section that teaches it: one click from the
//!   definition either way). A use that lies *inside* a section the entry
//!   points to (under its heading, subsections included; the whole chapter
//!   when the entry links a chapter without an anchor) needs no link: the
//!   reader is at the definition.
//! - **First.** A use inside a Handlebars block (`{{#if}}`, `{{#each}}`,
//!   `{{#with}}`, `{{#whose}}`, an inline partial) shows only on some
//!   machines, so it cannot be the only link. Every use up to and including
//!   the first one outside every block must be linked (or taught where it
//!   stands); when every use is inside a block, all of them must be.
//!
//! The test also holds every link into the glossary to an entry that exists,
//! and every section an entry points to to a heading that exists.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../book");

/// Extra forms of a term, by anchor, where the heading alone would miss
/// how the chapters write it. Each form is matched like the heading.
const ALIASES: &[(&str, &[&str])] = &[
    // A heading naming two terms; each is used on its own.
    ("minor-and-major-faults", &["minor fault", "major fault"]),
    // The abbreviation the entry's own chapter introduces with it.
    ("virtual-memory-area", &["VMA"]),
    // The short forms the chapters teach the term with.
    ("canonical-address", &["canonical"]),
    ("page-colour", &["colour"]),
    ("page-frame", &["frame"]),
];

/// mdBook's id for a heading's text: emphasis and code marks dropped,
/// letters, digits, `_` and `-` kept (lower case), spaces made `-`.
fn heading_id(text: &str) -> String {
    text.replace(['`', '*'], "")
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// A heading line's level and text, if the line is one.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    let text = line[level..].strip_prefix(' ')?;
    (1..=6).contains(&level).then_some((level, text))
}

/// Whether a line opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// The links of a piece of Markdown: `(text, target)`.
fn links(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find("](") else { break };
        let Some(end) = rest[close + 2..].find(')') else {
            break;
        };
        out.push((
            rest[..close].to_string(),
            rest[close + 2..close + 2 + end].to_string(),
        ));
        rest = &rest[close + 2 + end..];
    }
    out
}

struct Term {
    name: String,
    anchor: String,
    /// The forms matched, normalised (lower case, hyphens as spaces).
    forms: Vec<String>,
    /// The sections that teach it: `chapter.md#section`, or `chapter.md`.
    taught_in: Vec<String>,
}

fn glossary() -> Vec<Term> {
    let text = std::fs::read_to_string(Path::new(BOOK).join("glossary.md")).unwrap();
    let mut terms: Vec<Term> = Vec::new();
    for line in text.lines() {
        if let Some((2, name)) = heading(line) {
            let anchor = heading_id(name);
            let mut bases = vec![name.to_string()];
            if let Some((_, extra)) = ALIASES.iter().find(|(a, _)| *a == anchor) {
                bases.extend(extra.iter().map(|s| s.to_string()));
            }
            let mut forms = Vec::new();
            for base in bases {
                let base = normalise(&base);
                if let Some(singular) = base.strip_suffix('s') {
                    forms.push(singular.to_string());
                }
                forms.push(format!("{base}es"));
                forms.push(format!("{base}s"));
                forms.push(base);
            }
            terms.push(Term {
                name: name.to_string(),
                anchor,
                forms,
                taught_in: Vec::new(),
            });
        } else if let Some(term) = terms.last_mut() {
            for (_, target) in links(line) {
                if !target.starts_with('#') && target.contains(".md") {
                    term.taught_in.push(target);
                }
            }
        }
    }
    terms
}

/// Lower case, hyphens and runs of white space as one space.
fn normalise(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        let c = if c == '-' || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    out
}

/// One character of a chapter's prose, normalised, with where it stands.
#[derive(Clone)]
struct At {
    c: char,
    line: usize,
    /// The target of the link whose text holds it, `chapter.md#x` form.
    link: Option<std::rc::Rc<str>>,
    /// Whether it lies inside a Handlebars block.
    conditional: bool,
    /// How many of the chapter's headings precede it.
    heading: usize,
}

struct Chapter {
    file: String,
    /// `(level, id)` of each heading, in order.
    headings: Vec<(usize, String)>,
    prose: Vec<At>,
}

impl Chapter {
    /// Whether position `i` lies under the heading `id` (its subsections
    /// included).
    fn in_section(&self, i: usize, id: &str) -> bool {
        let upto = self.prose[i].heading;
        let Some(start) = self.headings[..upto].iter().rposition(|(_, h)| h == id) else {
            return false;
        };
        let level = self.headings[start].0;
        self.headings[start + 1..upto]
            .iter()
            .all(|(l, _)| *l > level)
    }
}

/// Reads a chapter's prose: see the module's doc for what is skipped.
fn chapter(file: &str) -> Chapter {
    let text = std::fs::read_to_string(Path::new(BOOK).join(file)).unwrap();
    prose_of(file, &text)
}

fn prose_of(file: &str, text: &str) -> Chapter {
    // The prose lines, with their numbers; headings and code left out.
    let mut raw: Vec<(char, usize, usize)> = Vec::new();
    let mut headings = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if is_fence(line) {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some((level, title)) = heading(line) {
            // mdBook makes a repeated id unique with a counter.
            let id = heading_id(title);
            let n = seen.entry(id.clone()).or_insert(0);
            let id = if *n == 0 { id } else { format!("{id}-{n}") };
            *n += 1;
            headings.push((level, id));
            raw.push(('\n', i + 1, headings.len()));
            raw.push(('\n', i + 1, headings.len()));
            continue;
        }
        for c in line.chars() {
            raw.push((c, i + 1, headings.len()));
        }
        raw.push(('\n', i + 1, headings.len()));
    }
    let mut scan = Scan {
        file,
        raw: &raw,
        out: Vec::new(),
        depth: 0,
    };
    scan.inline(0, raw.len(), None);
    Chapter {
        file: file.to_string(),
        headings,
        prose: scan.out,
    }
}

struct Scan<'a> {
    file: &'a str,
    raw: &'a [(char, usize, usize)],
    out: Vec<At>,
    /// Open Handlebars blocks.
    depth: i32,
}

impl Scan<'_> {
    fn starts(&self, i: usize, s: &str) -> bool {
        (i..)
            .zip(s.chars())
            .all(|(j, c)| self.raw.get(j).map(|r| r.0) == Some(c))
    }

    fn find(&self, from: usize, end: usize, s: &str) -> Option<usize> {
        (from..end).find(|&j| self.starts(j, s))
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.raw[from..to].iter().map(|r| r.0).collect()
    }

    fn push(&mut self, i: usize, c: char, link: &Option<std::rc::Rc<str>>) {
        let c = if c == '-' || c.is_whitespace() || c == '|' {
            ' '
        } else {
            c
        };
        if c == ' ' && self.out.last().is_some_and(|a| a.c == ' ') {
            return;
        }
        let (_, line, heading) = self.raw[i];
        for c in c.to_lowercase() {
            self.out.push(At {
                c,
                line,
                link: link.clone(),
                conditional: self.depth > 0,
                heading,
            });
        }
    }

    /// A break no match may cross (where a skipped expression stood).
    fn cut(&mut self, i: usize) {
        let (_, line, heading) = self.raw[i];
        self.out.push(At {
            c: '\u{1}',
            line,
            link: None,
            conditional: self.depth > 0,
            heading,
        });
    }

    /// The index of the `]` closing the `[` at `open`, if any.
    fn closing_bracket(&self, open: usize, end: usize) -> Option<usize> {
        let mut depth = 0;
        let mut j = open;
        while j < end {
            match self.raw[j].0 {
                '\\' => j += 1,
                '`' => {
                    let ticks = (j..end).take_while(|&k| self.raw[k].0 == '`').count();
                    let fence = "`".repeat(ticks);
                    j = self
                        .find(j + ticks, end, &fence)
                        .map_or(end, |k| k + ticks - 1);
                }
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                '\n' if j + 1 < end && self.raw[j + 1].0 == '\n' => return None,
                _ => {}
            }
            j += 1;
        }
        None
    }

    fn inline(&mut self, from: usize, end: usize, link: Option<std::rc::Rc<str>>) {
        let mut i = from;
        while i < end {
            let c = self.raw[i].0;
            if self.starts(i, "{{!--") {
                i = self.find(i, end, "--}}").map_or(end, |k| k + 4);
                self.cut(i.min(end) - 1);
            } else if self.starts(i, "{{") {
                let close = self.find(i, end, "}}").expect("an unclosed {{");
                let inner = self.text(i + 2, close);
                let inner = inner.trim_start_matches(['{', '~']).trim();
                let mdbook = ["#include", "#rustdoc_include", "#playground", "#title"]
                    .iter()
                    .any(|d| inner.starts_with(d));
                if inner.starts_with('#') && !mdbook {
                    self.depth += 1;
                } else if inner.starts_with('/') {
                    self.depth -= 1;
                    assert!(
                        self.depth >= 0,
                        "{}: {{{{/...}}}} closes no block",
                        self.file
                    );
                }
                self.cut(i);
                i = close + 2;
                while i < end && self.raw[i].0 == '}' {
                    i += 1;
                }
            } else if self.starts(i, "<!--") {
                i = self.find(i, end, "-->").map_or(end, |k| k + 3);
            } else if c == '<'
                && self
                    .raw
                    .get(i + 1)
                    .is_some_and(|r| r.0.is_ascii_alphabetic() || r.0 == '/')
            {
                self.push(i, ' ', &None);
                i = self.find(i, end, ">").map_or(end, |k| k + 1);
            } else if c == '\\' {
                if i + 1 < end {
                    self.push(i + 1, self.raw[i + 1].0, &link);
                }
                i += 2;
            } else if c == '`' {
                let ticks = (i..end).take_while(|&k| self.raw[k].0 == '`').count();
                let fence = "`".repeat(ticks);
                match self.find(i + ticks, end, &fence) {
                    Some(k) => {
                        for j in i + ticks..k {
                            self.push(j, self.raw[j].0, &link);
                        }
                        i = k + ticks;
                    }
                    None => i += ticks,
                }
            } else if c == '[' || (c == '!' && self.raw.get(i + 1).is_some_and(|r| r.0 == '[')) {
                let image = c == '!';
                let open = if image { i + 1 } else { i };
                let target = self
                    .closing_bracket(open, end)
                    .filter(|&k| k + 1 < end && self.raw[k + 1].0 == '(')
                    .and_then(|k| self.find(k + 2, end, ")").map(|t| (k, t)));
                match target {
                    Some((close, paren)) => {
                        if !image {
                            let to = self.text(close + 2, paren);
                            let to = to.split_whitespace().next().unwrap_or_default();
                            let to = if to.starts_with('#') {
                                format!("{}{to}", self.file)
                            } else {
                                to.to_string()
                            };
                            self.cut(i);
                            self.inline(open + 1, close, Some(to.into()));
                            self.cut(close);
                        }
                        i = paren + 1;
                    }
                    None => {
                        self.push(i, ' ', &link);
                        i = open + 1;
                    }
                }
            } else if c == '*' {
                i += 1;
            } else {
                self.push(i, c, &link);
                i += 1;
            }
        }
    }
}

/// The chapters read before the glossary, in reading order.
fn reading_order() -> Vec<String> {
    let summary = std::fs::read_to_string(Path::new(BOOK).join("SUMMARY.md")).unwrap();
    let order: Vec<String> = links(&summary).into_iter().map(|(_, t)| t).collect();
    let glossary = order.iter().position(|t| t == "glossary.md");
    order[..glossary.expect("SUMMARY.md lists glossary.md")].to_vec()
}

/// A use of a term: where, and around it.
struct Use {
    chapter: usize,
    start: usize,
    end: usize,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every use of every term in one chapter, longest match first where two
/// overlap: `(term index, start, end)`.
fn uses_in(prose: &[At], terms: &[Term]) -> Vec<(usize, usize, usize)> {
    let text: Vec<char> = prose.iter().map(|a| a.c).collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        // A path's part (`khugepaged/pages_to_scan`) is a file's name.
        if (i > 0 && (is_word(text[i - 1]) || text[i - 1] == '/')) || !is_word(text[i]) {
            i += 1;
            continue;
        }
        let mut best: Option<(usize, usize)> = None;
        for (t, term) in terms.iter().enumerate() {
            for form in &term.forms {
                let n = form.chars().count();
                let fits = i + n <= text.len()
                    && form.chars().zip(&text[i..]).all(|(a, &b)| a == b)
                    && text.get(i + n).is_none_or(|&c| !is_word(c) && c != '/');
                if fits && best.is_none_or(|(_, len)| n > len) {
                    best = Some((t, n));
                }
            }
        }
        match best {
            Some((t, n)) => {
                found.push((t, i, i + n));
                i += n;
            }
            None => i += 1,
        }
    }
    found
}

#[test]
fn every_glossary_term_is_linked_at_its_first_use() {
    let terms = glossary();
    assert!(
        terms.len() >= 40,
        "only {} terms in the glossary",
        terms.len()
    );
    let chapters: Vec<Chapter> = reading_order().iter().map(|f| chapter(f)).collect();
    let by_file: HashMap<&str, &Chapter> = chapters.iter().map(|c| (c.file.as_str(), c)).collect();

    // Links into the glossary, and the glossary's links out, land somewhere.
    let mut problems = Vec::new();
    for c in &chapters {
        for a in &c.prose {
            if let Some(anchor) = a
                .link
                .as_deref()
                .and_then(|l| l.strip_prefix("glossary.md#"))
            {
                if !terms.iter().any(|t| t.anchor == anchor) {
                    problems.push(format!(
                        "book/{}:{}: no glossary entry #{anchor}",
                        c.file, a.line
                    ));
                }
            }
        }
    }
    for term in &terms {
        for to in &term.taught_in {
            let (file, id) = to.split_once('#').unwrap_or((to, ""));
            let exists = by_file
                .get(file)
                .is_some_and(|c| id.is_empty() || c.headings.iter().any(|(_, h)| h == id));
            if !exists {
                problems.push(format!(
                    "glossary {:?} points to {to}, which does not exist",
                    term.name
                ));
            }
        }
    }
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let mut uses: Vec<Vec<Use>> = terms.iter().map(|_| Vec::new()).collect();
    for (n, c) in chapters.iter().enumerate() {
        for (t, start, end) in uses_in(&c.prose, &terms) {
            uses[t].push(Use {
                chapter: n,
                start,
                end,
            });
        }
    }

    let mut report = String::new();
    let mut unlinked = String::new();
    let (mut checked, mut taught, mut never) = (0, 0, Vec::new());
    for (term, uses) in terms.iter().zip(&uses) {
        if uses.is_empty() {
            never.push(term.name.as_str());
            continue;
        }
        let glossary_link = format!("glossary.md#{}", term.anchor);
        let first_shown = uses
            .iter()
            .position(|u| !chapters[u.chapter].prose[u.start].conditional)
            .unwrap_or(uses.len() - 1);
        for u in &uses[..=first_shown] {
            checked += 1;
            let c = &chapters[u.chapter];
            let span = &c.prose[u.start..u.end];
            let linked_to = span[0].link.as_deref();
            let linked = linked_to.is_some_and(|to| {
                span.iter().all(|a| a.link.as_deref() == Some(to))
                    && (to == glossary_link || term.taught_in.iter().any(|t| t == to))
            });
            let in_place = term.taught_in.iter().any(|t| match t.split_once('#') {
                Some((file, id)) => file == c.file && c.in_section(u.start, id),
                None => *t == c.file,
            });
            taught += usize::from(in_place && !linked);
            let words: String = c.prose
                [u.start.saturating_sub(30)..(u.end + 30).min(c.prose.len())]
                .iter()
                .map(|a| if a.c == '\u{1}' { '·' } else { a.c })
                .collect();
            let at = format!("book/{}:{}", c.file, span[0].line);
            let how = if linked {
                "linked"
            } else if in_place {
                "in the section that teaches it"
            } else {
                writeln!(
                    unlinked,
                    "{at}: {:?} not linked to {glossary_link}: …{words}…",
                    term.name
                )
                .unwrap();
                "NOT LINKED"
            };
            writeln!(report, "{:28} {at:36} {how}", term.name).unwrap();
        }
    }
    println!("{report}");
    println!(
        "{} terms; {checked} first uses checked ({taught} in their teaching section); never used: {never:?}",
        terms.len()
    );
    assert!(
        unlinked.is_empty(),
        "first uses not linked to the glossary:\n{unlinked}"
    );
}

#[test]
fn the_scan_reads_prose_as_the_rule_says() {
    let text = "# Title\n\n\
        A [page\nwalk](glossary.md#page-walk) and a `khugepaged/pages_to_scan`.\n\n\
        ```sh\ncat page-walk-cache\n```\n\n\
        ## The section\n\n\
        {{#if x}}An L2-TLB and {{value y}} page walks{{/if}}; a page walk.\n";
    let c = prose_of("x.md", text);
    let terms: Vec<Term> = ["Page walk", "L2 TLB", "TLB", "khugepaged"]
        .iter()
        .map(|name| Term {
            name: name.to_string(),
            anchor: heading_id(name),
            forms: vec![normalise(name), format!("{}s", normalise(name))],
            taught_in: Vec::new(),
        })
        .collect();
    let found: Vec<(&str, Option<&str>, bool, usize)> = uses_in(&c.prose, &terms)
        .into_iter()
        .map(|(t, start, _)| {
            let a = &c.prose[start];
            (
                terms[t].name.as_str(),
                a.link.as_deref(),
                a.conditional,
                a.line,
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("Page walk", Some("glossary.md#page-walk"), false, 3),
            ("L2 TLB", None, true, 12),
            ("Page walk", None, true, 12),
            ("Page walk", None, false, 12),
        ]
    );
    assert_eq!(
        c.headings,
        [(1, "title".to_string()), (2, "the-section".to_string())]
    );
    let last = c.prose.iter().rposition(|a| a.c == 'w').unwrap();
    assert!(c.in_section(last, "the-section") && c.in_section(last, "title"));
}
