//! Who ran a measured result, and how long its jobs waited: the run
//! record GitHub's API gave the signing job (`provenance.run_record`).
//!
//! The site cannot verify an attestation offline: it trusts that a merged
//! result with a run record passed scripts/verify-submission.sh at
//! submission, which fails one that a listed signer did not attest for the
//! record's run. A measured result without a record is self-built.

use runner_bench_format::measured::{MeasuredResult, RunJob};

/// Why a measured result without a run record is self-built.
pub const NO_RUN_RECORD: &str = "no GitHub run record; not attested";

/// A measured result's run, as its run record names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunView {
    /// `owner/name` of the repository whose run called the benchmark.
    pub repository: String,
    /// The repository's owner: who measured the result.
    pub owner: String,
    pub run_id: u64,
    pub attempt: u32,
    /// `https://github.com/<repo>/actions/runs/<run_id>/attempts/<attempt>`.
    pub url: String,
    /// Each measuring job, in the record's order.
    pub jobs: Vec<JobTimes>,
}

/// One measuring job's times, as GitHub reported them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobTimes {
    /// Its id in benchmark.yml, and its attempt where above 1.
    pub job: String,
    /// The runner GitHub assigned it, or `—`.
    pub runner: String,
    /// `started_at − created_at` (`RunJob::queue_s`), formatted.
    pub queued: String,
    /// `completed_at − started_at`, formatted; `—` while it runs.
    pub ran: String,
}

/// The run of `m`, where it has a run record.
pub fn of(m: &MeasuredResult) -> Option<RunView> {
    let r = m.provenance.run_record.as_ref()?;
    let repository = r.repository.to_string();
    let owner = repository.split('/').next().unwrap_or_default().to_string();
    let jobs = r
        .jobs
        .iter()
        .map(|j| JobTimes {
            job: if j.attempt > 1 { format!("{} (attempt {})", j.job, j.attempt) } else { j.job.to_string() },
            runner: j.runner_name.as_ref().map_or_else(|| crate::figures::NONE.to_string(), ToString::to_string),
            queued: duration(j.queue_s()),
            ran: j.completed_at.as_ref().map_or_else(
                || crate::figures::NONE.to_string(),
                |done| duration(done.instant().duration_since(j.started_at.instant()).as_secs_f64().max(0.0)),
            ),
        })
        .collect();
    Some(RunView {
        url: format!("https://github.com/{repository}/actions/runs/{}/attempts/{}", r.run_id, r.run_attempt),
        owner,
        repository,
        run_id: r.run_id,
        attempt: r.run_attempt,
        jobs,
    })
}

/// The median queue time (`RunJob::queue_s`, as GitHub reported it) of
/// `m`'s jobs on the runner it measured: `measure`, `save-N` and
/// `restore-N`. The `gap-N` jobs wait on a GitHub-hosted runner, so they
/// say nothing of the runner's queue. `None` without a run record or such
/// jobs.
pub fn median_queue_s(m: &MeasuredResult) -> Option<f64> {
    let r = m.provenance.run_record.as_ref()?;
    let on_runner = |j: &&RunJob| !j.job.as_str().starts_with("gap-");
    let waits: Vec<f64> = r.jobs.iter().filter(on_runner).map(RunJob::queue_s).collect();
    crate::stats::median(&waits)
}

/// Whole seconds, with minutes from a minute on: `7 s`, `2 min 5 s`.
pub fn duration(s: f64) -> String {
    let s = s.round() as u64;
    if s < 60 { format!("{s} s") } else { format!("{} min {} s", s / 60, s % 60) }
}

#[cfg(test)]
mod tests {
    use super::duration;

    #[test]
    fn durations_read_in_seconds_then_minutes() {
        assert_eq!(
            [duration(0.0), duration(7.4), duration(59.6), duration(125.0)],
            ["0 s", "7 s", "1 min 0 s", "2 min 5 s"]
        );
    }
}
