//! Speed against price: one panel of a comparison group's runners, a point
//! per runner at its price per minute (x, US dollars) and a CoreMark figure
//! (y, iterations/s), both axes from 0, the better corner (faster and
//! cheaper: top left) marked.
//!
//! The SVG is inlined in the page, so that each point can link to its
//! runner's page (an `<img>` cannot carry links): plotters draws the axes,
//! the grid and their text, and this file places each point as an `<a>`
//! around its circle and label at the pixel that plotters maps the point's
//! data to (`ChartContext::backend_coord`). Everything written here from
//! result files goes through `xml_escape`; plotters' SVG backend escapes the
//! text it draws itself (`<`, `>`, `&`, `"` and `'`, plotters-svg 0.3.7,
//! `escape_and_push`), which a test below holds it to.
//!
//! The panel is hidden from screen readers (`aria-hidden`) and its links
//! from the tab order: the table under the chart on the page has the same
//! figures and links, which a screen reader reads without the axes' ticks.
//! Colours are the placeholders of `super::FG` and `super::GRID`, which
//! site.css swaps for the page's colours (an inline SVG takes the page's
//! CSS).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{FG, PALETTE, TEXT_PX, axis_top, err, font, house_mesh, tick, xml_escape};

/// Panel width and height, pixels: at `MIN_SHOWN_PX` (site.css, `.price-chart
/// svg { min-width }`) a panel fits a 390-px-wide phone's page, whose
/// content is 358 px wide, with its 14-px text drawn at 12 px or more.
pub const WIDTH: u32 = 380;
pub const HEIGHT: u32 = 300;
/// The narrowest a page shows a panel: there `TEXT_PX` is drawn at 12 px.
pub const MIN_SHOWN_PX: f64 = WIDTH as f64 * 12.0 / TEXT_PX;
/// Each axis ends this many times past its largest value: room above the
/// fastest point for the corner's label and right of the dearest for its
/// own.
const AXIS_MARGIN: f64 = 1.25;
/// The label of the better corner, drawn in the plot's top left corner.
pub const BETTER: &str = "↖ faster and cheaper";
/// A point's radius, pixels.
const RADIUS_PX: i32 = 5;
/// The most characters a point's label keeps (a runner label is at most 64).
const LABEL_CHARS: usize = 24;
/// A label's box: the average width of a character and the line's height,
/// in `TEXT_PX` sans-serif text, as the browser lays it out (an estimate:
/// the build has no fonts).
const CHAR_PX: f64 = TEXT_PX * 0.55;
const LINE_PX: f64 = TEXT_PX * 1.2;

/// One runner.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Drawn beside the point (shortened to `LABEL_CHARS`): the runner's
    /// label.
    pub label: String,
    /// Shown on hover: the runner, its price and figure in words.
    pub title: String,
    /// The runner's page.
    pub href: String,
    pub usd_per_minute: f64,
    /// Iterations/s.
    pub value: f64,
}

/// A drawn panel: the SVG, and where each point is in its pixels (in the
/// order of the points; none for a point that is not a finite figure and
/// price, which is not drawn).
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub svg: String,
    pub at: Vec<Option<(i32, i32)>>,
}

