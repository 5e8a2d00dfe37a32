//! The measured result as a whole: its top-level fields and the section
//! each stage fills.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Notice, Provider, Runner};
use crate::params::Parameters;
use crate::values::{Fingerprint, Name};

use super::cache::CacheStage;
use super::cpu::{Build, CpuStage};
use super::cpu_allcore::CpuAllCoreStage;
use super::disk::DiskStage;
use super::http_cache::HttpCacheStage;
use super::internet::InternetStage;
use super::machine::Machine;
use super::provenance::{Collector, Provenance};

/// One run of the collector on one runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasuredResult {
    /// Optional pointer to the JSON Schema, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Name>,
    /// Always 1 for this format.
    #[schemars(extend("const" = 1))]
    pub format_version: u32,
    /// Always `measured`.
    pub kind: MeasuredKind,
    /// The collector that wrote the file.
    pub collector: Collector,
    /// The runner's provider.
    pub provider: Provider,
    /// The runner.
    pub runner: Runner,
    /// When and where the run happened.
    pub provenance: Provenance,
    /// The machine the runner gave the job.
    pub machine: Machine,
    /// How the CPU workload was built.
    pub build: Build,
    /// The measurement protocol.
    pub parameters: Parameters,
    /// First 12 hex digits of SHA-256 over the canonical parameters.
    pub fingerprint: Fingerprint,
    /// One section per stage that ran.
    pub stages: Stages,
    /// Notices, in the order they arose.
    pub notices: Vec<Notice>,
}

/// The `kind` tag of a measured result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MeasuredKind {
    /// Written by the collector.
    Measured,
}

/// One optional section per stage.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stages {
    /// CoreMark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuStage>,
    /// CoreMark on every logical CPU at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_allcore: Option<CpuAllCoreStage>,
    /// Disk I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<DiskStage>,
    /// Cache save and restore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheStage>,
    /// Internet throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internet: Option<InternetStage>,
    /// Remote build-cache server throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_cache: Option<HttpCacheStage>,
}
