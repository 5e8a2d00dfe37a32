//! SVG plots, drawn with plotters into strings (one file per plot kind):
//!
//! - `ranges`: one horizontal bar per row, its median, with min–max
//!   whiskers where the row has a range (CoreMark, disk, cache, internet);
//! - `history`: a line per runner over time;
//! - `price`: a point per runner at its price per minute and a CoreMark
//!   figure, inlined in the overview so that each point links to its
//!   runner's page (its own sizes: `price::WIDTH`);
//! - `requests`: a build-cache server's requests/s by request size, a line
//!   per phase and quota.
//!
//! The build needs no fonts: plotters is built without its font features,
//! so text is written as `<text>` elements and the browser lays it out.
//! Axis, text and grid colours are placeholders that `finish` swaps for
//! CSS with a dark-mode rule, so a plot follows the reader's colour scheme
//! (series colours are mid-tones that read on both backgrounds).
//!
//! Text size: every plot text is `TEXT_PX` in the SVG's own pixels, and the
//! page never shows a plot narrower than `MIN_SHOWN_PX` (site.css: `figure
//! img`), so text is drawn at 12 px or more on any screen; on a phone the
//! figure scrolls sideways inside its own box instead of shrinking.

pub mod history;
pub mod price;
pub mod ranges;
pub mod requests;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::DrawingBackend;
use plotters::style::{RGBColor, TRANSPARENT};

/// Plot width, pixels; the height follows the number of rows. Two plots
/// side by side fit a 1280-px-wide page (its columns are 616 px) without
/// being shrunk.
pub const WIDTH: u32 = 600;
/// The size of all plot text, in the SVG's pixels.
pub const TEXT_PX: f64 = 14.0;
/// The narrowest a page shows a plot (site.css, `figure img { min-width }`):
/// there `TEXT_PX` is drawn at 12 px.
pub const MIN_SHOWN_PX: f64 = WIDTH as f64 * 12.0 / TEXT_PX;
/// plotters' SVG backend writes a font's size divided by this as the
/// `font-size` attribute (plotters-svg 0.3.7, `draw_text`).
const PLOTTERS_EM: f64 = 1.24;
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

/// The plot text font: `TEXT_PX` as written into the SVG.
pub(crate) fn font() -> plotters::style::FontDesc<'static> {
    use plotters::style::IntoFont;
    (FONT, TEXT_PX * PLOTTERS_EM).into_font()
}

/// A value axis' tick label: at most six significant digits, no trailing
/// zeros (so whole numbers print as integers: `5000`, not `5000.0`, and
/// plotters' steps such as 0.30000000000000004 print as `0.3`), and an
/// exponent outside 0.001 to 10⁹.
pub(crate) fn tick(v: &f64) -> String {
    let v = *v;
    if !v.is_finite() {
        return String::new();
    }
    if v == 0.0 {
        return "0".into();
    }
    let trim = |s: &str| -> String {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
    };
    let a = v.abs();
    if !(1e-3..1e9).contains(&a) {
        let s = format!("{v:.5e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{exponent}", trim(mantissa));
    }
    let digits = a.log10().floor() as i32 + 1;
    let decimals = (6 - digits).max(0) as usize;
    let s = trim(&format!("{v:.decimals$}"));
    if s == "-0" { "0".into() } else { s }
}

/// The value axis' margin above the largest value that keeps the lines
/// under a legend of `entries` rows in the plot's upper right corner: the
/// legend's share of the plot area's `plot_px` height, plus 5 %.
pub(crate) fn legend_margin(entries: usize, plot_px: u32) -> f64 {
    // plotters' legend: a row per entry a little over the text's height,
    // and a padding around them.
    let legend_px = (TEXT_PX + 6.0) * entries as f64 + 12.0;
    1.05 / (1.0 - legend_px / f64::from(plot_px)).max(0.25)
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

/// The mesh every plot kind draws: grid lines in `GRID` at the labelled
/// ticks only, axes and all text in `FG` (both swapped for CSS by `finish`);
/// each kind adds its own descriptions and labels.
fn house_mesh<'m, 'a, 'b, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(FG)
        .label_style(font().color(&FG))
        .axis_desc_style(font().color(&FG))
}

/// The texts of an SVG, in order (the plot kinds' tests).
#[cfg(test)]
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1))
        .map(|t| t.split('<').next().unwrap().trim())
        .collect()
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

    #[test]
    fn legend_margin_leaves_room() {
        assert_eq!(legend_margin(0, 300), 1.05 / 0.96);
        // Four rows of 20 px and the padding: 92 px of 300.
        assert!((legend_margin(4, 300) - 1.05 / (1.0 - 92.0 / 300.0)).abs() < 1e-12);
        // A legend taller than the plot: at most 4.2 times the largest value.
        assert_eq!(legend_margin(40, 300), 1.05 / 0.25);
    }

    #[test]
    fn ticks_print_integers_as_integers() {
        let cases = [
            (5000.0, "5000"),
            (0.0, "0"),
            (-0.0, "0"),
            (2.5, "2.5"),
            (0.1 + 0.2, "0.3"),
            (1_234_567.0, "1234567"),
            (123.456789, "123.457"),
            (-40.0, "-40"),
            (0.004, "0.004"),
            (1e-7, "1e-7"),
            (1.5e12, "1.5e12"),
            (f64::MAX, "1.79769e308"),
            (f64::NAN, ""),
        ];
        for (v, want) in cases {
            assert_eq!(tick(&v), want, "{v}");
        }
    }

    /// plotters writes the size it is given divided by 1.24; the SVG must
    /// say exactly `TEXT_PX`, which the browser test reads back.
    #[test]
    fn text_is_written_at_text_px() {
        assert_eq!(format!("{}", font().get_size() / PLOTTERS_EM), "14");
        assert!((MIN_SHOWN_PX - 514.29).abs() < 0.01, "{MIN_SHOWN_PX}");
    }
}
