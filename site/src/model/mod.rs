//! The website's model: every accepted result as an `Entry` (its table rows
//! plus what every row shows about the result: dates, collector, marks and
//! links), the comparison groups of the home page, and each runner's
//! history. Figures are the reports' (see `report`), so a number reads the
//! same in a markdown report, an HTML table, a CSV file and a plot.
//!
//! This file assembles the model from the entries (`entry`), with the
//! ranked comparison groups (`groups`) and when a row or a result is
//! incomplete and why (`incomplete`), and re-exports them, so that the
//! website (`web`) names one model module. Beside it: each runner's change
//! flags (`changes`), a result's machine details (`details`) and run
//! (`run`: who measured it, its jobs' queue times), the
//! build-cache server documents (`build_cache`), and a CI job's estimate
//! from each runner's figures (`estimate`). The model is made from
//! `report`'s figures of each accepted run and knows nothing of pages.

pub mod build_cache;
pub mod changes;
pub mod details;
mod entry;
pub mod estimate;
mod groups;
mod incomplete;
mod picks;
pub mod run;
mod server_tables;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rayon::prelude::*;

pub(crate) use self::entry::newer_key;
pub use self::entry::{Entry, Intervals, Meta, Stages, leading, name_provider, range};
use self::entry::{entry, entry_key};
use self::groups::groups;
pub use self::groups::{Group, ProfileRef, Row, VARIATION_FLAG_PCT, disk_buffer_text, shown_interval};
pub use self::incomplete::FailedJob;
pub(crate) use self::incomplete::{cache_incomplete, cpu_incomplete, disk_incomplete, internet_incomplete};
pub use self::picks::{Picks, picks};
pub use self::server_tables::ServerTables;
use crate::validate::Run;

/// A runner: its results, oldest first.
#[derive(Debug)]
pub struct Runner {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    /// Indexes into `Model::entries`, oldest first.
    pub entries: Vec<usize>,
    /// Stages of its newest result, and of any result.
    pub newest_stages: Stages,
    pub any_stages: Stages,
}

/// Everything the pages, plots and data files are made from.
#[derive(Debug)]
pub struct Model {
    /// Every accepted result, in path order.
    /// Shared with `site serve`'s cache of entries.
    pub entries: Vec<Arc<Entry>>,
    /// By provider, then label.
    pub runners: Vec<Runner>,
    /// By stage; within a stage measured before imported, then newest
    /// protocol first, then by id.
    pub groups: Vec<Group>,
    /// Provider id → display name, by id.
    pub providers: BTreeMap<String, String>,
    /// Indexes into `entries` of the results that have a server document
    /// page (`server_docs`), in path order.
    pub servers: Vec<usize>,
}

/// What `site serve` keeps between builds: each result's entry by its key,
/// so that a rebuild computes only the entries of changed results.
pub type EntryCache = HashMap<u64, Arc<Entry>>;

/// Builds the model; results older than `stale_before` are marked stale.
/// Entries are independent and computed on every CPU; those in `cache`
/// are reused, and the cache is left holding this build's entries.
pub fn build(runs: &[Run], stale_before: jiff::Timestamp, cache: Option<&mut EntryCache>) -> Model {
    let entries = entries(runs, stale_before, cache.as_deref());
    assemble(entries, cache)
}

/// The entry of each of `runs`, in order, computed on every CPU; those in
/// `cache` are reused.
pub fn entries(runs: &[Run], stale_before: jiff::Timestamp, cache: Option<&EntryCache>) -> Vec<Arc<Entry>> {
    runs.par_iter().map(|r| entry_of(r, stale_before, cache)).collect()
}

/// The entry of `run`: the one in `cache` where it has it, else made.
pub fn entry_of(run: &Run, stale_before: jiff::Timestamp, cache: Option<&EntryCache>) -> Arc<Entry> {
    let key = entry_key(run, stale_before);
    cache.and_then(|c| c.get(&key)).cloned().unwrap_or_else(|| Arc::new(entry(run, key, stale_before)))
}

