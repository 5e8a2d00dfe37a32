//! When a result is incomplete, and why: a stage's row is incomplete by
//! the rules below (the same as the rows' own marks in `groups`), and a
//! result's reasons name each incomplete stage with what its file gives.

use runner_bench_format::AnyResult;
use runner_bench_format::measured::Conclusion;
use serde::Serialize;

use super::details::Reasons;
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow, RunnerPart};
use crate::validate::Run;

/// A job of the run's workflow that did not succeed.
#[derive(Debug, Clone, Serialize)]
pub struct FailedJob {
    /// Its id in the workflow, e.g. `restore-2`.
    pub job: String,
    /// `failure`, `cancelled` or `skipped`.
    pub conclusion: &'static str,
}

/// The jobs that did not succeed: each left its part missing or partial,
/// even where what it left still fills every table.
pub(super) fn failed_jobs(run: &Run) -> Vec<FailedJob> {
    match &*run.result {
        AnyResult::Measured(m) => m
            .provenance
            .jobs
            .iter()
            .filter(|j| j.conclusion != Conclusion::Success)
            .map(|j| FailedJob { job: j.job.to_string(), conclusion: j.conclusion.name() })
            .collect(),
        AnyResult::Imported(_) => Vec::new(),
    }
}

/// Fewer accepted CoreMark samples than requested (so perhaps no median).
pub(crate) fn cpu_incomplete(c: &CpuRow) -> bool {
    !c.complete || c.median_value.is_none()
}

/// Fewer complete disk samples than requested.
pub(crate) fn disk_incomplete(d: &DiskRow) -> bool {
    !d.complete
}

/// The internet stage did not end `ok`.
pub(crate) fn internet_incomplete(n: &InternetRow) -> bool {
    n.status != "ok"
}

/// Fewer verified pairs than trials (`2/3`).
pub(crate) fn cache_incomplete(c: &CacheRow) -> bool {
    let mut it = c.verified.split('/').map(|n| n.trim().parse::<u32>().ok());
    matches!((it.next(), it.next()), (Some(Some(a)), Some(Some(b))) if a < b)
}

/// The stages whose rows are incomplete.
pub(super) fn incomplete_stages(part: &RunnerPart) -> Vec<&'static str> {
    [
        ("cpu", part.cpu.as_ref().is_some_and(cpu_incomplete)),
        ("disk", part.disk.as_ref().is_some_and(disk_incomplete)),
        ("cache", part.cache.iter().any(cache_incomplete)),
        ("internet", part.internet.as_ref().is_some_and(internet_incomplete)),
    ]
    .into_iter()
    .filter_map(|(stage, failed)| failed.then_some(stage))
    .collect()
}

/// Why a result is incomplete: the stages its run left out, then each
/// incomplete stage (each cache backend) with the reason its file gives
/// (`details::Reasons`), then the jobs that did not succeed that no stage
/// names. Every incomplete mark has at least one.
pub(super) fn incomplete_reasons(
    part: &RunnerPart,
    why: &Reasons,
    missing: &[&str],
    jobs: &[FailedJob],
) -> Vec<String> {
    let mut out = Vec::new();
    if !missing.is_empty() {
        let listed = match missing.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        out.push(format!("the run has no {listed} stage, which its profile asks for"));
    }
    let given = |stage: String, reason: Option<&String>| match reason.filter(|r| !r.is_empty()) {
        Some(r) => format!("{stage}: {r}"),
        None => format!("{stage}: incomplete, and the file gives no reason"),
    };
    if part.cpu.as_ref().is_some_and(cpu_incomplete) {
        out.push(given("CoreMark".into(), why.cpu.as_ref()));
    }
    if part.disk.as_ref().is_some_and(disk_incomplete) {
        out.push(given("Disk".into(), why.disk.as_ref()));
    }
    for (n, c) in part.cache.iter().enumerate().filter(|(_, c)| cache_incomplete(c)) {
        out.push(given(
            format!("Cache, {} ({})", c.backend, c.method_label),
            why.cache.get(n).and_then(Option::as_ref),
        ));
    }
    if part.internet.as_ref().is_some_and(internet_incomplete) {
        out.push(given("Internet".into(), why.internet.as_ref()));
    }
    let named = |j: &FailedJob| out.iter().any(|r| r.contains(&format!("job {} ", j.job)));
    let unnamed: Vec<String> =
        jobs.iter().filter(|j| !named(j)).map(|j| format!("{} ({})", j.job, j.conclusion)).collect();
    if !unnamed.is_empty() {
        out.push(format!("jobs of the run that did not succeed: {}", unnamed.join(", ")));
    }
    out
}
