//! `collector run`: check the invocation, then run each stage in order,
//! rewriting the result file after every sample.

use runner_bench_format::measured::{
    Build, Collector, CoreMarkBuild, CoreMarkImplementation, MeasuredKind, Provenance, Stages,
};
use runner_bench_format::{
    FORMAT_VERSION, MeasuredResult, Name, Notice, Parameters, Provider, Runner, Sha256Hex, Timestamp,
};

use crate::cli::RunArgs;
use crate::config::RunConfig;
use crate::coremark;
use crate::output::ResultWriter;
use crate::progress::Progress;
use crate::stage::{StageKind, cpu, disk, internet};
use crate::{affinity, machine, provenance, summary};

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Everything the user could get wrong fails here, before any measuring.
    let config = RunConfig::from_args(args)?;
    let writer = ResultWriter::create(&config.out)?;
    let pin_cpu = affinity::choose_cpu(config.cpu)?;

    let mut result = new_result(config.provider.clone(), config.runner.clone(), &config.parameters)?;
    // A valid file exists from the start: a bad disk shows now, not after
    // half an hour of measuring.
    let save = |r: &mut MeasuredResult| writer.write_result(r);
    save(&mut result)?;

    crate::cleanup::install_handler();
    let mut progress = Progress::detect();
    progress.note(&format!(
        "runner-bench collector {}: profile {} (fingerprint {}), writing {}",
        env!("CARGO_PKG_VERSION"),
        config.profile.name(),
        result.fingerprint,
        writer.path().display()
    ));
    for &kind in &config.stages {
        match kind {
            StageKind::Cpu => {
                let plan = cpu::CpuPlan::new(&config.parameters, pin_cpu);
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
                    coremark::build::FLAGS,
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
            other => unreachable!("config admits only available stages, not {}", other.name()),
        }
        progress.stage_end();
        save(&mut result)?;
    }
    progress.note(&format!("wrote {}", writer.path().display()));
    summary::append_to_step_summary(&result)?;
    Ok(())
}

/// A result with no stages yet: who, where, how the workload was built and
/// the protocol. Every command that writes a result starts from it.
pub fn new_result(provider: Provider, runner: Runner, params: &Parameters) -> anyhow::Result<MeasuredResult> {
    Ok(MeasuredResult {
        schema: None,
        format_version: FORMAT_VERSION,
        kind: MeasuredKind::Measured,
        collector: Collector {
            version: Name::lossy(env!("CARGO_PKG_VERSION")),
            revision: Name::lossy(coremark::build::REVISION),
        },
        provider,
        runner,
        provenance: Provenance {
            started_at: Timestamp::now(),
            finished_at: Timestamp::now(),
            github: provenance::github(&provenance::process_env)?,
            image: provenance::image(&provenance::process_env),
        },
        machine: machine::detect(),
        build: build_info()?,
        parameters: params.clone(),
        fingerprint: params.fingerprint(),
        stages: Stages::default(),
        notices: Vec::new(),
    })
}

pub fn build_info() -> anyhow::Result<Build> {
    let names =
        |list: &str, sep: char| -> Vec<Name> { list.split(sep).filter(|s| !s.is_empty()).map(Name::lossy).collect() };
    Ok(Build {
        compiler: Name::lossy(coremark::build::COMPILER),
        flags: names(coremark::build::FLAGS, ' '),
        c_standard: Name::lossy(coremark::build::C_STANDARD),
        defines: names(coremark::build::DEFINES, ';'),
        coremark: CoreMarkBuild {
            implementation: match coremark::build::IMPLEMENTATION {
                "eembc" => CoreMarkImplementation::Eembc,
                _ => CoreMarkImplementation::Project,
            },
            sources_sha256: Sha256Hex::new(coremark::build::SOURCES_SHA256).map_err(anyhow::Error::msg)?,
        },
    })
}
