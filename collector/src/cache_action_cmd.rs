//! `collector cache prepare` and `collector cache record`: the collector's
//! steps around a real cache action (the action method; stage/cache/action.rs
//! has the parts, docs/cache.md the workflow).
//!
//! A save job runs, per slot: `prepare save` (payload, pinning, shim,
//! outputs `action`, `key`, `path`; the start time last), the action's save
//! step, `record save` (the time first; then the save half of the pair into
//! the partial result and the hand-off file). A restore job runs `prepare
//! restore` (the pair of the slot from the hand-off file; the OS instance
//! check; the start time last), the action's restore step, and `record
//! restore` (the time first; then the action's outputs, every file's
//! SHA-256 and the routing into the partial result). Several slots append
//! to the same files.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use runner_bench_format::measured::{
    CacheBackend, CacheKind, CacheMethod, CachePair, CacheStage, CacheTransfer, CacheVerification, DigestCheck,
    KeyMatch, Routing, Status,
};
use runner_bench_format::{Affinity, AnyResult, Message, Name, NonNeg, Notice, Profile, Sha256Hex, Timestamp};
use serde::{Deserialize, Serialize};

use crate::args::{IdentityArgs, ProfileArg};
use crate::cache_handoff::{check_other_instance, read_handoff, since, wait_gap};
use crate::error::UsageError;
use crate::output::ResultWriter;
use crate::provenance::process_env;
use crate::stage::cache::action::{self, ActionSpec, State};
use crate::stage::cache::handoff::{HANDOFF_VERSION, Handoff, SavedPair};
use crate::stage::cache::worker::{self, Pinned};
use crate::stage::cache::{self, BackendSpec, payload};
use crate::summary::append_to_github_file;
use crate::{affinity, machine};

/// Slots per job in benchmark.yml: the most actions one trial times.
const SLOTS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Half {
    Save,
    Restore,
}

impl Half {
    fn name(self) -> &'static str {
        match self {
            Half::Save => "save",
            Half::Restore => "restore",
        }
    }
}

#[derive(Debug, Args)]
pub struct PrepareArgs {
    /// Which half of the trial this job runs.
    #[arg(value_enum)]
    pub half: Half,

    /// Slot of this job, from 1: the slot-th action of the trial's order.
    #[arg(long)]
    pub slot: u32,

    /// save: trial number, from 1 to the profile's cache_trials; trial 2
    /// runs the actions in reverse order.
    #[arg(long, required_if_eq("half", "save"))]
    pub trial: Option<u32>,

    /// save: an action of the catalogue (`actions-cache`, `warpbuild`,
    /// `runs-on`), optionally with `;routing=PATTERNS` (the hosts the
    /// runtime service URL may have). Repeat for a second, in order; a job
    /// has two slots.
    #[arg(long = "action")]
    pub actions: Vec<String>,

    /// save: measurement profile.
    #[arg(long, value_enum, default_value = "standard")]
    pub profile: ProfileArg,

    #[command(flatten)]
    pub identity: IdentityArgs,

    /// restore: the hand-off file the save job wrote.
    #[arg(long, default_value = "cache-handoff.json")]
    pub handoff: PathBuf,

    /// Logical CPU to pin the runner's worker to [default: the lowest allowed].
    #[arg(long)]
    pub cpu: Option<u32>,

    /// The workspace the action's `path` is relative to [default:
    /// GITHUB_WORKSPACE, else the current folder].
    #[arg(long, env = "GITHUB_WORKSPACE")]
    pub workspace: Option<PathBuf>,

    /// Folder for the state file and the zstd shim [default: RUNNER_TEMP in
    /// GitHub Actions, else the system's temporary folder].
    #[arg(long, env = "RUNNER_TEMP")]
    pub state_dir: Option<PathBuf>,

    /// TEST ONLY: pretend this restore runs on another OS instance, as
    /// `cache restore --simulate-instance` does.
    #[arg(long, hide = true)]
    pub simulate_instance: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Which half of the trial this job runs.
    #[arg(value_enum)]
    pub half: Half,

