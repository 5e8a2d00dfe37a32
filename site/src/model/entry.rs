//! A result as the website shows it: its `Entry` (every stage's table rows,
//! figures formatted as the reports print them, plus what every row shows
//! about the result: dates, collector, marks and links), made from the
//! accepted run alone, so that a build makes each on the CPU that checked it.

use std::sync::Arc;

use runner_bench_format::AnyResult;
use serde::Serialize;

use super::build_cache::{self, ServerDoc};
use super::incomplete::{
    FailedJob, cache_incomplete, cpu_incomplete, disk_incomplete, failed_jobs, incomplete_reasons, incomplete_stages,
    internet_incomplete,
};
use crate::keys::StageKeys;
use crate::releases::ReleaseStatus;
use crate::report::{self, CacheRow, CpuRow, DiskRow, InternetRow, ProfileView, RunnerPart};
use crate::stats::Interval;
use crate::validate::Run;

/// What every row says about the result it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Meta {
    pub provider_id: String,
    pub provider_name: Arc<str>,
    /// The result names no provider (`provider_name` is then its provider
    /// file's name, or else the id).
    #[serde(skip)]
    pub provider_unnamed: bool,
    pub runner: String,
    /// `/runners/<provider>/<runner>/`; a build-cache server's document
    /// page (`build_cache::doc_url`) where the result measured no runner.
    pub runner_url: Arc<str>,
    /// `/providers/<provider>/`.
    pub provider_url: Arc<str>,
    /// `/results/<path>`: the file as submitted.
    pub source_url: String,
    /// The path below results/.
    pub rel_path: String,
    /// `YYYY-MM-DD` of the measurement: the run's, or the day an imported
    /// report's publisher states; the import's day where none is stated
    /// (then `date_measured` is false).
    pub date: String,
    /// Whether `date` is the day the figures were measured.
    pub date_measured: bool,
    /// `YYYY-MM-DD` of an imported result's import.
    pub imported_on: Option<String>,
    /// RFC 3339 of `date`'s instant, for the feed, the sitemap and the
    /// history plots.
    pub timestamp: String,
    /// The collector version, or `imported`.
    pub collector: Arc<str>,
    pub imported: bool,
    /// Older than the configured age.
    pub stale: bool,
    /// A stage or sample that the parameters asked for is missing or
    /// failed, or a job of the run's workflow did not succeed.
    pub incomplete: bool,
    /// Why it is incomplete, one line each, every one naming its stage
    /// (`incomplete_reasons`): shown beside each "incomplete" mark.
    pub incomplete_why: Vec<String>,
    /// The stages present but incomplete (`cpu`, `disk`, `cache`,
    /// `internet`), for the coverage page, which ticks none of them.
    pub incomplete_stages: Vec<&'static str>,
    /// Why maintainers keep it out of comparisons.
    pub excluded: Option<String>,
    /// Measured with the quick profile, a try-out: shown, marked, never
    /// ranked.
    pub tryout: bool,
    /// The tag of the published release whose collector measured it.
    pub release: Option<Arc<str>>,
    /// Why its collector is not a published release (a measured result
    /// only): shown with a "self-built" mark, never a reason to drop it.
    pub self_built: Option<Arc<str>>,
    /// A measured result without a run record (`run::NO_RUN_RECORD`):
    /// self-built too, for another reason than its collector's.
    pub no_run_record: bool,
    /// The median queue time of its measuring jobs as GitHub reported
    /// them (`run::median_queue_s`), formatted; where it has a run record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_median: Option<String>,
    /// The workflow's jobs that did not succeed (`provenance.jobs`).
    pub failed_jobs: Vec<FailedJob>,
    /// The whole-profile fingerprint, shown beside each row: a stage's
    /// rows are compared by the stage's key (`keys`), which several
    /// profiles can share.
    pub fingerprint: Arc<str>,
    pub protocol: Option<u32>,
    /// Each keyed stage's comparability key (`keys::stage_keys`).
    pub keys: Arc<StageKeys>,
    /// The page sizes (KiB) behind the disk samples' buffers, ascending,
    /// each once (`keys::disk_buffer_pages`); empty where none is recorded.
    pub disk_buffer_pages: Vec<u32>,
    /// The key of the entry it was made from (`entry_key`): the same key,
    /// the same meta, so that a key of a row need not serialize it.
    #[serde(skip)]
    pub entry_key: u64,
}

