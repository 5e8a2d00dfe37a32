//! GitHub's record of the run, for `collector assemble --run-jobs`: the
//! signing job reads its run's jobs from GitHub's REST API (`GET
//! /repos/{owner}/{repo}/actions/runs/{run_id}/jobs?filter=all`) and hands
//! the raw pages here. This module finds the signing job among them, keeps
//! the jobs of its benchmark call as `provenance.run_record`, and holds each
//! part to that record: the part's run, attempt and runner name must be a
//! job GitHub ran, and a cache trial's save and restore must fit the times
//! GitHub gives those jobs.
//!
//! The record comes from GitHub, not from a runner; the parts come from the
//! measuring runners, which the provider controls. What a part says of its
//! job is therefore believed only where GitHub's record agrees.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use runner_bench_format::measured::{JobConclusion, RunJob, RunRecord, benchmark_job_trial};
use runner_bench_format::{MeasuredResult, Name, Slug, Timestamp};
use serde::Deserialize;

/// The signing job's name in benchmark.yml, after the calling job's prefix.
pub const SIGN_JOB_NAME: &str = "sign: assemble and attest the result";

/// Seconds of slack on each comparison of a part's time with GitHub's: the
/// API gives whole seconds, and the collector writes a transfer's start in
/// whole seconds too, so each side may be up to a second off the instant
/// it stands for.
pub const ROUNDING_S: f64 = 2.0;

/// Where the record comes from: the `--run-*` flags and `--signing-runner`.
#[derive(Debug, Clone)]
pub struct RunSource {
    /// The API's response pages, as files.
    pub pages: Vec<PathBuf>,
    /// GITHUB_REPOSITORY of the signing job.
    pub repository: String,
    /// GITHUB_RUN_ID of the signing job.
    pub run_id: u64,
    /// GITHUB_RUN_ATTEMPT of the signing job.
    pub run_attempt: u32,
    /// RUNNER_NAME of the signing job.
    pub signing_runner: String,
}

/// One response page of the jobs API.
#[derive(Debug, Deserialize)]
struct ApiPage {
    total_count: u64,
    jobs: Vec<ApiJob>,
}

/// The fields of a job this module reads; the API gives more (steps, URLs,
/// ids of the runner and the check run), which are not kept.
#[derive(Debug, Deserialize)]
struct ApiJob {
    id: u64,
    run_id: u64,
    /// Optional in GitHub's published schema, though every job has one.
    #[serde(default)]
    run_attempt: Option<u32>,
    name: String,
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    created_at: String,
    started_at: String,
    #[serde(default)]
    completed_at: Option<String>,
    #[serde(default)]
    labels: Vec<String>,
    #[serde(default)]
    runner_name: Option<String>,
    #[serde(default)]
    runner_group_name: Option<String>,
}

/// A job of the pages, with where it was read, for messages.
struct Listed {
    at: String,
    job: ApiJob,
}

