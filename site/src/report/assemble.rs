//! A provider's report assembled from its runs: the newest result of each
//! runner, each turned into the rows it adds (`part`), grouped by kind and
//! fingerprint, each group with what it says about how it was measured.

use std::collections::{BTreeMap, HashMap};

use runner_bench_format::AnyResult;
use runner_bench_format::measured::CacheMethod;

use super::protocol::{self, Facts, Published};
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

/// What a provider report reads of one result (`build_view_of`): the
/// rows it adds and the few facts its wording and grouping read, instead of
/// the parsed result, of which a build would otherwise keep one a runner.
#[derive(Debug, Clone)]
pub struct ReportRun {
    provider_id: String,
    runner_label: String,
    /// The path below the results folder.
    rel_path: String,
    /// When it was measured (or imported), as RFC 3339 (`Run::date`).
    date: String,
    /// Why maintainers keep it out of comparisons, if they do.
    excluded: Option<String>,
    /// The provider's display name, where the file gives one.
    provider_name: Option<String>,
    /// The rows it adds (`part`).
    part: RunnerPart,
    source: Source,
}

/// What a report reads of a result of each kind besides its rows.
#[derive(Debug, Clone)]
enum Source {
    Measured {
        fingerprint: String,
        /// What `protocol::measured` reads (boxed: the larger variant by
        /// far).
        facts: Box<Facts>,
    },
    Imported {
        /// The published profile's fingerprint, or an empty one.
        fingerprint: String,
        document: SourceView,
        /// Whether it has build-cache server figures, whose document's
        /// title a report takes as its own.
        http_cache: bool,
    },
}

impl ReportRun {
    /// What a report reads of `run`.
    pub fn of(run: &Run) -> ReportRun {
        let (provider_name, source) = match &*run.result {
            AnyResult::Measured(m) => (
                m.provider.name.as_ref().map(|n| n.to_string()),
                Source::Measured { fingerprint: m.fingerprint.to_string(), facts: Box::new(Facts::of(m)) },
            ),
            AnyResult::Imported(i) => (
                i.provider.name.as_ref().map(|n| n.to_string()),
                Source::Imported {
                    fingerprint: i.published_profile.as_ref().map(|p| p.fingerprint.to_string()).unwrap_or_default(),
                    document: SourceView {
                        title: i.source.title.to_string(),
                        document: i.source.document.to_string(),
                        sha256: i.source.document_sha256.to_string(),
                    },
                    http_cache: i.stages.http_cache.is_some(),
                },
            ),
        };
        ReportRun {
            provider_id: run.provider_id(),
            runner_label: run.runner_label(),
            rel_path: run.rel_path.clone(),
            date: run.date().to_string(),
            excluded: run.excluded.clone(),
            provider_name,
            part: part(run),
            source,
        }
    }

    /// The path below the results folder.
    pub fn rel_path(&self) -> &str {
        &self.rel_path
    }

    /// Whether it is newer than `other`: the later date, then the later path.
    fn newer_than(&self, other: &ReportRun) -> bool {
        (other.date.as_str(), &other.rel_path) < (self.date.as_str(), &self.rel_path)
    }
}

/// The newest result not excluded of each runner, by runner label: the
/// latest date wins, then the later path.
fn newest_per_runner<'a>(runs: impl Iterator<Item = &'a ReportRun>) -> BTreeMap<&'a str, &'a ReportRun> {
    let mut newest: BTreeMap<&str, &ReportRun> = BTreeMap::new();
    for run in runs.filter(|r| r.excluded.is_none()) {
        let key = run.runner_label.as_str();
        if newest.get(key).is_none_or(|old| run.newer_than(old)) {
            newest.insert(key, run);
        }
    }
    newest
}

