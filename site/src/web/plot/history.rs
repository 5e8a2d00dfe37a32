//! A line per runner over time: the median of one figure per result.

use plotters::prelude::*;

use super::{FG, FONT, GRID, PALETTE, Spec, WIDTH, axis_top, err, finish};

/// One runner's points, oldest first: (Unix seconds, value).
#[derive(Debug, Clone)]
pub struct Line {
    pub label: String,
    pub points: Vec<(i64, f64)>,
}

const DAY: f64 = 86_400.0;

/// Draws `lines`; `None` when no line has a point.
pub fn draw(spec: &Spec, lines: &[Line]) -> anyhow::Result<Option<String>> {
    let all: Vec<(i64, f64)> = lines.iter().flat_map(|l| l.points.iter().copied()).collect();
    if all.is_empty() {
        return Ok(None);
    }
    // Days since the epoch on x; one result still gets a readable axis.
    let days: Vec<f64> = all.iter().map(|p| p.0 as f64 / DAY).collect();
    let (mut x0, mut x1) =
        (days.iter().copied().fold(f64::INFINITY, f64::min), days.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    if x1 - x0 < 2.0 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let top = axis_top(all.iter().map(|p| p.1), 1.1);
    let legend = lines.len() > 1;
    let height = 320 + if legend { 18 * lines.len().min(12) as u32 } else { 0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, 0.0..top)
            .map_err(err)?;
        let date = |d: &f64| {
            jiff::Timestamp::from_second((d * DAY) as i64)
                .map(|t| t.strftime("%Y-%m-%d").to_string())
                .unwrap_or_default()
        };
        chart
            .configure_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(FG)
            .label_style((FONT, 13).into_font().color(&FG))
            .axis_desc_style((FONT, 14).into_font().color(&FG))
            .y_desc(spec.axis.as_str())
            .x_desc("run date (UTC)")
            .x_labels(5)
            .x_label_formatter(&date)
            .draw()
            .map_err(err)?;
        for (i, line) in lines.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = line.points.iter().map(|p| (p.0 as f64 / DAY, p.1)).collect();
            let series =
                chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)).point_size(3)).map_err(err)?;
            if legend && i < 12 {
                series
                    .label(line.label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(3)));
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .label_font((FONT, 12).into_font().color(&FG))
                .border_style(GRID)
                .background_style(TRANSPARENT)
                .draw()
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(Some(finish(svg, spec)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13: a median near `f64::MAX` made the axis end at infinity,
    /// and the build spin forever in plotters' tick layout.
    #[test]
    fn extreme_values_draw() {
        let spec = Spec { title: "t".into(), desc: "d".into(), axis: "a".into() };
        for v in [f64::MAX, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324] {
            let lines = [
                Line { label: "a".into(), points: vec![(1_700_000_000, v), (1_700_086_400, 3.0)] },
                Line { label: "b".into(), points: vec![(1_700_000_000, 1.0)] },
            ];
            assert!(draw(&spec, &lines).unwrap().unwrap().contains("<title id=\"title\">t</title>"), "{v}");
        }
    }
}