/// Draws `points` against the y axis `axis` (its label, with the unit) in
/// the palette's `colour`; `None` when no point has a finite, non-negative
/// figure and price.
pub fn draw(axis: &str, colour: usize, points: &[Point]) -> anyhow::Result<Option<Drawn>> {
    let ok = |p: &Point| [p.usd_per_minute, p.value].iter().all(|v| v.is_finite() && *v >= 0.0);
    if !points.iter().any(ok) {
        return Ok(None);
    }
    let x_top = axis_top(points.iter().filter(|p| ok(p)).map(|p| p.usd_per_minute), AXIS_MARGIN);
    let y_top = axis_top(points.iter().filter(|p| ok(p)).map(|p| p.value), AXIS_MARGIN);
    let mut svg = String::new();
    let (at, area) = {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .margin_right(20)
            .x_label_area_size(48)
            .y_label_area_size(76)
            .build_cartesian_2d(0.0..x_top, 0.0..y_top)
            .map_err(err)?;
        house_mesh(&mut chart.configure_mesh())
            .x_desc("US$ per minute (lower is cheaper)")
            .y_desc(axis)
            .x_labels(5)
            .y_labels(6)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()
            .map_err(err)?;
        let at: Vec<Option<(i32, i32)>> =
            points.iter().map(|p| ok(p).then(|| chart.backend_coord(&(p.usd_per_minute, p.value)))).collect();
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let area =
            Rect { x0: f64::from(xs.start), y0: f64::from(ys.start), x1: f64::from(xs.end), y1: f64::from(ys.end) };
        root.draw(&Text::new(
            BETTER,
            (xs.start + 4, ys.start + 4),
            font().color(&FG).pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
        (at, area)
    };
    let labels: Vec<String> = points.iter().map(|p| short_label(&p.label)).collect();
    let places = place_labels(&at, &labels, area);
    let mut marks = String::new();
    let fill = PALETTE[colour % PALETTE.len()];
    for (i, p) in points.iter().enumerate() {
        let (Some((x, y)), Some(place)) = (at[i], places[i]) else { continue };
        marks.push_str(&format!(
            "<a href=\"{href}\" tabindex=\"-1\"><title>{title}</title><circle cx=\"{x}\" cy=\"{y}\" r=\"{RADIUS_PX}\" \
             fill=\"#{r:02x}{g:02x}{b:02x}\" stroke=\"#010203\"/><text x=\"{tx}\" y=\"{ty}\" text-anchor=\"{anchor}\" \
             font-family=\"{family}\" font-size=\"{TEXT_PX}\">{label}</text></a>\n",
            href = xml_escape(&p.href),
            title = xml_escape(&p.title),
            r = fill.0,
            g = fill.1,
            b = fill.2,
            tx = format_args!("{:.1}", place.x),
            ty = format_args!("{:.1}", place.baseline),
            anchor = place.anchor,
            family = super::FONT,
            label = xml_escape(&labels[i]),
        ));
    }
    Ok(Some(Drawn { svg: finish(&svg, &marks), at }))
}

/// The panel's markup: hidden from screen readers (the table under it reads
/// the same), with the points after everything plotters drew.
fn finish(svg: &str, marks: &str) -> String {
    let svg = svg.replacen("<svg ", "<svg class=\"price-plot\" aria-hidden=\"true\" ", 1);
    match svg.rfind("</svg>") {
        Some(end) => format!("{}{marks}{}", &svg[..end], &svg[end..]),
        None => svg,
    }
}

/// `label`, or where it is longer than `LABEL_CHARS`, its start and an
/// ellipsis (the hover title and the table give it whole).
fn short_label(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        return label.to_string();
    }
    label.chars().take(LABEL_CHARS - 1).chain(['…']).collect()
}

/// A box in the panel's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }
}

/// Where a label is written: `x` and its `text-anchor`, and the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Place {
    x: f64,
    baseline: f64,
    anchor: &'static str,
}

