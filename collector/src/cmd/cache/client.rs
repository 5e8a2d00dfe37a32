//! `collector cache save` and `collector cache restore`: the two jobs of one
//! cache trial (stage/cache has the details; docs/cache.md the workflow).
//!
//! Each writes a partial result (a measured result whose only stage is
//! `cache`) for `collector assemble`: the save's part has the pairs with
//! their saves, the restore's part the same pairs complete; assemble keeps
//! the complete one. The save also writes the hand-off file the restore
//! job reads; `collector cache wait` waits the publication gap it names.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use runner_bench_format::measured::{
    CacheKind, CacheMethod, CachePair, CacheStage, CacheVerification, DigestCheck, Routing, Status,
};
use runner_bench_format::{Affinity, Message, Name, NonNeg, Notice, Parameters, Sha256Hex, Timestamp};

use crate::cmd::args::{IdentityArgs, ProfileArg};
use crate::cmd::cache::handoff::{
    HANDOFF_VERSION, Handoff, SavedPair, check_other_instance, read_handoff, restore_instance, since, wait_gap,
};
use crate::error::UsageError;
use crate::platform::cleanup::TempFolder;
use crate::platform::{affinity, machine};
use crate::result::output::ResultWriter;
use crate::result::provenance::process_env;
use crate::stage::cache::{self, BackendSpec, Resolved, payload};

/// The stage name in notices.
const STAGE: &str = "cache";

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// Hand-off file the save job wrote.
    #[arg(long, default_value = "cache-handoff.json")]
    pub handoff: PathBuf,
}

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// Measurement profile.
    #[arg(long, value_enum, default_value = "standard")]
    pub profile: ProfileArg,

    /// Trial number, from 1 to the profile's cache_trials; trial 2 runs the
    /// backends in reverse order.
    #[arg(long)]
    pub trial: u32,

    /// A backend, in order, as `id=ID;name=NAME;kind=KIND;endpoint=...`
    /// with optional `token=env:VAR` and `routing=HOST-PATTERN`. KIND is
    /// archive-service (endpoint: a URL or env:VAR, default
    /// env:ACTIONS_RESULTS_URL; routing default *.blob.core.windows.net) or
    /// attached-volume (endpoint: the folder). Repeat for more backends.
    #[arg(long = "backend", required = true)]
    pub backends: Vec<String>,

    /// Hand-off file for the restore job.
    #[arg(long, default_value = "cache-handoff.json")]
    pub handoff: PathBuf,

    /// Partial result file to write.
    #[arg(long, default_value = "cache-save.json")]
    pub out: PathBuf,

    /// Folder for the payload and archives [default: RUNNER_TEMP in GitHub
    /// Actions, else the system's temporary folder].
    #[arg(long, env = "RUNNER_BENCH_CACHE_DIR")]
    pub work_dir: Option<PathBuf>,

    #[command(flatten)]
    pub identity: IdentityArgs,

    /// Logical CPU to pin to (Linux; on Windows a CPU of processor group 0;
    /// macOS cannot pin) [default: the lowest allowed].
    #[arg(long)]
    pub cpu: Option<u32>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// Hand-off file the save job wrote.
    #[arg(long, default_value = "cache-handoff.json")]
    pub handoff: PathBuf,

    /// Partial result file to write.
    #[arg(long, default_value = "cache-restore.json")]
    pub out: PathBuf,

    /// Folder for the restore targets and archives [default: RUNNER_TEMP in
    /// GitHub Actions, else the system's temporary folder].
    #[arg(long, env = "RUNNER_BENCH_CACHE_DIR")]
    pub work_dir: Option<PathBuf>,

    /// Logical CPU to pin to (Linux; on Windows a CPU of processor group 0;
    /// macOS cannot pin) [default: the lowest allowed].
    #[arg(long)]
    pub cpu: Option<u32>,

    /// TEST ONLY: pretend this process runs on another OS instance, with
    /// boot id `simulated:VALUE`. Refused inside GitHub Actions; recorded in
    /// the transfers' instance and in a notice.
    #[arg(long, hide = true)]
    pub simulate_instance: Option<String>,
}

