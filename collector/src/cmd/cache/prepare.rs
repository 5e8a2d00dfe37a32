//! `collector cache prepare`: the collector's step before a cache action's
//! (slot.rs has the sequence of a slot).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use runner_bench_format::measured::{CacheMethod, Status};
use runner_bench_format::{Affinity, Timestamp};

use super::slot::{Half, SaveContext, state_dir, workspace};
use crate::cmd::args::{IdentityArgs, ProfileArg};
use crate::cmd::cache::handoff::{check_other_instance, read_handoff, restore_instance, since, wait_gap};
use crate::error::UsageError;
use crate::platform::affinity;
use crate::result::provenance::process_env;
use crate::result::summary::append_to_github_file;
use crate::stage::cache::action::{self, ActionSpec, State};
use crate::stage::cache::worker::{self, Pinned};
use crate::stage::cache::{self, payload};

/// Slots per job in benchmark.yml: the most actions one trial times.
const SLOTS: usize = 2;

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
    let instance = restore_instance(args.simulate_instance.as_deref())?;
    let mut extra = Vec::new();
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