/// The model of every run's entry (`entries`), in the runs' order; leaves
/// `cache` holding these entries.
pub fn assemble(entries: Vec<Arc<Entry>>, cache: Option<&mut EntryCache>) -> Model {
    if let Some(cache) = cache {
        *cache = entries.iter().map(|e| (e.key, e.clone())).collect();
    }
    // The runners and server documents beside the picks and the groups
    // made of them (`site serve` makes them again on every rebuild).
    let ((runners, servers, providers), groups) =
        rayon::join(|| parts(&entries), || groups(&entries, &picks(&entries, 0)));
    Model { entries, runners, groups, providers, servers }
}

/// The model of `entries` whose groups are made of the results `picks`
/// chose (a build picks them as the check goes, `web::Intake`).
pub fn assemble_picked(entries: Vec<Arc<Entry>>, picks: &Picks) -> Model {
    // The runners, the server documents and the ranked groups are made from
    // the entries independently.
    let ((runners, servers, providers), groups) = rayon::join(|| parts(&entries), || groups(&entries, picks));
    Model { entries, runners, groups, providers, servers }
}

/// The model of `entries` but the ranked groups: the runners, the server
/// documents and the providers' names, which a runner's page needs (a build
/// makes a provider's runner pages from this model of its results alone).
pub fn without_groups(entries: Vec<Arc<Entry>>) -> Model {
    let (runners, servers, providers) = parts(&entries);
    Model { entries, runners, groups: Vec::new(), providers, servers }
}

/// The runners, the server documents and the providers' names of `entries`.
fn parts(entries: &[Arc<Entry>]) -> (Vec<Runner>, Vec<usize>, BTreeMap<String, String>) {
    // Ids and names borrowed from the entries: 10,000 entries name a few
    // hundred runners (`site serve` makes this again on every rebuild).
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    let mut by_runner: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        names.insert(&e.meta.provider_id, &e.meta.provider_name);
        // A build-cache server is not a runner: it has a page in the
        // build-cache section instead.
        if !e.stages.runner() {
            continue;
        }
        by_runner.entry((&e.meta.provider_id, &e.meta.runner)).or_default().push(i);
    }
    let runners = || {
        by_runner
            .into_iter()
            .map(|((provider_id, label), mut idx)| {
                idx.sort_by(|&a, &b| newer_key(&entries[a]).cmp(&newer_key(&entries[b])));
                let newest_stages = idx.last().map(|&i| entries[i].stages).unwrap_or_default();
                let any_stages = idx.iter().fold(Stages::default(), |s, &i| s.or(entries[i].stages));
                Runner {
                    provider_name: names.get(provider_id).map_or(provider_id, |n| n).to_string(),
                    provider_id: provider_id.to_string(),
                    label: label.to_string(),
                    entries: idx,
                    newest_stages,
                    any_stages,
                }
            })
            .collect()
    };
    let (runners, servers) = rayon::join(runners, || server_docs(entries));
    let providers = names.iter().map(|(id, name)| (id.to_string(), name.to_string())).collect();
    (runners, servers, providers)
}

/// The results that get a server document page: every result that measured
/// only a build-cache server (its rows link there), and of the runner
/// results with a build-cache stage the newest per runner and server, as
/// the comparison tables show the newest result per runner. A runner
/// measured against one server a thousand times is one document, not a
/// thousand pages and plots (docs/benchmarks.md: they tripled the files of
/// a 10,000-result build). In path order.
fn server_docs(entries: &[Arc<Entry>]) -> Vec<usize> {
    let mut newest: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(doc) = &e.server else { continue };
        if !e.stages.runner() {
            out.push(i);
            continue;
        }
        let slot = newest.entry((&e.meta.provider_id, &e.meta.runner, &doc.target)).or_insert(i);
        if newer_key(e) > newer_key(&entries[*slot]) {
            *slot = i;
        }
    }
    out.extend(newest.into_values());
    out.sort_unstable();
    out
}