/// What the provider reports read (`build_view_of`), offered one result at
/// a time from any thread as the check accepts them: the excluded ones
/// (their paths and reasons) and each runner's newest of the rest, chosen
/// as `newest_per_runner` chooses. A build keeps only these, and of each
/// only its `ReportRun`; the reports are the same from these as from all
/// the runs.
#[derive(Debug, Default)]
pub struct ReportRuns {
    kept: std::sync::Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    /// (Provider id, runner label) → its newest run not excluded so far.
    newest: HashMap<(String, String), ReportRun>,
    excluded: Vec<ReportRun>,
}

impl ReportRuns {
    /// Keeps what a report reads of `run` where a report may read it; lets
    /// go of the run it replaces as its runner's newest.
    pub fn offer(&self, run: &Run) {
        // (A poisoned lock means a thread panicked while holding it, and
        // the build has failed already: its runs are still whole.)
        let lock = || self.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if run.excluded.is_some() {
            let kept = ReportRun::of(run);
            lock().excluded.push(kept);
            return;
        }
        let key = (run.provider_id(), run.runner_label());
        let older = |kept: &Kept| {
            kept.newest.get(&key).is_some_and(|old| (run.date(), &run.rel_path) <= (old.date.as_str(), &old.rel_path))
        };
        if older(&lock()) {
            return;
        }
        // Made without the lock, so that the other threads go on offering
        // theirs; a newer run may have come meanwhile.
        let report_run = ReportRun::of(run);
        let mut kept = lock();
        if !older(&kept) {
            kept.newest.insert(key, report_run);
        }
    }

    /// The runs kept, in the order of `order` (each run's place in path
    /// order, by its path below the results folder).
    pub fn into_runs(self, order: &HashMap<&str, usize>) -> Vec<ReportRun> {
        let kept = self.kept.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut runs: Vec<ReportRun> = kept.newest.into_values().chain(kept.excluded).collect();
        runs.sort_by_key(|r| order.get(r.rel_path.as_str()).copied().unwrap_or(usize::MAX));
        runs
    }
}

/// Builds the report of provider `provider_id` from parsed runs
/// (`build_view_of` from what it reads of each).
pub fn build_view(provider_id: &str, runs: &[Run]) -> ReportView {
    let runs: Vec<ReportRun> = runs.iter().filter(|r| r.provider_id() == provider_id).map(ReportRun::of).collect();
    build_view_of(provider_id, &runs)
}

/// Builds the report of provider `provider_id` from the accepted runs.
///
/// Takes the newest result per runner among those not excluded, groups
/// them by kind and fingerprint, and orders rows as the published reports
/// do: CoreMark tables by median iterations/s, best first (the reader's
/// question is "which is fastest"); every other table by runner label, then
/// backend name, so that one runner's rows stay together.
pub fn build_view_of(provider_id: &str, runs: &[ReportRun]) -> ReportView {
    let mine: Vec<&ReportRun> = runs.iter().filter(|r| r.provider_id == provider_id).collect();
    let excluded = mine
        .iter()
        .filter_map(|r| {
            r.excluded.as_ref().map(|reason| ExcludedView { file: r.rel_path.clone(), reason: reason.clone() })
        })
        .collect();

    let newest = newest_per_runner(mine.iter().copied());

    let mut groups: BTreeMap<(bool, String), GroupView> = BTreeMap::new();
    let mut measured_of: BTreeMap<(bool, String), Vec<&Facts>> = BTreeMap::new();
    let mut sources = Vec::new();
    let mut provider_name = provider_id.to_string();
    let mut title = None;
    for run in newest.values() {
        if let Some(n) = &run.provider_name {
            provider_name = n.clone();
        }
        let (imported, fingerprint) = match &run.source {
            Source::Measured { fingerprint, facts } => {
                measured_of.entry((false, fingerprint.clone())).or_default().push(&**facts);
                (false, fingerprint.clone())
            }
            Source::Imported { fingerprint, document, http_cache } => {
                if title.is_none() && *http_cache {
                    title = Some(document.title.clone());
                }
                if !sources.contains(document) {
                    sources.push(document.clone());
                }
                (true, fingerprint.clone())
            }
        };
        let part = run.part.clone();
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
