//! SVG plots, drawn with plotters into strings (one file per plot kind):
//!
//! - `ranges`: one horizontal bar per row, its median, with min–max
//!   whiskers where the row has a range (CoreMark, disk, cache, internet);
//! - `history`: a line per runner over time;
//! - `requests`: a build-cache server's requests/s by request size, a line
//!   per phase and quota.
//!
//! The build needs no fonts: plotters is built without its font features,
//! so text is written as `<text>` elements and the browser lays it out.
//! Axis, text and grid colours are placeholders that `finish` swaps for
//! CSS with a dark-mode rule, so a plot follows the reader's colour scheme
//! (series colours are mid-tones that read on both backgrounds).

pub mod history;
pub mod ranges;
pub mod requests;

use plotters::style::RGBColor;

/// Plot width, pixels; the height follows the number of rows.
pub const WIDTH: u32 = 760;
/// Placeholder for text and axes, replaced by CSS in `finish`.
pub const FG: RGBColor = RGBColor(1, 2, 3);
/// Placeholder for grid lines, replaced by CSS in `finish`.
pub const GRID: RGBColor = RGBColor(4, 5, 6);
/// Series colours.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x3b, 0x82, 0xf6),
    RGBColor(0xf5, 0x9e, 0x0b),
    RGBColor(0x10, 0xb9, 0x81),
    RGBColor(0xef, 0x44, 0x44),
    RGBColor(0x8b, 0x5c, 0xf6),
    RGBColor(0xec, 0x48, 0x99),
    RGBColor(0x14, 0xb8, 0xa6),
    RGBColor(0x84, 0xcc, 0x16),
];
/// The font family plotters writes into `<text>`; the browser picks it.
pub const FONT: &str = "sans-serif";

/// What a reader and a screen reader are told about a plot.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Short title, e.g. `CoreMark iterations/s`.
    pub title: String,
    /// A sentence: what is drawn, the unit, and how to read it.
    pub desc: String,
    /// Axis label with its unit, e.g. `iterations/s (higher is better)`.
    pub axis: String,
}

/// The end of a value axis that starts at 0: `margin` times the largest
/// finite value (1 when none is positive), and never past `f64::MAX`.
/// plotters never finishes laying out the ticks of an axis whose span is
/// infinite, so a figure near `f64::MAX` (which the margin overflows) or an
/// infinite one made `site build` spin forever (issue 13).
pub(crate) fn axis_top(values: impl IntoIterator<Item = f64>, margin: f64) -> f64 {
    let largest = values.into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max);
    if largest > 0.0 { (largest * margin).min(f64::MAX) } else { 1.0 }
}

/// A plotters error as anyhow's.
pub(crate) fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

/// Adds the accessible title and description and the colour rules.
pub(crate) fn finish(svg: String, spec: &Spec) -> String {
    const STYLE: &str = "<style>text,[fill=\"#010203\"]{fill:#1f2328}[stroke=\"#010203\"]{stroke:#57606a}\
[stroke=\"#040506\"]{stroke:#d0d7de}@media (prefers-color-scheme:dark){text,[fill=\"#010203\"]{fill:#e6edf3}\
[stroke=\"#010203\"]{stroke:#8b949e}[stroke=\"#040506\"]{stroke:#30363d}}</style>";
    let Some(open_end) = svg.find("<svg").and_then(|s| svg[s..].find('>').map(|e| s + e)) else {
        return svg;
    };
    let mut out = String::with_capacity(svg.len() + 600);
    out.push_str(&svg[..open_end]);
    out.push_str(" role=\"img\" aria-labelledby=\"title desc\">");
    out.push_str(&format!("<title id=\"title\">{}</title>", xml_escape(&spec.title)));
    out.push_str(&format!("<desc id=\"desc\">{}</desc>", xml_escape(&spec.desc)));
    out.push_str(STYLE);
    out.push_str(&svg[open_end + 1..]);
    out
}

/// Escapes text for XML content and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_top_is_finite_and_positive() {
        assert_eq!(axis_top([2.0, 4.0], 1.5), 6.0);
        // ×1.05 overflows: the axis ends at the largest finite number.
        assert_eq!(axis_top([f64::MAX], 1.05), f64::MAX);
        // Infinite and NaN values do not set the axis.
        assert_eq!(axis_top([f64::INFINITY, f64::NAN, 3.0], 2.0), 6.0);
        assert_eq!(axis_top([f64::INFINITY], 2.0), 1.0);
        assert_eq!(axis_top([0.0, -5.0], 2.0), 1.0);
        assert_eq!(axis_top([], 2.0), 1.0);
        assert_eq!(axis_top([5e-324], 1.0), 5e-324);
    }
}
