//! The view model of a provider report: every figure already formatted, so
//! the template only lays rows out.

use std::collections::{BTreeMap, HashMap};

use runner_bench_format::AnyResult;
use runner_bench_format::measured::{CacheKind, CacheMethod, MeasuredResult};
use serde::Serialize;

use super::protocol::{self, Paragraph, ProtocolText, Published};
use super::{imported, measured};
use crate::validate::Run;

/// One provider's report.
#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    /// Provider id, e.g. `ubicloud`.
    pub provider_id: String,
    /// Provider display name.
    pub provider_name: String,
    /// `<Name> Runner Benchmarks`, or the imported document's title.
    pub title: String,
    /// The CoreMark introduction, where every group that has one says the
    /// same (otherwise each group says its own); a build-cache-only report
    /// has none.
    pub intro: Vec<Paragraph>,
    /// One group per fingerprint; figures of two groups are never compared.
    pub groups: Vec<GroupView>,
    /// Results kept on record but out of comparisons.
    pub excluded: Vec<ExcludedView>,
    /// Documents the imported figures came from.
    pub sources: Vec<SourceView>,
}

/// A result left out by results/exclusions.toml.
#[derive(Debug, Clone, Serialize)]
pub struct ExcludedView {
    /// Path under results/.
    pub file: String,
    /// The maintainers' reason.
    pub reason: String,
}

/// A document that imported figures came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceView {
    /// Its title.
    pub title: String,
    /// Its name or URL.
    pub document: String,
    /// Its SHA-256.
    pub sha256: String,
}

/// Results that share one fingerprint (and one kind: measured or imported).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GroupView {
    /// Whether the figures were imported from a published report.
    pub imported: bool,
    /// The parameters row, where known.
    pub profile: Option<ProfileView>,
    /// Figures the published wording quotes: the profile's, else the
    /// published ones (imported results).
    #[serde(skip)]
    pub wording: Wording,
    /// What was done, sentence by sentence (`protocol`).
    pub text: ProtocolText,
    /// CoreMark rows of pinned runners, best first.
    pub pinned: Vec<CpuRow>,
    /// CoreMark rows of runners that cannot pin (macOS), best first.
    pub unpinned: Vec<CpuRow>,
    /// The same of results whose collector ran EEMBC's own CoreMark
    /// sources: another program than the project's implementation, never
    /// ranked with it (methodology.md), so tables of their own.
    pub pinned_eembc: Vec<CpuRow>,
    pub unpinned_eembc: Vec<CpuRow>,
    /// Disk rows, by runner.
    pub disk: Vec<DiskRow>,
    /// Whether every disk row has sample counts (the current published
    /// table); older reports printed none.
    pub disk_counts: bool,
    /// Cache rows by method, then by backend kind: figures of two methods
    /// are never in one table.
    pub cache_methods: Vec<CacheMethodView>,
    /// Internet endpoints named by the rows.
    pub endpoints: Vec<EndpointView>,
    /// Internet rows, by runner.
    pub internet: Vec<InternetRow>,
    /// Notices, by runner, in the order they arose.
    pub notices: Vec<NoticeView>,
    /// Build-cache server benchmarks.
    pub http_caches: Vec<HttpCacheView>,
    /// Machine and build rows, by runner.
    pub machines: Vec<MachineRow>,
}

/// The Benchmark parameters row and the figures the wording quotes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileView {
    pub fingerprint: String,
    pub protocol: u32,
    pub samples: String,
    pub cpu_seconds: u32,
    pub disk_mib: u32,
    pub cache_mib: u32,
    pub internet: String,
    pub transfer_mib: u32,
    pub publication_gap_s: Option<u32>,
    pub sample_timeout_s: u32,
    pub disk_op_seconds: u32,
    pub max_request_mib: u32,
    /// Download and upload samples in words, e.g. `three`.
    pub internet_samples: String,
}

/// Figures the reports' paragraphs quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wording {
    pub sample_timeout_s: u32,
    pub disk_op_seconds: u32,
    pub max_request_mib: u32,
    /// Download and upload samples in words, e.g. `three`.
    pub internet_samples: String,
}

impl Default for Wording {
    /// What every published report used (the `standard` profile's values),
    /// for imported results whose report states no profile.
    fn default() -> Self {
        Wording { sample_timeout_s: 60, disk_op_seconds: 5, max_request_mib: 32, internet_samples: count_word(3) }
    }
}

impl From<&ProfileView> for Wording {
    fn from(p: &ProfileView) -> Self {
        Wording {
            sample_timeout_s: p.sample_timeout_s,
            disk_op_seconds: p.disk_op_seconds,
            max_request_mib: p.max_request_mib,
            internet_samples: p.internet_samples.clone(),
        }
    }
}

/// A CoreMark row.
#[derive(Debug, Clone, Serialize)]
pub struct CpuRow {
    pub runner: String,
    pub binary: String,
    pub median: String,
    pub range: String,
    pub variation: String,
    pub cpu_group: String,
    pub samples: String,
    /// Whether every requested sample was accepted (as the disk row's
    /// `complete`): only complete rows take part in complete-sample
    /// comparisons.
    pub complete: bool,
    #[serde(skip)]
    pub pinned: bool,
    /// Whether EEMBC's own sources ran (`build.coremark.implementation`),
    /// not the project's implementation: the two are never ranked together.
    #[serde(skip)]
    pub official_sources: bool,
    /// Median iterations/s, for ordering (best first).
    #[serde(skip)]
    pub median_value: Option<f64>,
    /// The accepted samples of the table's headline figure (iterations/s),
    /// for its confidence interval; empty for imported rows, which publish
    /// no samples.
    #[serde(skip)]
    pub headline_samples: Vec<f64>,
}

