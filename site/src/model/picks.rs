//! Which results the comparison tables show: per stage, comparability key
//! (`keys`) and runner, the newest complete result that is not excluded,
//! else the newest one not excluded (marked incomplete); every excluded
//! result is shown too, marked.
//!
//! A runner's picks depend on its own results alone, so a build can pick
//! them as each provider's results pass the check (`web::Intake`) and let
//! go of the table rows of every result that no table shows.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use runner_bench_format::StageKind;

use super::entry::{Entry, newer_key};

/// The stages of the home page's groups, in page order. Build-cache servers
/// are not runners: they have a section of their own (`build_cache`).
pub(super) const GROUP_STAGES: [&str; 4] = ["cpu", "disk", "cache", "internet"];

/// Per stage (in `GROUP_STAGES` order), the results its tables show: their
/// indexes into the entries, ascending, each with its key of that stage.
#[derive(Debug, Default)]
pub struct Picks {
    by_stage: [Vec<(usize, String)>; 4],
}

/// The picks of `entries`, whose first is entry `offset` of the model.
pub fn picks(entries: &[Arc<Entry>], offset: usize) -> Picks {
    // The stages' picks are made from the same entries independently: on
    // every CPU (a `site serve` rebuild makes them all again).
    let mut by_stage: [Vec<(usize, String)>; 4] = Default::default();
    by_stage.par_iter_mut().zip(GROUP_STAGES).for_each(|(picked, stage)| *picked = stage_picks(entries, offset, stage));
    Picks { by_stage }
}

impl Picks {
    /// Adds the picks of entries that come after all of these.
    pub fn append(&mut self, later: Picks) {
        for (mine, theirs) in self.by_stage.iter_mut().zip(later.by_stage) {
            mine.extend(theirs);
        }
    }

    /// The results the tables of `stage` (one of `GROUP_STAGES`) show.
    pub(super) fn of_stage(&self, stage: usize) -> &[(usize, String)] {
        &self.by_stage[stage]
    }

    /// For each of the `len` entries from `offset`: whether the tables of
    /// each stage (in `GROUP_STAGES` order) show it.
    pub fn shown(&self, offset: usize, len: usize) -> Vec<[bool; 4]> {
        let mut shown = vec![[false; 4]; len];
        for (stage, picked) in self.by_stage.iter().enumerate() {
            for &(i, _) in picked {
                if let Some(flags) = i.checked_sub(offset).and_then(|i| shown.get_mut(i)) {
                    flags[stage] = true;
                }
            }
        }
        shown
    }
}

/// The stage `name`'s key of an entry, where the entry has rows of that
/// stage.
fn group_key<'e>(e: &'e Entry, name: &str) -> Option<&'e str> {
    let keyed = |s: StageKind, has: bool| has.then(|| e.meta.keys.get(s));
    match name {
        "cpu" => keyed(StageKind::Cpu, e.cpu.is_some()),
        "disk" => keyed(StageKind::Disk, e.disk.is_some()),
        "cache" => keyed(StageKind::Cache, !e.cache.is_empty()),
        "internet" => keyed(StageKind::Internet, e.internet.is_some()),
        _ => None,
    }
}

/// The picks of one stage, in entry order.
fn stage_picks(entries: &[Arc<Entry>], offset: usize, stage: &str) -> Vec<(usize, String)> {
    // Hash maps, not ordered ones: keys are long strings that share long
    // prefixes, and comparing them a dozen times per entry was 4 % of a
    // `site serve` rebuild's CPU time (`perf`). The sort below gives the
    // order.
    let mut chosen: HashMap<(&str, bool, &str, &str), usize> = HashMap::new();
    let mut shown: Vec<(usize, &str)> = Vec::new();
    // Build-cache servers are not ranked with runners.
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.stages.runner()) {
        let Some(key) = group_key(e, stage) else { continue };
        if e.meta.excluded.is_some() {
            shown.push((i, key));
            continue;
        }
        let slot = (key, e.meta.imported, e.meta.provider_id.as_str(), e.meta.runner.as_str());
        let better = match chosen.get(&slot) {
            None => true,
            Some(&j) => {
                let old = &entries[j];
                (e.meta.clean(), newer_key(e)) > (old.meta.clean(), newer_key(old))
            }
        };
        if better {
            chosen.insert(slot, i);
        }
    }
    shown.extend(chosen.into_iter().map(|((key, ..), i)| (i, key)));
    // Rows in entry order, as the tables' stable sorts expect.
    shown.sort_unstable_by_key(|&(i, _)| i);
    shown.into_iter().map(|(i, key)| (offset + i, key.to_string())).collect()
}
