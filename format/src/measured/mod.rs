//! A measured result: what the collector writes, raw samples and all.
//!
//! - `result`: the file as a whole and its one section per stage;
//! - `provenance`: the collector, and when and where the run happened;
//! - `machine`: the machine and OS instance the run was given;
//! - `status`: how a sample of any stage ended;
//! - `cpu`, `cpu_allcore`, `disk`, `cache`, `internet`, `http_cache`: one file per stage,
//!   its section and its samples.
//!
//! This file only declares them and re-exports their items, so that every
//! type keeps its one path, `measured::X`.

mod cache;
mod cpu;
mod cpu_allcore;
mod disk;
mod http_cache;
mod internet;
mod machine;
mod provenance;
mod result;
mod status;

pub use cache::{
    ActionStep, CacheBackend, CacheKind, CacheMethod, CachePair, CacheStage, CacheTransfer, CacheVerification,
    DigestCheck, KeyMatch, Observation, ObservedProcess, Routing, host_matches,
};
pub use cpu::{Build, CoreMarkBuild, CoreMarkCrcs, CoreMarkImplementation, CpuSample, CpuStage, Validation};
pub use cpu_allcore::{AllCoreThread, CpuAllCoreSample, CpuAllCoreStage, SeenCpu, vcpu_worth};
pub use disk::{DiskOp, DiskSample, DiskStage};
pub use http_cache::{
    Condition, HttpCacheDeclared, HttpCacheObserved, HttpCachePhase, HttpCacheProtocol, HttpCacheRun, HttpCacheServer,
    HttpCacheStage,
};
pub use internet::{Endpoint, InternetStage, RequestSample, TransferSample};
pub use machine::{Instance, Machine};
pub use provenance::{
    Binary, Collector, Conclusion, GitHubRun, Image, JobConclusion, JobOutcome, Provenance, RunJob, RunRecord,
    STAGE_NAMES, benchmark_job_trial,
};
pub use result::{MeasuredKind, MeasuredResult, Stages};
pub use status::{INTERRUPTED_NOTICE, INTERRUPTED_SAMPLE, Status};
