//! Which rules of their own a measured or an imported result is held to,
//! in the order their problems are reported, and the rules of an
//! exclusions file.

use std::path::Path;

use runner_bench_format::imported::{Aggregate, ImportedResult};
use runner_bench_format::measured::{CacheStage, CpuStage, JobOutcome, MeasuredResult, Status, Validation};

use super::findings::{Collector, Note, because};
use super::{claims, durations, figures, imported_figures, interrupted, profiles, rows, time};
use crate::exclusions::Exclusions;

/// The rules of an exclusions file; `accepted` holds the paths of the
/// accepted results, below the results folder.
pub(super) fn exclusion_rules(c: &mut Collector, ex: &Exclusions, accepted: &std::collections::HashSet<&str>) {
    let file = ex.path.display().to_string();
    let root = ex.path.parent().unwrap_or(Path::new(""));
    match &ex.entries {
        Err(e) => c.push(&file, "$", format!("not a valid exclusions file: {e}")),
        Ok(entries) => {
            for (i, e) in entries.iter().enumerate() {
                // A path that leaves the folder (`..`, absolute) could point
                // at any file on the machine that runs the check.
                let below = Path::new(&e.file)
                    .components()
                    .all(|part| matches!(part, std::path::Component::Normal(_) | std::path::Component::CurDir));
                let known = accepted.contains(e.file.as_str()) || (below && root.join(&e.file).is_file());
                if !below {
                    c.push(
                        &file,
                        format!("exclude[{i}].file"),
                        format!("{} leaves this folder; name a result file below it, without ..", e.file),
                    );
                } else if !known {
                    c.push(&file, format!("exclude[{i}].file"), format!("no result file {} in this folder", e.file));
                }
                // Shown on the site and in the reports beside the result: the
                // rules of a message in a result file.
                if e.reason.trim().is_empty() {
                    c.push(&file, format!("exclude[{i}].reason"), "must say why the result is excluded");
                } else if let Err(why) = runner_bench_format::Message::new(e.reason.clone()) {
                    c.push(&file, format!("exclude[{i}].reason"), why);
                }
                if entries[..i].iter().any(|o| o.file == e.file) {
                    c.push(&file, format!("exclude[{i}].file"), format!("{} is excluded twice", e.file));
                }
            }
        }
    }
}

/// What a rejected shortfall adds when the file records jobs: none of
/// them explains it.
fn unexplained(m: &MeasuredResult) -> &'static str {
    if m.provenance.jobs.is_empty() { "" } else { "; no job in provenance.jobs that measures it ended without success" }
}

/// The format's cross-field rules plus the published complete-sample and
/// cache rules. Returns the rules met by an exception: fewer samples or
/// pairs than requested, where a job that did not succeed measured them.
pub(super) fn measured_rules(c: &mut Collector, file: &str, m: &MeasuredResult) -> Vec<Note> {
    for p in m.problems() {
        c.push(file, p.field, p.reason);
    }
    figures::measured(c, file, m);
    durations::measured(c, file, m);
    claims::measured(c, file, m);
    time::measured(c, file, m);
    let mut notes: Vec<Note> = profiles::tryout_note(m).into_iter().collect();
    attempted_samples(c, file, m, &mut notes);
    if let Some(cpu) = &m.stages.cpu {
        cpu_validation(c, file, cpu);
    }
    if let Some(cache) = &m.stages.cache {
        cache_pairs(c, file, cache);
        cache_trials(c, file, m, cache, &mut notes);
    }
    notes.extend(interrupted::rules(c, file, m));
    notes
}

/// The jobs that did not succeed and measure `stage` (and `trial`).
fn explaining<'m>(m: &'m MeasuredResult, stage: &str, trial: Option<u32>) -> Vec<&'m JobOutcome> {
    m.provenance.jobs.iter().filter(|j| j.explains(stage, trial)).collect()
}

/// Every requested sample is attempted, or a job that did not succeed
/// explains the shortfall (a note, not a problem).
fn attempted_samples(c: &mut Collector, file: &str, m: &MeasuredResult, notes: &mut Vec<Note>) {
    let params = &m.parameters;
    let mut attempted = |stage: &str, field: &str, n: usize, requested: u32, parameter: &str| {
        if n >= requested as usize {
            return;
        }
        let shortfall = format!("{n} of {requested} requested samples attempted ({parameter})");
        let jobs = explaining(m, stage, None);
        if jobs.is_empty() {
            c.push(
                file,
                field,
                format!(
                    "{shortfall}; every requested sample is attempted, including after a sample timeout{}",
                    unexplained(m)
                ),
            );
        } else {
            notes.push(Note { field: field.to_string(), reason: format!("{shortfall}; {}", because(&jobs)) });
        }
    };
    if let Some(cpu) = &m.stages.cpu {
        attempted("cpu", "$.stages.cpu.samples", cpu.samples.len(), params.cpu_samples, "parameters.cpu_samples");
    }
    if let Some(disk) = &m.stages.disk {
        let n = disk.samples.len();
        attempted("disk", "$.stages.disk.samples", n, params.disk_samples, "parameters.disk_samples");
    }
    if let Some(net) = &m.stages.internet {
        let n = params.internet_samples;
        attempted("internet", "$.stages.internet.download", net.download.len(), n, "parameters.internet_samples");
        attempted("internet", "$.stages.internet.upload", net.upload.len(), n, "parameters.internet_samples");
        attempted(
            "internet",
            "$.stages.internet.request",
            net.request.len(),
            params.internet_request_samples,
            "parameters.internet_request_samples",
        );
    }
}

