//! `collector assemble`: merge the partial results that separate jobs of one
//! run wrote (the cache stage saves in one job and restores in another) into
//! one result file.
//!
//! Parts must share fingerprint, provider and runner. A stage may come from
//! one part only, except the cache stage, whose backends and pairs are
//! joined (its payload must be the same bytes in every part).
//!
//! With `--jobs` (the workflow's `toJSON(needs)`), every job's conclusion is
//! recorded in `provenance.jobs`, and each job that did not succeed adds a
//! notice: a failed, cancelled or skipped job leaves its part missing or
//! partial, and the published result must show the run as incomplete rather
//! than lose it.
//!
//! With `--run-jobs` and the flags that go with it (in the signing job of
//! benchmark.yml), GitHub's record of the run's jobs becomes
//! `provenance.run_record`, and every part is held to it (`record`).
//! Without them, assembly works as before, for self-built and local runs.
//!
//! - `merge`: the parts joined into one result;
//! - `record`: GitHub's record read from the API's pages, and the parts
//!   held to it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use runner_bench_format::measured::{Conclusion, JobOutcome};
use runner_bench_format::{AnyResult, MeasuredResult, Message, Name, Notice, Slug, read_file, to_json};
use serde::Deserialize;

use crate::result::output::ResultWriter;

mod merge;
mod record;

pub use merge::merge;

use record::RunSource;

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

    /// A response page of GitHub's `GET
    /// /repos/{owner}/{repo}/actions/runs/{run_id}/jobs?filter=all`, as the
    /// API returns it (`{"total_count": N, "jobs": [...]}`); repeat for
    /// every page: together they must hold as many jobs as the pages'
    /// `total_count` (the smallest, where pages differ). Needs
    /// --run-repository, --run-id, --run-attempt and --signing-runner.
    ///
    /// The signing job is the one of attempt --run-attempt on runner
    /// --signing-runner, in progress, named `[<calling job's name> / ]sign:
    /// assemble and attest the result`; the jobs named with the same prefix
    /// `measure: …`, `save-N: …`, `gap-N: …` and `restore-N: …`, of every
    /// attempt, become `provenance.run_record`, and `provenance.github`
    /// takes its repository, run id and attempt from these flags.
    ///
    /// Each part must be a job of that record: its `provenance.github`
    /// repository and run id are the run's, and its job id, attempt and
    /// runner name are one listed job's (a part of an earlier attempt
    /// matches that attempt's job). A part's cache pairs must be of the
    /// trial of its `save-N` or `restore-N` job. Every save of trial N
    /// must have finished (its start plus its seconds) between the
    /// `started_at` and `completed_at` of the save-N job a part came from
    /// (of any save-N job of the record where no save part is given), and
    /// a restore part's job must have started at least the profile's
    /// publication gap after the last of those saves; each comparison
    /// allows 2 s for timestamps in whole seconds.
    #[arg(long = "run-jobs", value_name = "FILE", requires_all = ["run_repository", "run_id", "run_attempt", "signing_runner"])]
    pub run_jobs: Vec<PathBuf>,

    /// The repository of the run, `owner/name` (the signing job's
    /// GITHUB_REPOSITORY); with --run-jobs.
    #[arg(long, requires = "run_jobs")]
    pub run_repository: Option<String>,

    /// The run's id (the signing job's GITHUB_RUN_ID); with --run-jobs.
    #[arg(long, requires = "run_jobs")]
    pub run_id: Option<u64>,

    /// The signing job's attempt (GITHUB_RUN_ATTEMPT); with --run-jobs.
    #[arg(long, requires = "run_jobs")]
    pub run_attempt: Option<u32>,

    /// The signing job's runner (RUNNER_NAME), by which assembly finds the
    /// signing job in the pages; with --run-jobs.
    #[arg(long, requires = "run_jobs")]
    pub signing_runner: Option<String>,

    /// Partial result files of one run, e.g. the save job's and the restore
    /// job's. They must share fingerprint, provider and runner, and carry no
    /// `provenance.run_record` (only assembly writes one).
    #[arg(required = true, num_args = 1..)]
    pub parts: Vec<PathBuf>,
}

