//! The cache stage: save a payload to each configured backend in one job,
//! restore it in a later job on another OS instance, and verify it.
//!
//! - `archive-service`: the GitHub Actions cache service's v2 API, or a
//!   provider's cache behind the same API (`ghacache`), with a tar + zstd
//!   archive written on one thread (`archive`).
//! - `attached-volume`: a folder on a mounted volume (`volume`).
//!
//! A trial is `collector cache save` (every backend, in order; reversed on
//! trial 2), which writes a hand-off file (cmd/cache/handoff.rs), then
//! `collector cache restore` in a later job, which waits the publication
//! gap, restores every backend in the same order into empty folders and
//! checks an exact key hit, the SHA-256 of every file and the routing.
//! Seconds include archiving or extraction and the transfer; MiB/s uses the
//! payload bytes.
//! There are no retries and no fallbacks. See docs/cache.md.

pub mod action;
pub mod archive;
pub mod ghacache;
pub mod payload;
pub mod volume;
pub mod worker;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ghacache::AZURE_BLOB;
use runner_bench_format::measured::{CacheBackend, CacheKind, CacheTransfer, Instance, Status};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Slug, Timestamp};
use serde::{Deserialize, Serialize};

/// Where a variable's advice points when a `run:` step cannot see it.
pub const RUNTIME_ADVICE: &str = "GitHub Actions gives ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL to actions, not to \
     `run:` steps: read them in an `actions/github-script` step with `core.setSecret(process.env.ACTIONS_RUNTIME_TOKEN); \
     core.setOutput('token', process.env.ACTIONS_RUNTIME_TOKEN); core.setOutput('results-url', \
     process.env.ACTIONS_RESULTS_URL)` and map those outputs into this step's `env:` only, as the benchmark workflow \
     does (see docs/cache.md)";

/// Provider variables whose presence the routing check reports (names only,
/// never values).
const PROVIDER_SIGNALS: &[&str] = &[
    "UBICLOUD_CACHE_URL",
    "UBICLOUD_RUNTIME_TOKEN",
    "CUSTOM_ACTIONS_CACHE_URL",
    "ZCTIONS_RESULTS_URL",
    "ZCTIONS_CACHE_URL",
    "RUNS_ON_RUNNER_NAME",
    "WARPBUILD_RUNNER_VERIFICATION_TOKEN",
    "DEPOT_CACHE_TOKEN",
    "DEPOT_ORG_ID",
];

/// A backend as configured: `id=…;name=…;kind=…;endpoint=…[;token=…][;routing=…]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendSpec {
    pub id: Slug,
    pub name: Name,
    pub kind: CacheKind,
    /// archive-service: a URL, or `env:VAR` naming the variable that holds
    /// it (default `env:ACTIONS_RESULTS_URL`). attached-volume: the folder.
    pub endpoint: String,
    /// archive-service: `env:VAR` holding the bearer token (default
    /// `env:ACTIONS_RUNTIME_TOKEN`).
    pub token: String,
    /// archive-service: the hosts the signed URLs may point at: `*.suffix`,
    /// `host` or `host:port`, several separated by `|` (default
    /// `*.blob.core.windows.net`).
    pub routing: String,
}