/// A sample whose CoreMark validation failed is never "ok".
fn cpu_validation(c: &mut Collector, file: &str, cpu: &CpuStage) {
    for (i, s) in cpu.samples.iter().enumerate() {
        if s.status == Status::Ok && s.validation == Some(Validation::Failed) {
            c.push(
                file,
                format!("$.stages.cpu.samples[{i}].validation"),
                "CoreMark validation failed, so the sample is not accepted; its status must not be \"ok\"",
            );
        }
    }
}

/// A trial is never retried, its restore comes from another OS instance,
/// and a routing that matches agrees with the backend's kind.
fn cache_pairs(c: &mut Collector, file: &str, cache: &CacheStage) {
    for (i, pair) in cache.pairs.iter().enumerate() {
        let path = format!("$.stages.cache.pairs[{i}]");
        let retried = cache.pairs[..i].iter().any(|o| o.backend == pair.backend && o.trial == pair.trial);
        if retried {
            c.push(
                file,
                path.clone(),
                format!(
                    "backend \"{}\" trial {} appears twice; a miss is a failure and is never retried or replaced",
                    pair.backend, pair.trial
                ),
            );
        }
        // Only instances known to be one are refused: an unknown id equals
        // nothing, and the restore's notice says it could not be checked.
        if let Some(restore) = &pair.restore
            && restore.instance.same_as(&pair.save.instance) == Some(true)
        {
            c.push(
                file,
                format!("{path}.restore.instance"),
                format!(
                    "the restore ran on the save's OS instance (boot_id {}); a restore must come from a different \
                     OS instance than its save",
                    restore.instance.boot_id
                ),
            );
        }
        let kind = cache.backends.iter().find(|b| b.id == pair.backend).map(|b| b.kind);
        if let Some(v) = &pair.verification
            && v.routing.matches
            && kind.is_some_and(|kind| !v.routing.consistent(kind))
        {
            c.push(
                file,
                format!("{path}.verification.routing.matches"),
                format!(
                    "is true but the observed routing \"{}\" differs from the expected \"{}\"",
                    v.routing.observed, v.routing.expected
                ),
            );
        }
    }
}

/// Every trial of every backend is attempted, or a job of that trial that
/// did not succeed explains it (a note, not a problem).
fn cache_trials(c: &mut Collector, file: &str, m: &MeasuredResult, cache: &CacheStage, notes: &mut Vec<Note>) {
    let params = &m.parameters;
    for b in &cache.backends {
        let n = cache.pairs.iter().filter(|p| p.backend == b.id).count();
        if n >= params.cache_trials as usize {
            continue;
        }
        let shortfall = format!(
            "backend \"{}\" has {n} of {} requested pairs (parameters.cache_trials)",
            b.id, params.cache_trials
        );
        // Each missing trial must be explained by a job of that trial.
        let missing =
            (1..=params.cache_trials).filter(|&t| !cache.pairs.iter().any(|p| p.backend == b.id && p.trial == t));
        let mut jobs: Vec<&JobOutcome> = Vec::new();
        let mut explained = true;
        for t in missing {
            let those = explaining(m, "cache", Some(t));
            explained &= !those.is_empty();
            for j in those {
                if !jobs.contains(&j) {
                    jobs.push(j);
                }
            }
        }
        // (Nothing missing by trial means out-of-range trials, which the
        // format's rules reject already.)
        if explained && !jobs.is_empty() {
            notes.push(Note {
                field: "$.stages.cache.pairs".to_string(),
                reason: format!("{shortfall}; {}", because(&jobs)),
            });
        } else {
            c.push(file, "$.stages.cache.pairs", format!("{shortfall}; every trial is attempted{}", unexplained(m)));
        }
    }
}

/// Published aggregates must be self-consistent: a median within its
/// range, no more verified pairs or completed samples than attempted.
pub(super) fn imported_rules(c: &mut Collector, file: &str, i: &ImportedResult) {
    imported_figures::imported(c, file, i);
    time::imported(c, file, i);
    profiles::imported(c, file, i);
    rows::imported(c, file, i);
    if let Some(cpu) = &i.stages.cpu {
        aggregate(c, file, "$.stages.cpu.iterations_per_s".to_string(), &cpu.iterations_per_s);
    }
    if let Some(cache) = &i.stages.cache {
        for (n, b) in cache.backends.iter().enumerate() {
            aggregate(c, file, format!("$.stages.cache.backends[{n}].save_s"), &b.save_s);
            aggregate(c, file, format!("$.stages.cache.backends[{n}].restore_s"), &b.restore_s);
            if b.verified_pairs > b.pairs {
                c.push(
                    file,
                    format!("$.stages.cache.backends[{n}].verified_pairs"),
                    format!("{} verified pairs of {} pairs", b.verified_pairs, b.pairs),
                );
            }
        }
    }
    if let Some(counts) = i.stages.disk.as_ref().and_then(|d| d.counts)
        && !(counts.completed <= counts.attempted && counts.attempted <= counts.requested)
    {
        c.push(
            file,
            "$.stages.disk.counts",
            format!(
                "{} completed / {} attempted / {} requested is not possible",
                counts.completed, counts.attempted, counts.requested
            ),
        );
    }
}

fn aggregate(c: &mut Collector, file: &str, field: String, a: &Aggregate) {
    let (min, median, max) = (a.min.get(), a.median.get(), a.max.get());
    if !(min <= median && median <= max) {
        c.push(file, field, format!("the median {median} is outside the range {min}–{max}"));
    }
}
