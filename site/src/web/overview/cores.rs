//! The overview's whole-runner figures (issue 56): each row's all-core
//! CoreMark and what a vCPU is worth, its place among the all-core figures
//! of its section, and the cost of all-core work that the page
//! `/overview/by-allcore-cost/` is ordered by.
//!
//! A section is one CoreMark comparison table (one group's key and one
//! implementation), so an all-core figure is only ever set against the
//! all-core figures of results whose one-thread figures are compared.

use serde::Serialize;

use crate::figures::two;
use crate::report::CpuRow;
use crate::stats::{self, Interval, Rank};

/// The CoreMark iterations that the cost of all-core work prices: 10⁹, so
/// that the cost reads in dollars and cents on today's runners.
pub const ALL_CORE_WORK_ITERATIONS: f64 = 1e9;

/// Why a row has a one-thread figure and an all-core one but no vCPU worth.
const NO_ONE_THREAD: &str = "no one-thread sample was accepted";
const CONTEXTS_DIFFER: &str = "the all-core samples ran different numbers of contexts";

/// A runner's all-core CoreMark on the overview.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AllCore {
    /// The median of the accepted all-core samples, it/s, two decimals;
    /// none where `why` says why.
    pub value: Option<String>,
    pub why: Option<&'static str>,
    /// The all-core figure ÷ (the one-thread figure × the logical CPUs),
    /// two decimals; none where `worth_why` says why.
    pub worth: Option<String>,
    pub worth_why: Option<&'static str>,
    /// Its place among the section's all-core figures: rows whose sample
    /// ranges overlap share the place of the first of them, marked tied.
    /// None for a marked or stale row, or one without the figure.
    pub place: Option<Rank>,
    /// The cost of all-core work (`all_core_cost`), formatted, from the
    /// figure of the first row of its place.
    pub cost: Option<String>,
    /// Its value in US dollars, for the order by it and the script.
    pub cost_usd: Option<f64>,
    /// Median, least and greatest accepted sample, it/s.
    #[serde(skip)]
    range: Option<[f64; 3]>,
    /// `worth` unrounded.
    #[serde(skip)]
    worth_value: Option<f64>,
    /// Whether the row takes a place (not marked and not stale) and a cost
    /// (not marked), as the one-thread figure does.
    #[serde(skip)]
    ranked: bool,
    #[serde(skip)]
    priced: bool,
}

impl AllCore {
    /// The figures of a runner's chosen CoreMark row; `marked` and `stale`
    /// as the row's.
    pub fn of(row: &CpuRow, marked: bool, stale: bool) -> AllCore {
        let why = if row.all_core.is_some() { None } else { row.all_core_why.or(Some("no all-core figure")) };
        let worth_why = match (row.vcpu_worth, why) {
            (Some(_), _) => None,
            (None, Some(why)) => Some(why),
            (None, None) if row.median_value.is_none() => Some(NO_ONE_THREAD),
            (None, None) => Some(CONTEXTS_DIFFER),
        };
        AllCore {
            value: row.all_core.map(|[median, ..]| two(median)),
            why,
            worth: row.vcpu_worth.map(two),
            worth_value: row.vcpu_worth,
            worth_why,
            place: None,
            cost: None,
            cost_usd: None,
            range: row.all_core.filter(|r| r.iter().all(|v| v.is_finite())),
            ranked: !marked && !stale,
            priced: !marked,
        }
    }
}

impl AllCore {
    /// The all-core median, it/s, unrounded.
    pub fn median(&self) -> Option<f64> {
        self.range.map(|[median, ..]| median)
    }

    /// What a vCPU is worth, unrounded.
    pub fn worth_value(&self) -> Option<f64> {
        self.worth_value
    }
}

/// The cost of all-core work: what this runner charges, at its price per
/// minute for the whole runner, for 10⁹ CoreMark iterations run on all its
/// logical CPUs at once, in US dollars: `usd_per_minute ÷ 60 × 10⁹ ÷
/// all-core iterations/s`. None without a price or a positive figure.
pub fn all_core_cost(usd_per_minute: Option<f64>, all_core_it_s: Option<f64>) -> Option<f64> {
    let (price, it_s) = (usd_per_minute?, all_core_it_s?);
    let cost = price / 60.0 * ALL_CORE_WORK_ITERATIONS / it_s;
    (it_s > 0.0 && cost.is_finite()).then_some(cost)
}

/// Gives a section's rows their all-core places and costs, each row as its
/// `AllCore` and its price per minute, in the section's order. The rows
/// that take a place are ordered by their all-core median, highest first
/// (then the section's order); two whose sample ranges overlap cannot be
/// told apart and share a place (`stats::ranks`), and a tied row's cost is
/// made from the figure of its place's first row, as the one-thread cost
/// is, so that the order by cost is not made on noise. `money` formats a
/// cost.
pub(super) fn place(rows: &mut [(&mut AllCore, Option<f64>)], money: fn(f64) -> String) {
    let median = |a: &AllCore| a.median().unwrap_or(f64::NEG_INFINITY);
    let mut ranked: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].0.ranked && rows[i].0.range.is_some()).collect();
    // Stable: equal medians keep the section's order.
    ranked.sort_by(|&a, &b| median(rows[b].0).total_cmp(&median(rows[a].0)));
    let intervals: Vec<Option<Interval>> =
        ranked.iter().map(|&i| rows[i].0.range.map(|[_, lo, hi]| Interval { lo, hi })).collect();
    for (&i, rank) in ranked.iter().zip(stats::ranks(&intervals)) {
        rows[i].0.place = Some(rank);
    }
    for i in 0..rows.len() {
        if !rows[i].0.priced {
            continue;
        }
        // The figure of the first row of its place (places are numbered by
        // position in `ranked`, 1 for the first).
        let placed = match rows[i].0.place {
            Some(p) if p.tied => rows[ranked[p.place - 1]].0.median(),
            _ => rows[i].0.median(),
        };
        let cost = all_core_cost(rows[i].1, placed);
        rows[i].0.cost = cost.map(money);
        rows[i].0.cost_usd = cost;
    }
}
