//! A provider's report assembled from its runs: the newest result of each
//! runner, each turned into the rows it adds (`part`), grouped by kind and
//! fingerprint, each group with what it says about how it was measured.

use std::collections::{BTreeMap, HashMap};

use runner_bench_format::AnyResult;
use runner_bench_format::measured::{CacheMethod, MeasuredResult};

use super::protocol::{self, Published};
use super::sentence::{Paragraph, ProtocolText};
use super::view::{
    CacheKindView, CacheMethodView, CpuRow, ExcludedView, GroupView, ReportView, RunnerPart, SourceView, Wording,
};
use super::{imported, measured};
use crate::validate::Run;

/// The rows one result adds to the tables, figures formatted as the
/// reports print them; the website shows the same figures.
pub(crate) fn part(run: &Run) -> RunnerPart {
    match &*run.result {
        AnyResult::Measured(m) => measured::part(m),
        AnyResult::Imported(i) => imported::part(i),
    }
}

/// The newest result not excluded of each runner, by `key` (the runner):
/// the latest date wins, then the later path.
fn newest_per_runner<'a, K: Ord>(runs: impl Iterator<Item = &'a Run>, key: impl Fn(&Run) -> K) -> BTreeMap<K, &'a Run> {
    let mut newest: BTreeMap<K, &Run> = BTreeMap::new();
    for run in runs.filter(|r| r.excluded.is_none()) {
        let key = key(run);
        let replace = newest.get(&key).is_none_or(|old| (old.date(), &old.rel_path) < (run.date(), &run.rel_path));
        if replace {
            newest.insert(key, run);
        }
    }
    newest
}

/// The runs the provider reports read (`build_view`), offered one at a
/// time from any thread as the check accepts them: the excluded ones
/// (their paths and reasons) and each runner's newest of the rest, chosen
/// as `newest_per_runner` chooses. A build keeps only these of the parsed
/// results; the reports are the same from these as from all the runs.
#[derive(Debug, Default)]
pub struct ReportRuns {
    kept: std::sync::Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    /// (Provider id, runner label) → its newest run not excluded so far.
    newest: HashMap<(String, String), Run>,
    excluded: Vec<Run>,
}

impl ReportRuns {
    /// Keeps `run` where a report may read it; lets go of the run it
    /// replaces as its runner's newest.
    pub fn offer(&self, run: &Run) {
        // (A poisoned lock means a thread panicked while holding it, and
        // the build has failed already: its runs are still whole.)
        let mut kept = self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if run.excluded.is_some() {
            kept.excluded.push(run.clone());
            return;
        }
        let key = (run.provider_id(), run.runner_label());
        let newer = kept.newest.get(&key).is_none_or(|old| (old.date(), &old.rel_path) < (run.date(), &run.rel_path));
        if newer {
            kept.newest.insert(key, run.clone());
        }
    }

    /// The runs kept, in the order of `order` (each run's place in path
    /// order, by its path below the results folder).
    pub fn into_runs(self, order: &HashMap<&str, usize>) -> Vec<Run> {
        let kept = self.kept.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut runs: Vec<Run> = kept.newest.into_values().chain(kept.excluded).collect();
        runs.sort_by_key(|r| order.get(r.rel_path.as_str()).copied().unwrap_or(usize::MAX));
        runs
    }
}

/// Builds the report of provider `provider_id` from the accepted runs.
///
/// Takes the newest result per runner among those not excluded, groups
/// them by kind and fingerprint, and orders rows as the published reports
/// do: CoreMark tables by median iterations/s, best first (the reader's
/// question is "which is fastest"); every other table by runner label, then
/// backend name, so that one runner's rows stay together.
pub fn build_view(provider_id: &str, runs: &[Run]) -> ReportView {
    let mine: Vec<&Run> = runs.iter().filter(|r| r.provider_id() == provider_id).collect();
    let excluded = mine
        .iter()
        .filter_map(|r| {
            r.excluded.as_ref().map(|reason| ExcludedView { file: r.rel_path.clone(), reason: reason.clone() })
        })
        .collect();

    let newest = newest_per_runner(mine.iter().copied(), Run::runner_label);

    let mut groups: BTreeMap<(bool, String), GroupView> = BTreeMap::new();
    let mut measured_of: BTreeMap<(bool, String), Vec<&MeasuredResult>> = BTreeMap::new();
    let mut sources = Vec::new();
    let mut provider_name = provider_id.to_string();
    let mut title = None;
    for run in newest.values() {
        let (imported, fingerprint, part) = match &*run.result {
            AnyResult::Measured(m) => {
                if let Some(n) = &m.provider.name {
                    provider_name = n.to_string();
                }
                measured_of.entry((false, m.fingerprint.to_string())).or_default().push(m);
                (false, m.fingerprint.to_string(), measured::part(m))
            }
            AnyResult::Imported(i) => {
                if let Some(n) = &i.provider.name {
                    provider_name = n.to_string();
                }
                let source = SourceView {
                    title: i.source.title.to_string(),
                    document: i.source.document.to_string(),
                    sha256: i.source.document_sha256.to_string(),
                };
                if title.is_none() && i.stages.http_cache.is_some() {
                    title = Some(source.title.clone());
                }
                if !sources.contains(&source) {
                    sources.push(source);
                }
                let fp = i.published_profile.as_ref().map(|p| p.fingerprint.to_string()).unwrap_or_default();
                (true, fp, imported::part(i))
            }
        };
        let group =
            groups.entry((imported, fingerprint)).or_insert_with(|| GroupView { imported, ..Default::default() });
        add(group, part);
    }
    let mut groups: Vec<GroupView> = groups
        .into_iter()
        .map(|(key, mut g)| {
            finish(&mut g);
            g.text = match measured_of.get(&key) {
                Some(results) => protocol::measured(results),
                None => published_text(&g),
            };
            for m in &mut g.cache_methods {
                if let Some(t) = g.text.cache_methods.iter().find(|t| t.method == m.method) {
                    m.text = t.text.clone();
                }
            }
            g
        })
        .collect();
    // The CoreMark introduction goes above every group where all that have
    // one say the same, as the published reports print it.
    let mut intros: Vec<&Vec<Paragraph>> = groups.iter().map(|g| &g.text.cpu).filter(|c| !c.is_empty()).collect();
    intros.dedup();
    let intro = match intros.as_slice() {
        [one] => (*one).clone(),
        _ => Vec::new(),
    };
    if !intro.is_empty() {
        for g in &mut groups {
            g.text.cpu.clear();
        }
    }
    ReportView {
        provider_id: provider_id.to_string(),
        title: title.unwrap_or_else(|| format!("{provider_name} Runner Benchmarks")),
        provider_name,
        intro,
        groups,
        excluded,
        sources,
    }
}

