//! Time rules (issue 13, class 3): every date of a result lies between the
//! day the project began and the time of the check (with a clock-skew
//! allowance), a run lasts no longer than its protocol can, and each cache
//! transfer starts within its run. That a date is in RFC 3339's ordinary
//! form is the format's rule (`Timestamp::new`), checked while reading.
//!
//! The rules that need no clock run with the file's other rules and are
//! kept by `site serve`'s cache; the one rule that compares with the time of
//! the check (`future`) runs on every check, so that a cached file is never
//! judged by an old "now".

use runner_bench_format::imported::ImportedResult;
use runner_bench_format::measured::MeasuredResult;
use runner_bench_format::{AnyResult, Parameters, Timestamp};

use super::findings::Collector;

/// The first day of the project, in UTC: the date of the repository's first
/// commit (eab77a0, 2026-11-29T22:57:14Z). No collector existed before it,
/// and every published report was imported after it, so no date of a result
/// can be earlier. The start of the day, not the commit's minute: fixtures
/// and imports are dated by the day.
pub(super) const PROJECT_EPOCH: &str = "2026-11-29T00:00:00Z";

/// How far a date may lie after the time of the check, and a cache transfer
/// outside its run, seconds: 10 minutes. Runners keep their clocks by NTP,
/// usually within a second, but a machine that has just booted may run
/// minutes off before its first synchronisation, and a cache transfer's
/// date comes from another machine than the run's start (the save and the
/// restore run on other instances). Twice Kerberos' customary 5 minutes
/// covers both, and a file dated further ahead cannot have been written
/// before it was checked.
pub(super) const CLOCK_SKEW_S: i64 = 10 * 60;

/// What a run written by one `collector run` may spend besides its samples,
/// seconds: 30 minutes. A sample's limit (`sample_timeout_s`) is checked
/// between units of work, so a sample can overrun it by one unit (a
/// CoreMark batch, one disk operation on a file of `disk_file_mib`, one
/// HTTP request); machine detection and writing the disk test file come on
/// top. The benchmark workflow gives its `measure` job 60 minutes for the
/// same work.
pub(super) const RUN_MARGIN_S: i64 = 30 * 60;

/// The benchmark workflow's job limits, minutes
/// (.github/workflows/benchmark.yml, `timeout-minutes`; a test keeps them
/// in step): `measure`, then per cache trial `save-N`, `gap-N` and
/// `restore-N`.
pub(super) const MEASURE_JOB_MIN: i64 = 60;
/// `save-N`'s `timeout-minutes`.
pub(super) const SAVE_JOB_MIN: i64 = 30;
/// `gap-N`'s `timeout-minutes`.
pub(super) const GAP_JOB_MIN: i64 = 15;
/// `restore-N`'s `timeout-minutes`.
pub(super) const RESTORE_JOB_MIN: i64 = 30;

/// How long GitHub lets a job wait for a runner before it cancels it,
/// seconds: 24 hours ("Usage limits", GitHub Actions documentation). A job
/// of the workflow may wait that long before it starts.
pub(super) const GITHUB_QUEUE_S: i64 = 24 * 3600;

/// How long after a workflow run GitHub lets it be re-run, seconds: 30 days
/// ("Re-running workflows and jobs"). A re-run job replaces its part, so a
/// result assembled after a re-run may span that window too.
pub(super) const GITHUB_RERUN_WINDOW_S: i64 = 30 * 24 * 3600;

/// `PROJECT_EPOCH` as seconds since 1970.
fn epoch_s() -> i64 {
    PROJECT_EPOCH.parse::<jiff::Timestamp>().map(|t| t.as_second()).unwrap_or(0)
}

/// Every date of a measured result with its JSON path.
fn measured_dates(m: &MeasuredResult) -> Vec<(DateField, &Timestamp)> {
    let mut dates =
        vec![(DateField::Started, &m.provenance.started_at), (DateField::Finished, &m.provenance.finished_at)];
    if let Some(cache) = &m.stages.cache {
        for (i, pair) in cache.pairs.iter().enumerate() {
            dates.push((DateField::Save(i), &pair.save.started_at));
            if let Some(restore) = &pair.restore {
                dates.push((DateField::Restore(i), &restore.started_at));
            }
        }
    }
    dates
}

/// Where a date is, written out as its JSON path only for a problem: each
/// file's dates are listed twice a check (`measured`, `latest_s`).
#[derive(Debug, Clone, Copy)]
enum DateField {
    Started,
    Finished,
    /// A cache pair's save, by index.
    Save(usize),
    /// A cache pair's restore, by index.
    Restore(usize),
    Imported,
}