    /// Slot of this job, as given to prepare.
    #[arg(long)]
    pub slot: u32,

    /// Trial number, as given to prepare (restore: the hand-off file's).
    #[arg(long)]
    pub trial: u32,

    /// The job's `steps` context as JSON (`toJSON(steps)`): the action's
    /// step is the one with id `<half>-<slot>-<action>`, e.g.
    /// `save-1-actions-cache`; its outcome and outputs are read from it.
    #[arg(long, env = "RUNNER_BENCH_STEPS", default_value = "{}")]
    pub steps: String,

    /// The action step's outcome [default: from --steps].
    #[arg(long)]
    pub outcome: Option<String>,

    /// restore: the action's `cache-hit` output [default: from --steps].
    #[arg(long)]
    pub cache_hit: Option<String>,

    /// restore: the action's `cache-matched-key` output [default: from
    /// --steps].
    #[arg(long)]
    pub matched_key: Option<String>,

    /// The cache service URL the runner gave actions (ACTIONS_RESULTS_URL,
    /// or ACTIONS_CACHE_URL), as a JavaScript step read it.
    #[arg(long, env = "RUNNER_BENCH_RUNTIME_URL", default_value = "")]
    pub runtime_url: String,

    /// The hand-off file: save writes it, restore reads it.
    #[arg(long, default_value = "cache-handoff.json")]
    pub handoff: PathBuf,

    /// Partial result file, written or extended.
    #[arg(long)]
    pub out: PathBuf,

    /// The workspace, as given to prepare.
    #[arg(long, env = "GITHUB_WORKSPACE")]
    pub workspace: Option<PathBuf>,

    /// The state folder, as given to prepare.
    #[arg(long, env = "RUNNER_TEMP")]
    pub state_dir: Option<PathBuf>,
}

/// What a save's prepare keeps for its record beyond `State`.
#[derive(Debug, Serialize, Deserialize)]
struct SaveContext {
    profile: String,
    provider: runner_bench_format::Provider,
    runner: runner_bench_format::Runner,
    manifest: payload::Manifest,
}

fn state_dir(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    Ok(crate::config::folder_or_temp("state-dir", dir)?)
}

fn workspace(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match dir {
        Some(d) => Ok(d),
        None => std::env::current_dir().context("cannot read the current folder"),
    }
}

fn notice(stage: &str, message: &str) -> Notice {
    Notice { stage: Name::lossy(stage), message: Message::lossy(message) }
}

/// Pins the runner's worker (so the action's processes inherit one CPU) and
/// puts the zstd shim first on PATH for the later steps. Returns the
/// affinity the action's processes should have, the shim log and notices.
fn pin_and_shim(cpu: Option<u32>, dir: &Path) -> anyhow::Result<(Affinity, Option<PathBuf>, Vec<String>)> {
    let mut notices = Vec::new();
    let name = worker::worker_name(&process_env);
    let affinity = match affinity::choose_cpu(cpu)? {
        Some(cpu) => match worker::pin_worker(&name, cpu)? {
            Pinned::Worker { .. } => Affinity::Pinned { cpu, group: 0 },
            Pinned::NoWorker => {
                notices.push(format!(
                    "no ancestor of this step is the runner's worker process ({name}), as in a container job: the \
                     action ran unpinned"
                ));
                Affinity::Unpinned
            }
            Pinned::Unsupported => Affinity::Unpinned,
        },
        None => {
            notices.push("this OS has no hard CPU affinity in this collector: the action ran unpinned".into());
            Affinity::Unpinned
        }
    };
    let shim_dir = dir.join("runner-bench-zstd-shim");
    let fresh = !shim_dir.exists();
    let log = match action::find_real_zstd(std::env::var_os("PATH"), &shim_dir) {
        Some(real) => {
            let shim = action::install_shim(&shim_dir, &real)?;
            if fresh {
                if std::env::var_os("GITHUB_PATH").is_none() {
                    notices.push(
                        "GITHUB_PATH is not set: the zstd shim could not be put on the action's PATH, so the \
                         compressor threads were not forced to one"
                            .into(),
                    );
                }
                append_to_github_file("GITHUB_PATH", &format!("{}\n", shim.dir.display()))?;
            }
            Some(shim.log)
        }
        None => {
            notices.push(
                "zstd is not on PATH: the action archives with gzip (its fallback), and no compressor run was \
                 observed"
                    .into(),
            );
            None
        }
    };
    Ok((affinity, log, notices))
}

