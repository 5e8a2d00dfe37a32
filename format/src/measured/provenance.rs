//! Who wrote a measured result, and when and where its run happened: the
//! collector, the GitHub Actions job and image, and how each job of a
//! split run ended.

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
