//! The palette, held to what a reader needs: every hue at least 3:1
//! against the background of each of mdBook's five themes (WCAG's figure
//! for graphics), read from the CSS itself (`theme/pagewalk.css` for the
//! chart colours, mdBook's `variables.css` for the backgrounds), and no two
//! legend entries of one chart in the same hue and shape, for every chart
//! of the example run, with this browser's results and dropped files laid
//! over them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pagewalk_figures::overlay::{load_file, replace, Overlay};
use pagewalk_figures::{build, lab, styles, ChartSpec, Palette, Point, Role, Series, CHART_NAMES};
use pagewalk_model::{committed, read_run, RunFile};

const THEMES: [&str; 5] = ["light", "rust", "coal", "navy", "ayu"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `--name: value` declarations of the CSS blocks whose selector
/// list includes `selector`, in order (a later block overrides).
fn declarations(css: &str, selector: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = strip_comments(css);
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let selectors = rest[..open].rsplit([';', '}']).next().unwrap_or("");
        if selectors.split(',').any(|s| s.trim() == selector) {
            for decl in rest[open + 1..open + close].split(';') {
                if let Some((k, v)) = decl.split_once(':') {
                    if k.trim().starts_with("--") {
                        out.insert(k.trim().to_string(), v.trim().to_string());
                    }
                }
            }
        }
        rest = rest[open + close + 1..].to_string();
    }
    out
}

fn strip_comments(css: &str) -> String {
    let mut out = String::new();
    let mut rest = css;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        rest = rest[at..]
            .find("*/")
            .map_or("", |end| &rest[at + end + 2..]);
    }
    out.push_str(rest);
    out
}

/// `#rgb`, `#rrggbb` or `hsl(h, s%, l%)` as sRGB in 0..=1.
fn colour(v: &str) -> [f64; 3] {
    let v = v.trim();
    if let Some(hex) = v.strip_prefix('#') {
        let hex: String = if hex.len() == 3 {
            hex.chars().flat_map(|c| [c, c]).collect()
        } else {
            hex.to_string()
        };
        assert_eq!(hex.len(), 6, "colour {v}");
        return [0, 2, 4]
            .map(|i| f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0);
    }
    let inner = v
        .strip_prefix("hsl(")
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not a colour this test reads: {v}"));
    let n: Vec<f64> = inner
        .split(',')
        .map(|p| p.trim().trim_end_matches('%').parse().unwrap())
        .collect();
    let (h, s, l) = (n[0], n[1] / 100.0, n[2] / 100.0);
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let f = |k: f64| {
        let k = (k + h / 30.0) % 12.0;
        l - c / 2.0 * (-1f64).max((k - 3.0).min(9.0 - k).min(1.0))
    };
    [f(0.0), f(8.0), f(4.0)]
}

fn luminance(rgb: [f64; 3]) -> f64 {
    let lin = |c: f64| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
}

fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// mdBook's `variables.css`: the built book's copy (what the reader gets),
/// else the source of the mdBook version `scripts/install-tools` pins.
fn mdbook_variables() -> String {
    let built = root().join("book-out/css");
    if let Ok(dir) = std::fs::read_dir(&built) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("variables") && name.ends_with(".css") {
                return std::fs::read_to_string(e.path()).unwrap();
            }
        }
    }
    let tools = std::fs::read_to_string(root().join("scripts/install-tools")).unwrap();
    let version = tools
        .lines()
        .find_map(|l| l.strip_prefix("MDBOOK_VERSION="))
        .expect("scripts/install-tools pins MDBOOK_VERSION")
        .trim();
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap()).join(".cargo"));
    let registry = home.join("registry/src");
    for index in std::fs::read_dir(&registry).into_iter().flatten().flatten() {
        let css = index
            .path()
            .join(format!("mdbook-html-{version}/front-end/css/variables.css"));
        if let Ok(text) = std::fs::read_to_string(css) {
            return text;
        }
    }
    panic!(
        "mdBook's variables.css not found: run `mdbook build` (book-out/css) or scripts/install-tools (mdbook {version})"
    );
}

fn pagewalk_css() -> String {
    std::fs::read_to_string(root().join("theme/pagewalk.css")).unwrap()
}

/// The chart hues of `theme` as pagewalk.css sets them.
fn hues(css: &str, theme: &str) -> Vec<(String, String)> {
    let selector = if theme == "light" {
        ":root".to_string()
    } else {
        format!("html.{theme}")
    };
    let d = declarations(css, &selector);
    let mut names: Vec<String> = (1..=6).map(|i| format!("--pw-series-{i}")).collect();
    names.push("--pw-browser".into());
    names.push("--pw-file".into());
    names
        .into_iter()
        .map(|n| {
            let v = d
                .get(&n)
                .unwrap_or_else(|| panic!("{theme}: pagewalk.css sets no {n}"))
                .clone();
            (n, v)
        })
        .collect()
}

#[test]
fn every_hue_is_3_to_1_against_every_themes_background() {
    let (css, variables) = (pagewalk_css(), mdbook_variables());
    let mut worst = f64::INFINITY;
    for theme in THEMES {
        let bg = declarations(&variables, &format!(".{theme}"))
            .remove("--bg")
            .unwrap_or_else(|| panic!("mdBook's .{theme} sets no --bg"));
        for (name, value) in hues(&css, theme) {
            let c = contrast(colour(&value), colour(&bg));
            worst = worst.min(c);
            assert!(
                c >= 3.0,
                "{theme}: {name} {value} is {c:.2}:1 against --bg {bg}"
            );
        }
    }
    assert!(worst.is_finite());
}

