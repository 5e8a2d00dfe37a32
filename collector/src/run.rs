//! `collector run`: check the invocation, then run each stage in order,
//! rewriting the result file after every sample.

use std::path::PathBuf;

use runner_bench_format::measured::{
    Binary, Build, Collector, CoreMarkBuild, CoreMarkImplementation, CpuStage, MeasuredKind, Provenance, Stages, Status,
};
use runner_bench_format::{
    Affinity, FORMAT_VERSION, MeasuredResult, Message, Name, Notice, Parameters, Provider, Runner, Sha256Hex, Timestamp,
};

use crate::cli::RunArgs;
use crate::config::RunConfig;
use crate::coremark;
use crate::interrupt::Journal;
use crate::output::ResultWriter;
use crate::progress::Progress;
use crate::stage::{StageKind, cpu, disk, http_cache, internet};
use crate::{affinity, machine, provenance, summary};

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
    let save = |r: &mut MeasuredResult| journal.save(r);

    crate::cleanup::install_handler();
    let mut progress = Progress::detect();
    progress.note(&format!(
        "runner-bench collector {}: profile {} (fingerprint {}), writing {}",
        env!("CARGO_PKG_VERSION"),
        config.profile.name(),
        result.fingerprint,
        journal.path().display()
    ));
    for &kind in &config.stages {
        match kind {
            StageKind::Cpu => {
                let plan = cpu::CpuPlan::new(&config.parameters, pin_cpu);
                journal.stage_start(kind, Stages { cpu: Some(CpuStage { samples: Vec::new() }), ..Stages::default() });
                if pin_cpu.is_none() {
                    let text = "this OS has no hard CPU affinity: CoreMark ran unpinned";
                    result
                        .notices
                        .push(Notice { stage: Name::lossy("cpu"), message: runner_bench_format::Message::lossy(text) });
                }
                progress.stage_start(kind, plan.samples as usize);
                progress.note(&format!(
                    "{}, built by {} with {}; {}",
                    coremark::implementation(),
                    coremark::build::COMPILER,
                    coremark::build::FLAGS.replace(coremark::build::FLAG_SEPARATOR, " "),
                    match pin_cpu {
                        Some(cpu) => format!("pinned to CPU {cpu}"),
                        None => "unpinned".to_string(),
                    }
                ));
                let stage = cpu::run(&plan, &mut progress, |partial| {
                    result.stages.cpu = Some(partial.clone());
                    save(&mut result)
                })?;
                result.stages.cpu = Some(stage);
            }
            StageKind::Disk => {
                let plan = disk::DiskPlan::new(&config.parameters, config.disk_dir.clone(), pin_cpu);
                journal.stage_start(kind, Stages { disk: Some(disk::empty_stage(&plan)), ..Stages::default() });
                progress.stage_start(kind, plan.samples as usize);
                let outcome = disk::run(&plan, &mut progress, |partial| {
                    result.stages.disk = Some(partial.clone());
                    save(&mut result)
                })?;
                result.stages.disk = Some(outcome.stage);
                result.notices.extend(outcome.notices);
            }
            StageKind::Internet => {
                let plan = internet::InternetPlan::new(&config.parameters, config.internet.clone());
                journal.stage_start(kind, Stages { internet: Some(internet::empty_stage(&plan)), ..Stages::default() });
                progress.stage_start(kind, plan.total_samples());
                progress.note(&format!(
                    "{} ({}): {} MiB per sample in requests of at most {} MiB, one {} connection per sample; \
                     request times include DNS, TCP and TLS (not ICMP RTT)",
                    plan.target.endpoint.name,
                    plan.target.endpoint.url,
                    plan.transfer_mib,
                    plan.max_request_mib,
                    plan.target.base.scheme().to_uppercase(),
                ));
                let stage = internet::run(&plan, &mut progress, |partial, notice| {
                    result.stages.internet = Some(partial.clone());
                    result.notices.extend(notice.cloned());
                    save(&mut result)
                })?;
                result.stages.internet = Some(stage);
            }
            StageKind::HttpCache => {
                let settings = config.http_cache.clone().expect("config requires --http-cache-url for this stage");
                let plan = http_cache::HttpCachePlan::new(&config.parameters, settings);
                journal.stage_start(
                    kind,
                    Stages { http_cache: Some(http_cache::empty_stage(&plan)), ..Stages::default() },
                );
                progress.stage_start(kind, plan.cells().len());
                progress.note(&format!(
                    "{} ({}): {} entries per run, PUT then GET, over {:?} keep-alive connections at {:?} bytes",
                    plan.target.base,
                    plan.target.protocol.name(),
                    plan.entries,
                    plan.connections,
                    plan.value_bytes,
                ));
                let stage = http_cache::run(&plan, &mut progress, |partial, notice| {
                    result.stages.http_cache = Some(partial.clone());
                    result.notices.extend(notice.cloned());
                    save(&mut result)
                })?;
                result.stages.http_cache = Some(stage);
            }
            other => unreachable!("config admits only available stages, not {}", other.name()),
        }
        progress.stage_end();
        save(&mut result)?;
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

/// A result with no stages yet: who, where, how the workload was built and
/// the protocol. Every command that writes a result starts from it.
pub fn new_result(provider: Provider, runner: Runner, params: &Parameters) -> anyhow::Result<MeasuredResult> {
    let (binary, notices) = match binary(std::env::current_exe()) {
        Ok(binary) => (Some(binary), Vec::new()),
        Err(notice) => (None, vec![notice]),
    };
    Ok(MeasuredResult {
        schema: None,
        format_version: FORMAT_VERSION,
        kind: MeasuredKind::Measured,
        collector: Collector {
            version: Name::lossy(env!("CARGO_PKG_VERSION")),
            revision: Name::lossy(coremark::build::REVISION),
            binary,
        },
        provider,
        runner,
        provenance: Provenance {
            started_at: Timestamp::now(),
            finished_at: Timestamp::now(),
            github: provenance::github(&provenance::process_env)?,
            image: provenance::image(&provenance::process_env),
            // `collector assemble` records the jobs of a split run.
            jobs: Vec::new(),
        },
        machine: machine::detect(),
        build: build_info()?,
        parameters: params.clone(),
        fingerprint: params.fingerprint(),
        stages: Stages::default(),
        notices,
    })
}

/// The target triple this collector was built for (build.rs).
const TARGET: &str = env!("RUNNER_BENCH_TARGET");

/// The identity of the executable at `exe` (the running one): its SHA-256,
/// which the site compares with the published releases, and the target.
/// An executable that cannot be read never stops a run: the result then
/// records no binary (the site shows it as self-built) and a notice why.
fn binary(exe: std::io::Result<PathBuf>) -> Result<Binary, Notice> {
    let notice = |why: String| Notice {
        stage: Name::lossy("collector"),
        message: Message::lossy(&format!(
            "{why}; the result records no binary identity, so the site shows it as self-built"
        )),
    };
    let exe = exe.map_err(|e| notice(format!("cannot locate the running executable: {e}")))?;
    // Streamed: the executable is several MiB, and it is read once per run.
    let sha256 = crate::stage::cache::payload::sha256_file(&exe)
        .map_err(|e| notice(format!("cannot read the running executable {}: {e}", exe.display())))?;
    Ok(Binary { sha256: Sha256Hex::new(sha256).map_err(notice)?, target: Name::lossy(TARGET) })
}

pub fn build_info() -> anyhow::Result<Build> {
    let names =
        |list: &str, sep: char| -> Vec<Name> { list.split(sep).filter(|s| !s.is_empty()).map(Name::lossy).collect() };
    Ok(Build {
        compiler: Name::lossy(coremark::build::COMPILER),
        flags: names(coremark::build::FLAGS, coremark::build::FLAG_SEPARATOR),
        c_standard: Name::lossy(coremark::build::C_STANDARD),
        defines: names(coremark::build::DEFINES, ';'),
        coremark: CoreMarkBuild {
            implementation: match coremark::build::IMPLEMENTATION {
                "eembc" => CoreMarkImplementation::Eembc,
                _ => CoreMarkImplementation::Project,
            },
            sources_sha256: Sha256Hex::new(coremark::build::SOURCES_SHA256).map_err(anyhow::Error::msg)?,
            eembc_commit: Some(coremark::build::EEMBC_COMMIT).filter(|c| !c.is_empty()).map(Name::lossy),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_is_the_running_executable_and_its_target() {
        let exe = std::env::current_exe().unwrap();
        let b = binary(Ok(exe.clone())).unwrap();
        assert_eq!(b.sha256.as_str(), crate::stage::cache::payload::sha256_file(&exe).unwrap());
        assert_eq!(b.target.as_str(), TARGET);
        // A triple: architecture, vendor, OS and perhaps an environment.
        assert!(TARGET.split('-').count() >= 3, "{TARGET}");
    }

    #[test]
    fn an_unreadable_executable_leaves_a_notice_not_a_failure() {
        let gone = std::env::temp_dir().join("runner-bench-no-such-collector");
        let n = binary(Ok(gone.clone())).unwrap_err();
        assert_eq!(n.stage.as_str(), "collector");
        let expected_start = format!("cannot read the running executable {}: ", gone.display());
        assert!(n.message.as_str().starts_with(&expected_start), "{}", n.message);
        assert!(
            n.message.as_str().ends_with("; the result records no binary identity, so the site shows it as self-built"),
            "{}",
            n.message
        );
        let n = binary(Err(std::io::Error::other("no /proc"))).unwrap_err();
        assert_eq!(
            n.message.as_str(),
            "cannot locate the running executable: no /proc; the result records no binary identity, so the site \
             shows it as self-built"
        );
    }
}