pub fn run(args: AssembleArgs) -> anyhow::Result<()> {
    let jobs = match args.jobs.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => parse_jobs(text)?,
        _ => Vec::new(),
    };
    let source = run_source(&args);
    let mut parts = Vec::new();
    for path in &args.parts {
        match read_file(path)? {
            AnyResult::Measured(r) => {
                if let Some(p) = r.problems().first() {
                    bail!("{}: {}: {}", path.display(), p.field, p.reason);
                }
                if r.provenance.run_record.is_some() {
                    bail!(
                        "{}: it carries provenance.run_record; a part is one job's file, and only assembly writes GitHub's record of the run",
                        path.display()
                    );
                }
                parts.push((path.display().to_string(), *r))
            }
            AnyResult::Imported(_) => bail!("{}: an imported result cannot be part of a run", path.display()),
        }
    }
    // Read and checked before the merge, so that a part the record refuses
    // is named for that, not for how it differs from the other parts.
    let run_record = match &source {
        Some(src) => {
            let r = record::read_record(src)?;
            record::check_parts(&parts, &r)?;
            Some(r)
        }
        None => None,
    };
    let mut merged = merge(parts)?;
    if let Some(r) = run_record {
        // The signing job's run names the result; the parts were checked
        // to be of that run, so only the attempt can move.
        if let Some(gh) = merged.provenance.github.as_mut() {
            gh.repository = r.repository.clone();
            gh.run_id = r.run_id;
            gh.run_attempt = r.run_attempt;
        }
        merged.provenance.run_record = Some(r);
    }
    // Each part passed its checks; the merge must too (a backend or a pair
    // two parts give differently).
    if let Some(p) = merged.problems().first() {
        bail!("the merged result: {}: {}", p.field, p.reason);
    }
    record_jobs(&mut merged, jobs);
    for text in &args.notices {
        merged.notices.push(Notice { stage: Name::lossy("workflow"), message: Message::lossy(text) });
    }
    let out = match (&args.out, &args.results_dir) {
        (Some(out), _) => out.clone(),
        (None, Some(dir)) => {
            let path = dir.join(submission_path(&merged)?);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            path
        }
        (None, None) => bail!("give --out or --results-dir"),
    };
    let writer = ResultWriter::create(&out)?;
    writer.write(&to_json(&merged)).context("cannot write the merged result")?;
    say!("wrote {}", out.display());
    // The workflow needs the path; the summary is only a view of the file.
    crate::result::summary::append_to_github_file("GITHUB_OUTPUT", &format!("path={}\n", out.display()))?;
    if let Err(e) = crate::result::summary::append_to_step_summary(&merged) {
        say!("warning: {e:#}");
    }
    Ok(())
}

/// The `--run-*` flags, when given (clap requires them together).
fn run_source(args: &AssembleArgs) -> Option<RunSource> {
    if args.run_jobs.is_empty() {
        return None;
    }
    Some(RunSource {
        pages: args.run_jobs.clone(),
        repository: args.run_repository.clone()?,
        run_id: args.run_id?,
        run_attempt: args.run_attempt?,
        signing_runner: args.signing_runner.clone()?,
    })
}

/// Where a submitted result lives: `<provider>/<runner>/<date>-<run_id>-<attempt>.json`,
/// the date being the run's start (UTC).
pub fn submission_path(result: &MeasuredResult) -> anyhow::Result<PathBuf> {
    let Some(gh) = &result.provenance.github else {
        bail!("the parts record no GitHub Actions run, so the result has no run id for its file name; use --out")
    };
    let date = result.provenance.started_at.instant().strftime("%Y-%m-%d");
    Ok(Path::new(result.provider.id.as_str())
        .join(result.runner.label.as_str())
        .join(format!("{date}-{}-{}.json", gh.run_id, gh.run_attempt)))
}

/// One entry of GitHub's `needs` context.
#[derive(Debug, Deserialize)]
struct Need {
    result: String,
}

