//! An imported result: the aggregates of a published report that has no raw
//! samples. It is always marked as imported and names its source, and the
//! site never mixes its figures with measured ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Affinity, Notice, Provider, Runner};
use crate::measured::{CacheKind, Condition, Endpoint};
use crate::values::{Fingerprint, Name, NonNeg, Slug, Timestamp};

/// Aggregates of one runner taken from a published report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedResult {
    /// Optional pointer to the JSON Schema, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Name>,
    /// Always 1 for this format.
    #[schemars(extend("const" = 1))]
    pub format_version: u32,
    /// Always `imported`.
    pub kind: ImportedKind,
    /// Where the figures come from.
    pub source: Source,
    /// The runner's provider.
    pub provider: Provider,
    /// The runner (for a build-cache benchmark: the server's machine).
    pub runner: Runner,
    /// The published parameter profile, where the report states one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_profile: Option<PublishedProfile>,
    /// Machine details as published.
    pub machine: ImportedMachine,
    /// Build details as published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<ImportedBuild>,
    /// One section per published stage.
    pub stages: ImportedStages,
    /// Notices as published.
    pub notices: Vec<Notice>,
}

/// The `kind` tag of an imported result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportedKind {
    /// Taken from a published report.
    Imported,
}

/// The document an imported result was taken from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The report's title, e.g. `Ubicloud Runner Benchmarks`.
    pub title: Name,
    /// Where the report can be read: a URL or a file name.
    pub document: Name,
    /// SHA-256 of the document as imported.
    pub document_sha256: crate::values::Sha256Hex,
    /// When it was imported.
    pub imported_at: Timestamp,
    /// The day the report's figures were measured, where its publisher
    /// states it (`site import --measured-on`); the site dates the result,
    /// and counts its age, from this day only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_on: Option<crate::values::Date>,
    /// The tool that imported it, e.g. `site 0.1.0`.
    pub importer: Name,
}

/// The published protocols the project knows: those whose reports' wording
/// the site reproduces for an imported result's "How it was measured"
/// (the seed reports'). An imported result that names another protocol is
/// refused by `site check`, since no sentence the site prints would be
/// known to be true of it; adding one here needs its wording first.
pub const KNOWN_PROTOCOLS: [u32; 2] = [5, 6];

/// The parameter profile a published report states. Its fingerprint was
/// computed by the publisher's own scheme, so it groups imported results with
/// each other and never with measured ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishedProfile {
    /// The published fingerprint.
    pub fingerprint: Fingerprint,
    /// The published protocol number.
    pub protocol: u32,
    /// CPU and disk samples.
    pub cpu_disk_samples: u32,
    /// CPU seconds per sample.
    pub cpu_seconds: u32,
    /// Disk file, MiB.
    pub disk_file_mib: u32,
    /// Cache payload, MiB.
    pub cache_payload_mib: u32,
    /// Whether the internet stage was enabled.
    pub internet: bool,
    /// Internet transfer per sample, MiB.
    pub internet_transfer_mib: u32,
    /// Publication gap, seconds, where stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_publication_gap_s: Option<u32>,
}

/// Machine details a report publishes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedMachine {
    /// Architecture, e.g. `x64`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<Slug>,
    /// CPU model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<Name>,
    /// OS image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_image: Option<Name>,
    /// Other published details (memory, disk, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Condition>,
}

/// Build details a report publishes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedBuild {
    /// Compiler, e.g. `GNU 13.3.0`.
    pub compiler: Name,
    /// The flags column as published.
    pub flags: Name,
}

/// Published stage aggregates.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedStages {
    /// CoreMark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<ImportedCpu>,
    /// Disk I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<ImportedDisk>,
    /// Cache backends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<ImportedCache>,
    /// Internet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internet: Option<ImportedInternet>,
    /// Remote build-cache server benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_cache: Option<ImportedHttpCache>,
}

/// Median, range and variation of one figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// Median.
    pub median: NonNeg,
    /// Smallest sample.
    pub min: NonNeg,
    /// Largest sample.
    pub max: NonNeg,
    /// Population coefficient of variation, percent.
    pub variation_pct: NonNeg,
}

/// Sample counts of a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Samples that completed.
    pub completed: u32,
    /// Samples attempted.
    pub attempted: u32,
    /// Samples requested.
    pub requested: u32,
}

/// Published CoreMark figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedCpu {
    /// Affinity the report states.
    pub affinity: Affinity,
    /// Iterations per second.
    pub iterations_per_s: Aggregate,
    /// Accepted samples.
    pub samples: u32,
}

/// Published disk figures (medians).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedDisk {
    /// `Pinned` or `Unpinned`, as published.
    pub pinned: bool,
    /// Test file, MiB.
    pub file_mib: u32,
    /// Sample counts, where published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    /// Status, where published (e.g. `ok`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Name>,
    /// Sequential read, MiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_mib_per_s: Option<NonNeg>,
    /// Sequential write, MiB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_mib_per_s: Option<NonNeg>,
    /// Random read, IOPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_read_iops: Option<NonNeg>,
    /// Random write, IOPS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_write_iops: Option<NonNeg>,
}

/// Published cache figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedCache {
    /// One row per backend.
    pub backends: Vec<ImportedCacheBackend>,
}

/// One published cache-backend row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedCacheBackend {
    /// Backend kind.
    pub kind: CacheKind,
    /// Backend name as published.
    pub name: Name,
    /// Payload, MiB.
    pub payload_mib: NonNeg,
    /// Pairs that verified.
    pub verified_pairs: u32,
    /// Pairs requested.
    pub pairs: u32,
    /// Save seconds.
    pub save_s: Aggregate,
    /// Save MiB/s as published.
    pub save_mib_per_s: NonNeg,
    /// Restore seconds.
    pub restore_s: Aggregate,
    /// Restore MiB/s as published.
    pub restore_mib_per_s: NonNeg,
}

/// Published internet figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedInternet {
    /// The LibreSpeed backend.
    pub endpoint: Endpoint,
    /// `ok` or `unavailable`.
    pub available: bool,
    /// Transfer per sample, MiB.
    pub transfer_mib: u32,
    /// Download, Mbps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_mbps: Option<NonNeg>,
    /// Upload, Mbps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_mbps: Option<NonNeg>,
    /// Zero-byte HTTPS request, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_ms: Option<NonNeg>,
}

/// A published build-cache server benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedHttpCache {
    /// Server software, e.g. `RBCS`.
    pub software: Name,
    /// Conditions that held for every table.
    pub conditions: Vec<Condition>,
    /// The tables, in published order.
    pub tables: Vec<ImportedHttpCacheTable>,
}

/// One published table of build-cache figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedHttpCacheTable {
    /// Table title, e.g. `In memory cache backend`.
    pub title: Name,
    /// Conditions stated for this table alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Rows in published order.
    pub rows: Vec<ImportedHttpCacheRow>,
}

/// One published build-cache row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportedHttpCacheRow {
    /// Server backend, e.g. `in-memory`.
    pub backend: Name,
    /// Server CPU.
    pub cpu: Name,
    /// CPU quota, CPUs.
    pub cpu_quota: NonNeg,
    /// Memory quota, GB.
    pub memory_quota_gb: NonNeg,
    /// Entry size, bytes.
    pub value_bytes: u64,
    /// Client connections.
    pub connections: u32,
    /// PUT requests per second.
    pub put_per_s: NonNeg,
    /// GET requests per second.
    pub get_per_s: NonNeg,
}
