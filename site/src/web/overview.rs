//! The overview: one row per runner to choose from, with the headline
//! figure of each stage (from the runner's newest result that has it), each
//! relative to the best comparable result, and what the runner is and costs
//! (`providers`).
//!
//! Comparable means what the comparison tables compare: the rows of one
//! table of one group of the model (`model::Group`), so this module takes
//! the groups as they are made and never groups results itself. The
//! headlines are those the tables rank by where they are speeds, and a
//! speed where they are not (docs/methodology.md, "The overview"):
//! CoreMark median iterations/s, disk random-read IOPS, cache restore
//! MiB/s (the runner's fastest backend), internet download Mbit/s.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::Serialize;
use tera::Tera;

use super::pages::{Common, render};
use crate::model::{self, Group, Model, Row, leading};
use crate::providers::{MachineView, Providers};
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow};

/// One stage's headline figure of a runner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    /// As the tables print it, e.g. `33392.77`.
    pub value: String,
    /// Against the best unmarked row of the same table, e.g. `87 %`;
    /// none without a figure or where this row is marked.
    pub relative: Option<String>,
    /// The best comparable result has it.
    pub best: bool,
    /// The figure per US cent per minute, where a price is stated.
    pub per_cent: Option<String>,
    /// What else the figure needs to be read, e.g. the cache backend.
    pub note: Option<String>,
    /// The row is marked in its table (incomplete or stale).
    pub marked: bool,
    /// The group (comparability key) it is compared in.
    pub group: String,
}

/// One runner's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverviewRow {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    pub url: String,
    pub machine: MachineView,
    pub cpu: Option<Headline>,
    pub disk: Option<Headline>,
    pub cache: Option<Headline>,
    pub internet: Option<Headline>,
}

/// Every runner's row, in the default order: highest CoreMark median
/// first (runners without one last), then provider and label.
pub fn rows(model: &Model, providers: &Providers, now: jiff::Timestamp) -> Vec<OverviewRow> {
    // One pass over the groups per stage, not one per runner: a build of
    // thousands of runners stays linear in the rows.
    let g = &model.groups;
    let mut cpu = newest(g, |g| [&g.cpu[..], &g.cpu_eembc[..]], |f: &CpuRow| f.median_value);
    let mut disk = newest(g, |g| [&g.disk[..]], |f: &DiskRow| leading(&f.rand_read));
    let mut cache = newest(g, |g| [&g.cache[..], &g.cache_action[..]], |f: &CacheRow| leading(&f.restore_mib_per_s));
    let mut internet = newest(g, |g| [&g.internet[..]], |f: &InternetRow| leading(&f.download));
    let mut rows: Vec<(Option<f64>, OverviewRow)> = model
        .runners
        .iter()
        .map(|r| {
            let machine = providers.machine(&r.provider_id, &r.label, now);
            let who = (r.provider_id.as_str(), r.label.as_str());
            let cpu = cpu.remove(&who);
            let sort = cpu.as_ref().and_then(|c| c.value);
            let row = OverviewRow {
                provider_id: r.provider_id.clone(),
                provider_name: r.provider_name.clone(),
                label: r.label.clone(),
                url: format!("/runners/{}/{}/", r.provider_id, r.label),
                cpu: cpu.map(|c| c.headline(&machine, |f| f.median.clone(), |_| None)),
                disk: disk.remove(&who).map(|c| c.headline(&machine, |f| f.rand_read.clone(), |_| None)),
                cache: cache.remove(&who).map(|c| {
                    c.headline(
                        &machine,
                        |f| f.restore_mib_per_s.clone(),
                        |f| Some(format!("{}, {}", f.backend, f.method_label)),
                    )
                }),
                internet: internet
                    .remove(&who)
                    .map(|c| c.headline(&machine, |f| f.download.clone(), |f| Some(f.service.clone()))),
                machine,
            };
            (sort, row)
        })
        .collect();
    rows.sort_by(|(a, ra), (b, rb)| {
        let key = |v: &Option<f64>| v.map_or(f64::INFINITY, |v| -v);
        key(a).total_cmp(&key(b)).then_with(|| (&ra.provider_id, &ra.label).cmp(&(&rb.provider_id, &rb.label)))
    });
    rows.into_iter().map(|(_, r)| r).collect()
}