/// Reads the pages, finds the signing job and returns the record of its
/// benchmark call's jobs, in the pages' order.
pub fn read_record(src: &RunSource) -> anyhow::Result<RunRecord> {
    let repository = Name::new(src.repository.clone()).map_err(|e| anyhow::anyhow!("--run-repository: {e}"))?;
    if src.run_attempt == 0 {
        bail!("--run-attempt: 0 is no attempt; GitHub counts a run's attempts from 1");
    }
    let mut listed: Vec<Listed> = Vec::new();
    let mut counted = u64::MAX;
    for path in &src.pages {
        let page = read_page(path)?;
        counted = counted.min(page.total_count);
        for (i, job) in page.jobs.into_iter().enumerate() {
            let at = format!("{}: jobs[{i}] (job id {})", path.display(), job.id);
            if job.run_id != src.run_id {
                bail!(
                    "{at} is of run {}, not run {} (--run-id); give the pages of the signing job's own run",
                    job.run_id,
                    src.run_id
                );
            }
            // Pages read while the run goes on may repeat a job that moved
            // from one page to the next.
            if !listed.iter().any(|l| l.job.id == job.id) {
                listed.push(Listed { at, job });
            }
        }
    }
    if (listed.len() as u64) < counted {
        bail!(
            "--run-jobs: the pages hold {} jobs but GitHub counts {counted} (total_count); give every page of the \
             response",
            listed.len()
        );
    }
    let attempt = |l: &Listed| -> anyhow::Result<u32> {
        l.job.run_attempt.with_context(|| format!("{} has no run_attempt; GitHub gives each job its attempt", l.at))
    };
    let mut signing = Vec::new();
    for l in &listed {
        if attempt(l)? == src.run_attempt
            && l.job.runner_name.as_deref() == Some(src.signing_runner.as_str())
            && l.job.status == "in_progress"
            && let Some(prefix) = l.job.name.strip_suffix(SIGN_JOB_NAME)
            && (prefix.is_empty() || prefix.ends_with(" / "))
        {
            signing.push((l, prefix));
        }
    }
    let prefix = match signing.as_slice() {
        [(_, prefix)] => *prefix,
        [] => bail!(
            "--run-jobs: GitHub's record of run {} has no job \"{SIGN_JOB_NAME}\" of attempt {} in progress on runner \
             {:?} (--signing-runner); the signing job reads the jobs of its own run, every attempt \
             (?filter=all)",
            src.run_id,
            src.run_attempt,
            src.signing_runner
        ),
        [(a, _), (b, _), ..] => bail!(
            "--run-jobs: GitHub's record of run {} has more than one signing job of attempt {} in progress on runner \
             {:?}: {:?} and {:?}; a runner runs one job at a time",
            src.run_id,
            src.run_attempt,
            src.signing_runner,
            a.job.name,
            b.job.name
        ),
    };
    let mut jobs = Vec::new();
    for l in &listed {
        let Some(rest) = l.job.name.strip_prefix(prefix) else { continue };
        let Some((id, _)) = rest.split_once(": ") else { continue };
        if benchmark_job_trial(id).is_none() {
            continue;
        }
        jobs.push(run_job(l, id, attempt(l)?)?);
    }
    if jobs.is_empty() {
        bail!(
            "--run-jobs: GitHub's record of run {} has no job of this benchmark call (named \"{prefix}measure: …\", \
             \"{prefix}save-N: …\", \"{prefix}gap-N: …\" or \"{prefix}restore-N: …\")",
            src.run_id
        );
    }
    Ok(RunRecord { repository, run_id: src.run_id, run_attempt: src.run_attempt, jobs })
}

fn read_page(path: &Path) -> anyhow::Result<ApiPage> {
    let text = std::fs::read(path).with_context(|| format!("--run-jobs: cannot read {}", path.display()))?;
    serde_json::from_slice(&text).with_context(|| {
        format!(
            "--run-jobs: {} is not a page of GitHub's jobs API ({{\"total_count\": N, \"jobs\": [...]}})",
            path.display()
        )
    })
}

/// One API job as the record keeps it.
fn run_job(l: &Listed, id: &str, attempt: u32) -> anyhow::Result<RunJob> {
    let at = &l.at;
    let j = &l.job;
    let name = |field: &str, v: &str| Name::new(v).map_err(|e| anyhow::anyhow!("{at}: {field}: {e}"));
    // A runner not yet assigned is null in the API; some jobs give "".
    let optional = |field: &str, v: &Option<String>| match v.as_deref() {
        None | Some("") => Ok(None),
        Some(v) => name(field, v).map(Some),
    };
    let time = |field: &str, v: &str| -> anyhow::Result<Timestamp> {
        // The API's description allows an offset; the format takes UTC.
        let t: jiff::Timestamp = v.parse().map_err(|e| anyhow::anyhow!("{at}: {field}: {v:?} is no time: {e}"))?;
        Timestamp::new(t.to_string()).map_err(|e| anyhow::anyhow!("{at}: {field}: {e}"))
    };
    let conclusion = match j.conclusion.as_deref() {
        None => None,
        Some(c) => Some(JobConclusion::from_name(c).with_context(|| {
            format!(
                "{at}: conclusion {c:?} is none of GitHub's documented conclusions ({})",
                JobConclusion::ALL.map(|c| c.name()).join(", ")
            )
        })?),
    };
    Ok(RunJob {
        name: name("name", &j.name)?,
        job: Slug::new(id).map_err(|e| anyhow::anyhow!("{at}: name: {e}"))?,
        attempt,
        runner_name: optional("runner_name", &j.runner_name)?,
        runner_group_name: optional("runner_group_name", &j.runner_group_name)?,
        labels: j.labels.iter().map(|l| name("labels", l)).collect::<anyhow::Result<_>>()?,
        created_at: time("created_at", &j.created_at)?,
        started_at: time("started_at", &j.started_at)?,
        completed_at: j.completed_at.as_deref().map(|t| time("completed_at", t)).transpose()?,
        conclusion,
    })
}

