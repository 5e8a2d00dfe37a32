//! What `collector cache prepare` and `collector cache record`, the
//! collector's steps around a real cache action (the action method;
//! stage/cache/action.rs has the parts, docs/cache.md the workflow), share:
//! the half of a trial a job runs, and the files they hand each other.
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

use std::path::PathBuf;

use anyhow::Context;
use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::stage::cache::payload;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Half {
    Save,
    Restore,
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Half::Save => "save",
            Half::Restore => "restore",
        }
    }
}

/// What a save's prepare keeps for its record beyond `State`.
#[derive(Debug, Serialize, Deserialize)]
pub struct SaveContext {
    pub profile: String,
    pub provider: runner_bench_format::Provider,
    pub runner: runner_bench_format::Runner,
    pub manifest: payload::Manifest,
}

pub fn state_dir(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    Ok(crate::cmd::args::folder_or_temp("state-dir", dir)?)
}

pub fn workspace(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match dir {
        Some(d) => Ok(d),
        None => std::env::current_dir().context("cannot read the current folder"),
    }
}
