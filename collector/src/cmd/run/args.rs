//! `collector run`'s arguments as the user typed them (checked in `config`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::cmd::args::{IdentityArgs, ProfileArg};

/// A measurement stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    /// CoreMark, one thread pinned to one logical CPU.
    Cpu,
    /// CoreMark on every logical CPU at once, one context each: about 2.5
    /// minutes more in a standard run (5 samples of 30 s).
    CpuAllcore,
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
    /// cpu-allcore, disk, internet; http-cache runs only when named, with
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
    pub http_cache: super::http_cache_args::HttpCacheArgs,

    /// Logical CPU to pin the measuring thread to (Linux; on Windows a CPU
    /// of processor group 0; macOS cannot pin) [default: the lowest-numbered
    /// CPU this process may use].
    #[arg(long)]
    pub cpu: Option<u32>,
}
