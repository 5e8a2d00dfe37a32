//! `RunArgs` → `RunConfig`: everything checked before anything is measured.

use std::path::PathBuf;

use runner_bench_format::{Parameters, Profile, Provider, Runner};

use super::args::{RunArgs, StageArg};
use super::http_cache_args::HttpCacheArgs;
use crate::cmd::args::folder_or_temp;
use crate::error::UsageError;
use crate::stage::{StageKind, http_cache, internet};

/// A validated `collector run` invocation.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub profile: Profile,
    pub parameters: Parameters,
    pub stages: Vec<StageKind>,
    pub out: PathBuf,
    pub provider: Provider,
    pub runner: Runner,
    /// Folder of the disk stage's test file.
    pub disk_dir: PathBuf,
    /// The internet stage's backend and extra CA.
    pub internet: internet::Target,
    /// The http-cache stage's server and declared conditions, when a URL
    /// was given.
    pub http_cache: Option<http_cache::HttpCacheSettings>,
    /// The logical CPU asked for with --cpu, if any.
    pub cpu: Option<u32>,
}

impl RunConfig {
    pub fn from_args(args: RunArgs) -> Result<Self, UsageError> {
        let (provider, runner) = args.identity.resolve()?;
        let stages = stages(&args.stages)?;
        let profile = args.profile.profile();
        let internet = internet_target(args.internet_url, args.internet_name, args.internet_ca_cert)?;
        let disk_dir = folder_or_temp("disk-dir", args.disk_dir)?;
        let http_cache = args.http_cache.resolve(stages.contains(&StageKind::HttpCache))?;
        let parameters = http_cache_grid(profile.parameters(), &args.http_cache)?;
        if stages.contains(&StageKind::HttpCache) {
            sockets_fit(&parameters.http_cache_connections, open_files_limit())?;
        }
        Ok(RunConfig {
            profile,
            parameters,
            stages,
            disk_dir,
            out: args.out,
            provider,
            runner,
            internet,
            http_cache,
            cpu: args.cpu,
        })
    }
}

/// The most bytes of entries a cell of the http-cache grid may hold: 4 GiB.
const MAX_CELL_BYTES: u64 = 4 << 30;

/// Files a run keeps open beside a cell's connections (standard streams,
/// the result and its journal, the runtime's own), with room to spare.
const OPEN_FILES_BESIDE_CONNECTIONS: u64 = 64;

/// The process's open-file limit (`ulimit -n`), where the OS has one.
fn open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes one `rlimit` into `limit`, which lives
        // for the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0 {
            return Some(limit.rlim_cur);
        }
    }
    None
}

/// Refuses a grid whose largest cell needs more sockets than the process
/// may open: each connection is one, and past the limit every connect
/// fails (EMFILE), after the cells before it have run.
fn sockets_fit(connections: &[u32], limit: Option<u64>) -> Result<(), UsageError> {
    let most = connections.iter().copied().max().unwrap_or(0);
    match limit {
        Some(limit) if u64::from(most) + OPEN_FILES_BESIDE_CONNECTIONS > limit => Err(UsageError::InvalidValue {
            flag: "http-cache-connections",
            reason: format!(
                "a cell of {most} connections needs {most} sockets and this run about \
                 {OPEN_FILES_BESIDE_CONNECTIONS} more files, but the process may open {limit} (`ulimit -n`); raise \
                 the limit or use fewer connections"
            ),
        }),
        _ => Ok(()),
    }
}

/// What an entry holds beside its value: its key, 64 hex digits (64 bytes
/// and a 24-byte `String`), the value's 32-byte `Bytes` handle, and a
/// latency (`u64`) for each of its PUT and GET: 136 bytes, rounded up for
/// the allocator. Counting values alone let a million one-byte entries
/// pass as one megabyte.
const ENTRY_OVERHEAD_BYTES: u64 = 160;

/// The profile's parameters with the http-cache grid's flags applied.
fn http_cache_grid(mut parameters: Parameters, args: &HttpCacheArgs) -> Result<Parameters, UsageError> {
    let invalid = |flag: &'static str, reason: &str| UsageError::InvalidValue { flag, reason: reason.to_string() };
    if let Some(n) = args.http_cache_entries {
        if n == 0 {
            return Err(invalid("http-cache-entries", "a cell needs at least 1 entry"));
        }
        parameters.http_cache_entries = n;
    }
    if let Some(sizes) = &args.http_cache_value_bytes {
        if sizes.contains(&0) {
            return Err(invalid("http-cache-value-bytes", "an entry needs at least 1 byte"));
        }
        parameters.http_cache_value_bytes.clone_from(sizes);
    }
    if let Some(counts) = &args.http_cache_connections {
        if counts.contains(&0) {
            return Err(invalid("http-cache-connections", "a cell needs at least 1 connection"));
        }
        parameters.http_cache_connections.clone_from(counts);
    }
    // A cell holds all its entries in memory, to check every GET.
    let largest = parameters.http_cache_value_bytes.iter().max().copied().unwrap_or(0);
    let bytes = largest.saturating_add(ENTRY_OVERHEAD_BYTES).saturating_mul(parameters.http_cache_entries.into());
    if bytes > MAX_CELL_BYTES {
        let flag = if args.http_cache_entries.is_some() { "http-cache-entries" } else { "http-cache-value-bytes" };
        let reason = format!(
            "{} entries of {largest} bytes, each with {ENTRY_OVERHEAD_BYTES} bytes of key and bookkeeping, would hold \
             {bytes} bytes in memory; a cell may hold at most {MAX_CELL_BYTES}",
            parameters.http_cache_entries
        );
        return Err(invalid(flag, &reason));
    }
    Ok(parameters)
}

fn internet_target(
    url: Option<String>,
    name: Option<String>,
    ca_cert: Option<PathBuf>,
) -> Result<internet::Target, UsageError> {
    let url = url.unwrap_or_else(|| internet::DEFAULT_URL.to_string());
    internet::Target::new(&url, name.as_deref(), ca_cert.as_deref()).map_err(|(field, reason)| {
        let flag = match field {
            internet::TargetField::Url => "internet-url",
            internet::TargetField::Name => "internet-name",
            internet::TargetField::CaCert => "internet-ca-cert",
        };
        UsageError::InvalidValue { flag, reason }
    })
}

fn stages(requested: &[StageArg]) -> Result<Vec<StageKind>, UsageError> {
    if requested.is_empty() {
        return Ok(StageKind::DEFAULT.to_vec());
    }
    let mut out: Vec<StageKind> = Vec::new();
    for arg in requested {
        let kind = stage_kind(*arg);
        if out.contains(&kind) {
            return Err(UsageError::DuplicateStage { stage: kind.name() });
        }
        if kind == StageKind::Cache {
            let in_run: Vec<&str> = StageKind::IN_RUN.iter().map(|k| k.name()).collect();
            return Err(UsageError::CacheStageNotInRun { in_run: in_run.join(", ") });
        }
        out.push(kind);
    }
    Ok(out)
}

fn stage_kind(arg: StageArg) -> StageKind {
    match arg {
        StageArg::Cpu => StageKind::Cpu,
        StageArg::CpuAllcore => StageKind::CpuAllCore,
        StageArg::Disk => StageKind::Disk,
        StageArg::Cache => StageKind::Cache,
        StageArg::Internet => StageKind::Internet,
        StageArg::HttpCache => StageKind::HttpCache,
    }
}