/// A disk row.
#[derive(Debug, Clone, Serialize)]
pub struct DiskRow {
    pub runner: String,
    pub affinity: String,
    pub file_mib: String,
    pub counts: Option<String>,
    pub status: Option<String>,
    /// Whether every requested sample completed: only complete rows take
    /// part in complete-sample comparisons.
    pub complete: bool,
    pub read: String,
    pub write: String,
    pub rand_read: String,
    pub rand_write: String,
    /// Random-read IOPS of each completed sample (the headline figure).
    #[serde(skip)]
    pub headline_samples: Vec<f64>,
    /// Per-call latency of the four operations, in their order (measured
    /// rows; the published reports print none).
    pub latency: Option<[Latency; 4]>,
}

/// One disk operation's per-call latency: the medians over the completed
/// samples of each sample's 50th and 99th percentile, microseconds, two
/// decimals (an em dash without samples).
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub p50_us: String,
    pub p99_us: String,
}

/// Cache rows of one method.
#[derive(Debug, Clone, Serialize)]
pub struct CacheMethodView {
    pub method: CacheMethod,
    /// `Client method` or `Action method`.
    pub heading: String,
    /// What the method's section says (measured results; the published
    /// wording says it for the whole stage).
    pub text: Paragraph,
    /// Its rows by backend kind.
    pub kinds: Vec<CacheKindView>,
}

/// Cache rows of one backend kind.
#[derive(Debug, Clone, Serialize)]
pub struct CacheKindView {
    pub kind: String,
    pub rows: Vec<CacheRow>,
}

/// A cache-backend row.
#[derive(Debug, Clone, Serialize)]
pub struct CacheRow {
    #[serde(skip)]
    pub kind: CacheKind,
    /// How the transfers were made and timed; rows of two methods are
    /// never ranked together. Imported figures are the published reports',
    /// which timed action steps.
    pub method: CacheMethod,
    /// `client`, or `action: ` and the steps' `uses:` (commits shortened).
    pub method_label: String,
    pub runner: String,
    pub backend: String,
    pub payload_mib: String,
    pub verified: String,
    pub save: String,
    pub save_mib_per_s: String,
    pub save_variation: String,
    pub restore: String,
    pub restore_mib_per_s: String,
    pub restore_variation: String,
    /// Restore seconds of each verified trial (the headline figure).
    #[serde(skip)]
    pub headline_samples: Vec<f64>,
}

/// An internet endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointView {
    pub name: String,
    pub url: String,
}

/// An internet row.
#[derive(Debug, Clone, Serialize)]
pub struct InternetRow {
    pub runner: String,
    pub service: String,
    pub status: String,
    pub transfer_mib: String,
    pub download: String,
    pub upload: String,
    pub request_ms: String,
    /// Download Mbps of each sample of a complete test (the headline
    /// figure).
    #[serde(skip)]
    pub headline_samples: Vec<f64>,
}

/// A notice.
#[derive(Debug, Clone, Serialize)]
pub struct NoticeView {
    pub runner: String,
    pub stage: String,
    pub message: String,
}

/// A machine and build row.
#[derive(Debug, Clone, Serialize)]
pub struct MachineRow {
    pub runner: String,
    pub cpu_model: String,
    pub os_image: String,
    pub compiler: String,
    pub flags: String,
}

/// A build-cache server benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct HttpCacheView {
    pub runner: String,
    pub software: String,
    pub conditions: Vec<ConditionView>,
    pub tables: Vec<HttpCacheTableView>,
}

/// A named condition.
#[derive(Debug, Clone, Serialize)]
pub struct ConditionView {
    pub name: String,
    pub value: String,
}

/// A table of build-cache figures.
#[derive(Debug, Clone, Serialize)]
pub struct HttpCacheTableView {
    pub title: String,
    pub conditions: Vec<ConditionView>,
    pub rows: Vec<HttpCacheRowView>,
}

/// A row of build-cache figures.
#[derive(Debug, Clone, Serialize)]
pub struct HttpCacheRowView {
    pub backend: String,
    pub cpu: String,
    pub cpu_quota: String,
    pub memory_quota_gb: String,
    pub value_bytes: String,
    pub connections: String,
    pub put_per_s: String,
    pub get_per_s: String,
}

/// What one result adds to its group.
#[derive(Debug, Default)]
pub(crate) struct RunnerPart {
    pub(crate) profile: Option<ProfileView>,
    pub(crate) cpu: Option<CpuRow>,
    pub(crate) disk: Option<DiskRow>,
    pub(crate) cache: Vec<CacheRow>,
    pub(crate) endpoint: Option<EndpointView>,
    pub(crate) internet: Option<InternetRow>,
    pub(crate) notices: Vec<NoticeView>,
    pub(crate) http_cache: Option<HttpCacheView>,
    pub(crate) machine: Option<MachineRow>,
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
    if group.profile.is_none()
        && let Some(profile) = part.profile
    {
        group.wording = Wording::from(&profile);
        group.profile = Some(profile);
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

/// Small counts in words, as the reports' wording uses them.
pub(super) fn count_word(n: u32) -> String {
    const WORDS: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    WORDS.get(n as usize).map_or_else(|| n.to_string(), |w| w.to_string())
}
