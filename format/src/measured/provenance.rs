//! Who wrote a measured result, and when and where its run happened: the
//! collector, the GitHub Actions job and image, how each job of a split run
//! ended, and GitHub's own record of the run's jobs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::values::{Name, Sha256Hex, Slug, Timestamp};

/// The collector's identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Collector {
    /// Version, e.g. `0.1.0`.
    pub version: Name,
    /// Source revision (git commit) it was built from, or `unknown`.
    pub revision: Name,
    /// The executable that ran, so that a reader can tell a published
    /// release from a build of unknown provenance; absent in files of
    /// collectors before 0.2.0, and when the executable could not be read
    /// (a notice then says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<Binary>,
}

/// The collector's executable file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Binary {
    /// SHA-256 of the executable file that ran (`std::env::current_exe`),
    /// the digest a release's SHA256SUMS lists for it.
    pub sha256: Sha256Hex,
    /// The target triple it was built for, e.g. `x86_64-unknown-linux-gnu`.
    pub target: Name,
}

/// When and where the run happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// When the run started (UTC).
    pub started_at: Timestamp,
    /// When the result was last written (UTC).
    pub finished_at: Timestamp,
    /// Present when the run was a GitHub Actions job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github: Option<GitHubRun>,
    /// The runner's OS image, where the runner names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
    /// How each job of the run's workflow ended, where the run was split
    /// into jobs and assembled (`collector assemble --jobs`). A job that did
    /// not succeed left its stages' samples attempted and not completed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobOutcome>,
    /// The benchmark call's jobs as GitHub's REST API lists them, read by
    /// the signing job (`collector assemble --run-jobs`), not written by a
    /// runner; absent in files assembled without it (self-built and local
    /// runs, and files of collectors before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_record: Option<RunRecord>,
}

/// GitHub's record of the run that called the benchmark workflow: the
/// signing job's run, and the jobs of this benchmark call in every attempt
/// of it, from `GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs?filter=all`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// `owner/name` of the repository whose run called the benchmark
    /// workflow (the signing job's GITHUB_REPOSITORY).
    pub repository: Name,
    /// The run's id (the signing job's GITHUB_RUN_ID).
    pub run_id: u64,
    /// The signing job's attempt (GITHUB_RUN_ATTEMPT), from 1.
    pub run_attempt: u32,
    /// The call's measuring jobs (`measure`, `save-N`, `gap-N`,
    /// `restore-N`) of every attempt, in the API's order; the signing job
    /// and the jobs after it are not listed.
    pub jobs: Vec<RunJob>,
}

/// One job of the run, as GitHub's API gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunJob {
    /// The API's `name`: `<calling job's name> / <id>: <description>` for a
    /// called workflow, `<id>: <description>` for one run directly.
    pub name: Name,
    /// The job's id in benchmark.yml, read from the name: `measure`,
    /// `save-N`, `gap-N` or `restore-N`.
    pub job: Slug,
    /// The API's `run_attempt`: the attempt of the run this job ran in.
    pub attempt: u32,
    /// The API's `runner_name`; absent where no runner was assigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_name: Option<Name>,
    /// The API's `runner_group_name`; absent where no runner was assigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_group_name: Option<Name>,
    /// The API's `labels`: the job's `runs-on`.
    pub labels: Vec<Name>,
    /// The API's `created_at`, documented as "the time that the job
    /// created".
    pub created_at: Timestamp,
    /// The API's `started_at`, documented as "the time that the job
    /// started".
    pub started_at: Timestamp,
    /// The API's `completed_at`, "the time that the job finished"; absent
    /// while the job runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// The API's `conclusion`; absent while the job runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<JobConclusion>,
}

impl RunJob {
    /// The job's queue time as GitHub reported it: `started_at` −
    /// `created_at`, in seconds (never below 0). GitHub documents the two
    /// only as the time the job was created and the time it started, so
    /// this is what its record shows, not a figure the runner measured;
    /// what the wait includes (a concurrency group, the runner's start-up)
    /// GitHub does not say.
    pub fn queue_s(&self) -> f64 {
        let wait = self.started_at.instant().duration_since(self.created_at.instant());
        wait.as_secs_f64().max(0.0)
    }

    /// The cache trial of a `save-N`, `gap-N` or `restore-N` job.
    pub fn trial(&self) -> Option<u32> {
        benchmark_job_trial(self.job.as_str()).flatten()
    }
}

