//! The colours and shapes a chart is drawn with.
//!
//! A series is told apart by a hue *and* a shape, never by hue alone:
//! six hues for the book's own series (the run, the published
//! references), one hue kept for what this browser measured and one for
//! the files a reader drops (a second file takes a hue the chart leaves
//! free, see [`styles`]), and in each hue six shapes (a line chart's
//! marker, a bar's fill). [`styles`] gives every legend entry of a chart
//! its own pair; `figures/tests/palette.rs` holds each hue to 3:1 against
//! the background of all five mdBook themes and every chart of the example
//! run, the lab and dropped files to distinct pairs.

use crate::spec::{ChartSpec, MarkerKind, Role};

/// Colours a chart is drawn with. In the page they come from the theme's
/// CSS custom properties (`--pw-series-1` .. `--pw-series-6`,
/// `--pw-browser`, `--pw-file`, `--pw-axis`, `--pw-grid`, `--fg`, `--bg`,
/// in `theme/pagewalk.css`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    /// The hues of the run's and the references' series, in order.
    pub series: Vec<String>,
    /// The hue of this browser's own results (the lab), and no one else's.
    pub browser: String,
    /// The hue of the run files a reader drops on the page (the first
    /// file's; another file takes a hue its chart leaves free, [`styles`]).
    pub file: String,
    pub axis: String,
    pub grid: String,
    pub fg: String,
    pub bg: String,
}

/// How many shapes each hue comes in: a chart tells apart six of this
/// browser's entries and six dropped files' (two files of three series).
pub const SHAPES: u8 = 6;

/// A legend entry's look: its hue and its shape in that hue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    pub hue: Hue,
    /// `0..SHAPES`: a line's marker (circle, square, triangle, diamond,
    /// triangle down, plus); a bar's fill (solid, light with an edge,
    /// outline, dashed outline, light with a dashed edge, dotted outline).
    pub shape: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hue {
    /// [`Palette::series`]`[i]`.
    Series(usize),
    Browser,
    File,
}

impl Palette {
    /// The static fallback's palette: mdBook's light theme (the `:root`
    /// block of `theme/pagewalk.css`, which a test holds it to).
    pub fn light() -> Palette {
        Palette {
            series: [
                "#1f5fa8", "#c2410c", "#2f7d32", "#7b3fa0", "#9a6a00", "#0f7b7b",
            ]
            .map(String::from)
            .to_vec(),
            browser: "#b8196b".to_string(),
            file: "#5b6b00".to_string(),
            axis: "#5c5c5c".to_string(),
            grid: "#e3e3e3".to_string(),
            fg: "#1a1a1a".to_string(),
            bg: "#ffffff".to_string(),
        }
    }

    pub fn colour(&self, hue: Hue) -> &str {
        match hue {
            Hue::Series(i) if !self.series.is_empty() => &self.series[i % self.series.len()],
            Hue::Series(_) => &self.fg,
            Hue::Browser => &self.browser,
            Hue::File => &self.file,
        }
    }
}

/// The legend entry of each of `spec`'s series, numbered in order of first
/// appearance: a source drawn in several panels is one entry
/// ([`ChartSpec::legend_name`]). Returns the entries' first series too.
pub fn entries(spec: &ChartSpec) -> (Vec<usize>, Vec<usize>) {
    let mut first: Vec<usize> = Vec::new();
    let mut of = Vec::new();
    for (i, s) in spec.series.iter().enumerate() {
        let name = spec.legend_name(s);
        let mut e = 0;
        while e < first.len() && spec.legend_name(&spec.series[first[e]]) != name {
            e += 1;
        }
        if e == first.len() {
            first.push(i);
        }
        of.push(e);
    }
    (of, first)
}

/// The style of each of `spec`'s series (series of one legend entry share
/// one). The run's and the references' entries take the series hues in
/// turn; on a line chart each also takes the next marker, so curves that
/// lie on top of each other (4 KiB, THP and 1 GiB pages in a cache) stay
/// apart without colour. On a bar chart a reference takes the fill after a
/// run's (a lighter bar), and after six hues the next fills. This
/// browser's entries take their own hue, one shape after another. Each
/// dropped file takes a hue of its own, one no other entry (nor a kind of
/// x marker) of the chart has: the files' hue first, then this browser's
/// where the chart shows none of its results, then the series hues left
/// free; its series take the shapes in turn. Two files never share a
/// colour while a free hue remains, and none takes the run's.
pub fn styles(spec: &ChartSpec) -> Vec<Style> {
    let lines = spec.kind == crate::spec::ChartKind::Lines;
    let (of, first) = entries(spec);
    // Hues by slot: the series hues 0..6, this browser's (6), the files' (7).
    let mut taken = [false; 8];
    let mut own = 0u8;
    for &i in &first {
        match spec.series[i].role {
            Role::Browser => taken[6] = true,
            Role::File => {}
            _ => {
                taken[usize::from(own % 6)] = true;
                own += 1;
            }
        }
    }
    for m in &spec.x.markers {
        match m.kind {
            MarkerKind::Cache => taken[4] = true,
            MarkerKind::Tlb => taken[5] = true,
            MarkerKind::Step => {}
        }
    }
    // Each file's slot, by its label (the name before `: `), and the next
    // shape of each slot.
    let mut files: Vec<(&str, usize)> = Vec::new();
    let mut next = [0u8; 8];
    own = 0;
    let mut style = Vec::new();
    for &i in &first {
        let role = spec.series[i].role;
        let (hue, shape) = match role {
            Role::Run | Role::Reference => {
                let n = own;
                own += 1;
                let shape = if lines {
                    n
                } else {
                    n / 6 * 2 + u8::from(role == Role::Reference)
                };
                (Hue::Series(usize::from(n % 6)), shape)
            }
            _ => {
                let slot = if role == Role::Browser {
                    6
                } else {
                    let name = spec.legend_name(&spec.series[i]);
                    // A byte loop: `str::find`'s searcher is kilobytes of wasm.
                    let b = name.as_bytes();
                    let mut at = 0;
                    while at + 1 < b.len() && !(b[at] == b':' && b[at + 1] == b' ') {
                        at += 1;
                    }
                    let label = name.get(..at).filter(|_| at + 1 < b.len()).unwrap_or(name);
                    match files.iter().find(|f| f.0 == label) {
                        Some(f) => f.1,
                        None => {
                            // Most apart from the olive and from each other first.
                            let mut slot = 7;
                            for s in [7, 6, 3, 5, 0, 2, 1, 4] {
                                if !taken[s] {
                                    slot = s;
                                    break;
                                }
                            }
                            taken[slot] = true;
                            files.push((label, slot));
                            slot
                        }
                    }
                };
                let shape = next[slot];
                next[slot] += 1;
                let hue = match slot {
                    6 => Hue::Browser,
                    7 => Hue::File,
                    s => Hue::Series(s),
                };
                (hue, shape)
            }
        };
        style.push(Style {
            hue,
            shape: shape % SHAPES,
        });
    }
    of.into_iter().map(|e| style[e]).collect()
}