impl BackendSpec {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (mut id, mut name, mut kind, mut endpoint, mut token, mut routing) = (None, None, None, None, None, None);
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("{part:?} is not key=value"))?;
            let v = v.trim().to_string();
            match k.trim() {
                "id" => id = Some(v),
                "name" => name = Some(v),
                "kind" => kind = Some(v),
                "endpoint" => endpoint = Some(v),
                "token" => token = Some(v),
                "routing" => routing = Some(v),
                other => return Err(format!("unknown field {other:?}; use id, name, kind, endpoint, token, routing")),
            }
        }
        let id = Slug::new(id.ok_or("id= is missing")?)?;
        let name = Name::new(name.ok_or("name= is missing")?)?;
        let kind = match kind.as_deref() {
            Some("archive-service") => CacheKind::ArchiveService,
            Some("attached-volume") => CacheKind::AttachedVolume,
            Some(other) => return Err(format!("kind {other:?}: use archive-service or attached-volume")),
            None => return Err("kind= is missing (archive-service or attached-volume)".into()),
        };
        let endpoint = match (kind, endpoint) {
            (_, Some(e)) if !e.is_empty() => e,
            (CacheKind::ArchiveService, _) => "env:ACTIONS_RESULTS_URL".to_string(),
            (CacheKind::AttachedVolume, _) => return Err("endpoint= is missing: the volume's folder".into()),
        };
        if kind == CacheKind::AttachedVolume && (token.is_some() || routing.is_some()) {
            return Err("token= and routing= apply to archive-service backends only".into());
        }
        let token = token.unwrap_or_else(|| "env:ACTIONS_RUNTIME_TOKEN".to_string());
        if kind == CacheKind::ArchiveService && !token.starts_with("env:") {
            return Err("token= must name a variable (env:VAR), never the token itself".into());
        }
        Ok(BackendSpec { id, name, kind, endpoint, token, routing: routing.unwrap_or_else(|| AZURE_BLOB.to_string()) })
    }

    /// The hand-off's backend for an action-method pair: the action talks
    /// to its service itself, so endpoint and token stay the runtime's.
    pub fn for_action(spec: &action::ActionSpec) -> BackendSpec {
        BackendSpec {
            id: spec.id.clone(),
            name: Name::lossy(spec.entry().name),
            kind: CacheKind::ArchiveService,
            endpoint: "env:ACTIONS_RESULTS_URL".into(),
            token: "env:ACTIONS_RUNTIME_TOKEN".into(),
            routing: spec.routing.clone(),
        }
    }

    /// The backend as the result records it. For a service, only the origin
    /// of its URL (the toolkit ignores the path, which may hold a token).
    pub fn record(&self, resolved_endpoint: &str) -> CacheBackend {
        let endpoint = match self.kind {
            CacheKind::ArchiveService => ghacache::origin(resolved_endpoint)
                .map(|u| u.as_str().trim_end_matches('/').to_string())
                .unwrap_or_else(|_| "unknown".into()),
            CacheKind::AttachedVolume => resolved_endpoint.to_string(),
        };
        CacheBackend { id: self.id.clone(), name: self.name.clone(), kind: self.kind, endpoint: Name::lossy(&endpoint) }
    }
}

/// A backend ready to use in this job. A volume's `mount` is the label of
/// the mount holding `root`, looked up once when the backend is resolved so
/// that no transfer's time includes reading the mount table.
#[allow(clippy::large_enum_variant, reason = "one per backend, built once per job")]
pub enum Resolved {
    Service { service: ghacache::Service, transfers: ghacache::Transfers, url: String },
    Volume { root: PathBuf, mount: String },
}

impl Resolved {
    pub fn endpoint(&self) -> String {
        match self {
            Resolved::Service { url, .. } => url.clone(),
            Resolved::Volume { root, .. } => root.display().to_string(),
        }
    }
}