fn log_len(log: &Option<PathBuf>) -> u64 {
    log.as_ref().and_then(|l| std::fs::metadata(l).ok()).map_or(0, |m| m.len())
}

fn write_outputs(action: &str, key: &str, path: &str) -> anyhow::Result<()> {
    say!("action={action} key={key} path={path}");
    append_to_github_file("GITHUB_OUTPUT", &format!("action={action}\nkey={key}\npath={path}\n"))
}

pub fn prepare(args: PrepareArgs) -> anyhow::Result<()> {
    let dir = state_dir(args.state_dir.clone())?;
    let ws = workspace(args.workspace.clone())?;
    if args.slot == 0 {
        return Err(UsageError::InvalidValue { flag: "slot", reason: "slots count from 1".into() }.into());
    }
    match args.half {
        Half::Save => prepare_save(args, &dir, &ws),
        Half::Restore => prepare_restore(args, &dir, &ws),
    }
}

fn prepare_save(args: PrepareArgs, dir: &Path, ws: &Path) -> anyhow::Result<()> {
    let profile = args.profile.profile();
    let params = profile.parameters();
    let trial = args.trial.unwrap_or(0);
    if trial == 0 || trial > params.cache_trials {
        return Err(UsageError::InvalidValue {
            flag: "trial",
            reason: format!("{trial} is outside 1 to {} (the profile's cache_trials)", params.cache_trials),
        }
        .into());
    }
    let mut specs = Vec::new();
    for text in &args.actions {
        let spec = ActionSpec::parse(text).map_err(|reason| UsageError::InvalidValue { flag: "action", reason })?;
        if specs.iter().any(|s: &ActionSpec| s.id == spec.id) {
            let reason = format!("{} is given twice", spec.id);
            return Err(UsageError::InvalidValue { flag: "action", reason }.into());
        }
        specs.push(spec);
    }
    if specs.is_empty() {
        return Err(UsageError::InvalidValue { flag: "action", reason: "give at least one".into() }.into());
    }
    if specs.len() > SLOTS {
        let reason = format!("{} actions given; a job has {SLOTS} slots (benchmark.yml)", specs.len());
        return Err(UsageError::InvalidValue { flag: "action", reason }.into());
    }
    for spec in &specs {
        if let Some(why) = action::missing_requirement(spec.entry(), &process_env) {
            bail!("{why}");
        }
    }
    let ordered = cache::order(&specs, trial);
    let Some(spec) = ordered.get(args.slot as usize - 1).cloned() else {
        // Fewer actions than slots: this slot's steps are skipped.
        return write_outputs("", "", "");
    };
    let (provider, runner) = args.identity.resolve()?;
    let target = ws.join(payload::DIR_NAME);
    // Written afresh for every slot (outside the timed span), so that no
    // slot saves what an earlier action left in the folder.
    let _ = std::fs::remove_dir_all(&target);
    let manifest = payload::generate(&target, params.cache_payload_mib, params.cache_payload_files)
        .context("cannot write the cache payload")?;
    let (affinity, shim_log, notices) = pin_and_shim(args.cpu, dir)?;
    let key = cache::new_key(runner.label.as_str(), spec.id.as_str(), trial);
    let context = SaveContext { profile: profile.name().to_string(), provider, runner, manifest };
    std::fs::write(dir.join(format!("runner-bench-action-save-{trial}-{}-context.json", args.slot)), {
        serde_json::to_vec(&context)?
    })?;
    write_outputs(spec.id.as_str(), &key, payload::DIR_NAME)?;
    finish_prepare(
        State {
            half: Half::Save.name().into(),
            trial,
            slot: args.slot,
            action: spec,
            key,
            path: payload::DIR_NAME.into(),
            affinity,
            shim_log_offset: log_len(&shim_log),
            shim_log,
            started_at: Timestamp::now(),
            clock_ns: 0,
            gap_s: None,
            notices,
        },
        dir,
    )
}

