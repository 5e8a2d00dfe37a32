//! What a runner page says about one result beyond its figures: the machine
//! and the build it records, and why a stage (or a cache backend) is
//! incomplete, so that a failed stage marks its own row and not the whole
//! result's.
//!
//! Measured results record every field; imported ones only what their
//! report published, and the rest reads `not published`.

use runner_bench_format::AnyResult;
use runner_bench_format::imported::ImportedResult;
use runner_bench_format::measured::{
    CacheStage, CoreMarkImplementation, CpuStage, DiskStage, InternetStage, JobOutcome, MeasuredResult, Status,
    vcpu_worth,
};

use crate::figures::NONE;

/// What a field an imported report did not publish reads.
pub const NOT_PUBLISHED: &str = "not published";

/// One result's machine and build, and why a stage is incomplete.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Details {
    pub machine: Machine,
    pub reasons: Reasons,
    /// Its run, where the result has a run record (`run::of`).
    pub run: Option<super::run::RunView>,
    /// Its one-thread and all-core CoreMark and what a vCPU is worth,
    /// where it ran the all-core stage.
    pub cores: Option<Cores>,
}

/// A result's CoreMark on one thread and on all its logical CPUs, as the
/// runner page prints them: medians of the accepted samples, two decimals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cores {
    pub one_thread: String,
    pub all_core: String,
    /// The contexts the all-core samples ran: the logical CPUs offered.
    pub contexts: String,
    /// `vcpu_worth`: all-core ÷ (one-thread × contexts).
    pub worth: String,
}

/// The cores figures of `m`, where it has an all-core stage.
fn cores(m: &MeasuredResult) -> Option<Cores> {
    let (one, all) = (m.stages.cpu.as_ref()?, m.stages.cpu_allcore.as_ref()?);
    let median =
        |v: Vec<f64>| runner_bench_format::stats::median(&v).map_or_else(|| NONE.to_string(), crate::figures::two);
    let accepted = || all.samples.iter().filter(|s| s.iterations_per_s().is_some());
    Some(Cores {
        one_thread: median(one.samples.iter().filter_map(|s| s.iterations_per_s()).collect()),
        all_core: median(accepted().filter_map(|s| s.iterations_per_s()).collect()),
        contexts: accepted().next().map_or_else(|| NONE.to_string(), |s| s.contexts.to_string()),
        worth: vcpu_worth(one, all).map_or_else(|| NONE.to_string(), crate::figures::two),
    })
}

/// One result's machine and build, as its file records them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Machine {
    pub cpu_model: String,
    pub logical_cpus: String,
    /// GiB, two decimals.
    pub memory: String,
    /// OS and release, e.g. `linux, Ubuntu 24.04.3 LTS`.
    pub os: String,
    pub kernel: String,
    pub virtualization: String,
    /// The runner image and its version.
    pub image: String,
    pub arch: String,
    /// The collector's version and revision, or `imported`.
    pub collector: String,
    /// Which CoreMark sources ran.
    pub implementation: String,
    pub compiler: String,
    /// Flags, C standard and defines, as the reports print them.
    pub flags: String,
    /// The eembc/coremark commit compiled (EEMBC's sources only).
    pub eembc_commit: String,
    /// Other machine details an imported report published (`name: value`).
    pub other: String,
    /// The logical CPUs and memory bytes a measured result recorded, which
    /// runner pages compare with the provider file's sizes.
    pub recorded: Option<(u32, u64)>,
}

/// Why a stage's figures are incomplete, where they are: each failed or
/// missing sample with its status and message, and the jobs that did not
/// succeed. `None` where the stage is complete or the file says nothing
/// (imported reports publish no samples).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reasons {
    pub cpu: Option<String>,
    pub disk: Option<String>,
    /// By cache backend, in the order of the entry's cache rows.
    pub cache: Vec<Option<String>>,
    pub internet: Option<String>,
}

/// The details of `result`.
pub fn of(result: &AnyResult) -> Details {
    match result {
        AnyResult::Measured(m) => measured(m),
        AnyResult::Imported(i) => imported(i),
    }
}

