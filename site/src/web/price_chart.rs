//! The overview's speed against price, per CoreMark comparison group
//! (templates/price_chart.html, under the group's table): two panels, one
//! per figure, of each priced runner's CoreMark against its price per
//! minute (`plot::price`), then the same figures as a table, and the
//! runners that are not plotted and why.
//!
//! One-thread and all-core CoreMark get a panel each, not two series on one
//! pair of axes: a runner's all-core figure is about its logical CPUs times
//! its one-thread one, so on a shared axis the one-thread points of a group
//! with 8-vCPU runners would lie flat along the bottom; two panels keep
//! each figure's spread readable, and each panel's axis says which figure
//! it is. The panels share the price axis' unit, not its scale: each ends
//! past its own dearest point.
//!
//! Made from the overview's section alone (`overview` hands over each
//! row's headline, all-core figure and price as a `Runner`), so a page
//! whose sections are unchanged has the same chart: the rows are what
//! `site serve` keys the page by.

use serde::Serialize;

use super::plot::price::{self, Point};
use crate::model::leading;

/// A runner of the group, as the overview's row shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Runner<'a> {
    pub label: &'a str,
    pub url: &'a str,
    pub provider_id: &'a str,
    pub provider_name: &'a str,
    /// `$0.008/min`, or "not stated".
    pub price: &'a str,
    pub usd_per_minute: Option<f64>,
    /// The one-thread CoreMark headline as printed, where it has a share
    /// (neither incomplete nor a try-out).
    pub one_thread: Option<&'a str>,
    /// The headline result's all-core CoreMark, median iterations/s as
    /// printed (two decimals), or why it has none.
    pub all_core: Option<&'a str>,
    pub all_core_why: Option<&'a str>,
}

/// A runner as the lists under the chart link it, with why it is listed
/// where that differs from runner to runner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunnerLink {
    pub label: String,
    pub url: String,
    pub why: Option<String>,
}

/// One panel: its title, its SVG (none where no runner has the figure) and
/// the plotted runners it leaves out for want of the figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    pub title: &'static str,
    pub svg: Option<String>,
    pub missing: Vec<RunnerLink>,
}

/// One row of the chart's table: the figures of one point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartRow {
    pub label: String,
    pub url: String,
    pub provider_name: String,
    /// `$0.008/min`.
    pub price: String,
    /// Iterations/s as the overview's table prints them.
    pub one_thread: String,
    /// Iterations/s, two decimals; none without an all-core figure.
    pub all_core: Option<String>,
}

/// A group's chart: the panels (none where no runner is plotted), the
/// table of their figures, and the group's runners that are not plotted:
/// those without a price, and those with a price whose one-thread figure
/// has no share (incomplete or a try-out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceChart {
    pub panels: Vec<Panel>,
    pub rows: Vec<ChartRow>,
    pub unpriced: Vec<RunnerLink>,
    pub unranked: Vec<RunnerLink>,
}