/// Writes the state with the clock read last: the timed span begins when
/// this process is about to exit.
fn finish_prepare(mut state: State, dir: &Path) -> anyhow::Result<()> {
    let path = State::file(dir, &state.half, state.trial, state.slot);
    state.started_at = Timestamp::now();
    state.clock_ns = action::shared_clock_ns();
    std::fs::write(&path, serde_json::to_vec(&state)?).with_context(|| format!("cannot write {}", path.display()))
}

fn prepare_restore(args: PrepareArgs, dir: &Path, ws: &Path) -> anyhow::Result<()> {
    let (h, params) = read_handoff(&args.handoff)?;
    if h.method != CacheMethod::Action {
        bail!(
            "{} was written by `collector cache save`; restore it with `collector cache restore`",
            args.handoff.display()
        );
    }
    let Some(pair) = h.pairs.get(args.slot as usize - 1) else {
        return write_outputs("", "", "");
    };
    if pair.save.status != Status::Ok {
        // As the client method: a pair whose save failed has no restore.
        say!("  {}: the save failed, so there is nothing to restore", pair.backend);
        return write_outputs("", "", "");
    }
    let spec = h
        .actions
        .iter()
        .find(|a| a.id.as_str() == pair.backend)
        .cloned()
        .with_context(|| format!("{}: pair of unknown action {}", args.handoff.display(), pair.backend))?;
    let mut instance = machine::instance();
    let mut extra = Vec::new();
    if let Some(sim) = &args.simulate_instance {
        if process_env("GITHUB_ACTIONS").as_deref() == Some("true") {
            bail!("--simulate-instance is for the collector's own tests and is refused in GitHub Actions");
        }
        instance.boot_id = Name::lossy(&format!("simulated:{sim}"));
    }
    check_other_instance(&instance, &h.save_instance, &mut extra)?;
    let target = ws.join(payload::DIR_NAME);
    if target.exists() {
        bail!(
            "{} exists before the restore; the action must restore into a path that is not there (a fresh runner, or \
             the record of the slot before removes it)",
            target.display()
        );
    }
    // The workflow's gap job has waited already; run alone, the restore
    // waits here what is left (never timed).
    wait_gap(&h, &params);
    let gap_s = since(&h.saved_at).as_secs_f64();
    let (affinity, shim_log, mut notices) = pin_and_shim(args.cpu, dir)?;
    notices.extend(extra.into_iter().map(|n| n.message.to_string()));
    write_outputs(spec.id.as_str(), &pair.key, payload::DIR_NAME)?;
    finish_prepare(
        State {
            half: Half::Restore.name().into(),
            trial: h.trial,
            slot: args.slot,
            action: spec,
            key: pair.key.clone(),
            path: payload::DIR_NAME.into(),
            affinity,
            shim_log_offset: log_len(&shim_log),
            shim_log,
            started_at: Timestamp::now(),
            clock_ns: 0,
            gap_s: Some(gap_s),
            notices,
        },
        dir,
    )
}

/// The span from prepare's end to now, read first thing by record.
fn elapsed_since(state: &State, now_ns: u64) -> Option<NonNeg> {
    NonNeg::new(now_ns.saturating_sub(state.clock_ns) as f64 / 1e9).ok()
}

/// The routing of an action pair: the host of the service URL the runner
/// gave actions, against the action's patterns.
fn routing(spec: &ActionSpec, runtime_url: &str) -> Routing {
    let host = cache::ghacache::origin(runtime_url).ok().map(|u| cache::ghacache::host_of(u.as_str()));
    Routing::runtime(&spec.routing, host.as_deref(), &cache::provider_signals(&process_env))
}