/// Reads the endpoint and token; fails with advice when a variable is
/// missing, before anything is measured.
pub fn resolve(
    spec: &BackendSpec,
    env: &dyn Fn(&str) -> Option<String>,
    timeout: Duration,
) -> anyhow::Result<Resolved> {
    let from_env = |value: &str, what: &str| -> anyhow::Result<String> {
        match value.strip_prefix("env:") {
            Some(var) => match env(var).filter(|v| !v.is_empty()) {
                Some(v) => Ok(v),
                None => {
                    anyhow::bail!("backend {}: {var} is not set, so the {what} is unknown. {RUNTIME_ADVICE}", spec.id)
                }
            },
            None => Ok(value.to_string()),
        }
    };
    match spec.kind {
        CacheKind::ArchiveService => {
            let url = from_env(&spec.endpoint, "cache service URL")?;
            let token = from_env(&spec.token, "cache service token")?;
            let http = ghacache::http(timeout)?;
            let service =
                ghacache::Service::new(http, &url, &token).map_err(|e| anyhow::anyhow!("backend {}: {e}", spec.id))?;
            let transfers = ghacache::Transfers::new(timeout)?;
            Ok(Resolved::Service { service, transfers, url })
        }
        CacheKind::AttachedVolume => {
            let root = PathBuf::from(&spec.endpoint);
            if !root.is_dir() {
                anyhow::bail!(
                    "backend {}: {} is not a folder; mount the volume and create it first",
                    spec.id,
                    root.display()
                );
            }
            let mount = volume::mount_of(&root).label();
            Ok(Resolved::Volume { root, mount })
        }
    }
}

/// The order of a trial: as configured, reversed on trial 2.
pub fn order<T: Clone>(backends: &[T], trial: u32) -> Vec<T> {
    let mut v = backends.to_vec();
    if trial == 2 {
        v.reverse();
    }
    v
}

/// 64 random bits from the OS's hash seed and the clock (keys and block ids
/// need uniqueness, not secrecy).
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    h.write_u32(std::process::id());
    h.finish()
}

/// A unique key for one pair.
pub fn new_key(runner: &str, backend: &str, trial: u32) -> String {
    format!("runner-bench-{runner}-{backend}-t{trial}-{:016x}", random_u64())
}

/// The provider variables present in this job (names only).
pub fn provider_signals(env: &dyn Fn(&str) -> Option<String>) -> String {
    let seen: Vec<&str> = PROVIDER_SIGNALS.iter().copied().filter(|v| env(v).is_some()).collect();
    if seen.is_empty() { "none".to_string() } else { seen.join(", ") }
}

/// Times a transfer and records it.
pub struct Timer {
    started_at: Timestamp,
    start: Instant,
}

impl Timer {
    pub fn start() -> Self {
        Timer { started_at: Timestamp::now(), start: Instant::now() }
    }

    pub fn finish(
        self,
        outcome: Result<u64, ghacache::TransferError>,
        instance: &Instance,
        affinity: Affinity,
    ) -> CacheTransfer {
        let seconds = NonNeg::new(self.start.elapsed().as_secs_f64()).ok();
        match outcome {
            Ok(bytes) => CacheTransfer {
                status: Status::Ok,
                message: None,
                started_at: self.started_at,
                seconds,
                transferred_bytes: Some(bytes),
                instance: instance.clone(),
                affinity,
                action: None,
            },
            Err(e) => CacheTransfer {
                status: if e.timeout { Status::Timeout } else { Status::Error },
                message: Some(Message::lossy(&format!("{:#}", e.error))),
                started_at: self.started_at,
                seconds,
                transferred_bytes: None,
                instance: instance.clone(),
                affinity,
                action: None,
            },
        }
    }
}

/// The routing an attached-volume transfer records: the mount resolved with
/// the backend, known before the timer starts.
fn volume_mount(backend: &Resolved) -> Option<String> {
    match backend {
        Resolved::Volume { mount, .. } => Some(mount.clone()),
        Resolved::Service { .. } => None,
    }
}

/// What a save of one backend produced.
pub struct Saved {
    pub transfer: CacheTransfer,
    pub version: String,
    /// archive-service: host of the signed upload URL; attached-volume: the
    /// mount holding the folder.
    pub routing_seen: Option<String>,
}