/// Holds every part to the record: it comes from a job GitHub ran in this
/// run (its id, attempt and runner name), and its cache pairs fit the times
/// GitHub gives the trial's jobs. Parts of an earlier attempt that the
/// record has are accepted: "Re-run failed jobs" keeps the jobs that
/// succeeded.
pub fn check_parts(parts: &[(String, MeasuredResult)], record: &RunRecord) -> anyhow::Result<()> {
    let mut matched = Vec::new();
    for (name, part) in parts {
        matched.push(job_of(name, part, record)?);
    }
    for ((name, part), job) in parts.iter().zip(&matched) {
        trials_of_their_job(name, part, job)?;
    }
    // The save jobs the parts came from; where no save part is given, any
    // save job of the trial in the record.
    let save_jobs = |trial: u32| -> Vec<&RunJob> {
        let from_parts: Vec<&RunJob> =
            matched.iter().copied().filter(|j| j.trial() == Some(trial) && is_phase(j, "save")).collect();
        if from_parts.is_empty() {
            record.jobs.iter().filter(|j| j.trial() == Some(trial) && is_phase(j, "save")).collect()
        } else {
            from_parts
        }
    };
    let trials: BTreeSet<u32> = parts
        .iter()
        .filter_map(|(_, p)| p.stages.cache.as_ref())
        .flat_map(|c| c.pairs.iter().map(|p| p.trial))
        .collect();
    for trial in trials {
        let windows = save_jobs(trial);
        let mut saved_at: Option<jiff::Timestamp> = None;
        for (name, part) in parts {
            let Some(cache) = &part.stages.cache else { continue };
            for (i, pair) in cache.pairs.iter().enumerate().filter(|(_, p)| p.trial == trial) {
                let end = save_end(name, i, pair)?;
                if !windows.iter().any(|j| within(end, j)) {
                    bail!(
                        "{name}: $.stages.cache.pairs[{i}] (trial {trial}, backend {}) finished its save at {}, \
                         outside its save job in GitHub's record of run {}: {}",
                        pair.backend,
                        show(end),
                        record.run_id,
                        describe_windows(trial, &windows)
                    );
                }
                saved_at = Some(saved_at.map_or(end, |s| s.max(end)));
            }
        }
        let Some(saved_at) = saved_at else { continue };
        for ((name, part), job) in parts.iter().zip(&matched) {
            let restored = part
                .stages
                .cache
                .as_ref()
                .is_some_and(|c| c.pairs.iter().any(|p| p.trial == trial && p.restore.is_some()));
            if !restored || job.trial() != Some(trial) || !is_phase(job, "restore") {
                continue;
            }
            let gap = part.parameters.cache_publication_gap_s;
            let waited = job.started_at.instant().duration_since(saved_at).as_secs_f64();
            if waited + ROUNDING_S < f64::from(gap) {
                bail!(
                    "{name}: job {} (attempt {}) started at {}, {waited:.1} s after trial {trial}'s save finished at \
                     {} (GitHub's record of run {}); the profile's publication gap is {gap} s \
                     (parameters.cache_publication_gap_s), and a restore job starts after it",
                    job.job,
                    job.attempt,
                    job.started_at,
                    show(saved_at),
                    record.run_id
                );
            }
        }
    }
    Ok(())
}