/// Places each point's label beside it, in the plot `area`: right of the
/// point, else left, above or below, the first of those that stays in the
/// area and clear of the corner's label, the points and the labels placed
/// before it; where none is clear, the one in the area that overlaps
/// fewest (a crowded group's labels can still overlap: the table lists
/// them all). None for a point that is not drawn.
fn place_labels(at: &[Option<(i32, i32)>], labels: &[String], area: Rect) -> Vec<Option<Place>> {
    let gap = f64::from(RADIUS_PX) + 4.0;
    let dot = |(x, y): (i32, i32)| {
        let (x, y, r) = (f64::from(x), f64::from(y), f64::from(RADIUS_PX));
        Rect { x0: x - r, y0: y - r, x1: x + r, y1: y + r }
    };
    let corner = Rect {
        x0: area.x0,
        y0: area.y0,
        x1: area.x0 + 8.0 + CHAR_PX * BETTER.chars().count() as f64,
        y1: area.y0 + 4.0 + LINE_PX,
    };
    let mut taken: Vec<Rect> = vec![corner];
    taken.extend(at.iter().flatten().map(|&p| dot(p)));
    let mut out = Vec::with_capacity(at.len());
    for (p, label) in at.iter().zip(labels) {
        let Some((x, y)) = *p else {
            out.push(None);
            continue;
        };
        let (x, y) = (f64::from(x), f64::from(y));
        let w = CHAR_PX * label.chars().count() as f64;
        // The baseline sits a fifth of the line above the box's bottom,
        // room for descenders.
        let boxed = |x0: f64, y0: f64, anchor: &'static str, text_x: f64| {
            (Rect { x0, y0, x1: x0 + w, y1: y0 + LINE_PX }, Place { x: text_x, baseline: y0 + LINE_PX * 0.8, anchor })
        };
        let candidates = [
            boxed(x + gap, y - LINE_PX / 2.0, "start", x + gap),
            boxed(x - gap - w, y - LINE_PX / 2.0, "end", x - gap),
            boxed(x - w / 2.0, y - gap - LINE_PX, "middle", x),
            boxed(x - w / 2.0, y + gap, "middle", x),
        ];
        let own = dot((x as i32, y as i32));
        let clashes = |r: &Rect| taken.iter().filter(|t| **t != own && t.overlaps(r)).count();
        let chosen = candidates
            .iter()
            .find(|(r, _)| r.inside(&area) && clashes(r) == 0)
            .or_else(|| candidates.iter().filter(|(r, _)| r.inside(&area)).min_by_key(|(r, _)| clashes(r)))
            // Wider than the area either way: on the side with more room.
            .unwrap_or(if x - area.x0 < area.x1 - x { &candidates[0] } else { &candidates[1] });
        taken.push(chosen.0);
        out.push(Some(chosen.1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::plot::svg_texts;

    fn point(label: &str, usd_per_minute: f64, value: f64) -> Point {
        Point {
            label: label.into(),
            title: format!("{label}: ${usd_per_minute}/min, {value} it/s"),
            href: format!("/runners/example/{label}/"),
            usd_per_minute,
            value,
        }
    }

    /// A 2-vCPU runner at $0.008/min and an 8-vCPU one at $0.032/min, all
    /// cores 36000 and 144000 it/s: the axes end at 0.032 × 1.25 = 0.04 and
    /// 144000 × 1.25 = 180000. The plot area runs from x = 8 + 76 = 84 to
    /// 380 − 20 = 360 and from y = 8 to 300 − 8 − 48 = 244, and plotters
    /// maps a value v of an axis from 0 to `top` onto its pixels `lo..hi`
    /// as lo + v ÷ top × (hi − 1 − lo), truncated (y from the bottom):
    /// 0.008 → 84 + 0.2 × 275 = 139, 0.032 → 84 + 0.8 × 275 = 304;
    /// 36000 → 243 − 0.2 × 235 = 196, 144000 → 243 − 0.8 × 235 = 55.
    #[test]
    fn points_sit_where_their_price_and_figure_are() {
        let points = [point("two-vcpu", 0.008, 36000.0), point("eight-vcpu", 0.032, 144000.0)];
        let drawn = draw("iterations/s", 1, &points).unwrap().unwrap();
        assert_eq!(drawn.at, [Some((139, 196)), Some((304, 55))]);
        assert!(drawn.svg.contains(
            "<a href=\"/runners/example/two-vcpu/\" tabindex=\"-1\"><title>two-vcpu: $0.008/min, 36000 \
             it/s</title><circle cx=\"139\" cy=\"196\" r=\"5\" fill=\"#f59e0b\" stroke=\"#010203\"/><text x=\"148.0\" \
             y=\"201.0\" text-anchor=\"start\" font-family=\"sans-serif\" font-size=\"14\">two-vcpu</text></a>"
        ));
        // The dearer point's label goes left of it: right of it, its 10
        // characters of 7.7 px from x = 304 + 9 would pass the area's right
        // edge at 360. Its baseline is 55 − 8.4 + 13.44 = 60.04.
        assert!(drawn.svg.contains(
            "<text x=\"295.0\" y=\"60.0\" text-anchor=\"end\" font-family=\"sans-serif\" \
             font-size=\"14\">eight-vcpu</text></a>\n</svg>"
        ));
        assert_eq!(
            svg_texts(&drawn.svg),
            [
                "iterations/s",
                "US$ per minute (lower is cheaper)",
                "0",
                "50000",
                "100000",
                "150000",
                "0",
                "0.01",
                "0.02",
                "0.03",
                "0.04",
                "↖ faster and cheaper",
                "two-vcpu",
                "eight-vcpu"
            ]
        );
        assert!(drawn.svg.starts_with("<svg class=\"price-plot\" aria-hidden=\"true\" width=\"380\" height=\"300\""));
    }

    /// A runner name, title and link with markup in them stay text: every
    /// `<`, `&` and `"` is escaped in the markup this file writes.
    #[test]
    fn hostile_text_is_escaped() {
        let p = Point {
            label: "<b>&\"x\"".into(),
            title: "<script>alert(1)</script> & \"q\"".into(),
            href: "/runners/a\"onclick=\"alert(2)/".into(),
            usd_per_minute: 0.01,
            value: 100.0,
        };
        let svg = draw("iterations/s", 0, &[p]).unwrap().unwrap().svg;
        assert!(svg.contains("<a href=\"/runners/a&quot;onclick=&quot;alert(2)/\" tabindex=\"-1\">"), "{svg}");
        assert!(svg.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;</title>"), "{svg}");
        assert!(svg.contains(">&lt;b&gt;&amp;&quot;x&quot;</text>"), "{svg}");
        assert!(!svg.contains("<b>") && !svg.contains("<script>") && !svg.contains("onclick=\""), "{svg}");
    }

    /// plotters' SVG backend escapes the text it draws: were a runner's
    /// name ever drawn through it (an axis label, a caption), it stays text.
    #[test]
    fn plotters_escapes_its_text() {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (100, 100)).into_drawing_area();
            root.draw(&Text::new("<a href=\"x\">&'", (10, 10), font())).unwrap();
            root.present().unwrap();
        }
        assert!(svg.contains(">\n&lt;a href=&quot;x&quot;&gt;&amp;&apos;\n</text>"), "{svg}");
    }

    /// No point with a finite price and figure: nothing to draw. A point
    /// without one is left out and the others are drawn.
    #[test]
    fn points_without_figures_are_not_drawn() {
        assert_eq!(draw("a", 0, &[]).unwrap(), None);
        assert_eq!(draw("a", 0, &[point("x", f64::NAN, 1.0), point("y", 1.0, f64::INFINITY)]).unwrap(), None);
        let drawn = draw("a", 0, &[point("x", f64::NAN, 1.0), point("y", 0.01, 100.0)]).unwrap().unwrap();
        assert_eq!(drawn.at[0], None);
        assert!(drawn.at[1].is_some());
        assert_eq!(drawn.svg.matches("<circle").count(), 1);
        // A price of 0 sits on the y axis.
        let free = draw("a", 0, &[point("z", 0.0, 100.0)]).unwrap().unwrap();
        assert_eq!(free.at[0].map(|(x, _)| x), Some(84));
    }

    #[test]
    fn long_labels_are_shortened() {
        let long = "blacksmith-16vcpu-ubuntu-2404-arm-extra";
        assert_eq!(short_label(long), "blacksmith-16vcpu-ubunt…");
        assert_eq!(short_label(long).chars().count(), LABEL_CHARS);
        assert_eq!(short_label("ubicloud-standard-2"), "ubicloud-standard-2");
    }

    /// Two points at the same place: the second label goes where the first
    /// is not (left of the point), and neither covers the corner's label.
    #[test]
    fn labels_avoid_each_other_and_the_corner() {
        let area = Rect { x0: 84.0, y0: 8.0, x1: 360.0, y1: 244.0 };
        let labels = ["aaaa".to_string(), "bbbb".to_string()];
        let places = place_labels(&[Some((200, 100)), Some((200, 100))], &labels, area);
        assert_eq!(places[0].map(|p| (p.x, p.anchor)), Some((209.0, "start")));
        assert_eq!(places[1].map(|p| (p.x, p.anchor)), Some((191.0, "end")));
        // A point in the top left corner: its label cannot go right of it
        // (the corner's label, 84 to 246 px across and 8 to 28.8 down, is
        // there) nor left or above (out of the area), so it goes below,
        // from 29 px down.
        let places = place_labels(&[Some((110, 20))], &labels[..1], area);
        assert_eq!(places[0].map(|p| (p.x, p.baseline, p.anchor)), Some((110.0, 29.0 + 16.8 * 0.8, "middle")));
    }
}