/// Saves `workspace/<payload::DIR_NAME>` under `key`.
pub fn save(
    backend: &Resolved,
    key: &str,
    workspace: &Path,
    scratch: &Path,
    zstd_level: i32,
    instance: &Instance,
    affinity: Affinity,
) -> Saved {
    let version = archive::version_here(&[payload::DIR_NAME]);
    let mut seen = volume_mount(backend);
    let timer = Timer::start();
    let outcome = match backend {
        Resolved::Service { service, transfers, .. } => (|| -> Result<u64, ghacache::TransferError> {
            let file = scratch.join(archive::FILE_NAME);
            let _guard = crate::platform::cleanup::TempFile::register(file.clone());
            let size = archive::create(workspace, payload::DIR_NAME, &file, zstd_level)?;
            let url = service.create(key, &version)?;
            seen = Some(ghacache::host_of(&url));
            transfers.upload(&url, &file, ghacache::TOOLKIT)?;
            service.finalize(key, &version, size)?;
            Ok(size)
        })(),
        Resolved::Volume { root, .. } => volume::copy_folder(
            &workspace.join(payload::DIR_NAME),
            &volume::entry_dir(root, key).join(payload::DIR_NAME),
        )
        .map_err(Into::into),
    };
    Saved { transfer: timer.finish(outcome, instance, affinity), version, routing_seen: seen }
}

/// What a restore of one backend produced.
pub struct Restored {
    pub transfer: CacheTransfer,
    pub key_match: runner_bench_format::measured::KeyMatch,
    pub routing_seen: Option<String>,
}

/// Restores `key` into the empty folder `target` (as its workspace).
pub fn restore(
    backend: &Resolved,
    key: &str,
    version: &str,
    target: &Path,
    scratch: &Path,
    instance: &Instance,
    affinity: Affinity,
) -> Restored {
    use runner_bench_format::measured::KeyMatch;
    let mut key_match = KeyMatch::Miss;
    let mut seen = volume_mount(backend);
    let timer = Timer::start();
    let outcome = match backend {
        Resolved::Service { service, transfers, .. } => (|| -> Result<u64, ghacache::TransferError> {
            let (url, matched) = match service.lookup(key, version)? {
                ghacache::Lookup::Miss => {
                    return Err(anyhow::anyhow!("GetCacheEntryDownloadURL: miss for key {key}").into());
                }
                ghacache::Lookup::Hit { url, matched_key } => (url, matched_key),
            };
            seen = Some(ghacache::host_of(&url));
            if matched.as_deref() != Some(key) {
                key_match = KeyMatch::RestoreKey;
                return Err(anyhow::anyhow!(
                    "GetCacheEntryDownloadURL: the service answered with key {}, not the exact key {key}",
                    matched.as_deref().unwrap_or("(none named)")
                )
                .into());
            }
            key_match = KeyMatch::Exact;
            let file = scratch.join(archive::FILE_NAME);
            let _guard = crate::platform::cleanup::TempFile::register(file.clone());
            let size = transfers.download(&url, &file)?;
            archive::extract(&file, target)?;
            Ok(size)
        })(),
        Resolved::Volume { root, .. } => {
            let from = volume::entry_dir(root, key).join(payload::DIR_NAME);
            if from.is_dir() {
                key_match = KeyMatch::Exact;
                volume::copy_folder(&from, &target.join(payload::DIR_NAME)).map_err(Into::into)
            } else {
                Err(anyhow::anyhow!("no entry {key} in {}", root.display()).into())
            }
        }
    };
    Restored { transfer: timer.finish(outcome, instance, affinity), key_match, routing_seen: seen }
}

