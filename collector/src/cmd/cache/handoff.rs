//! The hand-off file: what a cache trial's save job tells its restore job,
//! written by `collector cache save` and `cache record save`, read back by
//! `cache restore`, `cache wait` and `cache prepare restore`/`record
//! restore`.
//!
//! It holds the run's identity (profile fingerprint, provider, runner), the
//! trial, the payload's manifest, the backends in this trial's order, each
//! pair's key, version and save record, the save job's OS instance and when
//! the save job finished. No secret is in it: tokens and service URLs are
//! read from the restore job's environment again. Workflows pass it from
//! the save job to the restore job as an artifact.
//!
//! The restore side is here too: reading the file back checked, refusing
//! the OS instance that saved, and waiting the publication gap.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use runner_bench_format::measured::{CacheMethod, CacheTransfer, Instance};
use runner_bench_format::{Fingerprint, Message, Name, Notice, Parameters, Profile, Provider, Runner, Timestamp};
use serde::{Deserialize, Serialize};

use crate::platform::machine;
use crate::result::provenance::process_env;
use crate::stage::cache::BackendSpec;
use crate::stage::cache::action::ActionSpec;
use crate::stage::cache::payload::Manifest;

/// Bumped when the file changes incompatibly.
pub const HANDOFF_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Handoff {
    pub handoff_version: u32,
    pub collector_version: String,
    /// `standard` or `quick`.
    pub profile: String,
    pub fingerprint: Fingerprint,
    pub provider: Provider,
    pub runner: Runner,
    pub trial: u32,
    pub payload: Manifest,
    /// In this trial's order.
    pub backends: Vec<BackendSpec>,
    pub pairs: Vec<SavedPair>,
    /// The save job's OS instance: the restore refuses to run on it.
    pub save_instance: Instance,
    /// When the save job finished its last transfer (the gap counts from here).
    pub saved_at: Timestamp,
    /// How the pairs were saved: `client` (`collector cache save`, and
    /// files without the field) or `action` (`collector cache record`).
    #[serde(default)]
    pub method: CacheMethod,
    /// The action method's actions, in this trial's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActionSpec>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedPair {
    pub backend: String,
    pub key: String,
    pub version: String,
    pub save: CacheTransfer,
    /// Host of the signed upload URL, or the volume's mount, at save time.
    pub routing_seen: Option<String>,
}

impl Handoff {
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the hand-off file {}; the save job writes it", path.display()))?;
        // The version first: a newer file's other fields are not this
        // collector's to read.
        let value: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a hand-off file of this collector", path.display()))?;
        let version = value.get("handoff_version").and_then(serde_json::Value::as_u64);
        if let Some(version) = version
            && version != u64::from(HANDOFF_VERSION)
        {
            anyhow::bail!("{} has hand-off version {version}, this collector reads {HANDOFF_VERSION}", path.display());
        }
        let h: Handoff = serde_json::from_value(value)
            .with_context(|| format!("{} is not a hand-off file of this collector", path.display()))?;
        let listed: Vec<&str> =
            h.backends.iter().map(|b| b.id.as_str()).chain(h.actions.iter().map(|a| a.id.as_str())).collect();
        for (i, pair) in h.pairs.iter().enumerate() {
            if !listed.contains(&pair.backend.as_str()) {
                anyhow::bail!(
                    "{}: pairs[{i}].backend: {:?} is none of the file's backends or actions",
                    path.display(),
                    pair.backend
                );
            }
            if h.pairs[..i].iter().any(|p| p.backend == pair.backend) {
                anyhow::bail!(
                    "{}: pairs[{i}].backend: {:?} has a pair already; a trial saves once to each",
                    path.display(),
                    pair.backend
                );
            }
            if !is_key(&pair.key) {
                anyhow::bail!(
                    "{}: pairs[{i}].key {:?} is not a key this collector makes (runner-bench-…, of letters, digits, \
                     dots, dashes and underscores): a volume's entry is the folder of that name, and the restore \
                     removes it",
                    path.display(),
                    pair.key
                );
            }
        }
        Ok(h)
    }
}

/// Whether `key` is one `cache::new_key` could make: one plain name, so
/// that a volume's entry (`root/key`) is a child of its root, which the
/// restore removes, and the key is one line of a step's outputs.
fn is_key(key: &str) -> bool {
    key.starts_with("runner-bench-")
        && key.len() <= 512
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// This restore's OS instance, or with `--simulate-instance` (the
/// collector's own tests, refused in GitHub Actions) another one, with boot
/// id `simulated:VALUE`.
pub fn restore_instance(simulate: Option<&str>) -> anyhow::Result<Instance> {
    let mut instance = machine::instance();
    if let Some(sim) = simulate {
        if process_env("GITHUB_ACTIONS").as_deref() == Some("true") {
            bail!("--simulate-instance is for the collector's own tests and is refused in GitHub Actions");
        }
        instance.boot_id = Name::lossy(&format!("simulated:{sim}"));
    }
    Ok(instance)
}

/// Refuses to restore on the OS instance that saved; where that cannot be
/// told (an unknown id equals nothing; see `Instance::same_as`), adds a
/// notice.
pub fn check_other_instance(instance: &Instance, saved: &Instance, notices: &mut Vec<Notice>) -> anyhow::Result<()> {
    match instance.same_as(saved) {
        Some(true) => bail!(
            "refusing to restore on the OS instance that saved (boot id {}, machine id {}): the restore must run in a \
             later job on another runner, or the restore would read the save's local files and caches",
            instance.boot_id,
            instance.machine_id
        ),
        Some(false) => {}
        None => notices.push(Notice {
            stage: Name::lossy("cache"),
            message: Message::lossy(
                "the save's and this restore's OS instances cannot be told apart (an id is unknown on one side and no \
             known id differs): the restore could not be checked to run on another OS instance than the save",
            ),
        }),
    }
    Ok(())
}

/// The hand-off file and the parameters of the profile it was saved with,
/// checked to be this collector's.
pub fn read_handoff(path: &Path) -> anyhow::Result<(Handoff, Parameters)> {
    let h = Handoff::read(path)?;
    let Some(profile) = Profile::from_name(&h.profile) else {
        bail!("{}: unknown profile {:?}", path.display(), h.profile);
    };
    let params = profile.parameters();
    if params.fingerprint() != h.fingerprint {
        bail!(
            "{}: saved with profile fingerprint {} but this collector's {} profile is {}; use the same collector in both jobs",
            path.display(),
            h.fingerprint,
            h.profile,
            params.fingerprint()
        );
    }
    if !(1..=params.cache_trials).contains(&h.trial) {
        bail!("{}: trial: trial {} is outside 1 to {}", path.display(), h.trial, params.cache_trials);
    }
    Ok((h, params))
}

/// Time since `t`, zero if `t` is in the future.
pub fn since(t: &Timestamp) -> Duration {
    let now = jiff::Timestamp::now();
    Duration::try_from(now.duration_since(t.instant())).unwrap_or_default()
}

/// Sleeps what is left of the profile's publication gap, counted from the
/// end of the save job's last transfer.
pub fn wait_gap(h: &Handoff, params: &Parameters) {
    let gap = Duration::from_secs(u64::from(params.cache_publication_gap_s));
    let waited = since(&h.saved_at);
    if waited < gap {
        say!("waiting {:.0} s of the {} s publication gap", (gap - waited).as_secs_f64(), gap.as_secs());
        std::thread::sleep(gap - waited);
    } else {
        say!("{:.0} s of the {} s publication gap have passed already", waited.as_secs_f64(), gap.as_secs());
    }
}
