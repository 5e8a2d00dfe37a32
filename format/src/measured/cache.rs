//! The cache stage: its backends, its save/restore pairs, and what each
//! restore verified, routing included.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::Affinity;
use crate::values::{Message, Name, NonNeg, Sha256Hex, Slug, Timestamp};

use super::machine::Instance;
use super::status::Status;

/// The cache stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheStage {
    /// Logical payload bytes.
    pub payload_bytes: u64,
    /// SHA-256 over the payload's files, in name order.
    pub payload_sha256: Sha256Hex,
    /// The backends measured.
    pub backends: Vec<CacheBackend>,
    /// Save/restore pairs, in the order they ran.
    pub pairs: Vec<CachePair>,
}

/// A cache backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheBackend {
    /// Id used by pairs and notices, e.g. `github`, `ubicloud`.
    pub id: Slug,
    /// Name as its provider gives it, e.g. `GitHub Actions cache`.
    pub name: Name,
    /// What kind of backend it is.
    pub kind: CacheKind,
    /// Service URL or folder.
    pub endpoint: Name,
}

/// Kinds of cache backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheKind {
    /// A service behind the GitHub Actions cache API (tar + zstd archives).
    ArchiveService,
    /// A folder on a mounted volume (plain copy).
    AttachedVolume,
}

impl CacheKind {
    /// The kind as the reports name it.
    pub fn name(self) -> &'static str {
        match self {
            CacheKind::ArchiveService => "archive-service",
            CacheKind::AttachedVolume => "attached-volume",
        }
    }
}

/// One unique-key save and its restore in a later job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CachePair {
    /// Trial number, from 1.
    pub trial: u32,
    /// Backend id.
    pub backend: Slug,
    /// How the transfers were made and timed; `client` where absent (files
    /// written before the action method existed), and not written then.
    #[serde(default, skip_serializing_if = "CacheMethod::is_client")]
    pub method: CacheMethod,
    /// The unique cache key.
    pub key: Name,
    /// The save.
    pub save: CacheTransfer,
    /// The restore; absent if it was never attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore: Option<CacheTransfer>,
    /// Seconds waited between the save job's end and the restore (not timed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publication_gap_s: Option<NonNeg>,
    /// What the restore verified; absent if it was never attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<CacheVerification>,
}

impl CachePair {
    /// A pair counts only with both transfers ok and every check passed.
    pub fn verified(&self) -> bool {
        self.save.status == Status::Ok
            && self.restore.as_ref().is_some_and(|r| r.status == Status::Ok)
            && self.verification.as_ref().is_some_and(CacheVerification::passed)
    }
}

/// A save or a restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheTransfer {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When it started.
    pub started_at: Timestamp,
    /// Seconds, including archiving or extraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<NonNeg>,
    /// Bytes sent or received over the wire (the archive, for archive services).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transferred_bytes: Option<u64>,
    /// The OS instance it ran on.
    pub instance: Instance,
    /// Affinity in force: for the action method, the one-CPU affinity the
    /// collector gave the job's process tree before the action step.
    pub affinity: Affinity,
    /// The action step that made the transfer (action method only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ActionStep>,
}

/// How a cache pair's transfers were made and timed. The two are never
/// ranked together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMethod {
    /// The collector's own client: for an archive service, its tar + zstd
    /// archive and its client of the cache API, timed from archiving to
    /// finalize and from lookup to extraction; for a volume, a plain copy.
    #[default]
    Client,
    /// A real cache action as a workflow step (`uses:`), timed from the end
    /// of the collector's step before it to the start of its step after it:
    /// the action with its node start-up and the adjacent step transitions.
    Action,
}

impl CacheMethod {
    fn is_client(&self) -> bool {
        *self == CacheMethod::Client
    }

    /// The method as reports and tables name it.
    pub fn name(self) -> &'static str {
        match self {
            CacheMethod::Client => "client",
            CacheMethod::Action => "action",
        }
    }
}

/// The action step of an action-method transfer, and what was observed of
/// its processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionStep {
    /// The step's `uses:`, `owner/repo[/path]@commit`.
    pub uses: Name,
    /// The compressor runs the collector's zstd shim saw, in order, with
    /// the processes above them: at most 16.
    pub processes: Vec<ObservedProcess>,
    /// Whether every compressor run observed was forced to one thread.
    pub single_thread: Observation,
    /// Whether every observed process had the job's one-CPU affinity.
    pub affinity_inherited: Observation,
}