impl Meta {
    /// Shares the text of each field that `other` has too (a result of the
    /// same runner, as a rule): a build keeps every result's meta to its
    /// end, and a runner's results name the same provider, runner,
    /// collector and profile.
    fn share(&mut self, other: &Meta) {
        fn one(mine: &mut Arc<str>, theirs: &Arc<str>) {
            if mine == theirs {
                *mine = theirs.clone();
            }
        }
        fn some(mine: &mut Option<Arc<str>>, theirs: &Option<Arc<str>>) {
            if let (Some(mine), Some(theirs)) = (mine, theirs) {
                one(mine, theirs);
            }
        }
        one(&mut self.provider_name, &other.provider_name);
        one(&mut self.runner_url, &other.runner_url);
        one(&mut self.provider_url, &other.provider_url);
        one(&mut self.collector, &other.collector);
        one(&mut self.fingerprint, &other.fingerprint);
        some(&mut self.release, &other.release);
        some(&mut self.self_built, &other.self_built);
        if self.keys == other.keys {
            self.keys = other.keys.clone();
        }
    }

    /// Whether the row takes part in comparisons without reservation.
    pub fn clean(&self) -> bool {
        !self.incomplete && self.excluded.is_none() && !self.tryout
    }
}

/// One accepted result and its rows.
#[derive(Debug)]
pub struct Entry {
    /// Identifies everything the entry is made from (see `entry_key`).
    pub key: u64,
    /// Shared with every row made of the entry (`Row::meta`).
    pub meta: Arc<Meta>,
    /// Boxed, as are `server` and `intervals`: most entries let go of it
    /// or never have one, and a box takes 8 bytes of the entry, which a
    /// build holds for every result until its end.
    pub profile: Option<Box<ProfileView>>,
    pub cpu: Option<CpuRow>,
    /// Boxed, as are `internet` and `details`: what only a runner page
    /// shows is let go once the runner pages are made (`keep_summary`),
    /// and only a box gives back its room in the entry too.
    pub disk: Option<Box<DiskRow>>,
    pub cache: Vec<CacheRow>,
    pub internet: Option<Box<InternetRow>>,
    /// Its build-cache benchmark, which the build-cache section shows
    /// (`build_cache`), never the runner rankings.
    pub server: Option<Box<ServerDoc>>,
    /// What stages it has, for the coverage page.
    pub stages: Stages,
    /// Its machine and build, and why a stage is incomplete (runner page);
    /// `None` once let go (`keep_summary`). Read it with `details`.
    details: Option<Box<super::details::Details>>,
    /// Its headline figures' intervals, computed once (`changes`).
    pub intervals: std::sync::OnceLock<Box<Intervals>>,
}

impl Entry {
    /// Its machine and build, and why a stage is incomplete; none once
    /// `keep_summary` let them go.
    pub fn details(&self) -> &super::details::Details {
        static NONE: std::sync::LazyLock<super::details::Details> = std::sync::LazyLock::new(Default::default);
        self.details.as_deref().unwrap_or(&NONE)
    }

    /// Lets go of what only the result's runner page, the ranked groups
    /// and the change flags read (its rows but the CoreMark figures, its
    /// details, its intervals), once all three are made: the pages made
    /// after them (home, the data files, the feed, the build-cache
    /// section) read the entry's meta, CoreMark median and server document
    /// alone. At 100,000 results those stages held 1,190 MiB with whole
    /// entries, more than the check's peak.
    pub fn keep_summary(&mut self) {
        self.profile = None;
        self.disk = None;
        self.cache = Vec::new();
        self.internet = None;
        self.details = None;
        self.intervals = std::sync::OnceLock::new();
        if let Some(row) = &mut self.cpu {
            row.headline_samples = Vec::new();
        }
    }

