//! The hand-off file: what `collector cache save` tells the restore job.
//!
//! It holds the run's identity (profile fingerprint, provider, runner), the
//! trial, the payload's manifest, the backends in this trial's order, each
//! pair's key, version and save record, the save job's OS instance and when
//! the save job finished. No secret is in it: tokens and service URLs are
//! read from the restore job's environment again. Workflows pass it from
//! the save job to the restore job as an artifact.

use std::path::Path;

use anyhow::Context;
use runner_bench_format::measured::{CacheMethod, CacheTransfer, Instance};
use runner_bench_format::{Fingerprint, Provider, Runner, Timestamp};
use serde::{Deserialize, Serialize};

use super::BackendSpec;
use super::action::ActionSpec;
use super::payload::Manifest;

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
