//! What the collector's end-to-end tests share: the collector as a command
//! that inherits none of a real job's settings, and a result file read back.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use runner_bench_format::{AnyResult, MeasuredResult, read_file};

/// Variables of a real Actions job, or of a developer's shell, that would
/// change what the collector does: tests must not inherit them.
const INHERITED: &[&str] = &[
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_OUTPUT",
    "ImageOS",
    "ACTIONS_RESULTS_URL",
    "ACTIONS_RUNTIME_TOKEN",
    "RUNNER_BENCH_PROVIDER",
    "RUNNER_BENCH_RUNNER",
    "RUNNER_BENCH_JOBS",
    "RUNNER_BENCH_DISK_DIR",
    "RUNNER_BENCH_INTERNET_URL",
    "RUNNER_BENCH_INTERNET_NAME",
    "RUNNER_BENCH_INTERNET_CA_CERT",
    "RUNNER_BENCH_HTTP_CACHE_URL",
    "RUNNER_BENCH_HTTP_CACHE_PROTOCOL",
];

/// The collector, without the variables a test must not inherit.
pub(crate) fn collector() -> Command {
    let mut cmd = Command::new(cargo_bin("collector"));
    for var in INHERITED {
        cmd.env_remove(var);
    }
    cmd
}

/// `collector run` of the quick profile's `stages`, for a local runner,
/// writing `out`.
#[allow(dead_code, reason = "cli.rs and cache.rs run the collector otherwise")]
pub(crate) fn quick_run(out: &Path, stages: &str) -> Command {
    let mut cmd = collector();
    cmd.args(["run", "--profile", "quick", "--stages", stages, "--provider", "local", "--runner", "dev-linux-x64"])
        .arg("--out")
        .arg(out);
    cmd
}

/// The measured result at `path`.
pub(crate) fn measured(path: &Path) -> MeasuredResult {
    match read_file(path).unwrap() {
        AnyResult::Measured(r) => *r,
        AnyResult::Imported(_) => panic!("the collector wrote an imported result"),
    }
}

/// The measured result at `path`, which must pass the format's checks.
#[allow(dead_code, reason = "cache.rs checks every file it reads; the others check what they test")]
pub(crate) fn valid_measured(path: &Path) -> MeasuredResult {
    let r = measured(path);
    assert_eq!(r.problems(), vec![], "{} must be a valid result", path.display());
    r
}
