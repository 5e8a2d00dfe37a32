//! Change flags of a runner's history: a result whose headline figure's
//! 95 % interval does not overlap that of the runner's previous result of
//! the same comparability key is flagged, on the runner page and in the
//! feed (docs/methodology.md, "Changes in a runner's history").
//!
//! The headline figures are the comparison tables' (`home::TABLES`):
//! CoreMark median iterations/s, disk random-read IOPS, cache restore
//! seconds (per backend and method), internet download Mbps. Their
//! intervals are the tables' bootstrap (`stats::median_ci95`), so a
//! build flags the same changes every time. Each entry computes its
//! intervals once (`Entry::intervals`, which `site serve` keeps between
//! builds with the entry).

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

use super::{Entry, Intervals, Model};
use crate::figures;
use crate::report::CacheRow;
use crate::stats::{self, Interval};

/// A flagged change of one headline figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// `CoreMark`, `Disk`, `Cache` or `Internet`.
    pub stage: &'static str,
    /// The figure, e.g. `median iterations/s` or `restore s, Volume (client)`.
    pub figure: String,
    /// The previous result's interval, `lo–hi`.
    pub from: String,
    /// This result's interval.
    pub to: String,
    /// `higher` or `lower`.
    pub direction: &'static str,
    /// Whether the change is for the better (for restore seconds, lower).
    pub better: bool,
    /// The previous result's date.
    pub since: String,
}

impl Change {
    /// One line, as the feed and the page's titles say it, e.g.
    /// `CoreMark median iterations/s lower (worse) since 2026-11-29: 33258.64–33388.34 → 16629.32–16694.19`.
    pub fn sentence(&self) -> String {
        let verdict = if self.better { "better" } else { "worse" };
        format!(
            "{} {} {} ({verdict}) since {}: {} → {}",
            self.stage, self.figure, self.direction, self.since, self.from, self.to
        )
    }
}

/// Each entry's changes, indexed like `Model::entries` (empty for most).
#[derive(Debug, Default)]
pub struct Changes(Vec<Vec<Change>>);

impl Changes {
    /// The changes flagged on `model.entries[i]`.
    pub fn of(&self, i: usize) -> &[Change] {
        self.0.get(i).map_or(&[], Vec::as_slice)
    }

    /// Adds the changes of entries that come after all of these (a build
    /// flags each provider's runners as the check finishes them).
    pub fn append(&mut self, later: Changes) {
        self.0.extend(later.0);
    }
}

/// A cache row's figure: one backend by one method.
fn cache_id(c: &CacheRow) -> String {
    format!("cache\u{0}{}\u{0}{}", c.backend, c.method_label)
}

/// The entry's intervals, computed on first use: the same as the
/// comparison tables' for the same samples (`stats::median_ci95`, exact
/// and cheap, so nothing is gained by taking theirs).
pub fn intervals(e: &Entry) -> &Intervals {
    e.intervals.get_or_init(|| {
        Box::new(Intervals {
            cpu: e.cpu.as_ref().and_then(|c| stats::median_ci95(&c.headline_samples)),
            disk: e.disk.as_ref().and_then(|d| stats::median_ci95(&d.headline_samples)),
            cache: e.cache.iter().map(|c| stats::median_ci95(&c.headline_samples)).collect(),
            internet: e.internet.as_ref().and_then(|n| stats::median_ci95(&n.headline_samples)),
        })
    })
}

/// A headline figure of one result that a change can be flagged on.
struct Figure {
    /// What must be equal for two results to be compared: the stage, its
    /// comparability key and, for cache, backend and method; for the
    /// internet, the service.
    id: String,
    stage: &'static str,
    figure: String,
    interval: Interval,
    higher_is_better: bool,
}