    /// What the pages made after a result's runner page read of it, as a
    /// new entry: `keep_summary`'s, but where the comparison tables of a
    /// stage show the result (`shown`, by stage in `picks::GROUP_STAGES`
    /// order: CoreMark, disk, cache, internet) also that stage's rows and
    /// the profile, which the ranked groups read; and its server document
    /// only where it has a page of its own (`doc_page`, see
    /// `Model::servers`; a runner's newest result per server keeps its
    /// document, so the documents that get a page are the same without
    /// the others). A streaming build (`web::Intake`) makes it as soon as
    /// the result's runner page is made and lets go of the whole entry:
    /// made one after another, the summaries lie together, where kept in
    /// place they held on to the pages of everything freed around them
    /// (with 100,000 results, a fifth of the build's peak).
    /// Its meta shares the text it has in common with `previous`'s.
    pub fn summary(&self, shown: [bool; 4], doc_page: bool, previous: Option<&Meta>) -> Entry {
        let [cpu, disk, cache, internet] = shown;
        let mut meta = (*self.meta).clone();
        if let Some(previous) = previous {
            meta.share(previous);
        }
        Entry {
            key: self.key,
            meta: Arc::new(meta),
            profile: if shown.contains(&true) { self.profile.clone() } else { None },
            cpu: self.cpu.as_ref().map(|row| match cpu {
                true => row.clone(),
                // Of a row no table shows, the pages after the runner page
                // read the median alone (index.json, the feed, a provider's
                // history lines).
                false => CpuRow {
                    runner: String::new(),
                    binary: String::new(),
                    median: row.median.clone(),
                    range: String::new(),
                    variation: String::new(),
                    cpu_group: String::new(),
                    samples: String::new(),
                    complete: row.complete,
                    pinned: row.pinned,
                    official_sources: row.official_sources,
                    median_value: row.median_value,
                    headline_samples: Vec::new(),
                    all_core: row.all_core,
                    vcpu_worth: row.vcpu_worth,
                    all_core_why: row.all_core_why,
                },
            }),
            disk: if disk { self.disk.clone() } else { None },
            cache: if cache { self.cache.clone() } else { Vec::new() },
            internet: if internet { self.internet.clone() } else { None },
            server: if doc_page || !self.stages.runner() { self.server.clone() } else { None },
            stages: self.stages,
            details: None,
            intervals: std::sync::OnceLock::new(),
        }
    }
}

/// The headline intervals of one result: `None` where a figure has fewer
/// than `stats::BOOTSTRAP_MIN_SAMPLES` samples or is imported (imported
/// reports publish no samples).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Intervals {
    pub cpu: Option<Interval>,
    pub disk: Option<Interval>,
    /// By cache row, in the entry's order.
    pub cache: Vec<Option<Interval>>,
    pub internet: Option<Interval>,
}

/// Which stages a result has.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Stages {
    pub cpu: bool,
    pub disk: bool,
    pub cache: bool,
    pub internet: bool,
    pub http_cache: bool,
}