impl std::fmt::Display for DateField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DateField::Started => f.write_str("$.provenance.started_at"),
            DateField::Finished => f.write_str("$.provenance.finished_at"),
            DateField::Save(i) => write!(f, "$.stages.cache.pairs[{i}].save.started_at"),
            DateField::Restore(i) => write!(f, "$.stages.cache.pairs[{i}].restore.started_at"),
            DateField::Imported => f.write_str("$.source.imported_at"),
        }
    }
}

fn before_epoch(c: &mut Collector, file: &str, field: DateField, t: &Timestamp) {
    if t.instant().as_second() < epoch_s() {
        c.push(
            file,
            field.to_string(),
            format!(
                "{t} is before the project existed (its first day is {}, the date of the repository's first \
                 commit); no result can be dated earlier",
                &PROJECT_EPOCH[..10]
            ),
        );
    }
}

/// The time rules of a measured result that need no clock.
pub(super) fn measured(c: &mut Collector, file: &str, m: &MeasuredResult) {
    for (field, t) in measured_dates(m) {
        before_epoch(c, file, field, t);
    }
    let started = m.provenance.started_at.instant().as_second();
    let finished = m.provenance.finished_at.instant().as_second();
    let (bound, why) = longest_run(m);
    if finished - started > bound {
        c.push(
            file,
            "$.provenance.finished_at",
            format!(
                "the run lasted {} (from started_at {} to {}); {why} lasts at most {}",
                duration(finished - started),
                m.provenance.started_at,
                m.provenance.finished_at,
                duration(bound)
            ),
        );
    }
    if let Some(cache) = &m.stages.cache {
        for (i, pair) in cache.pairs.iter().enumerate() {
            let halves = [("save", Some(&pair.save)), ("restore", pair.restore.as_ref())];
            for (half, t) in halves.into_iter().filter_map(|(h, t)| t.map(|t| (h, t))) {
                let at = t.started_at.instant().as_second();
                if at < started - CLOCK_SKEW_S || at > finished + CLOCK_SKEW_S {
                    c.push(
                        file,
                        format!("$.stages.cache.pairs[{i}].{half}.started_at"),
                        format!(
                            "{} is outside its run ({} to {}, with {} of clock skew allowed); a transfer starts \
                             during the run that records it",
                            t.started_at,
                            m.provenance.started_at,
                            m.provenance.finished_at,
                            duration(CLOCK_SKEW_S)
                        ),
                    );
                }
            }
        }
    }
}

/// The time rules of an imported result that need no clock.
///
/// The measurement day may precede the project (reports were published
/// before it began) but not the import.
pub(super) fn imported(c: &mut Collector, file: &str, i: &ImportedResult) {
    before_epoch(c, file, DateField::Imported, &i.source.imported_at);
    if let Some(day) = &i.source.measured_on
        && day.as_str() > i.source.imported_at.date()
    {
        c.push(
            file,
            "$.source.measured_on".to_string(),
            format!(
                "{day} is after the import ({}): a report cannot be measured after it is imported",
                i.source.imported_at
            ),
        );
    }
}

/// The dates that `future` compares with the clock, with their JSON paths.
fn clock_dates(result: &AnyResult) -> Vec<(DateField, &Timestamp)> {
    match result {
        AnyResult::Measured(m) => measured_dates(m),
        AnyResult::Imported(i) => vec![(DateField::Imported, &i.source.imported_at)],
    }
}

/// The latest of `clock_dates(result)`, seconds since 1970. Made once per
/// file, on the file's own CPU, and kept with its check: the clock moves
/// between checks (every `site serve` rebuild), the file does not, and
/// listing and parsing every date of 10,000 files took a few per cent of
/// each rebuild, on one CPU.
pub(super) fn latest_s(result: &AnyResult) -> i64 {
    clock_dates(result).into_iter().map(|(_, t)| t.instant().as_second()).max().unwrap_or(i64::MIN)
}

/// Dates after the time of the check, `now`, beyond the clock-skew
/// allowance; `latest_s` is `latest_s(result)`, so that a file with no
/// such date costs one comparison.
pub(super) fn future(c: &mut Collector, file: &str, result: &AnyResult, latest_s: i64, now: jiff::Timestamp) {
    let now_s = now.as_second();
    if latest_s <= now_s + CLOCK_SKEW_S {
        return;
    }
    for (field, t) in clock_dates(result) {
        if t.instant().as_second() > now_s + CLOCK_SKEW_S {
            let now = jiff::Timestamp::from_second(now_s).unwrap_or(now);
            c.push(
                file,
                field.to_string(),
                format!(
                    "{t} is in the future: the check ran at {now}, and at most {} of clock skew is allowed",
                    duration(CLOCK_SKEW_S)
                ),
            );
        }
    }
}

