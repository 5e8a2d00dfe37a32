//! Requests per second by request size: a line per phase (PUT, GET) and
//! server quota, one point per request size, sizes evenly spaced in the
//! order given (128, 512, 4096, 65536 bytes are a factor of 4 to 16 apart,
//! which a linear axis would crowd into one corner).

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::{FG, GRID, PALETTE, Spec, WIDTH, axis_top, err, finish, font, house_mesh, legend_margin, tick};

/// One line: its points as (index into the sizes, requests/s).
#[derive(Debug, Clone)]
pub struct Series {
    /// e.g. `GET, CPU quota 1.00, 4 GB`.
    pub label: String,
    pub points: Vec<(usize, f64)>,
    /// Index into the palette.
    pub colour: usize,
    /// Drawn dashed-looking (thin, with larger points): the PUT lines, so
    /// that PUT and GET of one quota share a colour and still read apart.
    pub thin: bool,
}

/// Draws `series` over `sizes` (bytes); `None` when no series has a point.
/// The y axis reaches `shared_top` at least: the plots of one table (one
/// per connection count) share their scale, so that side by side their
/// heights compare.
pub fn draw(spec: &Spec, sizes: &[u64], series: &[Series], shared_top: f64) -> anyhow::Result<Option<String>> {
    let mut values: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).collect();
    if values.is_empty() || sizes.is_empty() {
        return Ok(None);
    }
    values.push(shared_top);
    let n = sizes.len() as i32;
    let height = 320 + 18 * series.len().min(12) as u32;
    // The legend (upper right) stays above the lines: height less the
    // margins and the x label area.
    let top = axis_top(values, legend_margin(series.len().min(12), height - 60));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(70)
            // plotters' integer range includes its end: `0..n - 1` is n
            // segments.
            .build_cartesian_2d((0..n - 1).into_segmented(), 0.0..top)
            .map_err(err)?;
        let size_label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => sizes.get(*i as usize).map_or_else(String::new, |b| b.to_string()),
            _ => String::new(),
        };
        house_mesh(chart.configure_mesh().disable_x_mesh())
            .y_desc(spec.axis.as_str())
            .x_desc("request size, bytes")
            .x_labels(sizes.len())
            .x_label_formatter(&size_label)
            .y_label_formatter(&tick)
            .draw()
            .map_err(err)?;
        for (i, s) in series.iter().enumerate() {
            let colour = PALETTE[s.colour % PALETTE.len()];
            let (width, point) = if s.thin { (1, 4) } else { (3, 3) };
            let pts: Vec<(SegmentValue<i32>, f64)> = s
                .points
                .iter()
                .filter(|p| p.1.is_finite())
                .map(|&(x, y)| (SegmentValue::CenterOf(x as i32), y))
                .collect();
            let drawn =
                chart.draw_series(LineSeries::new(pts, colour.stroke_width(width)).point_size(point)).map_err(err)?;
            if i < 12 {
                drawn
                    .label(s.label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(width)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(font().color(&FG))
            .border_style(GRID)
            .background_style(TRANSPARENT)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(Some(finish(svg, spec)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As the other plots (issue 13): no value stops the axis layout.
    #[test]
    fn extreme_values_draw() {
        let spec = Spec { title: "t".into(), desc: "d".into(), axis: "a".into() };
        for v in [f64::MAX, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324, 0.0] {
            let series = [
                Series { label: "PUT".into(), points: vec![(0, v), (1, 3.0)], colour: 0, thin: true },
                Series { label: "GET".into(), points: vec![(1, 1.0)], colour: 0, thin: false },
            ];
            assert!(
                draw(&spec, &[128, 512], &series, 0.0).unwrap().unwrap().contains("<title id=\"title\">t</title>"),
                "{v}"
            );
        }
        assert!(draw(&spec, &[128], &[], 1.0).unwrap().is_none());
        // One request size is one segment.
        let one = [Series { label: "GET".into(), points: vec![(0, 5.0)], colour: 1, thin: false }];
        let svg = draw(&spec, &[4096], &one, 0.0).unwrap().unwrap();
        assert!(svg.contains(">\n4096\n</text>"), "{svg}");
    }

    /// Two plots of one table, one with figures a tenth of the other's,
    /// print the same y ticks: their heights compare side by side.
    #[test]
    fn plots_of_one_table_share_a_scale() {
        let spec = Spec { title: "t".into(), desc: "d".into(), axis: "a".into() };
        let ticks = |top: f64| {
            let one = [Series { label: "GET".into(), points: vec![(0, top), (1, top / 2.0)], colour: 1, thin: false }];
            let svg = draw(&spec, &[128, 512], &one, 9000.0).unwrap().unwrap();
            let texts: Vec<String> = svg
                .split("<text")
                .skip(1)
                .filter_map(|t| t.split('>').nth(1))
                .map(|t| t.split('<').next().unwrap().trim().to_string())
                .filter(|t| t.parse::<f64>().is_ok_and(|v| v != 128.0 && v != 512.0))
                .collect();
            texts
        };
        assert_eq!(ticks(9000.0), ticks(900.0));
        assert!(ticks(900.0).contains(&"8000".to_string()), "{:?}", ticks(900.0));
    }
}