fn backend_record(spec: &ActionSpec, runtime_url: &str) -> CacheBackend {
    let endpoint = cache::ghacache::origin(runtime_url)
        .map(|u| u.as_str().trim_end_matches('/').to_string())
        .unwrap_or_else(|_| "unknown".into());
    CacheBackend {
        id: spec.id.clone(),
        name: Name::lossy(spec.entry().name),
        kind: CacheKind::ArchiveService,
        endpoint: Name::lossy(&endpoint),
    }
}

fn transfer(state: &State, seconds: Option<NonNeg>, outcome: &str, failure: Option<String>) -> CacheTransfer {
    let uses = match state.half.as_str() {
        "save" => state.action.entry().save_uses,
        _ => state.action.entry().restore_uses,
    };
    let log = action::log_since(state.shim_log.as_deref(), state.shim_log_offset);
    let failure = match (outcome, failure) {
        ("success", f) => f,
        (other, _) => Some(format!("the action step's outcome is {other}")),
    };
    CacheTransfer {
        status: if failure.is_some() { Status::Error } else { Status::Ok },
        message: failure.map(|f| Message::lossy(&f)),
        started_at: state.started_at.clone(),
        seconds,
        transferred_bytes: None,
        instance: machine::instance(),
        affinity: state.affinity,
        action: Some(action::step_record(uses, &log, state.affinity)),
    }
}

/// The partial result at `out` (an earlier slot's), or a new one with an
/// empty cache stage of `payload`; with prepare's notices added once.
fn load_or_new(
    out: &Path,
    provider: &runner_bench_format::Provider,
    runner: &runner_bench_format::Runner,
    profile: &str,
    payload: &payload::Manifest,
    state: &State,
) -> anyhow::Result<runner_bench_format::MeasuredResult> {
    let mut r = if out.exists() {
        let m = match runner_bench_format::read_file(out).with_context(|| format!("cannot read {}", out.display()))? {
            AnyResult::Measured(m) if m.stages.cache.is_some() => *m,
            _ => bail!("{} is not a partial cache result", out.display()),
        };
        // A file this job's earlier slot wrote, not one left by another
        // run (a reused workspace): the same runner, profile and payload,
        // and not this slot's action already.
        let cache = m.stages.cache.as_ref().expect("matched above");
        let fingerprint = Profile::from_name(profile).map(|p| p.parameters().fingerprint());
        let differs = if m.provider.id != provider.id {
            Some("provider")
        } else if m.runner.label != runner.label {
            Some("runner")
        } else if Some(&m.fingerprint) != fingerprint.as_ref() {
            Some("profile fingerprint")
        } else if cache.payload_sha256.as_str() != payload.sha256 {
            Some("payload")
        } else {
            None
        };
        if let Some(what) = differs {
            bail!("{}: its {what} is not this run's; it is left from another run: remove it", out.display());
        }
        if cache.pairs.iter().any(|p| p.trial == state.trial && p.backend.as_str() == state.action.id.as_str()) {
            bail!(
                "{}: trial {} of {} is recorded already; each slot is recorded once",
                out.display(),
                state.trial,
                state.action.id
            );
        }
        m
    } else {
        let Some(profile) = Profile::from_name(profile) else {
            bail!("unknown profile {profile:?}");
        };
        let mut r = crate::run::new_result(provider.clone(), runner.clone(), &profile.parameters())?;
        r.stages.cache = Some(CacheStage {
            payload_bytes: payload.bytes,
            payload_sha256: Sha256Hex::new(payload.sha256.clone()).map_err(anyhow::Error::msg)?,
            backends: Vec::new(),
            pairs: Vec::new(),
        });
        r
    };
    for n in &state.notices {
        if !r.notices.iter().any(|o| o.message.as_str() == n) {
            r.notices.push(notice("cache", n));
        }
    }
    Ok(r)
}

/// What the action's step reported: outcome, `cache-hit`, `cache-matched-key`.
struct StepReport {
    outcome: String,
    cache_hit: String,
    matched_key: String,
}