impl Stages {
    /// Stage names and flags, in table order.
    pub fn list(&self) -> [(&'static str, bool); 5] {
        [
            ("CoreMark", self.cpu),
            ("Disk", self.disk),
            ("Cache", self.cache),
            ("Internet", self.internet),
            ("Build cache", self.http_cache),
        ]
    }

    /// The stages of a runner's benchmark (the workflow's), in table order:
    /// all but the build-cache stage, which measures a server and runs only
    /// where it is named.
    pub fn runner_list(&self) -> [(&'static str, bool); 4] {
        let [cpu, disk, cache, internet, _] = self.list();
        [cpu, disk, cache, internet]
    }

    /// Whether it measured the runner itself: a result with only a
    /// build-cache stage measured a server, and is no runner's.
    pub fn runner(&self) -> bool {
        self.cpu || self.disk || self.cache || self.internet
    }

    pub(crate) fn or(self, o: Stages) -> Stages {
        Stages {
            cpu: self.cpu || o.cpu,
            disk: self.disk || o.disk,
            cache: self.cache || o.cache,
            internet: self.internet || o.internet,
            http_cache: self.http_cache || o.http_cache,
        }
    }
}

/// Later date, then later path: the order "newest" means everywhere.
pub(crate) fn newer_key(e: &Entry) -> (&str, &str) {
    (&e.meta.timestamp, &e.meta.rel_path)
}

/// Which stage sections a result has; measured and imported results have
/// different section types with the same five names.
macro_rules! present_stages {
    ($s:expr) => {
        Stages {
            cpu: $s.cpu.is_some(),
            disk: $s.disk.is_some(),
            cache: $s.cache.is_some(),
            internet: $s.internet.is_some(),
            http_cache: $s.http_cache.is_some(),
        }
    };
}

/// A hash of everything an entry is made from: the file's content, its
/// path, its exclusion, its release status and the staleness cut-off.
pub(crate) fn entry_key(run: &Run, stale_before: jiff::Timestamp) -> u64 {
    crate::memo_key::key_of((&run.sha256, &run.rel_path, &run.excluded, &run.release, stale_before.as_second()))
}

pub(crate) fn entry(run: &Run, key: u64, stale_before: jiff::Timestamp) -> Entry {
    let part: RunnerPart = report::part(run);
    let Origin { provider_name, collector, imported, measured_at, stages, requested_missing } = origin(run);
    let failed_jobs = failed_jobs(run);
    let (release, self_built) = match &run.release {
        Some(ReleaseStatus::Released { tag }) => (Some(tag.clone()), None),
        Some(ReleaseStatus::SelfBuilt { reason }) => (None, Some(reason.clone())),
        None => (None, None),
    };
    // The result is incomplete where any of its rows is (the same rules as
    // the rows' own marks in `groups`).
    let some_incomplete = part.cpu.as_ref().is_some_and(cpu_incomplete)
        || part.disk.as_ref().is_some_and(disk_incomplete)
        || part.internet.as_ref().is_some_and(internet_incomplete)
        || part.cache.iter().any(cache_incomplete);
    let details = super::details::of(&run.result);
    let incomplete_why = incomplete_reasons(&part, &details.reasons, &requested_missing, &failed_jobs);
    let provider_id = run.provider_id();
    let runner = run.runner_label();
    let server = part.http_cache.as_ref().and_then(|view| build_cache::server_doc(run, view));
    // A server's rows link to its document's page: it has no runner page.
    let runner_url = match &server {
        Some(doc) if !stages.runner() => doc.url.clone(),
        _ => format!("/runners/{provider_id}/{runner}/"),
    };
    let meta = Meta {
        provider_unnamed: provider_name.is_none(),
        provider_name: provider_name.unwrap_or_else(|| provider_id.clone()).into(),
        runner_url: runner_url.into(),
        provider_url: format!("/providers/{provider_id}/").into(),
        source_url: format!("/results/{}", run.rel_path),
        rel_path: run.rel_path.clone(),
        date: match measured_at {
            Some(t) if imported => t.strftime("%Y-%m-%d").to_string(),
            _ => run.date().get(..10).unwrap_or(run.date()).to_string(),
        },
        date_measured: measured_at.is_some(),
        imported_on: imported.then(|| run.date().get(..10).unwrap_or(run.date()).to_string()),
        timestamp: match measured_at {
            Some(t) if imported => t.to_string(),
            _ => run.date().to_string(),
        },
        collector: collector.into(),
        imported,
        stale: measured_at.is_some_and(|t| t < stale_before),
        incomplete: !requested_missing.is_empty() || some_incomplete || !failed_jobs.is_empty(),
        incomplete_why,
        incomplete_stages: incomplete_stages(&part),
        excluded: run.excluded.clone(),
        tryout: matches!(&*run.result, AnyResult::Measured(m) if crate::validate::is_tryout(m)),
        release: release.map(Into::into),
        self_built: self_built.map(Into::into),
        no_run_record: matches!(&*run.result, AnyResult::Measured(m) if m.provenance.run_record.is_none()),
        queue_median: match &*run.result {
            AnyResult::Measured(m) => super::run::median_queue_s(m).map(super::run::duration),
            AnyResult::Imported(_) => None,
        },
        failed_jobs,
        fingerprint: part.profile.as_ref().map_or("", |p| p.fingerprint.as_str()).into(),
        protocol: part.profile.as_ref().map(|p| p.protocol),
        keys: Arc::new(crate::keys::stage_keys(&run.result)),
        disk_buffer_pages: match &*run.result {
            AnyResult::Measured(m) => crate::keys::disk_buffer_pages(m),
            AnyResult::Imported(_) => Vec::new(),
        },
        provider_id,
        runner,
        entry_key: key,
    };
    Entry {
        key,
        meta: Arc::new(meta),
        profile: part.profile.map(Box::new),
        cpu: part.cpu,
        disk: part.disk.map(Box::new),
        cache: part.cache,
        internet: part.internet.map(Box::new),
        server: server.map(Box::new),
        stages,
        details: Some(Box::new(details)),
        intervals: std::sync::OnceLock::new(),
    }
}

/// Where a result's figures come from: its provider's name, the collector
/// (or "imported"), when they were measured where known (staleness counts
/// from it and from nothing else), its stages, and the stages a measured
/// run asked for and lacks.
struct Origin {
    provider_name: Option<String>,
    collector: String,
    imported: bool,
    measured_at: Option<jiff::Timestamp>,
    stages: Stages,
    requested_missing: Vec<&'static str>,
}

fn origin(run: &Run) -> Origin {
    let (provider_name, collector, imported, measured_at, stages, requested_missing) = match &*run.result {
        AnyResult::Measured(m) => {
            let s = &m.stages;
            let stages = present_stages!(s);
            // A measured run asks for CPU, disk and cache, and for the
            // internet stage when its parameters enable it.
            let missing: Vec<&str> = [
                (!stages.cpu, "CoreMark"),
                (!stages.disk, "disk"),
                (!stages.cache, "cache"),
                (m.parameters.internet && !stages.internet, "internet"),
            ]
            .into_iter()
            .filter_map(|(gone, name)| gone.then_some(name))
            .collect();
            let name = m.provider.name.as_ref().map(|n| n.to_string());
            let at = Some(m.provenance.started_at.instant());
            (name, m.collector.version.to_string(), false, at, stages, missing)
        }
        AnyResult::Imported(i) => {
            let s = &i.stages;
            let stages = present_stages!(s);
            let name = i.provider.name.as_ref().map(|n| n.to_string());
            let at = i.source.measured_on.as_ref().map(|d| d.instant());
            (name, "imported".to_string(), true, at, stages, Vec::new())
        }
    };
    Origin { provider_name, collector, imported, measured_at, stages, requested_missing }
}

/// Names the provider of `entry` `name` (its provider file's) where the
/// result names none, so that every page, CSV file and index.json shows
/// the name, not the id. An entry `site serve` kept from its last build is
/// shared and already named so.
pub fn name_provider(entry: &mut Arc<Entry>, name: &str) {
    if !entry.meta.provider_unnamed || *entry.meta.provider_name == *name {
        return;
    }
    if let Some(e) = Arc::get_mut(entry) {
        Arc::make_mut(&mut e.meta).provider_name = name.into();
    }
}

/// The leading number of a formatted figure (`33392.77`, `7.76; 7.12–22.53`),
/// `None` for an em dash.
pub fn leading(s: &str) -> Option<f64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(s.len());
    s[..end].parse().ok()
}

/// The `min–max` range of a formatted figure (`29068.42–37639.26` or
/// `7.76; 7.12–22.53`).
pub fn range(s: &str) -> Option<(f64, f64)> {
    let r = s.rsplit("; ").next()?;
    let (a, b) = r.split_once('–')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_from_formatted_figures() {
        assert_eq!(leading("33392.77"), Some(33392.77));
        assert_eq!(leading("7.76; 7.12–22.53"), Some(7.76));
        assert_eq!(leading("—"), None);
        assert_eq!(range("29068.42–37639.26"), Some((29068.42, 37639.26)));
        assert_eq!(range("7.76; 7.12–22.53"), Some((7.12, 22.53)));
        assert_eq!(range("—"), None);
    }
}