fn figures_of(e: &Entry, iv: &Intervals) -> Vec<Figure> {
    let k = &e.meta.keys;
    let mut out = Vec::new();
    let mut push = |id: String, stage, figure: String, interval: Option<Interval>, higher_is_better| {
        if let Some(interval) = interval {
            out.push(Figure { id, stage, figure, interval, higher_is_better });
        }
    };
    if e.cpu.is_some() {
        push(format!("cpu\u{0}{}", k.cpu), "CoreMark", "median iterations/s".into(), iv.cpu, true);
    }
    if e.disk.is_some() {
        push(format!("disk\u{0}{}", k.disk), "Disk", "random-read IOPS".into(), iv.disk, true);
    }
    for (c, interval) in e.cache.iter().zip(&iv.cache) {
        let figure = format!("restore s, {} ({})", c.backend, c.method_label);
        push(format!("{}\u{0}{}", cache_id(c), k.cache), "Cache", figure, *interval, false);
    }
    if let Some(n) = &e.internet {
        push(
            format!("internet\u{0}{}\u{0}{}", k.internet, n.service),
            "Internet",
            "download Mbps".into(),
            iv.internet,
            true,
        );
    }
    out
}

/// The changes of every runner's history. Excluded results are neither
/// flagged nor compared with; a figure without an interval (imported, or
/// too few samples) is skipped, and the next result is compared with the
/// last one that had an interval.
///
/// A runner's flags depend on its entries alone: where `cache` holds them
/// for the same entry keys (`site serve`'s last build), they are taken from
/// it. Returns the flags of every runner by that key, for the next build.
pub fn compute(model: &Model, cache: Option<&ChangeCache>) -> (Changes, ChangeCache) {
    let per_runner: Vec<(u64, RunnerChanges)> = model
        .runners
        .par_iter()
        .map(|r| {
            let key = crate::memo_key::key_of(r.entries.iter().map(|&i| model.entries[i].key).collect::<Vec<u64>>());
            let flagged = match cache.and_then(|c| c.get(&key)) {
                Some(flagged) => flagged.clone(),
                None => runner_changes(model, &r.entries),
            };
            (key, flagged)
        })
        .collect();
    let mut out = vec![Vec::new(); model.entries.len()];
    for ((_, flagged), r) in per_runner.iter().zip(&model.runners) {
        for (position, changes) in flagged {
            out[r.entries[*position]] = changes.clone();
        }
    }
    (Changes(out), per_runner.into_iter().collect())
}

/// One runner's flags: `(position in the runner's entries, changes)`.
type RunnerChanges = Vec<(usize, Vec<Change>)>;

/// Each runner's flags by the key of its entries, which `site serve` keeps
/// between builds.
pub type ChangeCache = HashMap<u64, RunnerChanges>;

/// The flags of one runner's `entries` (indices into `model.entries`,
/// oldest first).
fn runner_changes(model: &Model, entries: &[usize]) -> RunnerChanges {
    let mut last: HashMap<String, (Interval, &str)> = HashMap::new();
    let mut flagged = Vec::new();
    for (position, &i) in entries.iter().enumerate() {
        let e = &model.entries[i];
        // Every result's, for its row on the runner page.
        let iv = intervals(e);
        if e.meta.excluded.is_some() || e.meta.imported {
            continue;
        }
        let mut changes = Vec::new();
        for f in figures_of(e, iv) {
            if let Some((prev, since)) = last.get(&f.id)
                && !prev.overlaps(&f.interval)
            {
                let higher = f.interval.lo > prev.hi;
                changes.push(Change {
                    stage: f.stage,
                    figure: f.figure.clone(),
                    from: figures::range(prev.lo, prev.hi),
                    to: figures::range(f.interval.lo, f.interval.hi),
                    direction: if higher { "higher" } else { "lower" },
                    better: higher == f.higher_is_better,
                    since: since.to_string(),
                });
            }
            last.insert(f.id, (f.interval, e.meta.date.as_str()));
        }
        if !changes.is_empty() {
            flagged.push((position, changes));
        }
    }
    flagged
}
