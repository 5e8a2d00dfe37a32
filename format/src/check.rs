//! Consistency rules that span fields of one file, which the types alone
//! cannot express: the fingerprint agrees with the parameters, a sample's
//! figures agree with its status, counts stay within what was requested.
//!
//! Every problem is reported, not only the first, each with its JSON path.

use std::fmt;

use crate::measured::{
    CacheMethod, CacheStage, CpuAllCoreStage, CpuStage, DiskStage, GitHubRun, HttpCacheDeclared, HttpCacheRun,
    HttpCacheServer, HttpCacheStage, InternetStage, JobOutcome, MeasuredResult, RunRecord, STAGE_NAMES, Status,
    benchmark_job_trial,
};
use crate::params::Parameters;
use crate::values::Message;
use crate::values::NonNeg;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON path of the field.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl Problem {
    fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Problem { field: field.into(), reason: reason.into() }
    }
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn push(&mut self, field: impl Into<String>, reason: impl Into<String>) {
        self.0.push(Problem::new(field, reason));
    }

    /// A sample's status and its figures must agree: an `ok` sample has every
    /// figure, any other sample says what went wrong.
    ///
    /// The path comes as `format_args!`, written out only for a problem: a
    /// check of 10,000 results passes about 500,000 samples here.
    fn outcome(
        &mut self,
        path: fmt::Arguments<'_>,
        status: Status,
        message: &Option<Message>,
        figures: &[(&str, bool)],
    ) {
        if status == Status::Ok {
            for (name, present) in figures {
                if !present {
                    self.push(format!("{path}.{name}"), "required when status is \"ok\"");
                }
            }
        } else if message.is_none() {
            self.push(format!("{path}.message"), "required when status is not \"ok\"");
        }
    }

    /// What the collector observed agrees with itself and with the URL.
    fn http_cache_server(&mut self, server: &HttpCacheServer) {
        let Some(observed) = &server.observed else { return };
        let path = "$.stages.http_cache.server.observed";
        let https = server.url.as_str().to_ascii_lowercase().starts_with("https://");
        if observed.tls != https {
            self.push(
                format!("{path}.tls"),
                format!(
                    "is {} but the url {} is {}; TLS is observed from the URL the stage measured",
                    observed.tls,
                    server.url,
                    if https { "https" } else { "not https" }
                ),
            );
        }
        match (observed.bandwidth_mbps, observed.bandwidth_bytes) {
            (Some(_), None) => self.push(
                format!("{path}.bandwidth_bytes"),
                "required with bandwidth_mbps: a bandwidth is the bytes of one GET over its time",
            ),
            (None, Some(_)) => {
                self.push(format!("{path}.bandwidth_mbps"), "required with bandwidth_bytes, the GET it measures")
            }
            (Some(_), Some(0)) => self
                .push(format!("{path}.bandwidth_bytes"), "0 bytes; a bandwidth is measured on a GET that moves bytes"),
            _ => {}
        }
    }

    /// A run's backend and quotas are the ones the server's owner declared,
    /// `undeclared` for a backend none was given for.
    fn declared_run(&mut self, path: &str, run: &HttpCacheRun, declared: &HttpCacheDeclared) {
        let backend = declared.backend.as_ref().map_or("undeclared", |b| b.as_str());
        if run.backend.as_str() != backend {
            self.push(
                format!("{path}.backend"),
                format!(
                    "\"{}\" is not the declared backend \"{backend}\" (server.declared.backend); a run's backend is \
                     the declared one",
                    run.backend
                ),
            );
        }
        let shown = |v: Option<NonNeg>| v.map_or("none".to_string(), |v| v.get().to_string());
        for (name, got, want) in [
            ("cpu_quota", run.cpu_quota, declared.cpu_quota),
            ("memory_quota_gb", run.memory_quota_gb, declared.memory_quota_gb),
        ] {
            if got != want {
                self.push(
                    format!("{path}.{name}"),
                    format!(
                        "{} is not the declared {} (server.declared.{name}); a run's quotas are the declared ones",
                        shown(got),
                        shown(want)
                    ),
                );
            }
        }
    }

    /// GitHub's record of the run agrees with itself and names the run the
    /// file names: the signing job wrote both from the same run.
    fn run_record(&mut self, record: &RunRecord, github: Option<&GitHubRun>) {
        let path = "$.provenance.run_record";
        if record.run_attempt == 0 {
            self.push(format!("{path}.run_attempt"), "is 0; GitHub counts a run's attempts from 1");
        }
        match github {
            None => self.push(
                "$.provenance.github",
                "required with run_record: the file names the run whose record it carries",
            ),
            Some(gh) => {
                for (name, got, want) in [
                    ("repository", gh.repository.to_string(), record.repository.to_string()),
                    ("run_id", gh.run_id.to_string(), record.run_id.to_string()),
                    ("run_attempt", gh.run_attempt.to_string(), record.run_attempt.to_string()),
                ] {
                    if got != want {
                        self.push(
                            format!("$.provenance.github.{name}"),
                            format!(
                                "is {got} but run_record.{name} is {want}; the file names the run GitHub's record is of"
                            ),
                        );
                    }
                }
            }
        }
        for (i, job) in record.jobs.iter().enumerate() {
            let at = format!("{path}.jobs[{i}]");
            if job.attempt == 0 {
                self.push(format!("{at}.attempt"), "is 0; GitHub counts a run's attempts from 1");
            } else if job.attempt > record.run_attempt {
                self.push(
                    format!("{at}.attempt"),
                    format!(
                        "attempt {} is after the run's attempt {} (run_record.run_attempt); the record is read in the run's latest attempt",
                        job.attempt, record.run_attempt
                    ),
                );
            }
            let id = job.job.as_str();
            if benchmark_job_trial(id).is_none() {
                self.push(
                    format!("{at}.job"),
                    format!("\"{id}\" is not a measuring job of benchmark.yml (measure, save-N, gap-N, restore-N)"),
                );
            } else {
                let name = job.name.as_str();
                if !name.starts_with(&format!("{id}: ")) && !name.contains(&format!(" / {id}: ")) {
                    self.push(
                        format!("{at}.name"),
                        format!(
                            "{name:?} is not the name of job {id}; GitHub names it \"{id}: <description>\", after the calling job's name and \" / \" in a called workflow"
                        ),
                    );
                }
            }
            if job.started_at.instant() < job.created_at.instant() {
                self.push(format!("{at}.started_at"), "is earlier than created_at");
            }
            if let Some(done) = &job.completed_at
                && done.instant() < job.started_at.instant()
            {
                self.push(format!("{at}.completed_at"), "is earlier than started_at");
            }
            if record.jobs[..i].iter().any(|o| o.job == job.job && o.attempt == job.attempt) {
                self.push(
                    at,
                    format!("job {id} of attempt {} is listed twice; a job runs once in each attempt", job.attempt),
                );
            }
        }
    }

    /// The all-core stage: part of the profile, its samples within
    /// `cpu_samples`, and an `ok` sample records each of its contexts.
    fn cpu_allcore(&mut self, all: &CpuAllCoreStage, params: &Parameters) {
        if params.cpu_allcore != Some(true) {
            self.push(
                "$.stages.cpu_allcore",
                "the parameters have no all-core stage (parameters.cpu_allcore is not true)",
            );
        }
        self.attempts("$.stages.cpu_allcore.samples", all.samples.len(), params.cpu_samples, "parameters.cpu_samples");
        for (i, s) in all.samples.iter().enumerate() {
            let path = format_args!("$.stages.cpu_allcore.samples[{i}]");
            self.outcome(
                path,
                s.status,
                &s.message,
                &[
                    ("iterations", s.iterations.is_some()),
                    ("elapsed_s", s.elapsed_s.is_some()),
                    ("validation", s.validation.is_some()),
                ],
            );
            if s.contexts == 0 {
                self.push(format!("{path}.contexts"), "0 contexts: a sample runs one per logical CPU, at least one");
            }
            if s.status == Status::Ok {
                if s.threads.len() != s.contexts as usize {
                    self.push(
                        format!("{path}.threads"),
                        format!(
                            "{} threads recorded for {} contexts: an \"ok\" sample records every context",
                            s.threads.len(),
                            s.contexts
                        ),
                    );
                }
                for (k, t) in s.threads.iter().enumerate() {
                    if t.crcs.is_none() {
                        self.push(format!("{path}.threads[{k}].crcs"), "required when status is \"ok\"");
                    }
                }
            }
        }
    }

    /// Each job of the workflow ends once, measuring known stages, each
    /// once.
    fn jobs(&mut self, jobs: &[JobOutcome]) {
        for (i, job) in jobs.iter().enumerate() {
            if jobs[..i].iter().any(|o| o.job == job.job) {
                self.push(
                    format!("$.provenance.jobs[{i}].job"),
                    format!("job \"{}\" is listed twice; each job of the workflow ends once", job.job),
                );
            }
            for (j, stage) in job.stages.iter().enumerate() {
                if job.stages[..j].contains(stage) {
                    self.push(
                        format!("$.provenance.jobs[{i}].stages[{j}]"),
                        format!("stage \"{stage}\" is listed twice"),
                    );
                }
                if !STAGE_NAMES.contains(&stage.as_str()) {
                    self.push(
                        format!("$.provenance.jobs[{i}].stages[{j}]"),
                        format!(
                            "unknown stage \"{stage}\"; a job measures cpu, cpu_allcore, disk, internet, cache or \
                             http_cache"
                        ),
                    );
                }
            }
        }
    }

    fn cpu(&mut self, cpu: &CpuStage, params: &Parameters) {
        self.attempts("$.stages.cpu.samples", cpu.samples.len(), params.cpu_samples, "parameters.cpu_samples");
        for (i, s) in cpu.samples.iter().enumerate() {
            self.outcome(
                format_args!("$.stages.cpu.samples[{i}]"),
                s.status,
                &s.message,
                &[
                    ("iterations", s.iterations.is_some()),
                    ("elapsed_s", s.elapsed_s.is_some()),
                    ("crcs", s.crcs.is_some()),
                    ("validation", s.validation.is_some()),
                ],
            );
        }
    }

    fn disk(&mut self, disk: &DiskStage, params: &Parameters) {
        self.attempts("$.stages.disk.samples", disk.samples.len(), params.disk_samples, "parameters.disk_samples");
        for (i, s) in disk.samples.iter().enumerate() {
            self.outcome(
                format_args!("$.stages.disk.samples[{i}]"),
                s.status,
                &s.message,
                &[
                    ("seq_read", s.seq_read.is_some()),
                    ("seq_write", s.seq_write.is_some()),
                    ("rand_read", s.rand_read.is_some()),
                    ("rand_write", s.rand_write.is_some()),
                ],
            );
        }
    }

    /// Backend ids unique, pairs naming a backend within the trials, one
    /// method per backend, action steps only where the method is action.
    fn cache(&mut self, cache: &CacheStage, params: &Parameters) {
        for (i, b) in cache.backends.iter().enumerate() {
            if cache.backends[..i].iter().any(|o| o.id == b.id) {
                self.push(format!("$.stages.cache.backends[{i}].id"), format!("backend id \"{}\" is used twice", b.id));
            }
        }
        for (i, pair) in cache.pairs.iter().enumerate() {
            let path = format!("$.stages.cache.pairs[{i}]");
            if !cache.backends.iter().any(|b| b.id == pair.backend) {
                self.push(format!("{path}.backend"), format!("no backend has the id \"{}\"", pair.backend));
            }
            if pair.trial == 0 || pair.trial > params.cache_trials {
                self.push(
                    format!("{path}.trial"),
                    format!("trial {} is outside 1 to {} (parameters.cache_trials)", pair.trial, params.cache_trials),
                );
            }
            if let Some(first) = cache.pairs[..i].iter().find(|o| o.backend == pair.backend)
                && first.method != pair.method
            {
                self.push(
                    format!("{path}.method"),
                    format!(
                        "method {} differs from the {} of backend \"{}\"'s earlier pairs; one backend is measured \
                         one way",
                        pair.method.name(),
                        first.method.name(),
                        pair.backend
                    ),
                );
            }
            let action = pair.method == CacheMethod::Action;
            for (half, t) in [("save", Some(&pair.save)), ("restore", pair.restore.as_ref())] {
                match (action, t.map(|t| t.action.is_some())) {
                    (true, Some(false)) => self.push(
                        format!("{path}.{half}.action"),
                        "required for a pair of method action (the action step and what was observed of it)",
                    ),
                    (false, Some(true)) => {
                        self.push(format!("{path}.{half}.action"), "only a pair of method action has an action step")
                    }
                    _ => {}
                }
            }
            self.outcome(
                format_args!("{path}.save"),
                pair.save.status,
                &pair.save.message,
                &[("seconds", pair.save.seconds.is_some())],
            );
            if let Some(restore) = &pair.restore {
                self.outcome(
                    format_args!("{path}.restore"),
                    restore.status,
                    &restore.message,
                    &[("seconds", restore.seconds.is_some())],
                );
                if pair.verification.is_none() {
                    self.push(format!("{path}.verification"), "required when a restore was attempted");
                }
            }
        }
    }

    fn internet(&mut self, net: &InternetStage, params: &Parameters) {
        let n = params.internet_samples;
        self.attempts("$.stages.internet.download", net.download.len(), n, "parameters.internet_samples");
        self.attempts("$.stages.internet.upload", net.upload.len(), n, "parameters.internet_samples");
        for (name, samples) in [("download", &net.download), ("upload", &net.upload)] {
            for (i, s) in samples.iter().enumerate() {
                self.outcome(format_args!("$.stages.internet.{name}[{i}]"), s.status, &s.message, &[]);
            }
        }
        self.attempts(
            "$.stages.internet.request",
            net.request.len(),
            params.internet_request_samples,
            "parameters.internet_request_samples",
        );
        for (i, s) in net.request.iter().enumerate() {
            self.outcome(
                format_args!("$.stages.internet.request[{i}]"),
                s.status,
                &s.message,
                &[("ms", s.ms.is_some())],
            );
        }
    }

    /// The server, and one run per cell of the profile's grid.
    fn http_cache(&mut self, http: &HttpCacheStage, params: &Parameters) {
        self.http_cache_server(&http.server);
        for (i, run) in http.runs.iter().enumerate() {
            if let Some(declared) = &http.server.declared {
                self.declared_run(&format!("$.stages.http_cache.runs[{i}]"), run, declared);
            }
            // One run per cell of the profile's grid: request size ×
            // connections.
            let in_grid = params.http_cache_value_bytes.contains(&run.value_bytes)
                && params.http_cache_connections.contains(&run.connections);
            if !in_grid {
                self.push(
                    format!("$.stages.http_cache.runs[{i}]"),
                    format!(
                        "{} bytes over {} connections is not a cell of the profile's grid \
                         (parameters.http_cache_value_bytes × http_cache_connections)",
                        run.value_bytes, run.connections
                    ),
                );
            } else if http.runs[..i].iter().any(|o| {
                o.backend == run.backend && o.value_bytes == run.value_bytes && o.connections == run.connections
            }) {
                self.push(
                    format!("$.stages.http_cache.runs[{i}]"),
                    format!(
                        "backend \"{}\" at {} bytes over {} connections is measured twice; each cell is run once",
                        run.backend, run.value_bytes, run.connections
                    ),
                );
            }
            for (name, phase) in [("put", &run.put), ("get", &run.get)] {
                self.outcome(format_args!("$.stages.http_cache.runs[{i}].{name}"), phase.status, &phase.message, &[]);
            }
        }
    }

    fn attempts(&mut self, path: &str, attempted: usize, requested: u32, parameter: &str) {
        if attempted > requested as usize {
            self.push(path, format!("{attempted} samples attempted but {parameter} requested {requested}"));
        }
    }
}

impl MeasuredResult {
    /// Every broken cross-field rule of this result.
    pub fn problems(&self) -> Vec<Problem> {
        let mut p = Problems::default();
        let params = &self.parameters;
        let computed = params.fingerprint();
        if computed != self.fingerprint {
            p.push("$.fingerprint", format!("recorded {} but the parameters give {computed}", self.fingerprint));
        }
        if self.provenance.finished_at.instant() < self.provenance.started_at.instant() {
            p.push("$.provenance.finished_at", "is earlier than started_at");
        }
        p.jobs(&self.provenance.jobs);
        if let Some(record) = &self.provenance.run_record {
            p.run_record(record, self.provenance.github.as_ref());
        }
        let stages = &self.stages;
        if let Some(cpu) = &stages.cpu {
            p.cpu(cpu, params);
        }
        if let Some(all) = &stages.cpu_allcore {
            p.cpu_allcore(all, params);
        }
        if let Some(disk) = &stages.disk {
            p.disk(disk, params);
        }
        if let Some(cache) = &stages.cache {
            p.cache(cache, params);
        }
        if let Some(net) = &stages.internet {
            p.internet(net, params);
        }
        if let Some(http) = &stages.http_cache {
            p.http_cache(http, params);
        }
        p.0
    }
}
