//! Problems with what the user asked for. Each message names the flag and
//! says how to fix it; everything else is an `anyhow` error with context.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(
        "no provider given: pass --provider ID (or set RUNNER_BENCH_PROVIDER), \
         e.g. --provider ubicloud"
    )]
    MissingProvider,
    #[error(
        "no runner given: pass --runner LABEL (or set RUNNER_BENCH_RUNNER), \
         e.g. --runner ubicloud-linux-x64"
    )]
    MissingRunner,
    #[error("--{flag}: {reason}")]
    InvalidValue { flag: &'static str, reason: String },
    #[error("--stages: `{stage}` is given twice; list each stage once")]
    DuplicateStage { stage: &'static str },
    #[error(
        "--stages: the `cache` stage does not run in `collector run`: it saves in one job and restores in \
         another, with `collector cache` (see `collector cache --help` and docs/cache.md); `run` has {in_run}"
    )]
    CacheStageNotInRun { in_run: String },
    #[error("--cpu {cpu}: this process may only run on CPUs {allowed}; pick one of those")]
    CpuNotAllowed { cpu: u32, allowed: String },
    #[error("--cpu {cpu}: this OS cannot pin a thread to a CPU (macOS has no hard affinity); leave --cpu out")]
    CpuUnsupported { cpu: u32 },
    #[error("--out {}: {reason}", path.display())]
    BadOutput { path: PathBuf, reason: String },
}
