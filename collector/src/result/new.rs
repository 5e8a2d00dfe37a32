//! The result every command that writes one starts from: who, where, how
//! the workload was built and the protocol, with no stages yet.

use std::path::PathBuf;

use runner_bench_format::measured::{
    Binary, Build, Collector, CoreMarkBuild, CoreMarkImplementation, MeasuredKind, Provenance, Stages,
};
use runner_bench_format::{
    FORMAT_VERSION, MeasuredResult, Message, Name, Notice, Parameters, Provider, Runner, Sha256Hex, Timestamp,
};

use crate::platform::machine;
use crate::result::provenance;
use crate::stage::cpu::coremark;

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
            // `collector assemble` records the jobs of a split run, and
            // GitHub's record of them in the signing job.
            jobs: Vec::new(),
            run_record: None,
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
            executable_sha256: Some(Sha256Hex::new(coremark::build::WORKLOAD_SHA256).map_err(anyhow::Error::msg)?),
            allcore_executable_sha256: Some(
                Sha256Hex::new(coremark::build::ALLCORE_SHA256).map_err(anyhow::Error::msg)?,
            ),
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

    /// The result names the program the one-thread stage ran by the
    /// SHA-256 of the bytes it writes out and runs.
    #[test]
    fn the_workload_executable_is_recorded_by_its_hash() {
        use sha2::{Digest, Sha256};
        let recorded = build_info().unwrap().coremark.executable_sha256.unwrap();
        let bytes = crate::stage::cpu::process::ONE_THREAD.bytes;
        assert_eq!(recorded.as_str(), format!("{:x}", Sha256::digest(bytes)));
        assert_ne!(recorded.as_str(), crate::stage::cpu::coremark::build::SOURCES_SHA256);
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
