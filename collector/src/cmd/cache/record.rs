//! `collector cache record`: the collector's step after a cache action's
//! (slot.rs has the sequence of a slot).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use runner_bench_format::measured::{
    CacheBackend, CacheKind, CacheMethod, CachePair, CacheStage, CacheTransfer, CacheVerification, DigestCheck,
    KeyMatch, Routing, Status,
};
use runner_bench_format::{AnyResult, Message, Name, NonNeg, Notice, Profile, Sha256Hex, Timestamp};

use super::slot::{Half, SaveContext, state_dir, workspace};
use crate::cmd::cache::handoff::{HANDOFF_VERSION, Handoff, SavedPair, read_handoff};
use crate::platform::machine;
use crate::result::output::ResultWriter;
use crate::result::provenance::process_env;
use crate::stage::cache::action::{self, ActionSpec, State};
use crate::stage::cache::{self, BackendSpec, payload};

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

fn notice(stage: &str, message: &str) -> Notice {
    Notice { stage: Name::lossy(stage), message: Message::lossy(message) }
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
        let mut r = crate::result::new::new_result(provider.clone(), runner.clone(), &profile.parameters())?;
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