/// The static figures are drawn with the light theme's colours.
#[test]
fn the_static_palette_is_the_light_themes() {
    let css = pagewalk_css();
    let light: HashMap<String, String> = hues(&css, "light").into_iter().collect();
    let pal = Palette::light();
    for (i, c) in pal.series.iter().enumerate() {
        assert_eq!(&light[&format!("--pw-series-{}", i + 1)], c);
    }
    assert_eq!(light["--pw-browser"], pal.browser);
    assert_eq!(light["--pw-file"], pal.file);
    assert_eq!(pal.series.len(), 6);
}

fn runs() -> Vec<RunFile> {
    let mut files = committed::files();
    files.sort_by_key(|p| !p.to_string_lossy().contains("/example/"));
    files.iter().map(|p| read_run(p).unwrap()).collect()
}

/// No two legend entries of `spec` share a hue and a shape.
fn assert_distinct(what: &str, spec: &ChartSpec) -> usize {
    let styles = styles(spec);
    let mut seen: Vec<(&str, _)> = Vec::new();
    for (s, style) in spec.series.iter().zip(styles) {
        let name = spec.legend_name(s);
        match seen.iter().find(|(n, _)| *n == name) {
            Some((_, had)) => assert_eq!(*had, style, "{what}: {name} drawn two ways"),
            None => {
                if let Some((other, _)) = seen.iter().find(|(_, st)| *st == style) {
                    panic!("{what}: {name} and {other} are both {style:?}");
                }
                seen.push((name, style));
            }
        }
    }
    seen.len()
}

/// What the lab lays over its charts: this browser's series.
fn browser(spec: &ChartSpec) -> Overlay {
    let names: &[&str] = match spec.id.as_str() {
        lab::FIRST_TOUCH => &[
            "this browser: grow",
            "this browser: first pass",
            "this browser: second pass",
        ],
        lab::CHASE => &["this browser: chase"],
        lab::TLB_MODEL => &["this browser: modelled misses"],
        _ => &["this browser"],
    };
    Overlay {
        categories: Vec::new(),
        series: names
            .iter()
            .map(|n| Series {
                name: n.to_string(),
                role: Role::Browser,
                faint: false,
                points: vec![Point::xy(64.0, Some(10.0))],
            })
            .collect(),
    }
}

#[test]
fn no_chart_repeats_a_hue_and_shape() {
    let runs = runs();
    let refs: Vec<&RunFile> = runs.iter().collect();
    let example = committed::files()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("/example/"))
        .unwrap();
    let example_bytes = std::fs::read(example).unwrap();
    let r1 = std::fs::read(root().join("data/reference/r1-first-touch.json")).unwrap();
    let charts: Vec<String> = CHART_NAMES
        .iter()
        .chain(lab::NAMES)
        .map(|s| s.to_string())
        .collect();
    // Two dropped files: the example under another name, and R1 (on the
    // charts that already show R1, it adds nothing).
    let files: Vec<_> = [("mine.json", &example_bytes), ("r1.json", &r1)]
        .into_iter()
        .map(|(label, bytes)| load_file(label, bytes, &charts).unwrap())
        .collect();
    let mut most = 0;
    for name in &charts {
        let Ok(mut spec) = build(name, &refs) else {
            continue;
        };
        assert_distinct(name, &spec);
        if lab::NAMES.contains(&name.as_str()) {
            let overlay = browser(&spec);
            replace(&mut spec, Role::Browser, None, overlay);
            assert_distinct(&format!("{name} with this browser"), &spec);
        }
        for f in &files {
            if let Some(o) = f.overlays.get(name) {
                replace(&mut spec, Role::File, Some(&f.label), o.clone());
            }
            most = most.max(assert_distinct(
                &format!("{name} with files up to {}", f.label),
                &spec,
            ));
        }
    }
    assert!(
        most >= 6,
        "the combinations tried reach only {most} entries"
    );
}

/// On a line chart the run's and the references' curves differ in marker
/// as well as hue (up to six of them), so curves drawn on top of each other
/// (the staircase's 4 KiB, THP and 1 GiB pages inside a cache) can be told
/// apart by someone who cannot tell the hues apart.
#[test]
fn line_charts_never_tell_their_own_curves_apart_by_hue_alone() {
    let runs = runs();
    let refs: Vec<&RunFile> = runs.iter().collect();
    let spec = build("staircase", &refs).unwrap();
    let styles = pagewalk_figures::styles(&spec);
    let mut entries: Vec<(String, u8)> = Vec::new();
    for (series, style) in spec.series.iter().zip(&styles) {
        let name = spec.legend_name(series).to_string();
        if !entries.iter().any(|(n, _)| *n == name) {
            entries.push((name, style.shape));
        }
    }
    // The example's three curves and R2's levels.
    assert!(entries.len() >= 4, "{entries:?}");
    let mut shapes: Vec<u8> = entries.iter().map(|e| e.1).collect();
    shapes.sort_unstable();
    shapes.dedup();
    assert_eq!(shapes.len(), entries.len(), "markers repeat: {entries:?}");
}