fn add(group: &mut GroupView, part: RunnerPart) {
    match (&mut group.profile, part.profile) {
        (None, Some(profile)) => {
            group.wording = Wording::from(&profile);
            group.profile = Some(profile);
        }
        (Some(first), Some(profile)) => first.measured = first.measured.or(profile.measured),
        _ => {}
    }
    if let Some(cpu) = part.cpu {
        match (cpu.pinned, cpu.official_sources) {
            (true, false) => group.pinned.push(cpu),
            (false, false) => group.unpinned.push(cpu),
            (true, true) => group.pinned_eembc.push(cpu),
            (false, true) => group.unpinned_eembc.push(cpu),
        }
    }
    group.disk.extend(part.disk);
    for row in part.cache {
        let method = match group.cache_methods.iter_mut().find(|m| m.method == row.method) {
            Some(m) => m,
            None => {
                let heading = match row.method {
                    CacheMethod::Client => "Client method",
                    CacheMethod::Action => "Action method",
                };
                group.cache_methods.push(CacheMethodView {
                    method: row.method,
                    heading: heading.to_string(),
                    text: Vec::new(),
                    kinds: Vec::new(),
                });
                group.cache_methods.last_mut().expect("just pushed")
            }
        };
        match method.kinds.iter_mut().find(|k| k.kind == row.kind.name()) {
            Some(k) => k.rows.push(row),
            None => method.kinds.push(CacheKindView { kind: row.kind.name().to_string(), rows: vec![row] }),
        }
    }
    if let Some(e) = part.endpoint
        && !group.endpoints.contains(&e)
    {
        group.endpoints.push(e);
    }
    group.internet.extend(part.internet);
    group.notices.extend(part.notices);
    group.http_caches.extend(part.http_cache);
    group.machines.extend(part.machine);
}

fn finish(g: &mut GroupView) {
    for rows in [&mut g.pinned, &mut g.unpinned, &mut g.pinned_eembc, &mut g.unpinned_eembc] {
        // Best first; rows without a figure last, then by runner.
        rows.sort_by(|a, b| {
            let key = |r: &CpuRow| r.median_value.map_or(f64::INFINITY, |m| -m);
            key(a).total_cmp(&key(b)).then_with(|| a.runner.cmp(&b.runner))
        });
    }
    g.disk.sort_by(|a, b| a.runner.cmp(&b.runner));
    g.disk_counts = g.disk.iter().all(|d| d.counts.is_some());
    g.cache_methods.sort_by_key(|m| m.method);
    for m in &mut g.cache_methods {
        m.kinds.sort_by(|a, b| a.kind.cmp(&b.kind));
        for k in &mut m.kinds {
            k.rows.sort_by(|a, b| (&a.runner, &a.backend).cmp(&(&b.runner, &b.backend)));
        }
    }
    g.endpoints.sort_by(|a, b| a.name.cmp(&b.name));
    g.internet.sort_by(|a, b| a.runner.cmp(&b.runner));
    // Stable: each runner's notices keep the order they arose in.
    g.notices.sort_by(|a, b| a.runner.cmp(&b.runner));
    g.http_caches.sort_by(|a, b| a.runner.cmp(&b.runner));
    g.machines.sort_by(|a, b| a.runner.cmp(&b.runner));
}

/// The published wording of an imported group.
fn published_text(g: &GroupView) -> ProtocolText {
    protocol::published(&Published {
        disk_op_seconds: g.wording.disk_op_seconds,
        sample_timeout_s: g.wording.sample_timeout_s,
        max_request_mib: g.wording.max_request_mib,
        internet_samples: &g.wording.internet_samples,
        gap: g.profile.as_ref().and_then(|p| Some((p.fingerprint.as_str(), p.publication_gap_s?))),
        disk_counts: g.disk_counts,
        runner_stages: !g.pinned.is_empty()
            || !g.unpinned.is_empty()
            || !g.pinned_eembc.is_empty()
            || !g.unpinned_eembc.is_empty()
            || !g.disk.is_empty()
            || !g.internet.is_empty(),
    })
}