/// The action step's report, from the flags or the `steps` context.
fn step_report(args: &RecordArgs, state: &State) -> anyhow::Result<StepReport> {
    let steps: serde_json::Value =
        serde_json::from_str(&args.steps).context("--steps (RUNNER_BENCH_STEPS) is not the JSON of a steps context")?;
    let id = format!("{}-{}-{}", state.half, state.slot, state.action.id);
    let step = &steps[&id];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let outcome = match (&args.outcome, step["outcome"].as_str()) {
        (Some(o), _) => o.clone(),
        (None, Some(o)) => o.to_string(),
        (None, None) => bail!(
            "the steps context has no step {id} with an outcome; the action's step must have that id (see \
             .github/workflows/benchmark.yml)"
        ),
    };
    Ok(StepReport {
        outcome,
        cache_hit: args.cache_hit.clone().unwrap_or_else(|| text(&step["outputs"]["cache-hit"])),
        matched_key: args.matched_key.clone().unwrap_or_else(|| text(&step["outputs"]["cache-matched-key"])),
    })
}

pub fn record(args: RecordArgs) -> anyhow::Result<()> {
    let now_ns = action::shared_clock_ns();
    let dir = state_dir(args.state_dir.clone())?;
    let state = State::read(&State::file(&dir, args.half.name(), args.trial, args.slot))?;
    let seconds = elapsed_since(&state, now_ns);
    let ws = workspace(args.workspace.clone())?;
    let report = step_report(&args, &state)?;
    match args.half {
        Half::Save => record_save(&args, &report, &dir, state, seconds),
        Half::Restore => record_restore(&args, &report, &ws, state, seconds),
    }
}

fn record_save(
    args: &RecordArgs,
    report: &StepReport,
    dir: &Path,
    state: State,
    seconds: Option<NonNeg>,
) -> anyhow::Result<()> {
    let context_path = dir.join(format!("runner-bench-action-save-{}-{}-context.json", state.trial, state.slot));
    let ctx: SaveContext = serde_json::from_slice(
        &std::fs::read(&context_path).with_context(|| format!("cannot read {}", context_path.display()))?,
    )?;
    let writer = ResultWriter::create(&args.out)?;
    let handoff_writer = ResultWriter::create(&args.handoff).map_err(|e| anyhow::anyhow!("--handoff: {e}"))?;
    handoff_writer.distinct_from(&writer, "handoff")?;
    let t = transfer(&state, seconds, &report.outcome, None);
    let mut result = load_or_new(&args.out, &ctx.provider, &ctx.runner, &ctx.profile, &ctx.manifest, &state)?;
    let stage = result.stages.cache.as_mut().expect("load_or_new gives a cache stage");
    stage.backends.push(backend_record(&state.action, &args.runtime_url));
    stage.pairs.push(CachePair {
        trial: state.trial,
        backend: state.action.id.clone(),
        method: CacheMethod::Action,
        key: Name::lossy(&state.key),
        save: t.clone(),
        restore: None,
        publication_gap_s: None,
        verification: None,
    });
    if t.status == Status::Ok {
        result.notices.push(cache::retention_notice(state.action.id.as_str(), state.trial));
    }
    writer.write_result(&mut result)?;

    let mut handoff = if args.handoff.exists() {
        let h = Handoff::read(&args.handoff)?;
        // This trial's file from this job's earlier slot, not another run's.
        if h.provider.id != ctx.provider.id || h.runner.label != ctx.runner.label || h.trial != state.trial {
            bail!(
                "{}: it is the hand-off of {} / {} trial {}, not of this job's trial {}; it is left from another run: \
                 remove it",
                args.handoff.display(),
                h.provider.id,
                h.runner.label,
                h.trial,
                state.trial
            );
        }
        h
    } else {
        let profile = Profile::from_name(&ctx.profile).context("unknown profile")?;
        Handoff {
            handoff_version: HANDOFF_VERSION,
            collector_version: env!("CARGO_PKG_VERSION").to_string(),
            profile: ctx.profile.clone(),
            fingerprint: profile.parameters().fingerprint(),
            provider: ctx.provider.clone(),
            runner: ctx.runner.clone(),
            trial: state.trial,
            payload: ctx.manifest.clone(),
            backends: Vec::new(),
            pairs: Vec::new(),
            save_instance: machine::instance(),
            saved_at: Timestamp::now(),
            method: CacheMethod::Action,
            actions: Vec::new(),
        }
    };
    handoff.actions.push(state.action.clone());
    handoff.backends.push(BackendSpec::for_action(&state.action));
    handoff.pairs.push(SavedPair {
        backend: state.action.id.to_string(),
        key: state.key.clone(),
        version: String::new(),
        save: t.clone(),
        routing_seen: None,
    });
    handoff.saved_at = Timestamp::now();
    let mut text = serde_json::to_vec_pretty(&handoff)?;
    text.push(b'\n');
    handoff_writer.write(&text)?;
    say!(
        "  {}: save {} in {}; wrote {} and {}",
        state.action.id,
        format!("{:?}", t.status).to_lowercase(),
        seconds.map_or("?".into(), |s| format!("{:.2} s", s.get())),
        writer.path().display(),
        handoff_writer.path().display()
    );
    Ok(())
}

