//! Horizontal bars with whiskers: one row per runner (or runner and
//! series), the bar at the median and a whisker from min to max. Rows are
//! drawn top to bottom in the order given.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{FG, PALETTE, Spec, WIDTH, axis_top, err, finish, font, house_mesh, tick};

/// One row.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Runner label, with the series where there are several.
    pub label: String,
    /// The median.
    pub value: f64,
    /// Min and max, where known.
    pub range: Option<(f64, f64)>,
    /// Index into the palette.
    pub series: usize,
}

/// Each row's height, px: its label on a line of its own above the bar, so
/// that long labels (runner, provider, backend, phase) do not squeeze the
/// bars into a narrow plot.
const ROW_PX: u32 = 44;
/// Where in a row (0 bottom, 1 top) the bar and its whisker are.
const BAR: (f64, f64) = (0.08, 0.52);
const CAP: (f64, f64) = (0.13, 0.47);
/// The most characters a label keeps: the plot's width in `TEXT_PX` text.
const LABEL_CHARS: usize = 76;

/// Draws `bars`; `None` when there is nothing to draw.
pub fn draw(spec: &Spec, bars: &[Bar]) -> anyhow::Result<Option<String>> {
    if bars.is_empty() {
        return Ok(None);
    }
    let n = bars.len();
    let top = axis_top(bars.iter().flat_map(|b| [Some(b.value), b.range.map(|r| r.1)]).flatten(), 1.05);
    let height = 56 + ROW_PX * n as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .margin_right(24)
            .x_label_area_size(44)
            .y_label_area_size(8)
            .build_cartesian_2d(0.0..top, 0.0..n as f64)
            .map_err(err)?;
        house_mesh(chart.configure_mesh().disable_y_mesh())
            .x_desc(spec.axis.as_str())
            .x_labels(6)
            .x_label_formatter(&tick)
            .y_labels(0)
            .draw()
            .map_err(err)?;
        // Row 0 is drawn at the top: its bottom edge is at `row(0)`.
        let row = |i: usize| (n - 1 - i) as f64;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                let y = row(i);
                let colour = PALETTE[b.series % PALETTE.len()];
                Rectangle::new([(0.0, y + BAR.0), (b.value, y + BAR.1)], colour.filled())
            }))
            .map_err(err)?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                EmptyElement::at((0.0, row(i) + 1.0))
                    + Text::new(short_label(&b.label), (4, 3), font().color(&FG).pos(Pos::new(HPos::Left, VPos::Top)))
            }))
            .map_err(err)?;
        for (i, b) in bars.iter().enumerate() {
            let Some((lo, hi)) = b.range else { continue };
            let y = row(i);
            let middle = y + (BAR.0 + BAR.1) / 2.0;
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(lo, middle), (hi, middle)], FG.stroke_width(2))))
                .map_err(err)?;
            for x in [lo, hi] {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, y + CAP.0), (x, y + CAP.1)],
                        FG.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(Some(finish(svg, spec)))
}

/// `label`, or where it is longer than the plot is wide, its start and its
/// end around an ellipsis (the end tells the series apart: "· restore").
fn short_label(label: &str) -> String {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() <= LABEL_CHARS {
        return label.to_string();
    }
    let head = (LABEL_CHARS - 1) / 2;
    let tail = LABEL_CHARS - 1 - head;
    chars[..head].iter().chain(['…'].iter()).chain(chars[chars.len() - tail..].iter()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::plot::svg_texts;

    fn spec() -> Spec {
        Spec { title: "t".into(), desc: "d".into(), axis: "a".into() }
    }

    /// Issue 13: an imported cache figure with a maximum of `f64::MAX`
    /// made the axis end at infinity, and the build spin forever in
    /// plotters' tick layout.
    #[test]
    fn extreme_values_draw() {
        for v in [f64::MAX, f64::MAX / 1.04, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324, -1.0] {
            for range in [None, Some((0.0, v)), Some((v, v)), Some((-1e300, v)), Some((1.0, f64::MAX))] {
                let bars = [
                    Bar { label: "x".into(), value: v, range, series: 0 },
                    Bar { label: "y".into(), value: 2.0, range: None, series: 1 },
                ];
                let svg = draw(&spec(), &bars).unwrap().unwrap();
                assert!(svg.contains("<title id=\"title\">t</title>"), "{v} {range:?}");
            }
        }
    }

    /// Issue 14: whole-number ticks print as integers, and each label is
    /// drawn once, above its bar.
    #[test]
    fn ticks_are_integers_and_labels_whole() {
        let bars = [
            Bar {
                label: "ubicloud-linux-x64 (Ubicloud)".into(),
                value: 33392.77,
                range: Some((29068.42, 37639.26)),
                series: 0,
            },
            Bar { label: "ubicloud-linux-arm64 (Ubicloud)".into(), value: 21630.02, range: None, series: 0 },
        ];
        let svg = draw(&spec(), &bars).unwrap().unwrap();
        assert_eq!(
            svg_texts(&svg),
            ["a", "0", "10000", "20000", "30000", "ubicloud-linux-x64 (Ubicloud)", "ubicloud-linux-arm64 (Ubicloud)"]
        );
        let long = "r".repeat(40) + " · Ubicloud transparent cache · restore";
        assert_eq!(short_label(&long), "r".repeat(37) + "…· Ubicloud transparent cache · restore");
        assert_eq!(short_label(&long).chars().count(), LABEL_CHARS);
        assert_eq!(short_label("ubicloud-linux-x64"), "ubicloud-linux-x64");
    }
}