fn measured(m: &MeasuredResult) -> Details {
    let mc = &m.machine;
    let os = mc.os.name();
    let coremark = &m.build.coremark;
    let revision: String = m.collector.revision.as_str().chars().take(12).collect();
    let p = &m.parameters;
    let jobs = &m.provenance.jobs;
    let machine = Machine {
        cpu_model: mc.cpu_model.to_string(),
        logical_cpus: mc.logical_cpus.to_string(),
        memory: format!("{} GiB", crate::figures::two(mc.memory_bytes as f64 / (1u64 << 30) as f64)),
        os: format!("{os}, {}", mc.os_release),
        kernel: mc.kernel.to_string(),
        virtualization: mc.virtualization.as_ref().map_or_else(|| NONE.to_string(), |v| v.to_string()),
        image: m.provenance.image.as_ref().map_or_else(|| NONE.to_string(), |i| format!("{} {}", i.name, i.version)),
        arch: mc.arch.to_string(),
        collector: format!("{} ({revision})", m.collector.version),
        implementation: match coremark.implementation {
            CoreMarkImplementation::Project => "the project's (vendor/coremark)".to_string(),
            CoreMarkImplementation::Eembc => "EEMBC's sources".to_string(),
        },
        compiler: m.build.compiler.to_string(),
        flags: m.build.flags_label(),
        eembc_commit: coremark.eembc_commit.as_ref().map_or_else(|| NONE.to_string(), |c| c.to_string()),
        other: NONE.to_string(),
        recorded: Some((mc.logical_cpus, mc.memory_bytes)),
    };
    Details {
        machine,
        run: super::run::of(m),
        reasons: Reasons {
            cpu: m.stages.cpu.as_ref().and_then(|s| cpu_reason(s, p.cpu_samples as usize, jobs)),
            disk: m.stages.disk.as_ref().and_then(|s| disk_reason(s, p.disk_samples as usize, jobs)),
            cache: m.stages.cache.as_ref().map_or_else(Vec::new, |s| cache_reasons(s, p.cache_trials, jobs)),
            internet: m.stages.internet.as_ref().and_then(|s| internet_reason(s, p.internet_samples as usize, jobs)),
        },
        cores: cores(m),
    }
}

fn imported(i: &ImportedResult) -> Details {
    let np = || NOT_PUBLISHED.to_string();
    let mc = &i.machine;
    let other: Vec<String> = mc.details.iter().map(|c| format!("{}: {}", c.name, c.value)).collect();
    let machine = Machine {
        cpu_model: mc.cpu_model.as_ref().map_or_else(np, |c| c.to_string()),
        logical_cpus: np(),
        memory: np(),
        os: np(),
        kernel: np(),
        virtualization: np(),
        image: mc.os_image.as_ref().map_or_else(np, |c| c.to_string()),
        arch: mc.arch.as_ref().map_or_else(np, |a| a.to_string()),
        collector: "imported".to_string(),
        implementation: np(),
        compiler: i.build.as_ref().map_or_else(np, |b| b.compiler.to_string()),
        flags: i.build.as_ref().map_or_else(np, |b| b.flags.to_string()),
        eembc_commit: np(),
        other: if other.is_empty() { NONE.to_string() } else { other.join("; ") },
        recorded: None,
    };
    Details { machine, reasons: imported_reasons(i), run: None, cores: None }
}

/// An imported result's reasons: its report's notices on each stage (a
/// notice's stage is the stage's name or a cache backend's id, optionally
/// followed by " / " and detail), and what its figures say of themselves
/// (a disk status other than `ok`, an internet test marked unavailable,
/// fewer verified pairs than pairs). Shown only beside a stage that is
/// incomplete.
fn imported_reasons(i: &ImportedResult) -> Reasons {
    let notices = |stage: &str| -> Vec<String> {
        i.notices
            .iter()
            .filter(|n| n.stage.as_str().split(" / ").next() == Some(stage))
            .map(|n| n.message.to_string())
            .collect()
    };
    let joined = |parts: Vec<String>| (!parts.is_empty()).then(|| parts.join("; "));
    let s = &i.stages;
    let disk = s.disk.as_ref().and_then(|d| {
        let mut parts = notices("disk");
        if let Some(c) = d.counts.filter(|c| c.completed < c.requested) {
            parts.push(format!("{} of {} samples completed, as published", c.completed, c.requested));
        }
        if let Some(status) = d.status.as_ref().filter(|st| st.as_str() != "ok") {
            parts.push(format!("status as published: {status}"));
        }
        joined(parts)
    });
    let cache = s.cache.as_ref().map_or_else(Vec::new, |c| {
        c.backends
            .iter()
            .map(|b| {
                let mut parts = notices("cache");
                if b.verified_pairs < b.pairs {
                    parts.push(format!("{} of {} pairs verified, as published", b.verified_pairs, b.pairs));
                }
                joined(parts)
            })
            .collect()
    });
    let internet = s.internet.as_ref().and_then(|n| {
        let mut parts = notices("internet");
        if !n.available && parts.is_empty() {
            parts.push("the report marks the test unavailable".to_string());
        }
        joined(parts)
    });
    let cpu = s.cpu.as_ref().and_then(|c| {
        let mut parts = notices("cpu");
        if let Some(p) = i.published_profile.as_ref().filter(|p| c.samples < p.cpu_disk_samples) {
            parts.push(format!("{} of {} samples, as published", c.samples, p.cpu_disk_samples));
        }
        joined(parts)
    });
    Reasons { cpu, disk, cache, internet }
}

