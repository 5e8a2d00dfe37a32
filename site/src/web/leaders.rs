//! The home page's first screen: for each stage, the leader of each of its
//! comparison groups, by how much over the next place, among how many
//! runners.
//!
//! Groups are never compared (their rows were measured differently), so a
//! stage has no overall leader: each line names every group's own leader,
//! the largest groups first, at most `GROUPS` of them so that the lines fit
//! the first screen, and links to the stage's other groups. A "lead" is
//! only what the table's own ranking says (`model::rank`): the rows of
//! place 1, which share it where their intervals or published ranges
//! overlap ("≈"), and the first row of the next place.

use serde::Serialize;

use super::group_name::group_words;
use crate::model::{Group, Model, Row, leading, range};
use crate::report::{CacheRow, CpuRow};
use crate::stats::{Interval, Rank, ranks};

/// The comparison tables as `pages::TABLES` lists them: kind, slug, name,
/// the figure they rank by.
pub(super) type Tables = [(&'static str, &'static str, &'static str, &'static str)];

/// One stage's leader line: its groups' leaders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct Leader {
    /// The stage as the line names it, e.g. `CoreMark, one thread`.
    pub(super) stage: &'static str,
    /// The figure the tables rank by, e.g. `median iterations/s`.
    pub(super) ranked_by: &'static str,
    /// Whether a higher figure is better (else the lead is how much longer
    /// the next place takes).
    pub(super) higher_is_better: bool,
    /// The leaders of the stage's largest groups (the first in the home
    /// page's order where two are as large), at most `GROUPS`.
    pub(super) groups: Vec<GroupLead>,
    /// The stage's groups that rank at least one row, shown or not.
    pub(super) group_count: usize,
    /// Links to the groups `groups` leaves out.
    pub(super) more: Vec<GroupLink>,
}

/// A group's table of a stage on the home page, by the group's name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct GroupLink {
    pub(super) name: String,
    pub(super) url: String,
}

/// The leader of one group's table of a stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct GroupLead {
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
    /// The comparison group in words, capitalized.
    pub(super) group: String,
    /// The table on the home page.
    pub(super) url: String,
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

/// The line of a stage: the leader of each group's table of `kinds`,
/// the largest tables first (the home page's order where two are as
/// large: which table is shown says nothing of which is better).
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
    // A stable sort keeps the page's order among tables as large.
    tables.sort_by_key(|t| std::cmp::Reverse(t.2));
    let &(_, first_kind, _) = tables.first()?;
    let table_kind = first_kind.trim_end_matches(" save");
    let (_, _, _, ranked_by) = all.iter().find(|t| t.0 == table_kind).copied()?;
    let ranked_by = if first_kind == table_kind { ranked_by } else { "median save seconds" };
    let groups: Vec<GroupLead> =
        tables.iter().take(GROUPS).filter_map(|&(g, kind, compared)| group_lead(g, all, kind, compared)).collect();
    let more = tables
        .iter()
        .skip(GROUPS)
        .filter_map(|&(g, kind, _)| {
            let (_, slug, _, _) = all.iter().find(|t| t.0 == kind.trim_end_matches(" save"))?;
            Some(GroupLink { name: table_name(g, kind), url: format!("#g-{}-{slug}", g.id) })
        })
        .collect();
    Some(Leader {
        stage,
        ranked_by,
        higher_is_better: !first_kind.starts_with("cache"),
        groups,
        group_count: tables.len(),
        more,
    })
}

/// The most groups a stage's line names: seven stages of two groups each
/// fit the first screen of a laptop; the others are links.
const GROUPS: usize = 2;

/// The group in words, and which implementation where a CoreMark group
/// has two tables: they are never compared either.
fn table_name(g: &Group, kind: &str) -> String {
    let name = capitalized(group_words(g));
    if kind == "cpu_eembc" { format!("{name}, EEMBC's CoreMark sources") } else { name }
}

fn capitalized(mut s: String) -> String {
    if let Some(first) = s.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    s
}

/// The leader of the table `kind` of group `g`, which ranks `compared`
/// rows.
fn group_lead(g: &Group, all: &Tables, kind: &str, compared: usize) -> Option<GroupLead> {
    let table_kind = kind.trim_end_matches(" save");
    let (_, slug, _, _) = all.iter().find(|t| t.0 == table_kind).copied()?;
    // CoreMark's and the cache's published ranges stand for an imported
    // row's interval, as in the ranking (`model::rank`); other stages
    // publish none.
    let cpu_range = |f: &CpuRow| if f.headline_samples.is_empty() { range(&f.range) } else { None };
    let cache_range = |f: &CacheRow| if f.headline_samples.is_empty() { range(&f.restore) } else { None };
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
        "cache" => line(&table_order(&g.cache, cache_range), restore, false),
        "cache_action" => line(&table_order(&g.cache_action, cache_range), restore, false),
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
    Some(GroupLead {
        first_count,
        first_unnamed: first_count - first.len(),
        first,
        lead_pct,
        next,
        overlapped_by,
        compared,
        rows_word: match table_kind {
            "cache" | "cache_action" => "runner and backend row",
            "internet" => "runner and service row",
            _ => "runner",
        },
        group: table_name(g, kind),
        url: format!("#g-{}-{slug}", g.id),
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