/// The record's job that `part` came from.
fn job_of<'r>(name: &str, part: &MeasuredResult, record: &'r RunRecord) -> anyhow::Result<&'r RunJob> {
    let Some(gh) = &part.provenance.github else {
        bail!(
            "{name}: it records no GitHub Actions run (provenance.github is absent), but the result is assembled for \
             run {} of {}; every part must come from a job of that run",
            record.run_id,
            record.repository
        )
    };
    if gh.repository != record.repository || gh.run_id != record.run_id {
        bail!(
            "{name}: it is from run {} of {}, not run {} of {} (--run-id, --run-repository); only that run's parts \
             can be assembled",
            gh.run_id,
            gh.repository,
            record.run_id,
            record.repository
        );
    }
    let runner = gh.runner_name.as_ref().map(|r| r.as_str());
    if let Some(job) = record.jobs.iter().find(|j| {
        j.job.as_str() == gh.job.as_str()
            && j.attempt == gh.run_attempt
            && j.runner_name.as_ref().map(|r| r.as_str()) == runner
            && runner.is_some()
    }) {
        return Ok(job);
    }
    let same_id: Vec<String> = record
        .jobs
        .iter()
        .filter(|j| j.job.as_str() == gh.job.as_str())
        .map(|j| format!("attempt {} on {}", j.attempt, show_runner(j.runner_name.as_ref().map(|r| r.as_str()))))
        .collect();
    let has = if same_id.is_empty() {
        format!("it has no {} job", gh.job)
    } else {
        format!("its {} jobs: {}", gh.job, same_id.join(", "))
    };
    bail!(
        "{name}: job {}, attempt {}, runner {} is not in GitHub's record of run {} ({has})",
        gh.job,
        gh.run_attempt,
        show_runner(runner),
        record.run_id
    )
}

fn show_runner(runner: Option<&str>) -> String {
    runner.map_or("none".to_string(), |r| format!("{r:?}"))
}

/// A part's cache pairs are of its own job's trial, and only save and
/// restore jobs have them.
fn trials_of_their_job(name: &str, part: &MeasuredResult, job: &RunJob) -> anyhow::Result<()> {
    let Some(cache) = &part.stages.cache else { return Ok(()) };
    let cache_job = is_phase(job, "save") || is_phase(job, "restore");
    for (i, pair) in cache.pairs.iter().enumerate() {
        if !cache_job || job.trial() != Some(pair.trial) {
            bail!(
                "{name}: $.stages.cache.pairs[{i}] is of trial {}, but the part comes from job {}; trial {}'s pairs \
                 come from its save-{} and restore-{} jobs",
                pair.trial,
                job.job,
                pair.trial,
                pair.trial,
                pair.trial
            );
        }
    }
    Ok(())
}

fn is_phase(job: &RunJob, phase: &str) -> bool {
    job.job.as_str().split_once('-').is_some_and(|(p, _)| p == phase)
}

/// When a pair's save finished: its start and its seconds (its start alone
/// where it has no seconds, a save that failed before it was timed).
fn save_end(name: &str, i: usize, pair: &runner_bench_format::measured::CachePair) -> anyhow::Result<jiff::Timestamp> {
    let start = pair.save.started_at.instant();
    let Some(seconds) = pair.save.seconds else { return Ok(start) };
    jiff::SignedDuration::try_from_secs_f64(seconds.get())
        .ok()
        .and_then(|d| start.checked_add(d).ok())
        .with_context(|| format!("{name}: $.stages.cache.pairs[{i}].save.seconds: {} s is no time span", seconds.get()))
}

/// Whether `t` lies within the job's run, with the rounding's slack.
fn within(t: jiff::Timestamp, job: &RunJob) -> bool {
    let Some(done) = &job.completed_at else { return false };
    let after_start = t.duration_since(job.started_at.instant()).as_secs_f64() >= -ROUNDING_S;
    let before_end = done.instant().duration_since(t).as_secs_f64() >= -ROUNDING_S;
    after_start && before_end
}

