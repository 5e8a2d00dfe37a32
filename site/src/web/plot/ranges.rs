//! Horizontal bars with whiskers: one row per runner (or runner and
//! series), the bar at the median and a whisker from min to max. Rows are
//! drawn top to bottom in the order given.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::{FG, FONT, GRID, PALETTE, Spec, WIDTH, axis_top, err, finish};

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

/// Draws `bars`; `None` when there is nothing to draw.
pub fn draw(spec: &Spec, bars: &[Bar]) -> anyhow::Result<Option<String>> {
    if bars.is_empty() {
        return Ok(None);
    }
    let n = bars.len() as i32;
    let top = axis_top(bars.iter().flat_map(|b| [Some(b.value), b.range.map(|r| r.1)]).flatten(), 1.05);
    let longest = bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(0) as u32;
    let height = 60 + 24 * n as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .margin_right(20)
            .x_label_area_size(40)
            .y_label_area_size((longest * 15 / 2 + 16).min(440))
            .build_cartesian_2d(0.0..top, (0..n).into_segmented())
            .map_err(err)?;
        // Row 0 is drawn at the top.
        let row = |i: usize| n - 1 - i as i32;
        let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
        let y_label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(y) => labels.get((n - 1 - y) as usize).map_or_else(String::new, |l| l.to_string()),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(FG)
            .label_style((FONT, 13).into_font().color(&FG))
            .axis_desc_style((FONT, 14).into_font().color(&FG))
            .x_desc(spec.axis.as_str())
            .x_labels(8)
            .y_labels(n as usize)
            .y_label_formatter(&y_label)
            .draw()
            .map_err(err)?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                let y = row(i);
                let colour = PALETTE[b.series % PALETTE.len()];
                let mut r = Rectangle::new(
                    [(0.0, SegmentValue::Exact(y)), (b.value, SegmentValue::Exact(y + 1))],
                    colour.filled(),
                );
                r.set_margin(5, 5, 0, 0);
                r
            }))
            .map_err(err)?;
        for (i, b) in bars.iter().enumerate() {
            let Some((lo, hi)) = b.range else { continue };
            let y = row(i);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(lo, SegmentValue::CenterOf(y)), (hi, SegmentValue::CenterOf(y))],
                    FG.stroke_width(2),
                )))
                .map_err(err)?;
            for x in [lo, hi] {
                let mut cap =
                    Rectangle::new([(x, SegmentValue::Exact(y)), (x, SegmentValue::Exact(y + 1))], FG.stroke_width(2));
                cap.set_margin(7, 7, 0, 0);
                chart.draw_series(std::iter::once(cap)).map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(Some(finish(svg, spec)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
