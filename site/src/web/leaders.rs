//! The home page's first screen: for each stage, who leads its largest
//! comparison table, by how much over the next place, among how many
//! runners, and in which comparison group.
//!
//! A "lead" is only what the table's own ranking says (`model::rank`): the
//! rows of place 1, which share it where their intervals overlap ("≈"), and
//! the first row of the next place. Nothing is compared across tables:
//! each line names its table, and how many other tables the stage has.

use serde::Serialize;

use super::group_name::group_words;
use crate::model::{Group, Model, Row, leading, range};
use crate::report::{CacheRow, CpuRow};
use crate::stats::{Interval, Rank, ranks};

/// The comparison tables as `pages::TABLES` lists them: kind, slug, name,
/// the figure they rank by.
pub(super) type Tables = [(&'static str, &'static str, &'static str, &'static str)];

/// One stage's leader line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct Leader {
    /// The stage as the line names it, e.g. `CoreMark, one thread`.
    pub(super) stage: &'static str,
    /// The figure the table ranks by, e.g. `median iterations/s`.
    pub(super) ranked_by: &'static str,
    /// The runners of place 1 (the first `NAMED` of them): more than one
    /// where they cannot be told apart.
    pub(super) first: Vec<Leading>,
    /// How many rows share place 1, named or not, and how many of them
    /// `first` leaves unnamed.
    pub(super) first_count: usize,
    pub(super) first_unnamed: usize,
    /// How far place 1 (its weakest row, where rows share it) is ahead of
    /// the next place, in percent of the next place's figure (for a figure
    /// where lower is better, how much longer the next place takes); none
    /// where no other place has the figure.
    pub(super) lead_pct: Option<String>,
    /// Whether a higher figure is better (else the lead is how much longer
    /// the next place takes).
    pub(super) higher_is_better: bool,
    /// The runner of the next place.
    pub(super) next: Option<Leading>,
    /// The next place's interval (or published range) overlaps that of
    /// place 1's weakest row: ranked apart only because `model::rank`
    /// compares each row with the first row of a place, so the lead of
    /// that row may not hold. Its runner, where so.
    pub(super) overlapped_by: Option<String>,
    /// Rows ranked in the table.
    pub(super) compared: usize,
    /// What a row of the table is: `runner`, or `runner and backend` where
    /// a runner has a row per cache backend or internet service.
    pub(super) rows_word: &'static str,
    /// The comparison group in words.
    pub(super) group: String,
    /// The table on the home page.
    pub(super) url: String,
    /// The stage's other tables that rank at least one row.
    pub(super) more_tables: usize,
}

/// A runner of a leader line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct Leading {
    pub(super) runner: String,
    pub(super) provider: String,
    pub(super) url: String,
    /// The row's figure as the table prints it, with what it is of (a
    /// cache backend, an internet service) where the table has several.
    pub(super) figure: String,
    pub(super) of: String,
}