/// The chart of a CoreMark group's runners.
pub fn of(runners: &[Runner<'_>]) -> anyhow::Result<PriceChart> {
    let link = |r: &Runner<'_>| RunnerLink { label: r.label.to_string(), url: r.url.to_string(), why: None };
    let all_core = |r: &Runner<'_>| r.all_core.and_then(leading).filter(|v| v.is_finite());
    let (mut plotted, mut unpriced, mut unranked) = (Vec::new(), Vec::new(), Vec::new());
    for r in runners {
        match (r.usd_per_minute, r.one_thread.and_then(leading)) {
            (None, _) => unpriced.push(link(r)),
            (Some(usd), Some(v)) if usd.is_finite() && v.is_finite() => plotted.push((r, usd, v)),
            (Some(_), _) => unranked.push(link(r)),
        }
    }
    // Cheapest first, then by label: the same order on both of the
    // overview's pages.
    plotted.sort_by(|a, b| {
        a.1.total_cmp(&b.1).then_with(|| (&a.0.label, &a.0.provider_id).cmp(&(&b.0.label, &b.0.provider_id)))
    });
    let point = |r: &Runner<'_>, usd: f64, value: f64, figure: &str| Point {
        label: r.label.to_string(),
        title: format!("{} ({}): {}, {figure} it/s", r.label, r.provider_name, r.price),
        href: r.url.to_string(),
        usd_per_minute: usd,
        value,
    };
    let mut panels = Vec::new();
    if !plotted.is_empty() {
        let one: Vec<Point> =
            plotted.iter().map(|&(r, usd, v)| point(r, usd, v, r.one_thread.unwrap_or_default())).collect();
        let all: Vec<Point> = plotted
            .iter()
            .filter_map(|&(r, usd, _)| Some(point(r, usd, all_core(r)?, r.all_core.unwrap_or_default())))
            .collect();
        let missing = plotted.iter().filter(|(r, ..)| all_core(r).is_none()).map(|(r, ..)| RunnerLink {
            why: Some(r.all_core_why.unwrap_or("no all-core figure").to_string()),
            ..link(r)
        });
        panels.push(Panel {
            title: "One thread",
            svg: price::draw("one-thread iterations/s", 0, &one)?.map(|d| d.svg),
            missing: Vec::new(),
        });
        panels.push(Panel {
            title: "All cores",
            svg: price::draw("all-core iterations/s", 1, &all)?.map(|d| d.svg),
            missing: missing.collect(),
        });
    }
    let rows = plotted
        .iter()
        .map(|&(r, ..)| ChartRow {
            label: r.label.to_string(),
            url: r.url.to_string(),
            provider_name: r.provider_name.to_string(),
            price: r.price.to_string(),
            one_thread: r.one_thread.unwrap_or_default().to_string(),
            all_core: all_core(r).and(r.all_core).map(str::to_string),
        })
        .collect();
    Ok(PriceChart { panels, rows, unpriced, unranked })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner<'a>(
        label: &'a str,
        usd: Option<f64>,
        one_thread: Option<&'a str>,
        all_core: Option<&'a str>,
    ) -> Runner<'a> {
        Runner {
            label,
            url: "/runners/p/x/",
            provider_id: "p",
            provider_name: "P",
            price: if usd.is_some() { "$0.01/min" } else { "not stated" },
            usd_per_minute: usd,
            one_thread,
            all_core,
            all_core_why: all_core.is_none().then_some("no all-core sample was accepted"),
        }
    }

    /// A runner without a price and one whose figure has no share are
    /// listed, each for its reason; with nothing left, nothing is drawn.
    #[test]
    fn runners_not_plotted_are_listed_by_reason() {
        let chart =
            of(&[runner("a", None, Some("100.00"), None), runner("b", Some(0.01), None, Some("300.00"))]).unwrap();
        assert_eq!(chart.panels, []);
        assert_eq!(chart.rows, []);
        let link = |label: &str| RunnerLink { label: label.into(), url: "/runners/p/x/".into(), why: None };
        assert_eq!(chart.unpriced, [link("a")]);
        assert_eq!(chart.unranked, [link("b")]);
    }

    /// Runners at one price are told apart by label; a runner without an
    /// all-core figure is missing from its panel, with the reason.
    #[test]
    fn rows_are_cheapest_first() {
        let chart = of(&[
            runner("c", Some(0.02), Some("50.00"), Some("90.00")),
            runner("b", Some(0.01), Some("60.00"), None),
            runner("a", Some(0.01), Some("40.00"), Some("70.00")),
        ])
        .unwrap();
        let labels: Vec<(&str, Option<&str>)> =
            chart.rows.iter().map(|r| (r.label.as_str(), r.all_core.as_deref())).collect();
        assert_eq!(labels, [("a", Some("70.00")), ("b", None), ("c", Some("90.00"))]);
        assert_eq!(chart.panels.iter().map(|p| p.title).collect::<Vec<_>>(), ["One thread", "All cores"]);
        assert_eq!(
            chart.panels[1].missing,
            [RunnerLink {
                label: "b".into(),
                url: "/runners/p/x/".into(),
                why: Some("no all-core sample was accepted".into())
            }]
        );
        let svg = |i: usize| chart.panels[i].svg.as_deref().unwrap().matches("<circle").count();
        assert_eq!((svg(0), svg(1)), (3, 2));
    }
}
