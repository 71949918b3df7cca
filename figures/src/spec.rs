//! [`ChartSpec`]: everything a chart shows, as plain data. The book build
//! writes it as JSON into the page; `wasm-viz` reads it back and draws it
//! with the same [`crate::render_svg`] the build used for the static SVG.

use pagewalk_model::json::FromJson;
use serde::{Deserialize, Serialize};

/// One chart. Values are kept exact (no rounding) so the page, the data
/// table and a test reading `data-value` all see the same number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct ChartSpec {
    /// The chart's name, e.g. `first-touch-ns-per-page`.
    pub id: String,
    pub title: String,
    /// One line saying what the chart shows, for `aria-label`.
    #[serde(default)]
    pub description: String,
    pub kind: ChartKind,
    /// For [`ChartKind::Bars`] the category axis (only its label is used);
    /// for [`ChartKind::Lines`] the numeric x axis.
    pub x: Axis,
    /// The value axis.
    pub y: Axis,
    /// Bars only: the groups, in drawing order (top to bottom).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<Category>,
    pub series: Vec<Series>,
    /// Shown under the table (and in the SVG when nothing could be drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The note of a chart while no series has a value (a lab chart before
    /// its experiment ran): an overlay that brings values drops it, one that
    /// takes the last ones away puts it back ([`crate::overlay::replace`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum ChartKind {
    /// Grouped bars, one group per category and one bar per series, drawn
    /// horizontally so long category labels stay readable. A histogram is
    /// bars with one category per bin.
    Bars,
    /// x/y lines with a marker per point; either axis may be logarithmic
    /// (staircase and latency-vs-size charts).
    Lines,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Axis {
    /// What is measured, e.g. "first pass, ns per 4 KiB page (median)".
    pub label: String,
    /// Written after a value in labels and tooltips, e.g. "ns per page".
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub scale: Scale,
    /// Fixed ends; otherwise taken from the data (linear value axes of
    /// bars always include 0). A linear axis rounds either out to its
    /// ticks, so no value lies beyond the last tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// What a point's `min`..`max` whisker spans on this (value) axis when
    /// it is not the minimum and maximum, e.g. `p50` to `p99`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whiskers: Option<Whiskers>,
    /// Labelled vertical lines at values of this (x) axis of a lines chart:
    /// cache sizes, TLB reaches, detected steps. Kept on the axis so a spec
    /// without them (and every builder) reads as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<Marker>,
    /// Small multiples of a bars chart, named on its category (x) axis:
    /// the value axis is drawn once per panel (headed by its label), side
    /// by side on one scale, and a series whose name ends in `: KEY` is
    /// drawn in that panel and named in the legend without it (`this run:
    /// first pass` is `this run`'s bar in the `first pass` panel). Empty:
    /// one plot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub panels: Vec<Category>,
    /// Panels: the last one on a value scale of its own, for a phase too
    /// small to read on the others' scale (first touch's second pass,
    /// tens of ns beside thousands); its axis is labelled as usual.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub last_panel_alone: bool,
    /// A range of this (value) axis shaded across the plot and named: a
    /// baseline with its spread, so that a mark reads as above, inside or
    /// below it without subtracting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<Band>,
    /// Bars: each value written at the end of its bar (and of its
    /// whisker), so that a short bar is read, not hunted for, and a phone
    /// shows every value without a tap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub value_labels: bool,
    /// Lines: the line y = x drawn dashed across the plot and named in
    /// the legend (the ideal a measured curve is read against: `k` chains
    /// overlapping `k` loads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagonal: Option<String>,
}

/// A shaded range of a value axis (see [`Axis::band`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Band {
    pub low: f64,
    pub high: f64,
    /// What it is (`no-walk baseline: 4 KiB apart on huge pages`), drawn
    /// beside it.
    pub label: String,
}

/// A labelled position on an axis, drawn as a line across the plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Marker {
    pub x: f64,
    /// What it is, in full, for the tooltip and a screen reader
    /// (`L1 dTLB reach: 72 entries × 4 KiB = 288 KiB`).
    pub label: String,
    pub kind: MarkerKind,
    /// The few letters drawn at the line (`L1d`, `dTLB`), so that labels
    /// never pile up on a phone; the key says what each line style means.
    /// Empty: the label is drawn.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum MarkerKind {
    /// A cache's capacity.
    Cache,
    /// A TLB level's reach (entries x page size).
    Tlb,
    /// A step the detector found in the data.
    Step,
}

impl MarkerKind {
    pub fn name(self) -> &'static str {
        match self {
            MarkerKind::Cache => "cache",
            MarkerKind::Tlb => "tlb",
            MarkerKind::Step => "step",
        }
    }
}

/// Names of a whisker's two ends, as read aloud and in the data table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct Whiskers {
    pub low: String,
    pub high: String,
}

