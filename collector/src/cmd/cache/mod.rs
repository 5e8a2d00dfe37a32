//! `collector cache`: the cache stage's jobs (stage/cache has the
//! measuring; docs/cache.md the workflow).
//!
//! Files: client.rs (the client method's `save`, `restore` and `wait`),
//! prepare.rs and record.rs (the action method's steps around a cache
//! action), slot.rs (what those two share), handoff.rs (the file a save job
//! hands its restore job).

mod client;
mod handoff;
mod prepare;
mod record;
mod slot;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Client method, save job of a trial: save the payload to every backend
    /// and write the hand-off file and a partial result.
    Save(client::SaveArgs),
    /// Client method, restore job of a trial, on another runner: wait the
    /// publication gap,
    /// restore every backend of the hand-off file, verify, and write a
    /// partial result.
    Restore(client::RestoreArgs),
    /// Action method, before the cache action's step: write the payload
    /// (save) or check the slot's pair (restore), pin the runner's worker to
    /// one CPU, put the zstd shim that forces one compression thread on
    /// PATH, print the step
    /// outputs `action`, `key` and `path`, and start the clock.
    Prepare(prepare::PrepareArgs),
    /// Action method, after the cache action's step: stop the clock, read
    /// the action's outputs and what the shim saw, verify a restore, and
    /// add the pair to the partial result (and, on save, the hand-off file).
    Record(record::RecordArgs),
    /// Wait what is left of the publication gap after a save, without
    /// measuring anything: the workflow's `gap` job runs it so that the
    /// restore job's runner is allocated only after the gap.
    Wait(client::WaitArgs),
}

pub fn run(args: CacheArgs) -> anyhow::Result<()> {
    match args.command {
        CacheCommand::Save(a) => client::save(a),
        CacheCommand::Restore(a) => client::restore(a),
        CacheCommand::Wait(a) => client::wait(a),
        CacheCommand::Prepare(a) => prepare::prepare(a),
        CacheCommand::Record(a) => record::record(a),
    }
}
