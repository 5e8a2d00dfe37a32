//! `collector run`: check the invocation, then run each stage in order,
//! rewriting the result file after every sample.
//!
//! Files: args.rs (the flags; http_cache_args.rs those of the http-cache
//! stage), config.rs (the flags checked, before anything is measured),
//! interrupt.rs (what an interruption writes); here the stage loop.

pub mod args;
mod config;
mod http_cache_args;
mod interrupt;

use runner_bench_format::measured::{Stages, Status};
use runner_bench_format::{Affinity, MeasuredResult, Message};

use crate::platform::affinity;
use crate::platform::progress::Progress;
use crate::result::new::new_result;
use crate::result::output::ResultWriter;
use crate::result::summary;
use crate::stage::{Stage, StageKind, cpu, cpu_allcore, disk, http_cache, internet};
use args::RunArgs;
use config::RunConfig;
use interrupt::Journal;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Everything the user could get wrong fails here, before any measuring.
    let config = RunConfig::from_args(args)?;
    let writer = ResultWriter::create(&config.out)?;
    let pin_cpu = affinity::choose_cpu(config.cpu)?;

    let mut result = new_result(config.provider.clone(), config.runner.clone(), &config.parameters)?;
    // A valid file exists from the start: a bad disk shows now, not after
    // half an hour of measuring.
    writer.write_result(&mut result)?;
    let planned = match pin_cpu {
        Some(cpu) => Affinity::Pinned { cpu, group: 0 },
        None => Affinity::Unpinned,
    };
    // From here on an interruption is recorded in the file (`interrupt`).
    let journal = Journal::start(writer, &result, planned);

    crate::platform::cleanup::install_handler(interrupt::record);
    let mut progress = Progress::detect();
    progress.note(&format!(
        "runner-bench collector {}: profile {} (fingerprint {}), writing {}",
        env!("CARGO_PKG_VERSION"),
        config.profile.name(),
        result.fingerprint,
        journal.path().display()
    ));
    for &kind in &config.stages {
        let params = &config.parameters;
        match kind {
            StageKind::Cpu => {
                let plan = cpu::CpuPlan::new(params, pin_cpu);
                run_stage(&plan, &mut result, &journal, &mut progress)?;
            }
            StageKind::CpuAllCore => {
                let plan = cpu_allcore::AllCorePlan::new(params);
                run_stage(&plan, &mut result, &journal, &mut progress)?;
            }
            StageKind::Disk => {
                let plan = disk::DiskPlan::new(params, config.disk_dir.clone(), pin_cpu);
                run_stage(&plan, &mut result, &journal, &mut progress)?;
            }
            StageKind::Internet => {
                let plan = internet::InternetPlan::new(params, config.internet.clone());
                run_stage(&plan, &mut result, &journal, &mut progress)?;
            }
            StageKind::HttpCache => {
                let settings = config.http_cache.clone().expect("config requires --http-cache-url for this stage");
                let plan = http_cache::HttpCachePlan::new(params, settings);
                run_stage(&plan, &mut result, &journal, &mut progress)?;
            }
            other => unreachable!("config admits only available stages, not {}", other.name()),
        }
        progress.stage_end();
        journal.save(&mut result)?;
        journal.stage_end();
    }
    // Every stage is in the file: an interruption from here on loses nothing.
    let path = journal.path();
    drop(journal);
    progress.note(&format!("wrote {}", path.display()));
    // The job summary is a view of the file just written: failing to add
    // to it is no failure of the run.
    if let Err(e) = summary::append_to_step_summary(&result) {
        progress.note(&format!("warning: {e:#}"));
    }
    // The file is written either way; a stage with nothing to score is a
    // failed run for the job that ran it.
    let empty = stages_without_completed_sample(&result.stages);
    if !empty.is_empty() {
        anyhow::bail!("{}; {} keeps every sample and its message", empty.join("; "), path.display());
    }
    Ok(())
}

/// Runs one stage, the result's copy of it rewritten after every sample.
fn run_stage<S: Stage>(
    stage: &S,
    result: &mut MeasuredResult,
    journal: &Journal,
    progress: &mut Progress,
) -> anyhow::Result<()> {
    let mut empty = Stages::default();
    S::place(stage.empty(), &mut empty);
    journal.stage_start(S::KIND, empty);
    result.notices.extend(stage.notices());
    progress.stage_start(S::KIND.title(), stage.samples());
    if let Some(text) = stage.intro() {
        progress.note(&text);
    }
    let (section, notices) = stage.run(progress, |partial, notice| {
        S::place(partial.clone(), &mut result.stages);
        result.notices.extend(notice.cloned());
        journal.save(result)
    })?;
    S::place(section, &mut result.stages);
    result.notices.extend(notices);
    Ok(())
}

/// How a sample ended, and why.
type Outcome<'a> = (Status, Option<&'a Message>);

/// Each stage that ran and completed none of its samples, described.
fn stages_without_completed_sample(stages: &Stages) -> Vec<String> {
    fn of(status: Status, message: &Option<Message>) -> Outcome<'_> {
        (status, message.as_ref())
    }
    let mut statuses: Vec<(&str, Vec<Outcome<'_>>)> = Vec::new();
    if let Some(cpu) = &stages.cpu {
        statuses.push(("cpu", cpu.samples.iter().map(|s| of(s.status, &s.message)).collect()));
    }
    if let Some(all) = &stages.cpu_allcore {
        statuses.push(("cpu-allcore", all.samples.iter().map(|s| of(s.status, &s.message)).collect()));
    }
    if let Some(disk) = &stages.disk {
        statuses.push(("disk", disk.samples.iter().map(|s| of(s.status, &s.message)).collect()));
    }
    if let Some(net) = &stages.internet {
        let transfers = net.download.iter().chain(&net.upload).map(|s| of(s.status, &s.message));
        statuses.push(("internet", transfers.chain(net.request.iter().map(|s| of(s.status, &s.message))).collect()));
    }
    if let Some(cache) = &stages.http_cache {
        let phases =
            cache.runs.iter().flat_map(|r| [of(r.put.status, &r.put.message), of(r.get.status, &r.get.message)]);
        statuses.push(("http-cache", phases.collect()));
    }
    statuses
        .into_iter()
        .filter(|(_, samples)| !samples.is_empty() && samples.iter().all(|(status, _)| *status != Status::Ok))
        .map(|(stage, samples)| {
            let first = samples.iter().find_map(|(_, m)| *m).map_or("no message", Message::as_str);
            format!(
                "the {stage} stage has no completed sample: all {} failed, the first with \"{first}\"",
                samples.len()
            )
        })
        .collect()
}