fn describe_windows(trial: u32, jobs: &[&RunJob]) -> String {
    if jobs.is_empty() {
        return format!("it has no save-{trial} job");
    }
    jobs.iter()
        .map(|j| match &j.completed_at {
            Some(done) => format!("{} attempt {} ran from {} to {}", j.job, j.attempt, j.started_at, done),
            None => format!("{} attempt {} started at {} and has not completed", j.job, j.attempt, j.started_at),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// An instant to the millisecond, as messages give it.
fn show(t: jiff::Timestamp) -> String {
    t.round(jiff::Unit::Millisecond).map_or_else(|_| t.to_string(), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// A job of the API's shape, with the fields this module reads.
    fn api_job(id: u64, name: &str, attempt: u32, status: &str, runner: Value) -> Value {
        json!({
            "id": id, "run_id": 7, "run_attempt": attempt, "name": name, "status": status,
            "conclusion": if status == "completed" { json!("success") } else { Value::Null },
            "created_at": "2026-11-29T10:00:00Z", "started_at": "2026-11-29T10:00:05Z",
            "completed_at": if status == "completed" { json!("2026-11-29T10:01:00Z") } else { Value::Null },
            "labels": ["ubuntu-24.04"], "runner_name": runner, "runner_group_name": "GitHub Actions",
        })
    }

    /// The record of one page of `jobs`, or the refusal, with the page
    /// named `page.json` wherever it is.
    fn record_of(jobs: Vec<Value>) -> Result<RunRecord, String> {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("page.json");
        let total = jobs.len();
        std::fs::write(&page, serde_json::to_vec(&json!({"total_count": total, "jobs": jobs})).unwrap()).unwrap();
        read_record(&RunSource {
            pages: vec![page.clone()],
            repository: "o/r".into(),
            run_id: 7,
            run_attempt: 1,
            signing_runner: "GitHub Actions 1".into(),
        })
        .map_err(|e| e.to_string().replace(&page.display().to_string(), "page.json"))
    }

    #[test]
    fn a_directly_run_benchmark_has_bare_job_names() {
        let r = record_of(vec![
            api_job(1, "measure: CPU, disk and internet", 1, "completed", json!("r-1")),
            api_job(2, "submit: submit the result", 1, "queued", Value::Null),
            api_job(3, "sign: assemble and attest the result", 1, "in_progress", json!("GitHub Actions 1")),
        ])
        .unwrap();
        let ids: Vec<&str> = r.jobs.iter().map(|j| j.job.as_str()).collect();
        assert_eq!(ids, ["measure"]);
        assert_eq!(r.jobs[0].conclusion, Some(JobConclusion::Success));
    }

    #[test]
    fn a_signing_job_named_with_more_before_it_than_a_calling_job_is_not_found() {
        let err = record_of(vec![
            api_job(1, "measure: CPU, disk and internet", 1, "completed", json!("r-1")),
            api_job(3, "xsign: assemble and attest the result", 1, "in_progress", json!("GitHub Actions 1")),
        ])
        .unwrap_err();
        assert_eq!(
            err,
            "--run-jobs: GitHub's record of run 7 has no job \"sign: assemble and attest the result\" of attempt 1 in \
             progress on runner \"GitHub Actions 1\" (--signing-runner); the signing job reads the jobs of its own \
             run, every attempt (?filter=all)"
        );
    }

    #[test]
    fn offsets_become_utc_and_an_empty_runner_is_none() {
        let mut measure = api_job(1, "c / measure: CPU, disk and internet", 1, "completed", json!(""));
        measure["created_at"] = json!("2026-11-29T03:00:00-07:00");
        let r = record_of(vec![
            measure,
            api_job(3, "c / sign: assemble and attest the result", 1, "in_progress", json!("GitHub Actions 1")),
        ])
        .unwrap();
        assert_eq!(r.jobs[0].created_at.as_str(), "2026-11-29T10:00:00Z");
        assert_eq!(r.jobs[0].runner_name, None);
        assert_eq!(r.jobs[0].queue_s(), 5.0);
    }

    #[test]
    fn a_conclusion_github_does_not_document_is_refused() {
        let mut measure = api_job(1, "measure: CPU, disk and internet", 1, "completed", json!("r-1"));
        measure["conclusion"] = json!("stale");
        let err = record_of(vec![
            measure,
            api_job(3, "sign: assemble and attest the result", 1, "in_progress", json!("GitHub Actions 1")),
        ])
        .unwrap_err();
        assert_eq!(
            err,
            "page.json: jobs[0] (job id 1): conclusion \"stale\" is none of GitHub's documented conclusions (success, \
             failure, neutral, cancelled, skipped, timed_out, action_required)"
        );
    }
}