/// Whether `id` is the id of a measuring job of benchmark.yml: `Some(None)`
/// for `measure`, `Some(Some(n))` for `save-n`, `gap-n` and `restore-n`
/// (n from 1, written without leading zeros), `None` for anything else.
pub fn benchmark_job_trial(id: &str) -> Option<Option<u32>> {
    if id == "measure" {
        return Some(None);
    }
    let (phase, n) = id.split_once('-')?;
    if !matches!(phase, "save" | "gap" | "restore") || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().map(Some)
}

/// How a job ended, as GitHub's API writes its `conclusion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobConclusion {
    /// It ran to the end.
    Success,
    /// A step failed.
    Failure,
    /// Neither success nor failure.
    Neutral,
    /// It was cancelled.
    Cancelled,
    /// It never ran.
    Skipped,
    /// It ran past its time limit.
    TimedOut,
    /// It waits on a person's action.
    ActionRequired,
}

impl JobConclusion {
    /// Every conclusion, in GitHub's documented order.
    pub const ALL: [JobConclusion; 7] = [
        JobConclusion::Success,
        JobConclusion::Failure,
        JobConclusion::Neutral,
        JobConclusion::Cancelled,
        JobConclusion::Skipped,
        JobConclusion::TimedOut,
        JobConclusion::ActionRequired,
    ];

    /// The conclusion as GitHub and the result file write it.
    pub fn name(self) -> &'static str {
        match self {
            JobConclusion::Success => "success",
            JobConclusion::Failure => "failure",
            JobConclusion::Neutral => "neutral",
            JobConclusion::Cancelled => "cancelled",
            JobConclusion::Skipped => "skipped",
            JobConclusion::TimedOut => "timed_out",
            JobConclusion::ActionRequired => "action_required",
        }
    }

    /// The conclusion GitHub writes as `name`.
    pub fn from_name(name: &str) -> Option<JobConclusion> {
        JobConclusion::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One job of the run's GitHub Actions workflow and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobOutcome {
    /// The job's id in the workflow, e.g. `measure` or `restore-2`.
    pub job: Slug,
    /// How it ended, as GitHub's `needs.<id>.result` says.
    pub conclusion: Conclusion,
    /// The stages it measures (`STAGE_NAMES`); empty for a job that
    /// measures nothing.
    pub stages: Vec<Name>,
    /// The cache trial it belongs to, for the save, gap and restore jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial: Option<u32>,
}

/// The names a job's `stages` may hold: the sections of `Stages`.
pub const STAGE_NAMES: [&str; 6] = ["cpu", "cpu_allcore", "disk", "internet", "cache", "http_cache"];

/// How a GitHub Actions job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    /// It ran to the end.
    Success,
    /// A step failed.
    Failure,
    /// It was cancelled, by a person or a timeout.
    Cancelled,
    /// It never ran (a job it needs did not succeed).
    Skipped,
}

impl Conclusion {
    /// The conclusion as GitHub and the result file write it.
    pub fn name(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Cancelled => "cancelled",
            Conclusion::Skipped => "skipped",
        }
    }
}

impl JobOutcome {
    /// Whether this job ended without success and measures `stage` (for
    /// the cache stage: trial `trial`, or every trial when the job names
    /// none), so that the stage's missing samples are explained.
    pub fn explains(&self, stage: &str, trial: Option<u32>) -> bool {
        self.conclusion != Conclusion::Success
            && self.stages.iter().any(|s| s.as_str() == stage)
            && (self.trial.is_none() || self.trial == trial)
    }
}

/// A GitHub Actions job, from the GITHUB_* variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitHubRun {
    /// `owner/name`.
    pub repository: Name,
    /// Workflow name.
    pub workflow: Name,
    /// GITHUB_RUN_ID.
    pub run_id: u64,
    /// GITHUB_RUN_ATTEMPT.
    pub run_attempt: u32,
    /// GITHUB_JOB.
    pub job: Name,
    /// GITHUB_SHA.
    pub commit: Name,
    /// RUNNER_NAME.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_name: Option<Name>,
}

/// A runner OS image (GitHub's ImageOS and ImageVersion).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// Image name, e.g. `ubuntu24`.
    pub name: Name,
    /// Image version, e.g. `20260901.1.0`.
    pub version: Name,
}