/// A runner's row chosen for a stage, with the best of its table.
struct Chosen<'a, T> {
    row: &'a Row<T>,
    value: Option<f64>,
    best: Option<f64>,
    group: &'a str,
}

impl<T> Chosen<'_, T> {
    fn headline(
        &self,
        machine: &MachineView,
        text: impl Fn(&T) -> String,
        note: impl Fn(&T) -> Option<String>,
    ) -> Headline {
        // A marked row (incomplete or excluded) is not compared, as the
        // comparison tables rank it after the others and plot it not at all.
        let (relative, best) = match (self.value, self.best) {
            // Only the best shows 100 %: another row within half a percent
            // of it shows 99 %.
            (Some(v), Some(b)) if b > 0.0 && !self.row.marked => {
                let pct = if v >= b { 100.0 } else { (100.0 * v / b).round().min(99.0) };
                (Some(format!("{pct:.0} %")), v >= b)
            }
            _ => (None, false),
        };
        Headline {
            value: text(&self.row.fig),
            relative,
            best,
            per_cent: machine.per_cent(self.value),
            note: note(&self.row.fig),
            marked: self.row.marked || self.row.meta.stale,
            group: self.group.to_string(),
        }
    }
}

/// Each runner's row of a stage (by provider id and label) from its newest
/// result that the groups show (excluded results are never a headline; of
/// several rows of one result, such as cache backends, an unmarked one,
/// then the fastest), and the best unmarked figure of the table it is in.
fn newest<'a, T, const N: usize>(
    groups: &'a [Group],
    tables: impl Fn(&'a Group) -> [&'a [Row<T>]; N],
    value: impl Fn(&T) -> Option<f64>,
) -> HashMap<(&'a str, &'a str), Chosen<'a, T>> {
    let value = |r: &Row<T>| value(&r.fig).filter(|v| v.is_finite());
    let mut chosen: HashMap<(&'a str, &'a str), Chosen<'a, T>> = HashMap::new();
    for g in groups {
        for table in tables(g) {
            let best = table.iter().filter(|r| !r.marked).filter_map(value).reduce(f64::max);
            for row in table.iter().filter(|r| r.meta.excluded.is_none()) {
                let v = value(row);
                let new = Chosen { row, value: v, best, group: &g.id };
                match chosen.entry((row.meta.provider_id.as_str(), row.meta.runner.as_str())) {
                    Entry::Vacant(e) => {
                        e.insert(new);
                    }
                    Entry::Occupied(mut e) => {
                        // The newest result; of its rows, an unmarked one,
                        // then the fastest.
                        let c = e.get();
                        let (newer, older) = (newer_key(&row.meta), newer_key(&c.row.meta));
                        let fig = |v: Option<f64>| v.unwrap_or(f64::NEG_INFINITY);
                        if newer > older
                            || (newer == older
                                && (!row.marked, fig(v)).partial_cmp(&(!c.row.marked, fig(c.value)))
                                    == Some(std::cmp::Ordering::Greater))
                        {
                            e.insert(new);
                        }
                    }
                }
            }
        }
    }
    chosen
}

/// `model::newer_key` of a row's result.
fn newer_key(m: &model::Meta) -> (&str, &str) {
    (&m.timestamp, &m.rel_path)
}

/// The architectures and OSes of the rows, sorted, for the filters.
pub fn choices(rows: &[OverviewRow]) -> (Vec<String>, Vec<String>) {
    let mut arch: Vec<String> = rows.iter().map(|r| r.machine.arch.clone()).collect();
    let mut os: Vec<String> = rows.iter().map(|r| r.machine.os.clone()).collect();
    for v in [&mut arch, &mut os] {
        v.sort();
        v.dedup();
    }
    (arch, os)
}

#[derive(Serialize)]
struct OverviewContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    rows: &'a [OverviewRow],
    /// The filters' choices.
    arch: Vec<String>,
    os: Vec<String>,
}

/// The overview: one row per runner (`overview::rows`).
pub fn page(tera: &Tera, common: &Common, rows: &[OverviewRow]) -> anyhow::Result<String> {
    let (arch, os) = choices(rows);
    let ctx = OverviewContext {
        common,
        title: "Overview",
        description: "Every runner in one table: the headline figure of each stage against the best comparable \
                      result, with size and price.",
        rows,
        arch,
        os,
    };
    render(tera, "overview.html", &ctx)
}