/// The workflow's jobs and what each measures, in the workflow's order:
/// `measure` runs the CPU, disk and internet stages; `save-N`, `gap-N` and
/// `restore-N` are cache trial N. Other jobs measure nothing.
fn parse_jobs(text: &str) -> anyhow::Result<Vec<JobOutcome>> {
    let needs: BTreeMap<String, Need> = serde_json::from_str(text)
        .context("--jobs: not the JSON of GitHub's needs context ({\"job\": {\"result\": \"success\"}, ...})")?;
    let mut jobs = Vec::new();
    for (id, need) in needs {
        let conclusion = match need.result.as_str() {
            "success" => Conclusion::Success,
            "failure" => Conclusion::Failure,
            "cancelled" => Conclusion::Cancelled,
            "skipped" => Conclusion::Skipped,
            other => bail!(
                "--jobs: job {id} has result {other:?}; GitHub's results are success, failure, cancelled and skipped"
            ),
        };
        let (stages, trial): (&[&str], Option<u32>) = match id.as_str() {
            "measure" => (&["cpu", "cpu_allcore", "disk", "internet"], None),
            _ => match id.split_once('-') {
                Some(("save" | "gap" | "restore", n)) => match n.parse() {
                    Ok(trial) => (&["cache"], Some(trial)),
                    Err(_) => bail!(
                        "--jobs: job {id} names no cache trial; the workflow's trial jobs are save-N, gap-N and restore-N"
                    ),
                },
                _ => (&[], None),
            },
        };
        let job = Slug::new(id.clone()).map_err(|e| anyhow::anyhow!("--jobs: job id {id:?}: {e}"))?;
        jobs.push(JobOutcome { job, conclusion, stages: stages.iter().map(|s| Name::lossy(s)).collect(), trial });
    }
    // The workflow's order: measure, then each trial's save, gap, restore.
    let phase = |j: &JobOutcome| match j.job.as_str().split_once('-').map(|(p, _)| p) {
        Some("save") => 0,
        Some("gap") => 1,
        Some("restore") => 2,
        _ => 3,
    };
    jobs.sort_by_key(|j| (j.trial.is_some(), j.trial, phase(j)));
    Ok(jobs)
}

/// Records the jobs, and a notice for each that did not succeed.
fn record_jobs(result: &mut MeasuredResult, jobs: Vec<JobOutcome>) {
    for j in jobs.iter().filter(|j| j.conclusion != Conclusion::Success) {
        let what = match (j.trial, j.stages.is_empty()) {
            (Some(t), _) => format!("trial {t}'s cache pairs are attempted and not completed"),
            (None, false) => format!(
                "its {} samples are attempted and not completed",
                j.stages.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
            (None, true) => "it measures nothing".to_string(),
        };
        result.notices.push(Notice {
            stage: Name::lossy("workflow"),
            message: Message::lossy(&format!("job {} ended with conclusion {}: {what}", j.job, j.conclusion.name())),
        });
    }
    result.provenance.jobs = jobs;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::golden;

    #[test]
    fn failed_jobs_become_notices_in_the_workflows_order() {
        let needs = r#"{"restore-2": {"result": "failure", "outputs": {}}, "measure": {"result": "success"},
            "save-1": {"result": "success"}, "gap-2": {"result": "success"}, "save-2": {"result": "success"},
            "submit": {"result": "skipped"}}"#;
        let jobs = parse_jobs(needs).unwrap();
        let order: Vec<&str> = jobs.iter().map(|j| j.job.as_str()).collect();
        assert_eq!(order, ["measure", "submit", "save-1", "save-2", "gap-2", "restore-2"]);
        assert_eq!(jobs[5].trial, Some(2));
        assert_eq!(
            jobs[0].stages.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            ["cpu", "cpu_allcore", "disk", "internet"]
        );
        let mut r = golden();
        let before = r.notices.len();
        record_jobs(&mut r, jobs);
        let added: Vec<&str> = r.notices[before..].iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            added,
            [
                "job submit ended with conclusion skipped: it measures nothing",
                "job restore-2 ended with conclusion failure: trial 2's cache pairs are attempted and not completed"
            ]
        );
        assert_eq!(r.provenance.jobs.len(), 6);
    }

    #[test]
    fn a_trial_job_without_a_trial_number_is_refused() {
        let err = parse_jobs(r#"{"save-x": {"result": "failure"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--jobs: job save-x names no cache trial; the workflow's trial jobs are save-N, gap-N and restore-N"
        );
    }

    #[test]
    fn a_result_the_needs_context_cannot_have_is_refused() {
        let err = parse_jobs(r#"{"measure": {"result": "neutral"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--jobs: job measure has result \"neutral\"; GitHub's results are success, failure, cancelled and skipped"
        );
    }

    #[test]
    fn the_submission_path_names_provider_runner_date_run_and_attempt() {
        let r = golden();
        let gh = r.provenance.github.as_ref().unwrap();
        let want = format!(
            "example/example-linux-x64/{}-{}-{}.json",
            r.provenance.started_at.instant().strftime("%Y-%m-%d"),
            gh.run_id,
            gh.run_attempt
        );
        assert_eq!(submission_path(&r).unwrap(), PathBuf::from(want));
    }
}