/// Creates the stage's work folder, removed when the returned guard is
/// dropped, and installs the Ctrl-C / SIGTERM handler that removes it (and
/// the archives in it) when the job is interrupted. The result file needs no
/// care: it is rewritten atomically after every pair.
fn work_root(dir: Option<PathBuf>) -> anyhow::Result<TempFolder> {
    let base = crate::cmd::args::folder_or_temp("work-dir", dir)?;
    let root = base.join(format!("runner-bench-cache-{}-{:08x}", std::process::id(), cache::random_u64() as u32));
    // No `collector run` is in progress: nothing to record but the removal.
    crate::platform::cleanup::install_handler(|| None);
    TempFolder::create(root.clone()).with_context(|| format!("cannot create {}", root.display()))
}

/// Pins this thread (and the threads it starts) to one CPU where the OS
/// allows it, as the protocol pins the action processes. On Windows that
/// narrows the process's affinity mask, as new threads there do not inherit
/// their creator's.
fn pin(cpu: Option<u32>, notices: &mut Vec<Notice>) -> anyhow::Result<(Option<affinity::PinGuard>, Affinity)> {
    let guard = match affinity::choose_cpu(cpu)? {
        Some(cpu) => Some(affinity::pin_process(cpu)?),
        None => {
            notices.push(notice(STAGE, "this OS has no hard CPU affinity in this collector: the stage ran unpinned"));
            None
        }
    };
    Ok((guard, affinity::observed()))
}

fn notice(stage: &str, message: &str) -> Notice {
    Notice { stage: Name::lossy(stage), message: Message::lossy(message) }
}

fn describe(what: &str, t: &runner_bench_format::measured::CacheTransfer, payload_bytes: u64) -> String {
    match (t.status, t.seconds, &t.message) {
        (Status::Ok, Some(s), _) => {
            format!("{what} {:.2} s, {:.2} MiB/s", s.get(), payload_bytes as f64 / f64::from(1 << 20) / s.get())
        }
        (status, _, m) => {
            format!("{what} {}: {}", format!("{status:?}").to_lowercase(), m.as_ref().map(|m| m.as_str()).unwrap_or(""))
        }
    }
}

fn timeout(params: &Parameters) -> Duration {
    // A transfer of the whole payload may take far longer than one sample.
    Duration::from_secs(u64::from(params.sample_timeout_s) * 10)
}