/// The notice for an entry the collector cannot delete.
pub fn retention_notice(backend: &str, trial: u32) -> runner_bench_format::Notice {
    runner_bench_format::Notice {
        stage: Name::lossy(&format!("{backend} / trial {trial} / cleanup")),
        message: Message::lossy(
            "The provider-managed cache entry is left to provider retention. The cache service API the collector \
             speaks has no deletion call, and deletion through the REST API needs a separately authorised token; \
             no deletion of unrelated entries was requested.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use runner_bench_format::measured::host_matches;

    use super::*;

    #[test]
    fn parses_backends() {
        let b = BackendSpec::parse("id=github; name=GitHub Actions cache; kind=archive-service").unwrap();
        assert_eq!(b.endpoint, "env:ACTIONS_RESULTS_URL");
        assert_eq!(b.token, "env:ACTIONS_RUNTIME_TOKEN");
        assert_eq!(b.routing, AZURE_BLOB);
        let v = BackendSpec::parse("id=nvme;name=Local NVMe volume;kind=attached-volume;endpoint=/mnt/cache").unwrap();
        assert_eq!(v.kind, CacheKind::AttachedVolume);
        assert_eq!(
            BackendSpec::parse("id=x;name=X;kind=archive-service;token=abc").unwrap_err(),
            "token= must name a variable (env:VAR), never the token itself"
        );
        assert_eq!(
            BackendSpec::parse("id=x;name=X;kind=nfs").unwrap_err(),
            "kind \"nfs\": use archive-service or attached-volume"
        );
    }

    #[test]
    fn routing_patterns() {
        assert!(host_matches(AZURE_BLOB, "productionresultssa1.blob.core.windows.net"));
        assert!(!host_matches(AZURE_BLOB, "blob.core.windows.net.evil.example"));
        assert!(host_matches("127.0.0.1", "127.0.0.1:10000"));
        assert!(host_matches("127.0.0.1:10000", "127.0.0.1:10000"));
        assert!(!host_matches("127.0.0.1:10001", "127.0.0.1:10000"));
        assert!(host_matches("10.0.0.5:51123|*.r2.cloudflarestorage.com", "acct.r2.cloudflarestorage.com"));
        use runner_bench_format::measured::Routing;
        let r = Routing::service(AZURE_BLOB, Some("a.blob.core.windows.net"), None, "none");
        assert!(!r.matches);
        assert!(r.consistent(CacheKind::ArchiveService));
        let r = Routing::service(AZURE_BLOB, Some("a.blob.core.windows.net"), Some("b.blob.core.windows.net"), "none");
        assert!(r.matches);
        assert!(r.consistent(CacheKind::ArchiveService));
    }

    #[test]
    fn a_volume_records_the_mount_resolved_before_timing() {
        let dir = tempfile::tempdir().unwrap();
        let (vol, workspace, scratch, target) =
            (dir.path().join("vol"), dir.path().join("ws"), dir.path().join("scratch"), dir.path().join("target"));
        for d in [&vol, &workspace, &scratch, &target] {
            std::fs::create_dir(d).unwrap();
        }
        payload::generate(&workspace.join(payload::DIR_NAME), 1, 2).unwrap();
        let spec = BackendSpec::parse(&format!("id=v;name=V;kind=attached-volume;endpoint={}", vol.display())).unwrap();
        let backend = resolve(&spec, &|_| None, Duration::from_secs(30)).unwrap();
        let label = volume::mount_of(&vol).label();
        assert!(matches!(&backend, Resolved::Volume { mount, .. } if *mount == label));
        let instance = crate::platform::machine::instance();
        let saved = save(&backend, "k", &workspace, &scratch, 3, &instance, Affinity::Unpinned);
        assert_eq!(saved.transfer.status, Status::Ok, "{:?}", saved.transfer.message);
        assert_eq!(saved.routing_seen.as_deref(), Some(label.as_str()));
        let restored = restore(&backend, "k", &saved.version, &target, &scratch, &instance, Affinity::Unpinned);
        assert_eq!(restored.transfer.status, Status::Ok, "{:?}", restored.transfer.message);
        assert_eq!(restored.routing_seen.as_deref(), Some(label.as_str()));
    }

    #[test]
    fn trial_two_reverses() {
        assert_eq!(order(&[1, 2, 3], 1), vec![1, 2, 3]);
        assert_eq!(order(&[1, 2, 3], 2), vec![3, 2, 1]);
        assert_eq!(order(&[1, 2, 3], 3), vec![1, 2, 3]);
    }
}
