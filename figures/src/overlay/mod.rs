//! Laying extra series over a chart already in the page: the browser's own
//! results (role [`Role::Browser`]) and run files the reader loads (role
//! [`Role::File`], built by [`file::load_file`]). The chart component
//! (`wasm-viz`) applies them; this is plain data in, plain data out.

mod file;
mod layer;

pub use file::{file_overlay, load_file, LoadedFile};
pub use layer::Overlay;

use crate::spec::{ChartSpec, Marker, Role, Series};

/// True when series `name` came from the file labelled `label`.
pub fn from_file(name: &str, label: &str) -> bool {
    name == label
        || name
            .strip_prefix(label)
            .is_some_and(|rest| rest.starts_with(": "))
}

/// Replaces, in `spec`, the series of `role` (only those from file `label`
/// when given) by `overlay`'s, adds the categories they need, and drops
/// categories no series has a point for any more. A chart's
/// [`ChartSpec::empty_note`] goes when it has values and comes back when it
/// has none.
pub fn replace(spec: &mut ChartSpec, role: Role, label: Option<&str>, mut overlay: Overlay) {
    spec.series
        .retain(|s| !(s.role == role && label.is_none_or(|l| from_file(&s.name, l))));
    // A loaded file whose numbers are already on the chart as a published
    // reference (a reader dropping R1's own file) would draw them twice.
    overlay.series.retain(|s| {
        !spec
            .series
            .iter()
            .any(|have| have.role == Role::Reference && same_values(have, s))
    });
    for c in overlay.categories {
        if !spec.categories.iter().any(|have| have.key == c.key) {
            spec.categories.push(c);
        }
    }
    spec.series.extend(overlay.series);
    let series = &spec.series;
    spec.categories.retain(|c| {
        series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| p.category.as_deref() == Some(&c.key))
        })
    });
    if spec.has_values() {
        if spec.note.is_some() && spec.note == spec.empty_note {
            spec.note = None;
        }
    } else if spec.note.is_none() {
        spec.note.clone_from(&spec.empty_note);
    }
}

/// Two series with the same valued points (gaps aside): the same numbers.
/// (No sorting or copying: this ships in the chart component's wasm.)
fn same_values(a: &Series, b: &Series) -> bool {
    let valued = |s: &Series| s.points.iter().filter(|p| p.value.is_some()).count();
    let n = valued(a);
    n > 0
        && n == valued(b)
        && b.points.iter().filter(|p| p.value.is_some()).all(|q| {
            a.points
                .iter()
                .any(|p| p.value == q.value && p.category == q.category && p.x == q.x)
        })
}

/// Replaces the markers of `spec`'s x axis (the TLB model's reach on the
/// lab charts, which have no others).
pub fn set_x_markers(spec: &mut ChartSpec, markers: Vec<Marker>) {
    spec.x.markers = markers;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{self, NOTHING_YET};
    use crate::spec::{Axis, Category, ChartKind, Point};

    fn bars(series: Vec<Series>, cats: &[&str]) -> ChartSpec {
        ChartSpec {
            id: "first-touch-ns-per-page".into(),
            title: "t".into(),
            description: String::new(),
            kind: ChartKind::Bars,
            x: Axis::linear("mode", ""),
            y: Axis::linear("ns", "ns"),
            categories: cats
                .iter()
                .map(|k| Category::new(*k, k.to_ascii_uppercase()))
                .collect(),
            series,
            note: None,
            empty_note: None,
        }
    }

    fn series(name: &str, role: Role, cats: &[(&str, f64)]) -> Series {
        Series {
            name: name.into(),
            role,
            faint: false,
            points: cats.iter().map(|(c, v)| Point::bar(*c, Some(*v))).collect(),
        }
    }

    #[test]
    fn file_series_replace_only_their_own_file() {
        let mut spec = bars(
            vec![
                series("this run", Role::Run, &[("a", 1.0)]),
                series("a.json", Role::File, &[("a", 2.0)]),
                series("a.json.bak", Role::File, &[("a", 3.0)]),
            ],
            &["a"],
        );
        let new = Overlay {
            categories: vec![Category::new("b", "B")],
            series: vec![series("a.json", Role::File, &[("a", 4.0), ("b", 5.0)])],
        };
        replace(&mut spec, Role::File, Some("a.json"), new);
        let names: Vec<_> = spec.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["this run", "a.json.bak", "a.json"]);
        assert_eq!(spec.series[2].points[1].value, Some(5.0));
        let keys: Vec<_> = spec.categories.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        // Removing the file takes its extra category with it.
        replace(&mut spec, Role::File, Some("a.json"), Overlay::default());
        assert_eq!(spec.series.len(), 2);
        assert_eq!(spec.categories.len(), 1);
    }

    #[test]
    fn browser_series_replace_all_browser_series() {
        let mut spec = lab::chase(&[]);
        assert_eq!(spec.note.as_deref(), Some(NOTHING_YET));
        let line = |v| Overlay {
            categories: vec![],
            series: vec![Series {
                name: "this browser: chase".into(),
                role: Role::Browser,
                faint: false,
                points: vec![Point::xy(16.0, Some(v))],
            }],
        };
        replace(&mut spec, Role::Browser, None, line(1.0));
        assert!(spec.note.is_none());
        replace(&mut spec, Role::Browser, None, line(2.0));
        assert_eq!(spec.series.len(), 1);
        assert_eq!(spec.series[0].points[0].value, Some(2.0));
        replace(&mut spec, Role::Browser, None, Overlay::default());
        assert_eq!(spec.note.as_deref(), Some(NOTHING_YET));
    }

    /// A chart without an empty note keeps its own note, values or not.
    #[test]
    fn only_the_empty_note_comes_and_goes() {
        let mut spec = bars(vec![], &[]);
        spec.note = Some("measured with 4 KiB pages".into());
        let values = Overlay {
            categories: vec![Category::new("a", "A")],
            series: vec![series("f.json", Role::File, &[("a", 1.0)])],
        };
        replace(&mut spec, Role::File, Some("f.json"), values);
        assert_eq!(spec.note.as_deref(), Some("measured with 4 KiB pages"));
        spec.note = None;
        replace(&mut spec, Role::File, Some("f.json"), Overlay::default());
        assert_eq!(spec.note, None);
    }
}