pub fn save(args: SaveArgs) -> anyhow::Result<()> {
    let profile = args.profile.profile();
    let params = profile.parameters();
    let (provider, runner) = args.identity.resolve()?;
    if args.trial == 0 || args.trial > params.cache_trials {
        return Err(UsageError::InvalidValue {
            flag: "trial",
            reason: format!("{} is outside 1 to {} (the profile's cache_trials)", args.trial, params.cache_trials),
        }
        .into());
    }
    let mut specs: Vec<BackendSpec> = Vec::new();
    for text in &args.backends {
        let spec = BackendSpec::parse(text).map_err(|reason| UsageError::InvalidValue { flag: "backend", reason })?;
        if specs.iter().any(|s| s.id == spec.id) {
            return Err(
                UsageError::InvalidValue { flag: "backend", reason: format!("id {} is given twice", spec.id) }.into()
            );
        }
        specs.push(spec);
    }
    let writer = ResultWriter::create(&args.out)?;
    let handoff_writer = ResultWriter::create(&args.handoff).map_err(|e| anyhow::anyhow!("--handoff: {e}"))?;
    handoff_writer.distinct_from(&writer, "handoff")?;
    let ordered = cache::order(&specs, args.trial);
    let mut notices = Vec::new();
    let (_pin, affinity) = pin(args.cpu, &mut notices)?;
    // After pinning: the HTTP clients' threads inherit the affinity.
    let resolved: Vec<Resolved> =
        ordered.iter().map(|s| cache::resolve(s, &process_env, timeout(&params))).collect::<anyhow::Result<_>>()?;
    let instance = machine::instance();

    let work = work_root(args.work_dir.clone())?;
    let workspace = work.path().join("workspace");
    let scratch = work.path().join("scratch");
    std::fs::create_dir_all(&workspace)?;
    std::fs::create_dir_all(&scratch)?;
    say!(
        "runner-bench collector {}: cache save, trial {}, profile {} (fingerprint {}); {} MiB in {} files",
        env!("CARGO_PKG_VERSION"),
        args.trial,
        profile.name(),
        params.fingerprint(),
        params.cache_payload_mib,
        params.cache_payload_files
    );
    let manifest =
        payload::generate(&workspace.join(payload::DIR_NAME), params.cache_payload_mib, params.cache_payload_files)
            .context("cannot write the cache payload")?;

    let mut result = crate::result::new::new_result(provider.clone(), runner.clone(), &params)?;
    result.notices = notices;
    result.stages.cache = Some(CacheStage {
        payload_bytes: manifest.bytes,
        payload_sha256: Sha256Hex::new(manifest.sha256.clone()).map_err(anyhow::Error::msg)?,
        backends: ordered.iter().zip(&resolved).map(|(s, r)| s.record(&r.endpoint())).collect(),
        pairs: Vec::new(),
    });
    writer.write_result(&mut result)?;

    let mut saved = Vec::new();
    for (spec, backend) in ordered.iter().zip(&resolved) {
        let key = cache::new_key(runner.label.as_str(), spec.id.as_str(), args.trial);
        let level = i32::try_from(params.cache_zstd_level).unwrap_or(3);
        let s = cache::save(backend, &key, &workspace, &scratch, level, &instance, affinity);
        say!("  {}: {}", spec.id, describe("save", &s.transfer, manifest.bytes));
        if spec.kind == CacheKind::ArchiveService && s.transfer.status == Status::Ok {
            result.notices.push(cache::retention_notice(spec.id.as_str(), args.trial));
        }
        if let Some(stage) = result.stages.cache.as_mut() {
            stage.pairs.push(CachePair {
                trial: args.trial,
                backend: spec.id.clone(),
                method: CacheMethod::Client,
                key: Name::lossy(&key),
                save: s.transfer.clone(),
                restore: None,
                publication_gap_s: None,
                verification: None,
            });
        }
        writer.write_result(&mut result)?;
        saved.push(SavedPair {
            backend: spec.id.to_string(),
            key,
            version: s.version,
            save: s.transfer,
            routing_seen: s.routing_seen,
        });
    }
    let handoff = Handoff {
        handoff_version: HANDOFF_VERSION,
        collector_version: env!("CARGO_PKG_VERSION").to_string(),
        profile: profile.name().to_string(),
        fingerprint: params.fingerprint(),
        provider,
        runner,
        trial: args.trial,
        payload: manifest,
        backends: ordered,
        pairs: saved,
        save_instance: instance,
        saved_at: Timestamp::now(),
        method: CacheMethod::Client,
        actions: Vec::new(),
    };
    let mut text = serde_json::to_vec_pretty(&handoff)?;
    text.push(b'\n');
    handoff_writer.write(&text)?;
    say!("wrote {} and {}", writer.path().display(), handoff_writer.path().display());
    Ok(())
}

pub fn wait(args: WaitArgs) -> anyhow::Result<()> {
    let (h, params) = read_handoff(&args.handoff)?;
    wait_gap(&h, &params);
    Ok(())
}

