//! The view model of a provider report: every figure already formatted, so
//! the template only lays rows out.

use runner_bench_format::measured::{CacheKind, CacheMethod};
use serde::Serialize;

use super::sentence::{Paragraph, ProtocolText, count_word};

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
    /// The stages the group's results measured: the table's columns of a
    /// stage no result ran (a profile that enables the internet stage, run
    /// with CPU and disk only) would describe nothing that was measured.
    pub measured: StagesMeasured,
}

/// Which stages a group's results ran, for its parameters table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StagesMeasured {
    pub cpu: bool,
    pub disk: bool,
    pub cache: bool,
    pub internet: bool,
}

impl StagesMeasured {
    /// Every stage: what an imported report's parameters table describes.
    pub const ALL: StagesMeasured = StagesMeasured { cpu: true, disk: true, cache: true, internet: true };

    /// The stages of either.
    pub fn or(self, other: StagesMeasured) -> StagesMeasured {
        StagesMeasured {
            cpu: self.cpu || other.cpu,
            disk: self.disk || other.disk,
            cache: self.cache || other.cache,
            internet: self.internet || other.internet,
        }
    }
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
    /// The result's all-core CoreMark, median, least and greatest of its
    /// accepted samples (iterations/s), where it ran that stage: the
    /// estimate's parallel share scales by it.
    #[serde(skip)]
    pub all_core: Option<[f64; 3]>,
    /// What a vCPU is worth (`measured::vcpu_worth`): the all-core median
    /// ÷ (the one-thread median × the contexts), where both ran.
    #[serde(skip)]
    pub vcpu_worth: Option<f64>,
    /// Why `all_core` is none, in words for the overview's dash.
    #[serde(skip)]
    pub all_core_why: Option<&'static str>,
}

/// Why a CoreMark row has no all-core figure, as the overview's dash says
/// it: the result's profile had no all-core stage (collectors before it, or
/// a profile without it).
pub(super) const NO_ALL_CORE_PROFILE: &str = "no all-core stage in this result's profile";
/// The profile has the stage, and the result has none (a run of some stages).
pub(super) const NO_ALL_CORE_RUN: &str = "the all-core stage did not run in this result";
/// The stage ran and none of its samples was accepted.
pub(super) const NO_ALL_CORE_SAMPLE: &str = "no all-core sample was accepted";
/// Imported rows: the published reports have one-thread CoreMark only.
pub(super) const NO_ALL_CORE_IMPORTED: &str = "the imported report publishes no all-core figure";

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
    /// Sequential read and write MiB/s of each completed sample, for the
    /// range of a job estimate's disk part (measured rows; the published
    /// reports print medians only).
    #[serde(skip)]
    pub seq_samples: [Vec<f64>; 2],
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
#[derive(Debug, Clone, Default)]
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