/// The lines of the stages whose tables rank rows, in the order of the
/// home page's tables: CoreMark (both implementations' tables together:
/// the largest is shown), disk, cache restore and save per method,
/// internet.
pub(super) fn leaders(model: &Model, tables: &Tables) -> Vec<Leader> {
    let stages: [(&'static str, &[&str]); 7] = [
        ("CoreMark, one thread", &["cpu", "cpu_eembc"]),
        ("Disk, random read", &["disk"]),
        ("Cache restore, client method", &["cache"]),
        ("Cache save, client method", &[SAVE_CLIENT]),
        ("Cache restore, action method", &["cache_action"]),
        ("Cache save, action method", &[SAVE_ACTION]),
        ("Internet download", &["internet"]),
    ];
    stages.iter().filter_map(|(stage, kinds)| stage_line(model, tables, stage, kinds)).collect()
}

/// The save lines' kinds: a cache table's rows in the order of their
/// median save seconds (`save_order`), where the table ranks by restore.
const SAVE_CLIENT: &str = "cache save";
const SAVE_ACTION: &str = "cache_action save";

/// The rows of a cache table that it places, in the order of their median
/// save seconds, shortest first, each placed as the tables place rows
/// (`stats::ranks`): rows whose save ranges (the samples' min–max, or the
/// published one) overlap share a place.
fn save_order(rows: &[Row<CacheRow>]) -> Vec<(&Row<CacheRow>, Rank, Option<Interval>)> {
    let mut placed: Vec<&Row<CacheRow>> = rows.iter().filter(|r| r.place.is_some()).collect();
    placed.sort_by(|a, b| {
        let (a, b) = (leading(&a.fig.save), leading(&b.fig.save));
        a.is_none().cmp(&b.is_none()).then(a.unwrap_or(0.0).total_cmp(&b.unwrap_or(0.0)))
    });
    let intervals: Vec<Option<Interval>> =
        placed.iter().map(|r| range(&r.fig.save).map(|(lo, hi)| Interval { lo, hi })).collect();
    let places = ranks(&intervals);
    placed.into_iter().zip(places).zip(intervals).map(|((r, p), i)| (r, p, i)).collect()
}

/// A table's placed rows in its order, each with its place and interval
/// (or published range).
fn table_order<T>(
    rows: &[Row<T>],
    published: impl Fn(&T) -> Option<(f64, f64)>,
) -> Vec<(&Row<T>, Rank, Option<Interval>)> {
    rows.iter()
        .filter_map(|r| {
            let interval = r.interval.or_else(|| published(&r.fig).map(|(lo, hi)| Interval { lo, hi }));
            Some((r, r.place?, interval))
        })
        .collect()
}

/// The line of the largest table of `kinds` over every group (the first
/// in the home page's order where two are as large).
fn stage_line(model: &Model, all: &Tables, stage: &'static str, kinds: &[&str]) -> Option<Leader> {
    let mut tables: Vec<(&Group, &str, usize)> = Vec::new();
    for g in &model.groups {
        for kind in kinds {
            let ranked = ranked_rows(g, kind);
            if ranked > 0 {
                tables.push((g, kind, ranked));
            }
        }
    }
    let largest = tables.iter().map(|t| t.2).max()?;
    let &(g, kind, compared) = tables.iter().find(|t| t.2 == largest)?;
    let table_kind = kind.trim_end_matches(" save");
    let (_, slug, _, ranked_by) = all.iter().find(|t| t.0 == table_kind).copied()?;
    let ranked_by = if kind == table_kind { ranked_by } else { "median save seconds" };
    let higher_is_better = !kind.starts_with("cache");
    // CoreMark's published range stands for an imported row's interval,
    // as in the ranking (`model::rank`); other stages publish none.
    let cpu_range = |f: &CpuRow| if f.headline_samples.is_empty() { range(&f.range) } else { None };
    let cpu = |f: &CpuRow| (f.median_value, f.median.clone(), String::new());
    let restore = |f: &CacheRow| (leading(&f.restore), lead_figure(&f.restore), f.backend.clone());
    let save = |f: &CacheRow| (leading(&f.save), lead_figure(&f.save), f.backend.clone());
    let (first, lead_pct, next, overlapped_by) = match kind {
        "cpu" => line(&table_order(&g.cpu, cpu_range), cpu, true),
        "cpu_eembc" => line(&table_order(&g.cpu_eembc, cpu_range), cpu, true),
        "disk" => line(
            &table_order(&g.disk, none),
            |f| (leading(&f.rand_read), lead_figure(&f.rand_read), String::new()),
            true,
        ),
        "cache" => line(&table_order(&g.cache, none), restore, false),
        "cache_action" => line(&table_order(&g.cache_action, none), restore, false),
        SAVE_CLIENT => line(&save_order(&g.cache), save, false),
        SAVE_ACTION => line(&save_order(&g.cache_action), save, false),
        _ => line(
            &table_order(&g.internet, none),
            |f| (leading(&f.download), lead_figure(&f.download), f.service.clone()),
            true,
        ),
    };
    let first_count = first.len();
    let first: Vec<Leading> = first.into_iter().take(NAMED).collect();
    Some(Leader {
        stage,
        first_count,
        first_unnamed: first_count - first.len(),
        ranked_by,
        first,
        lead_pct,
        higher_is_better,
        next,
        overlapped_by,
        compared,
        rows_word: match table_kind {
            "cache" | "cache_action" => "runner and backend row",
            "internet" => "runner and service row",
            _ => "runner",
        },
        group: group_words(g),
        url: format!("#g-{}-{slug}", g.id),
        more_tables: tables.len() - 1,
    })
}

/// The most runners a line names where they share place 1: a thousand
/// identical figures would otherwise put a thousand links on the first
/// screen.
const NAMED: usize = 3;

/// How many rows of the table `kind` of `g` have a place.
fn ranked_rows(g: &Group, kind: &str) -> usize {
    fn placed<T>(rows: &[Row<T>]) -> usize {
        rows.iter().filter(|r| r.place.is_some()).count()
    }
    match kind {
        "cpu" => placed(&g.cpu),
        "cpu_eembc" => placed(&g.cpu_eembc),
        "disk" => placed(&g.disk),
        "cache" | SAVE_CLIENT => placed(&g.cache),
        "cache_action" | SAVE_ACTION => placed(&g.cache_action),
        _ => placed(&g.internet),
    }
}

/// The leading number of a shown figure (`3.91; 4.02` → `3.91`).
fn lead_figure(shown: &str) -> String {
    shown.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or_default().to_string()
}

/// No published range: a stage whose imported rows rank by their medians
/// alone.
fn none<T>(_: &T) -> Option<(f64, f64)> {
    None
}

/// Place 1's rows, the lead over the next place, its first row and, where
/// that row's interval overlaps the interval of place 1's weakest row, the
/// weakest row's runner, from a table's placed rows in order (each with its
/// place and interval); `figure` gives a row's value, its text and what it
/// is of.
fn line<T>(
    placed: &[(&Row<T>, Rank, Option<Interval>)],
    figure: impl Fn(&T) -> (Option<f64>, String, String),
    higher_is_better: bool,
) -> (Vec<Leading>, Option<String>, Option<Leading>, Option<String>) {
    let leading_of = |r: &Row<T>| {
        let (_, text, of) = figure(&r.fig);
        Leading {
            runner: r.meta.runner.clone(),
            provider: r.meta.provider_name.to_string(),
            url: r.meta.runner_url.to_string(),
            figure: text,
            of,
        }
    };
    let first: Vec<&(&Row<T>, Rank, Option<Interval>)> = placed.iter().filter(|r| r.1.place == 1).collect();
    let next = placed.iter().find(|r| r.1.place > 1);
    // Against the weakest row sharing place 1: the least the lead can be.
    let lead = match (first.last().and_then(|r| figure(&r.0.fig).0), next.and_then(|r| figure(&r.0.fig).0)) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => {
            let ratio = if higher_is_better { a / b } else { b / a };
            Some(format!("{:.1}", (ratio - 1.0) * 100.0))
        }
        _ => None,
    };
    let overlapped_by = match (first.last(), next) {
        (Some(weakest), Some(next)) => match (weakest.2, next.2) {
            (Some(a), Some(b)) if a.overlaps(&b) => Some(weakest.0.meta.runner.clone()),
            _ => None,
        },
        _ => None,
    };
    (first.into_iter().map(|r| leading_of(r.0)).collect(), lead, next.map(|r| leading_of(r.0)), overlapped_by)
}
