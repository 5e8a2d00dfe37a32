//! Command-line arguments as the user typed them (validated in `config`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::args::{IdentityArgs, ProfileArg};

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
    Run(RunArgs),
    /// Merge partial result files written by separate jobs of one run.
    Assemble(AssembleArgs),
    /// The cache stage's jobs: the client method's `cache save`, then `cache
    /// restore` on another runner; the action method's `cache prepare` and
    /// `cache record` around a cache action's step; `cache wait` for the gap
    /// (see docs/cache.md).
    Cache(crate::cache_cmd::CacheArgs),
    /// Print a profile's parameters (canonical form) and fingerprint.
    Profile(ProfileArgs),
}

/// A measurement stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    /// CoreMark, one thread pinned to one logical CPU.
    Cpu,
    /// Direct I/O, queue depth one.
    Disk,
    /// Cache save and restore: not run here, since a save and its restore
    /// run in different jobs (`collector cache`). Hidden from the help; the
    /// value stays so that `--stages cache` says where the stage is.
    #[value(hide = true)]
    Cache,
    /// LibreSpeed download and upload.
    Internet,
    /// Remote build-cache server throughput.
    HttpCache,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Measurement profile.
    #[arg(long, value_enum, default_value = "standard")]
    pub profile: ProfileArg,

    /// Stages to run, comma-separated, in the order given [default: cpu,
    /// disk, internet; http-cache runs only when named, with
    /// --http-cache-url].
    #[arg(long, value_enum, value_delimiter = ',')]
    pub stages: Vec<StageArg>,

    /// Result file to write. It is written atomically after every sample, so
    /// a run killed later keeps everything already measured.
    #[arg(long, default_value = "result.json")]
    pub out: PathBuf,

    #[command(flatten)]
    pub identity: IdentityArgs,

    /// Folder for the disk stage's test file; it must be on the disk to
    /// measure, not in memory [default: RUNNER_TEMP in GitHub Actions, else
    /// the system's temporary folder].
    #[arg(long, env = "RUNNER_BENCH_DISK_DIR")]
    pub disk_dir: Option<PathBuf>,

    /// LibreSpeed backend the internet stage measures: the folder holding
    /// garbage.php and empty.php [default:
    /// https://amsspeed.sharktech.net/backend/]. Results are compared only
    /// with results from the same endpoint.
    #[arg(long, env = "RUNNER_BENCH_INTERNET_URL")]
    pub internet_url: Option<String>,

    /// Display name of that backend [default: `LibreSpeed (Sharktech,
    /// Amsterdam)` for the default URL, else the URL's host].
    #[arg(long, env = "RUNNER_BENCH_INTERNET_NAME")]
    pub internet_name: Option<String>,

    /// PEM file of a CA certificate the internet stage trusts besides the
    /// platform's roots, for a private LibreSpeed server.
    #[arg(long, env = "RUNNER_BENCH_INTERNET_CA_CERT")]
    pub internet_ca_cert: Option<PathBuf>,

    #[command(flatten)]
    pub http_cache: crate::stage::http_cache::HttpCacheArgs,

    /// Logical CPU to pin the measuring thread to (Linux; on Windows a CPU
    /// of processor group 0; macOS cannot pin) [default: the lowest-numbered
    /// CPU this process may use].
    #[arg(long)]
    pub cpu: Option<u32>,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("dest").required(true).args(["out", "results_dir"]))]
pub struct AssembleArgs {
    /// Merged result file to write.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Write the merged result under this folder at its submission path,
    /// `<provider>/<runner>/<date>-<run_id>-<attempt>.json` (a GitHub
    /// Actions run's id and attempt), and print that path to the step's
    /// `path` output when GITHUB_OUTPUT is set.
    #[arg(long)]
    pub results_dir: Option<PathBuf>,

    /// The workflow's job conclusions, as GitHub's `toJSON(needs)` prints
    /// them (`{"measure": {"result": "success", ...}, ...}`). A job that did
    /// not succeed becomes a notice, and the stages or cache trial it
    /// measures count as attempted and not completed.
    #[arg(long, env = "RUNNER_BENCH_JOBS")]
    pub jobs: Option<String>,

    /// A notice to add to the result under the stage `workflow`, e.g. where
    /// the workflow took the collector from; repeat for more.
    #[arg(long = "notice")]
    pub notices: Vec<String>,

    /// Partial result files of one run, e.g. the save job's and the restore
    /// job's. They must share fingerprint, provider and runner.
    #[arg(required = true, num_args = 1..)]
    pub parts: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The profile to print.
    #[arg(value_enum, default_value = "standard")]
    pub profile: ProfileArg,
}

/// `collector profile`: what a fingerprint stands for, for reviewers.
pub fn print_profile(args: &ProfileArgs) -> anyhow::Result<()> {
    let params = args.profile.profile().parameters();
    // A write error is returned, not a panic as `println!`'s: `main` ends
    // quietly on a closed pipe.
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", params.canonical_json())?;
    writeln!(out, "fingerprint {}", params.fingerprint())?;
    Ok(())
}