impl Axis {
    pub fn linear(label: impl Into<String>, unit: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            unit: unit.into(),
            scale: Scale::Linear,
            min: None,
            max: None,
            whiskers: None,
            markers: Vec::new(),
            panels: Vec::new(),
            last_panel_alone: false,
            band: None,
            value_labels: false,
            diagonal: None,
        }
    }

    /// This (lines, y) axis with y = x drawn and named `label`.
    pub fn with_diagonal(self, label: impl Into<String>) -> Axis {
        Axis {
            diagonal: Some(label.into()),
            ..self
        }
    }

    /// This axis with `band` shaded across the plot.
    pub fn with_band(self, low: f64, high: f64, label: impl Into<String>) -> Axis {
        Axis {
            band: Some(Band {
                low: low.min(high),
                high: low.max(high),
                label: label.into(),
            }),
            ..self
        }
    }

    /// This (bars) axis with each value written at its bar's end.
    pub fn with_value_labels(self) -> Axis {
        Axis {
            value_labels: true,
            ..self
        }
    }

    /// This axis with `markers` drawn across the plot.
    pub fn with_markers(self, markers: Vec<Marker>) -> Axis {
        Axis { markers, ..self }
    }

    /// Names the ends of this axis' whiskers (default: min and max).
    pub fn with_whiskers(self, low: impl Into<String>, high: impl Into<String>) -> Axis {
        Axis {
            whiskers: Some(Whiskers {
                low: low.into(),
                high: high.into(),
            }),
            ..self
        }
    }

    /// The whisker ends' names: `("min", "max")` unless named.
    pub fn whisker_names(&self) -> (&str, &str) {
        self.whiskers
            .as_ref()
            .map_or(("min", "max"), |w| (w.low.as_str(), w.high.as_str()))
    }

    pub fn log(label: impl Into<String>, unit: impl Into<String>) -> Axis {
        Axis {
            scale: Scale::Log,
            ..Axis::linear(label, unit)
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    #[default]
    Linear,
    /// Base 10; values <= 0 cannot be placed and are drawn as gaps.
    Log,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromJson)]
pub struct Category {
    /// Stable key, used in `data-category` (e.g. the mode name `calloc`).
    pub key: String,
    /// How the category is labelled (e.g. `vec![0u8; n]`).
    pub label: String,
}

/// Where a series' numbers come from; the reader must never mistake a
/// published figure for something measured on their machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, FromJson)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Measured by `collector run` (the reader's run or the example run).
    Run,
    /// Published figures transcribed from a named source.
    Reference,
    /// Measured in the reader's browser.
    Browser,
    /// A file the reader dropped into the page.
    File,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Run => "run",
            Role::Reference => "reference",
            Role::Browser => "browser",
            Role::File => "file",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Series {
    pub name: String,
    pub role: Role,
    /// Drawn faint, behind the others: context the chart's point is not
    /// about (the staircase's 1 GiB pages and the reference machine, which
    /// would otherwise hide the 4 KiB and huge-page curves it compares).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub faint: bool,
    pub points: Vec<Point>,
}

/// One value. A point whose `value` is `None` is a gap: the source lacks
/// it (the `note` says why); it is never drawn as zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct Point {
    /// Bars: the [`Category::key`] this value belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Lines: the x coordinate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    pub value: Option<f64>,
    /// Whiskers: the spread over repetitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Category {
    pub fn new(key: impl Into<String>, label: impl Into<String>) -> Category {
        Category {
            key: key.into(),
            label: label.into(),
        }
    }
}

impl Point {
    pub fn bar(category: impl Into<String>, value: Option<f64>) -> Point {
        Point {
            category: Some(category.into()),
            x: None,
            value,
            min: None,
            max: None,
            note: None,
        }
    }

    pub fn xy(x: f64, value: Option<f64>) -> Point {
        Point {
            category: None,
            x: Some(x),
            value,
            min: None,
            max: None,
            note: None,
        }
    }
}

impl Series {
    /// The point of a category, if the series has one.
    pub fn at(&self, category: &str) -> Option<&Point> {
        self.points
            .iter()
            .find(|p| p.category.as_deref() == Some(category))
    }
}

impl ChartSpec {
    /// The panel series `s` is drawn in (0 without panels), or `None` for
    /// a series of a panelled chart that names no panel.
    pub fn panel_of(&self, s: &Series) -> Option<usize> {
        if self.x.panels.is_empty() {
            return Some(0);
        }
        let name = s.name.as_bytes();
        self.x.panels.iter().position(|p| {
            let p = p.key.as_bytes();
            name.len() > p.len() + 2
                && name.ends_with(p)
                && name[..name.len() - p.len()].ends_with(b": ")
        })
    }

    /// The name of the legend entry `s` belongs to: its name without the
    /// panel it is drawn in. Series of one source in several panels share
    /// an entry (and their colour and shape).
    pub fn legend_name<'a>(&self, s: &'a Series) -> &'a str {
        match self.panel_of(s).and_then(|i| self.x.panels.get(i)) {
            Some(p) => s
                .name
                .get(..s.name.len() - p.key.len() - 2)
                .unwrap_or(&s.name),
            None => &s.name,
        }
    }

    /// True when some series has a point with a value.
    pub fn has_values(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.points.iter().any(|p| p.value.is_some()))
    }

    /// This spec with `note` as its [`ChartSpec::empty_note`], shown now if
    /// it has no values yet.
    pub fn with_empty_note(self, note: &str) -> ChartSpec {
        ChartSpec {
            note: if self.has_values() {
                self.note
            } else {
                Some(note.to_string())
            },
            empty_note: Some(note.to_string()),
            ..self
        }
    }

    /// Parses a spec from the page's JSON with a message naming the
    /// problem and the field.
    pub fn from_json(text: &str) -> Result<ChartSpec, String> {
        pagewalk_model::json::from_str(text).map_err(|e| format!("chart spec is not valid: {e}"))
    }
}