fn status(s: Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::Timeout => "timeout",
        Status::Error => "error",
    }
}

/// `what: status: message`, or `what: status` without a message.
fn failed(what: String, s: Status, message: Option<&str>) -> String {
    match message {
        Some(m) => format!("{what}: {}: {m}", status(s)),
        None => format!("{what}: {}", status(s)),
    }
}

/// The reasons joined, with the missing samples and the jobs of `stage`
/// (of `trial`) that did not succeed; `None` when there are none.
fn reason(
    mut parts: Vec<String>,
    attempted: usize,
    requested: usize,
    jobs: &[JobOutcome],
    stage: &str,
    trial: Option<u32>,
) -> Option<String> {
    if attempted < requested {
        let missing = requested - attempted;
        parts.push(format!("{missing} of {requested} samples not run"));
    }
    for j in jobs.iter().filter(|j| j.explains(stage, trial)) {
        parts.push(format!("job {} {}", j.job, j.conclusion.name()));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn cpu_reason(s: &CpuStage, requested: usize, jobs: &[JobOutcome]) -> Option<String> {
    let parts = s
        .samples
        .iter()
        .enumerate()
        .filter(|(_, x)| x.iterations_per_s().is_none())
        .map(|(i, x)| match (x.status, &x.message) {
            (Status::Ok, None) => format!("sample {}: not validated", i + 1),
            (st, m) => failed(format!("sample {}", i + 1), st, m.as_ref().map(|m| m.as_str())),
        })
        .collect();
    reason(parts, s.samples.len(), requested, jobs, "cpu", None)
}

fn disk_reason(s: &DiskStage, requested: usize, jobs: &[JobOutcome]) -> Option<String> {
    let parts = s
        .samples
        .iter()
        .enumerate()
        .filter(|(_, x)| x.status != Status::Ok)
        .map(|(i, x)| failed(format!("sample {}", i + 1), x.status, x.message.as_ref().map(|m| m.as_str())))
        .collect();
    reason(parts, s.samples.len(), requested, jobs, "disk", None)
}

fn cache_reasons(s: &CacheStage, trials: u32, jobs: &[JobOutcome]) -> Vec<Option<String>> {
    s.backends
        .iter()
        .map(|b| {
            let pairs: Vec<_> = s.pairs.iter().filter(|p| p.backend == b.id).collect();
            let mut parts = Vec::new();
            for p in pairs.iter().filter(|p| !p.verified()) {
                let what = format!("trial {}", p.trial);
                parts.push(match (&p.save, &p.restore, &p.verification) {
                    (save, _, _) if save.status != Status::Ok => {
                        failed(format!("{what} save"), save.status, save.message.as_ref().map(|m| m.as_str()))
                    }
                    (_, None, _) => format!("{what}: no restore"),
                    (_, Some(r), _) if r.status != Status::Ok => {
                        failed(format!("{what} restore"), r.status, r.message.as_ref().map(|m| m.as_str()))
                    }
                    _ => format!("{what}: the restored entry did not verify"),
                });
            }
            // Trials without a pair: their job did not run or did not report.
            let missing = (trials as usize).saturating_sub(pairs.len());
            if missing > 0 {
                parts.push(format!("{missing} of {trials} trials not run"));
            }
            // A cache job belongs to one trial, or to every trial.
            let cache_job = |j: &&JobOutcome| (1..=trials).any(|t| j.explains("cache", Some(t)));
            for j in jobs.iter().filter(cache_job) {
                parts.push(format!("job {} {}", j.job, j.conclusion.name()));
            }
            (!parts.is_empty()).then(|| parts.join("; "))
        })
        .collect()
}

fn internet_reason(s: &InternetStage, requested: usize, jobs: &[JobOutcome]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for (name, samples) in [("download", &s.download), ("upload", &s.upload)] {
        for (i, x) in samples.iter().enumerate().filter(|(_, x)| x.status != Status::Ok) {
            parts.push(failed(format!("{name} sample {}", i + 1), x.status, x.message.as_ref().map(|m| m.as_str())));
        }
        if samples.len() < requested {
            parts.push(format!("{} of {requested} {name} samples not run", requested - samples.len()));
        }
    }
    reason(parts, requested, requested, jobs, "internet", None)
}
