//! A line per runner over time: the median of one figure per result.

use plotters::prelude::*;

use super::{FG, GRID, PALETTE, Spec, WIDTH, axis_top, err, finish, font, house_mesh, legend_margin, tick};

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
    // Days since the epoch on x, labelled at whole UTC days.
    let days = all.iter().map(|p| p.0 as f64 / DAY);
    let first = days.clone().fold(f64::INFINITY, f64::min);
    let last = days.fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1, ticks) = date_axis(first, last);
    let legend = lines.len() > 1;
    let entries = if legend { lines.len().min(12) } else { 0 };
    let height = 320 + 18 * entries as u32;
    // The legend (upper right) stays above the lines: height less the
    // margins and the x label area.
    let top = axis_top(all.iter().map(|p| p.1), legend_margin(entries, height - 68).max(1.1));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            // Half a date label: the last one is centred on the axis' end.
            .margin_right(48)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(DateAxis { x0, x1, ticks: ticks.iter().map(|t| t.0).collect() }, 0.0..top)
            .map_err(err)?;
        let date = |d: &f64| ticks.iter().find(|t| t.0 == *d).map_or_else(String::new, |t| t.1.clone());
        house_mesh(&mut chart.configure_mesh())
            .y_desc(spec.axis.as_str())
            .x_desc("run date (UTC)")
            .x_label_formatter(&date)
            .y_label_formatter(&tick)
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
                .position(SeriesLabelPosition::UpperRight)
                .label_font(font().color(&FG))
                .border_style(GRID)
                .background_style(TRANSPARENT)
                .draw()
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(Some(finish(svg, spec)))
}

/// A linear axis of days whose ticks are given. plotters' own f64 axis
/// places ticks at round numbers of days, which fall between dates, and
/// its `with_key_points` loses the label formatter (plotters 0.3.7).
struct DateAxis {
    x0: f64,
    x1: f64,
    ticks: Vec<f64>,
}

impl Ranged for DateAxis {
    type ValueType = f64;
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;

    fn range(&self) -> std::ops::Range<f64> {
        self.x0..self.x1
    }

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.x0) / (self.x1 - self.x0);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Bold points only: light ones would draw grid lines between days.
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }
}

/// Tick spacings, days: the first that gives at most `MAX_DATES` labels.
const STEPS_DAYS: [i64; 9] = [1, 2, 7, 14, 28, 56, 91, 182, 364];
/// "2026-11-29" at `TEXT_PX` is about 80 px wide: five fit the axis.
const MAX_DATES: i64 = 5;

/// The x axis of results measured between the days `first` and `last`
/// (days since the epoch, with the time of day as a fraction): the axis'
/// ends, whole days at least half a day around the points, and its ticks
/// as (day, date label), at whole UTC days a fixed number of days apart.
/// Each date is labelled once (plotters' own ticks fell between days, so a
/// date repeated), and the last tick is the axis' end at most (its label
/// is centred there, inside the right margin, not clipped).
fn date_axis(first: f64, last: f64) -> (f64, f64, Vec<(f64, String)>) {
    // A bound of ±10¹² days keeps a wild timestamp from overflowing i64
    // seconds below.
    let clamp = |d: f64| if d.is_finite() { d.clamp(-1e12, 1e12) } else { 0.0 };
    // Half a day or more between the axis' ends and the outer points, so
    // that no point sits on the plot's edge.
    let start = (clamp(first) - 0.5).floor() as i64;
    let end = ((clamp(last) + 0.5).ceil() as i64).max(start + 1);
    let span = end - start;
    let step =
        STEPS_DAYS.iter().copied().find(|s| span / s < MAX_DATES).unwrap_or((span + MAX_DATES - 2) / (MAX_DATES - 1));
    let ticks = (0..)
        .map(|i| start + i * step)
        .take_while(|d| *d <= end)
        .map(|d| {
            let label = jiff::Timestamp::from_second(d * DAY as i64)
                .map(|t| t.strftime("%Y-%m-%d").to_string())
                .unwrap_or_default();
            (d as f64, label)
        })
        .collect();
    (start as f64, end as f64, ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(first: &str, last: &str) -> Vec<String> {
        let day = |t: &str| t.parse::<jiff::Timestamp>().unwrap().as_second() as f64 / DAY;
        date_axis(day(first), day(last)).2.into_iter().map(|t| t.1).collect()
    }

    #[test]
    fn dates_are_whole_days_each_once() {
        // One result: its day and the next two, not five labels of one date.
        assert_eq!(labels("2026-11-29T14:00:00Z", "2026-11-29T14:00:00Z"), ["2026-11-29", "2026-11-30", "2026-12-01"]);
        // A result at midnight is half a day or more from the axis' ends.
        assert_eq!(
            labels("2026-11-28T00:00:00Z", "2026-11-30T00:00:00Z"),
            ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01"]
        );
        // Five to nine days: every other day.
        assert_eq!(labels("2026-11-27T09:30:00Z", "2026-11-29T14:00:00Z"), ["2026-11-26", "2026-11-28", "2026-11-30"]);
        assert_eq!(
            labels("2026-11-20T10:00:00Z", "2026-11-27T10:00:00Z"),
            ["2026-11-19", "2026-11-21", "2026-11-23", "2026-11-25", "2026-11-27"]
        );
        // Two months: weekly would be nine labels; fortnightly.
        assert_eq!(
            labels("2026-10-01T10:00:00Z", "2026-11-29T10:00:00Z"),
            ["2026-09-30", "2026-10-14", "2026-10-28", "2026-11-11", "2026-11-25"]
        );
        // Three years: 52 weeks apart.
        assert_eq!(labels("2024-01-01T00:00:00Z", "2026-11-29T00:00:00Z"), ["2023-12-31", "2024-12-29", "2025-12-28"]);
        // Infinite or NaN days (no such timestamp comes in) still give an axis.
        assert_eq!(date_axis(f64::NAN, f64::INFINITY).2.len(), 3);
    }

    /// The drawn axis names each date once, and the last tick stays inside
    /// the plot (the margin holds half a label).
    #[test]
    fn drawn_dates_do_not_repeat() {
        let spec = Spec { title: "t".into(), desc: "d".into(), axis: "a".into() };
        let lines = [Line { label: "a".into(), points: vec![(1_764_000_000, 5000.0), (1_764_100_000, 7000.0)] }];
        let svg = draw(&spec, &lines).unwrap().unwrap();
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| t.split('>').nth(1))
            .map(|t| t.split('<').next().unwrap().trim())
            .collect();
        let dates: Vec<&str> = texts.iter().copied().filter(|t| t.starts_with("2025-")).collect();
        assert_eq!(dates, ["2025-11-24", "2025-11-25", "2025-11-26", "2025-11-27"], "{texts:?}");
        assert!(texts.contains(&"5000") && !texts.iter().any(|t| t.ends_with(".0")), "{texts:?}");
    }

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
