//! The CPU stage: how CoreMark was built, and its samples.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::Affinity;
use crate::values::{Message, Name, NonNeg, Sha256Hex};

use super::status::Status;

/// How the CPU workload was compiled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// Compiler family and version, e.g. `GNU 13.3.0`.
    pub compiler: Name,
    /// Optimisation flags, e.g. `-O2`, `-DNDEBUG`.
    pub flags: Vec<Name>,
    /// C standard, e.g. `C99`.
    pub c_standard: Name,
    /// Workload defines, e.g. `TOTAL_DATA_SIZE=2000`.
    pub defines: Vec<Name>,
    /// Which CoreMark sources were built.
    pub coremark: CoreMarkBuild,
}

impl Build {
    /// The "Flags" column of the reports:
    /// `-O2 -DNDEBUG; C99; MULTITHREAD=1; TOTAL_DATA_SIZE=2000; ITERATIONS=0`.
    pub fn flags_label(&self) -> String {
        let flags: Vec<&str> = self.flags.iter().map(|f| f.as_str()).collect();
        let mut parts = vec![flags.join(" "), self.c_standard.to_string()];
        parts.extend(self.defines.iter().map(|d| d.to_string()));
        parts.join("; ")
    }
}

/// Which CoreMark sources ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoreMarkBuild {
    /// The project's own implementation, or the official EEMBC sources.
    pub implementation: CoreMarkImplementation,
    /// SHA-256 over the sources, as build.rs computes it.
    pub sources_sha256: Sha256Hex,
    /// The eembc/coremark commit compiled, for the official sources when
    /// the checkout said (git); absent for the project's implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eembc_commit: Option<Name>,
    /// SHA-256 of the workload executable the one-thread stage ran: the
    /// CoreMark objects and a small driver linked into a program of their
    /// own, run once per sample, so that where the workload's code and data
    /// lie does not depend on the collector's Rust code. Absent in older
    /// files, whose one-thread stage ran the workload inside the collector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable_sha256: Option<Sha256Hex>,
    /// SHA-256 of the workload executable the all-core stage ran: the same
    /// objects and a threaded driver, one context per thread, run once per
    /// sample. Absent in older files, whose all-core stage ran the workload
    /// on the collector's own threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allcore_executable_sha256: Option<Sha256Hex>,
}

/// A CoreMark implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CoreMarkImplementation {
    /// vendor/coremark, written for this project.
    Project,
    /// The official EEMBC sources.
    Eembc,
}

/// The CoreMark stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuStage {
    /// Samples attempted, in order; `parameters.cpu_samples` were requested.
    pub samples: Vec<CpuSample>,
}

/// One CoreMark sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Affinity observed during the sample.
    pub affinity: Affinity,
    /// Iterations run with the performance seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Seconds those iterations took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<NonNeg>,
    /// CPU seconds the OS charged the process that ran those iterations
    /// (user plus system; earlier collectors read the sample thread's CPU
    /// clock around them), at most `elapsed_s`: `iterations ÷ cpu_s` is the
    /// score per CPU-second, which time spent waiting for the CPU does not
    /// lower. Absent where the OS does not say, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<NonNeg>,
    /// CRCs of the performance run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crcs: Option<CoreMarkCrcs>,
    /// CRCs of the validation run (one iteration with CoreMark's validation
    /// seeds, run before the sample on a fresh instance); absent in older
    /// files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_crcs: Option<CoreMarkCrcs>,
    /// Whether the performance and validation CRCs matched the known values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
    /// Seconds the hypervisor ran something else on the pinned CPU while
    /// the sample ran (the CPU's steal time); absent where the OS does not
    /// report it. A noisy neighbour shows here, not only in the spread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_s: Option<NonNeg>,
}

impl CpuSample {
    /// iterations ÷ seconds, for an accepted sample.
    pub fn iterations_per_s(&self) -> Option<f64> {
        match (self.status, self.iterations, self.elapsed_s, self.validation) {
            (Status::Ok, Some(n), Some(s), Some(Validation::Passed)) if s.get() > 0.0 => Some(n as f64 / s.get()),
            _ => None,
        }
    }
}

/// CoreMark's CRCs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoreMarkCrcs {
    /// seedcrc.
    pub seed: u16,
    /// crclist of the first iteration.
    pub list: u16,
    /// crcmatrix of the first iteration.
    pub matrix: u16,
    /// crcstate of the first iteration.
    pub state: u16,
    /// crcfinal after all iterations.
    #[serde(rename = "final")]
    pub final_: u16,
}

/// A CRC check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Validation {
    /// Every CRC matched.
    Passed,
    /// A CRC differed: the sample is not a result.
    Failed,
}
