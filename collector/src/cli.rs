//! The command line: the commands `collector` has, each with the arguments
//! its module in `cmd` defines.

use clap::{Parser, Subcommand};

use crate::cmd;

/// Measures a CI runner and writes one runner-bench result file.
///
/// Run `collector run --profile quick --provider ID --runner LABEL` to try it;
/// the `standard` profile is the published protocol. Results are submitted
/// by pull request: see CONTRIBUTING.md.
#[derive(Debug, Parser)]
#[command(name = "collector", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant, reason = "parsed once per process; boxing buys nothing")]
pub enum Command {
    /// Run the chosen stages in order and write one result file.
    Run(cmd::run::args::RunArgs),
    /// Merge partial result files written by separate jobs of one run; in
    /// benchmark.yml's signing job, held to GitHub's record of the run's jobs.
    Assemble(cmd::assemble::AssembleArgs),
    /// The cache stage's jobs: the client method's `cache save`, then `cache
    /// restore` on another runner; the action method's `cache prepare` and
    /// `cache record` around a cache action's step; `cache wait` for the gap
    /// (see docs/cache.md).
    Cache(cmd::cache::CacheArgs),
    /// Print a profile's parameters (canonical form) and fingerprint.
    Profile(cmd::profile::ProfileArgs),
    /// Write the one-thread CoreMark program that `run` embeds and runs (or,
    /// with --all-core, the all-core stage's), to hash it against a result's
    /// build.coremark.executable_sha256 (allcore_executable_sha256) or run it
    /// by hand.
    Workload(cmd::workload::WorkloadArgs),
}