/// The longest a run of `m` can last, seconds, and what kind of run that
/// is, for the message.
///
/// A result with a cache stage or with `provenance.jobs` was assembled from
/// several jobs (`collector assemble`): a cache pair's save and restore run
/// on different OS instances, so never in one `collector run`. Such a run
/// lasts as long as its workflow: the jobs run one after the other, each
/// may wait for a runner as long as GitHub allows and then run until its
/// `timeout-minutes` (a gap job at least the publication gap), and where a
/// job was re-run (`run_attempt` above 1, or a run outside GitHub, which
/// records no attempt) the re-run window comes on top. The bound is
/// generous, because GitHub's queue and re-run limits dominate it; it still
/// refuses runs of months or years.
///
/// Any other result was written by one `collector run`: each requested
/// sample of each stage it holds lasts at most `sample_timeout_s`, plus
/// `RUN_MARGIN_S`.
fn longest_run(m: &MeasuredResult) -> (i64, String) {
    let p: &Parameters = &m.parameters;
    let timeout = i64::from(p.sample_timeout_s);
    if m.stages.cache.is_some() || !m.provenance.jobs.is_empty() {
        let trials = i64::from(p.cache_trials);
        let gap = (GAP_JOB_MIN * 60).max(i64::from(p.cache_publication_gap_s));
        let attempt = GITHUB_QUEUE_S
            + MEASURE_JOB_MIN * 60
            + trials * (3 * GITHUB_QUEUE_S + (SAVE_JOB_MIN + RESTORE_JOB_MIN) * 60 + gap);
        let rerun = m.provenance.github.as_ref().is_none_or(|g| g.run_attempt > 1);
        let bound = attempt + if rerun { GITHUB_RERUN_WINDOW_S } else { 0 };
        let why = format!(
            "a benchmark workflow of {trials} cache trials (each job's wait for a runner and timeout-minutes{})",
            if rerun { ", plus GitHub's 30-day re-run window" } else { "" }
        );
        return (bound, why);
    }
    let stages = &m.stages;
    let mut samples: i64 = 0;
    if stages.cpu.is_some() {
        samples += i64::from(p.cpu_samples);
    }
    if stages.cpu_allcore.is_some() {
        samples += i64::from(p.cpu_samples);
    }
    if stages.disk.is_some() {
        samples += i64::from(p.disk_samples);
    }
    if stages.internet.is_some() {
        samples += 2 * i64::from(p.internet_samples) + i64::from(p.internet_request_samples);
    }
    if let Some(http) = &stages.http_cache {
        samples += http.runs.len() as i64;
    }
    let why = format!(
        "one collector run of {samples} samples ({samples} × sample_timeout_s {timeout} s, plus {} for setup and \
         overruns)",
        duration(RUN_MARGIN_S)
    );
    (samples * timeout + RUN_MARGIN_S, why)
}

/// A duration for people: `10 min`, `1 h 2 min`, `41 d 5 h`.
fn duration(s: i64) -> String {
    let (d, h, m, sec) = (s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{sec} s"),
        (0, 0, _) if sec == 0 => format!("{m} min"),
        (0, 0, _) => format!("{m} min {sec} s"),
        (0, _, _) => format!("{h} h {m} min"),
        _ => format!("{d} d {h} h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workflow's `timeout-minutes` of each job kind, as the bound of
    /// an assembled run assumes them.
    #[test]
    fn the_job_limits_are_the_workflows() {
        let yml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../.github/workflows/benchmark.yml"))
            .unwrap();
        let limit = |job: &str| -> i64 {
            let at = yml.find(&format!("\n  {job}:\n")).unwrap_or_else(|| panic!("no job {job}"));
            let rest = &yml[at..];
            let line = rest.lines().find(|l| l.trim_start().starts_with("timeout-minutes:")).unwrap();
            line.split(':').nth(1).unwrap().trim().parse().unwrap()
        };
        assert_eq!(limit("measure"), MEASURE_JOB_MIN);
        for trial in 1..=3 {
            assert_eq!(limit(&format!("save-{trial}")), SAVE_JOB_MIN);
            assert_eq!(limit(&format!("gap-{trial}")), GAP_JOB_MIN);
            assert_eq!(limit(&format!("restore-{trial}")), RESTORE_JOB_MIN);
        }
        // The workflow runs three trials: the standard profile's.
        assert!(!yml.contains("\n  save-4:\n"));
        assert_eq!(runner_bench_format::Profile::Standard.parameters().cache_trials, 3);
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(600), "10 min");
        assert_eq!(duration(61), "1 min 1 s");
        assert_eq!(duration(3720), "1 h 2 min");
        assert_eq!(duration(90000), "1 d 1 h");
        assert_eq!(duration(5), "5 s");
    }

    #[test]
    fn the_epoch_is_the_first_commits_day() {
        assert_eq!(epoch_s(), jiff::Timestamp::from_second(epoch_s()).unwrap().as_second());
        assert_eq!(jiff::Timestamp::from_second(epoch_s()).unwrap().to_string(), PROJECT_EPOCH);
    }
}