pub fn restore(args: RestoreArgs) -> anyhow::Result<()> {
    let (h, params) = read_handoff(&args.handoff)?;
    if h.method != CacheMethod::Client {
        bail!(
            "{} was written by `collector cache record`; restore it with `collector cache prepare restore`, the \
             action's restore step and `collector cache record restore`",
            args.handoff.display()
        );
    }
    let writer = ResultWriter::create(&args.out)?;
    let mut notices = Vec::new();
    let instance = restore_instance(args.simulate_instance.as_deref())?;
    if args.simulate_instance.is_some() {
        notices.push(notice(
            STAGE,
            "TEST ONLY: this restore's OS instance was simulated with --simulate-instance; its pairs do not show a \
             restore on another OS instance and are no measurement",
        ));
    }
    check_other_instance(&instance, &h.save_instance, &mut notices)?;
    let (_pin, affinity) = pin(args.cpu, &mut notices)?;
    let resolved: Vec<Resolved> =
        h.backends.iter().map(|s| cache::resolve(s, &process_env, timeout(&params))).collect::<anyhow::Result<_>>()?;
    let work = work_root(args.work_dir.clone())?;
    let scratch = work.path().join("scratch");
    std::fs::create_dir_all(&scratch)?;

    wait_gap(&h, &params);
    say!(
        "runner-bench collector {}: cache restore, trial {}, profile {} (fingerprint {})",
        env!("CARGO_PKG_VERSION"),
        h.trial,
        h.profile,
        h.fingerprint
    );

    let mut result = crate::result::new::new_result(h.provider.clone(), h.runner.clone(), &params)?;
    result.notices = notices;
    result.stages.cache = Some(CacheStage {
        payload_bytes: h.payload.bytes,
        payload_sha256: Sha256Hex::new(h.payload.sha256.clone()).map_err(anyhow::Error::msg)?,
        backends: h.backends.iter().zip(&resolved).map(|(s, r)| s.record(&r.endpoint())).collect(),
        pairs: Vec::new(),
    });
    writer.write_result(&mut result)?;
    let signals = cache::provider_signals(&process_env);

    for pair in &h.pairs {
        let Some((spec, backend)) = h.backends.iter().zip(&resolved).find(|(s, _)| s.id.as_str() == pair.backend)
        else {
            bail!("{}: pair of unknown backend {}", args.handoff.display(), pair.backend);
        };
        let gap_s = since(&h.saved_at).as_secs_f64();
        let target = work.path().join(format!("restore-{}", spec.id));
        std::fs::create_dir_all(&target)?;
        if std::fs::read_dir(&target)?.next().is_some() {
            bail!("the restore target {} is not empty", target.display());
        }
        let (restore, verification, problem) = if pair.save.status != Status::Ok {
            (None, None, None)
        } else {
            let r = cache::restore(backend, &pair.key, &pair.version, &target, &scratch, &instance, affinity);
            let (sha256, problem) = digest_of(&r, &target, &h.payload);
            let routing = routing_of(spec, pair, &r, &signals);
            if let Resolved::Volume { root, .. } = backend {
                let _ = std::fs::remove_dir_all(cache::volume::entry_dir(root, &pair.key));
            }
            let v = CacheVerification { key_match: r.key_match, sha256, routing };
            let mut line = describe("restore", &r.transfer, h.payload.bytes);
            if let Some(p) = &problem {
                line.push_str(&format!("; verification failed: {p}"));
            } else if r.transfer.status == Status::Ok && !v.routing.matches {
                line.push_str(&format!("; routing {} is not {}", v.routing.observed, v.routing.expected));
            }
            say!("  {}: {line}", spec.id);
            (Some(r.transfer), Some(v), problem)
        };
        let _ = std::fs::remove_dir_all(&target);
        if let Some(p) = problem {
            result.notices.push(notice(&format!("{} / trial {} / restore", spec.id, h.trial), &p));
        }
        if let Some(stage) = result.stages.cache.as_mut() {
            stage.pairs.push(CachePair {
                trial: h.trial,
                backend: spec.id.clone(),
                method: CacheMethod::Client,
                key: Name::lossy(&pair.key),
                save: pair.save.clone(),
                publication_gap_s: restore.as_ref().and_then(|_| NonNeg::new(gap_s).ok()),
                restore,
                verification,
            });
        }
        writer.write_result(&mut result)?;
    }
    say!("wrote {}", writer.path().display());
    Ok(())
}

/// The restored payload against the saved one. A restored file that cannot
/// be read is this pair's failure; the pairs after it are still restored
/// and recorded.
fn digest_of(r: &cache::Restored, target: &Path, saved: &payload::Manifest) -> (DigestCheck, Option<String>) {
    if r.transfer.status != Status::Ok {
        return (DigestCheck::NotChecked, None);
    }
    match payload::verify(&target.join(payload::DIR_NAME), saved) {
        Ok(None) => (DigestCheck::Match, None),
        Ok(Some(why)) => (DigestCheck::Mismatch, Some(why)),
        Err(e) => (DigestCheck::Mismatch, Some(format!("cannot read the restored payload: {e}"))),
    }
}

/// Where the restore was served from against where the save went: the
/// archive service's routing with the provider's signals, a volume's as
/// each side saw it.
fn routing_of(spec: &BackendSpec, pair: &SavedPair, r: &cache::Restored, signals: &str) -> Routing {
    match spec.kind {
        CacheKind::ArchiveService => {
            Routing::service(&spec.routing, pair.routing_seen.as_deref(), r.routing_seen.as_deref(), signals)
        }
        CacheKind::AttachedVolume => {
            let expected = pair.routing_seen.clone().unwrap_or_else(|| "unknown".into());
            let observed = r.routing_seen.clone().unwrap_or_else(|| "unknown".into());
            Routing {
                matches: expected == observed,
                expected: Name::lossy(&expected),
                observed: Name::lossy(&observed),
            }
        }
    }
}