fn record_restore(
    args: &RecordArgs,
    report: &StepReport,
    ws: &Path,
    state: State,
    seconds: Option<NonNeg>,
) -> anyhow::Result<()> {
    let (h, _params) = read_handoff(&args.handoff)?;
    let saved = h
        .pairs
        .iter()
        .find(|p| p.key == state.key)
        .with_context(|| format!("{}: no pair has the key {}", args.handoff.display(), state.key))?;
    let writer = ResultWriter::create(&args.out)?;
    let target = ws.join(&state.path);
    let key_match = if report.matched_key == state.key || (report.matched_key.is_empty() && report.cache_hit == "true")
    {
        KeyMatch::Exact
    } else if !report.matched_key.is_empty() {
        KeyMatch::RestoreKey
    } else {
        KeyMatch::Miss
    };
    // Verified, including that the action created the folder at all; the
    // folder is removed whatever the outcome, so the next slot restores
    // into a path that is not there.
    let verified = match key_match {
        KeyMatch::Exact => payload::verify(&target, &h.payload).map(Some),
        _ => Ok(None),
    };
    let _ = std::fs::remove_dir_all(&target);
    let (sha256, problem) = match verified.with_context(|| format!("cannot read {}", target.display()))? {
        Some(None) => (DigestCheck::Match, None),
        Some(Some(why)) => (DigestCheck::Mismatch, Some(why)),
        None => (DigestCheck::NotChecked, None),
    };
    let failure = match key_match {
        KeyMatch::Exact => None,
        KeyMatch::RestoreKey => Some(format!("the action restored key {}, not the exact key", report.matched_key)),
        KeyMatch::Miss => Some(format!("the action reported a miss for key {}", state.key)),
    };
    let t = transfer(&state, seconds, &report.outcome, failure);
    let verification = CacheVerification { key_match, sha256, routing: routing(&state.action, &args.runtime_url) };

    let mut result = load_or_new(&args.out, &h.provider, &h.runner, &h.profile, &h.payload, &state)?;
    if let Some(p) = &problem {
        result.notices.push(notice(&format!("{} / trial {} / restore", state.action.id, state.trial), p));
    }
    let stage = result.stages.cache.as_mut().expect("load_or_new gives a cache stage");
    stage.backends.push(backend_record(&state.action, &args.runtime_url));
    stage.pairs.push(CachePair {
        trial: state.trial,
        backend: state.action.id.clone(),
        method: CacheMethod::Action,
        key: Name::lossy(&state.key),
        save: saved.save.clone(),
        publication_gap_s: state.gap_s.and_then(|g| NonNeg::new(g).ok()),
        restore: Some(t.clone()),
        verification: Some(verification.clone()),
    });
    writer.write_result(&mut result)?;
    say!(
        "  {}: restore {} in {}, key {:?}, files {:?}, routing {}; wrote {}",
        state.action.id,
        format!("{:?}", t.status).to_lowercase(),
        seconds.map_or("?".into(), |s| format!("{:.2} s", s.get())),
        key_match,
        sha256,
        verification.routing.observed,
        writer.path().display()
    );
    Ok(())
}
