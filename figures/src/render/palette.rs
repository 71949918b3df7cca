//! The colours a chart is drawn with.

/// Colours a chart is drawn with. In the page they come from the theme's
/// CSS custom properties (`--pw-series-1` .. `--pw-series-6`, `--pw-axis`,
/// `--pw-grid`, `--fg`, `--bg`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub series: Vec<String>,
    pub axis: String,
    pub grid: String,
    pub fg: String,
    pub bg: String,
}

impl Palette {
    /// The static fallback's palette: mdBook's light theme.
    pub fn light() -> Palette {
        Palette {
            series: [
                "#1f5fa8", "#c2410c", "#2f7d32", "#7b3fa0", "#9a6a00", "#0f7b7b",
            ]
            .map(String::from)
            .to_vec(),
            axis: "#5c5c5c".to_string(),
            grid: "#e3e3e3".to_string(),
            fg: "#1a1a1a".to_string(),
            bg: "#ffffff".to_string(),
        }
    }

    pub fn series_colour(&self, i: usize) -> &str {
        if self.series.is_empty() {
            &self.fg
        } else {
            &self.series[i % self.series.len()]
        }
    }
}