/// One process seen during an action step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObservedProcess {
    /// `compressor` (the command the shim ran), `shell` (the `sh -c` tar
    /// runs a compressor through), `archiver` (tar) or `action` (the
    /// process above tar, node).
    pub role: Slug,
    /// Command line, as the OS shows it (truncated to 200 characters).
    pub command: Message,
    /// The CPUs it may run on, as a list (`0`, `0-3`), or `unknown`.
    pub cpus: Name,
}

/// Whether something was seen to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Observation {
    /// Seen, and it held every time.
    Held,
    /// Seen, and it did not hold at least once.
    Failed,
    /// Not seen (no compressor ran through the shim, or the OS does not
    /// show it).
    NotObserved,
}

/// What a restore checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheVerification {
    /// How the key matched.
    pub key_match: KeyMatch,
    /// Whether every restored file's SHA-256 matched.
    pub sha256: DigestCheck,
    /// Who served the transfer.
    pub routing: Routing,
}

impl CacheVerification {
    /// Exact hit, matching digests and the expected routing.
    pub fn passed(&self) -> bool {
        self.key_match == KeyMatch::Exact && self.sha256 == DigestCheck::Match && self.routing.matches
    }
}

/// How a restore's key matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KeyMatch {
    /// The exact key hit.
    Exact,
    /// Only a restore key hit: a failure.
    RestoreKey,
    /// Nothing hit: a failure.
    Miss,
}

/// A digest comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DigestCheck {
    /// Every file matched.
    Match,
    /// A file differed.
    Mismatch,
    /// Nothing to compare (the restore failed first).
    NotChecked,
}

/// Backend routing: which host served the signed URLs, and whether that is
/// the backend the pair claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    /// What the backend's configuration expects, e.g. `*.blob.core.windows.net`.
    pub expected: Name,
    /// What was seen.
    pub observed: Name,
    /// Whether they agree.
    pub matches: bool,
}

impl Routing {
    /// The routing of an archive-service pair: the hosts of the signed
    /// upload and download URLs (`None`: never reached) against the
    /// backend's host patterns, with the provider variables seen beside
    /// them. `consistent` reads the hosts back from this form.
    pub fn service(pattern: &str, upload_host: Option<&str>, download_host: Option<&str>, signals: &str) -> Routing {
        let show = |h: Option<&str>| h.unwrap_or("not reached").to_string();
        let ok = |h: Option<&str>| h.is_some_and(|h| host_matches(pattern, h));
        Routing {
            expected: Name::lossy(pattern),
            observed: Name::lossy(&format!(
                "upload {}; download {}; provider variables: {signals}",
                show(upload_host),
                show(download_host)
            )),
            matches: ok(upload_host) && ok(download_host),
        }
    }

    /// The routing of an action-method pair: the host of the cache service
    /// URL the runner gave actions (`None`: not known), against the
    /// action's host patterns. The signed storage URLs the action then
    /// uses are not visible outside its process.
    pub fn runtime(pattern: &str, service_host: Option<&str>, signals: &str) -> Routing {
        Routing {
            expected: Name::lossy(pattern),
            observed: Name::lossy(&format!(
                "runtime service {}; provider variables: {signals}",
                service_host.unwrap_or("unknown")
            )),
            matches: service_host.is_some_and(|h| host_matches(pattern, h)),
        }
    }

    /// Whether `matches` agrees with `expected` and `observed`: for an
    /// archive service, both hosts in the observed text fit the expected
    /// patterns (the form `service` writes); for a volume, and for a
    /// service's routing in any other form, the two are the same text.
    pub fn consistent(&self, kind: CacheKind) -> bool {
        let observed = self.observed.as_str();
        let host = |label: &str| observed.split("; ").find_map(|part| part.strip_prefix(label));
        let agrees = match (kind, host("upload "), host("download "), host("runtime service ")) {
            (CacheKind::ArchiveService, Some(up), Some(down), _) => {
                host_matches(self.expected.as_str(), up) && host_matches(self.expected.as_str(), down)
            }
            (CacheKind::ArchiveService, _, _, Some(service)) => {
                service != "unknown" && host_matches(self.expected.as_str(), service)
            }
            _ => self.expected == self.observed,
        };
        agrees == self.matches
    }
}

/// Whether `host` (maybe with `:port`) matches routing patterns: `*.suffix`,
/// `host` or `host:port`, several separated by `|`; `*` alone matches any
/// host (an action that talks to a service of its own).
pub fn host_matches(patterns: &str, host: &str) -> bool {
    patterns.split('|').map(str::trim).any(|pattern| {
        let bare = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
        if pattern == "*" {
            return !host.is_empty();
        }
        match pattern.strip_prefix("*.") {
            Some(suffix) => bare.ends_with(&format!(".{suffix}")),
            None => pattern == host || pattern == bare,
        }
    })
}
