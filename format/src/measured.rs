//! A measured result: what the collector writes, raw samples and all.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Affinity, Notice, Os, Provider, Runner};
use crate::params::Parameters;
use crate::values::{Fingerprint, Message, Name, NonNeg, Sha256Hex, Slug, Timestamp};

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

/// The collector's identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Collector {
    /// Version, e.g. `0.1.0`.
    pub version: Name,
    /// Source revision (git commit) it was built from, or `unknown`.
    pub revision: Name,
    /// The executable that ran, so that a reader can tell a published
    /// release from a build of unknown provenance; absent in files of
    /// collectors before 0.2.0, and when the executable could not be read
    /// (a notice then says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<Binary>,
}

/// The collector's executable file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Binary {
    /// SHA-256 of the executable file that ran (`std::env::current_exe`),
    /// the digest a release's SHA256SUMS lists for it.
    pub sha256: Sha256Hex,
    /// The target triple it was built for, e.g. `x86_64-unknown-linux-gnu`.
    pub target: Name,
}

/// When and where the run happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// When the run started (UTC).
    pub started_at: Timestamp,
    /// When the result was last written (UTC).
    pub finished_at: Timestamp,
    /// Present when the run was a GitHub Actions job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github: Option<GitHubRun>,
    /// The runner's OS image, where the runner names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
    /// How each job of the run's workflow ended, where the run was split
    /// into jobs and assembled (`collector assemble --jobs`). A job that did
    /// not succeed left its stages' samples attempted and not completed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobOutcome>,
}

/// One job of the run's GitHub Actions workflow and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobOutcome {
    /// The job's id in the workflow, e.g. `measure` or `restore-2`.
    pub job: Slug,
    /// How it ended, as GitHub's `needs.<id>.result` says.
    pub conclusion: Conclusion,
    /// The stages it measures (`STAGE_NAMES`); empty for a job that
    /// measures nothing.
    pub stages: Vec<Name>,
    /// The cache trial it belongs to, for the save, gap and restore jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial: Option<u32>,
}

/// The names a job's `stages` may hold: the sections of `Stages`.
pub const STAGE_NAMES: [&str; 5] = ["cpu", "disk", "internet", "cache", "http_cache"];

/// How a GitHub Actions job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    /// It ran to the end.
    Success,
    /// A step failed.
    Failure,
    /// It was cancelled, by a person or a timeout.
    Cancelled,
    /// It never ran (a job it needs did not succeed).
    Skipped,
}

impl Conclusion {
    /// The conclusion as GitHub and the result file write it.
    pub fn name(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Cancelled => "cancelled",
            Conclusion::Skipped => "skipped",
        }
    }
}

impl JobOutcome {
    /// Whether this job ended without success and measures `stage` (for
    /// the cache stage: trial `trial`, or every trial when the job names
    /// none), so that the stage's missing samples are explained.
    pub fn explains(&self, stage: &str, trial: Option<u32>) -> bool {
        self.conclusion != Conclusion::Success
            && self.stages.iter().any(|s| s.as_str() == stage)
            && (self.trial.is_none() || self.trial == trial)
    }
}

/// A GitHub Actions job, from the GITHUB_* variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitHubRun {
    /// `owner/name`.
    pub repository: Name,
    /// Workflow name.
    pub workflow: Name,
    /// GITHUB_RUN_ID.
    pub run_id: u64,
    /// GITHUB_RUN_ATTEMPT.
    pub run_attempt: u32,
    /// GITHUB_JOB.
    pub job: Name,
    /// GITHUB_SHA.
    pub commit: Name,
    /// RUNNER_NAME.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_name: Option<Name>,
}

/// A runner OS image (GitHub's ImageOS and ImageVersion).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// Image name, e.g. `ubuntu24`.
    pub name: Name,
    /// Image version, e.g. `20260901.1.0`.
    pub version: Name,
}

/// The machine the job ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// OS family.
    pub os: Os,
    /// OS release, e.g. `Ubuntu 24.04.3 LTS`.
    pub os_release: Name,
    /// Architecture: `x64`, `arm64`, or another name.
    pub arch: Slug,
    /// CPU model as the OS reports it.
    pub cpu_model: Name,
    /// Logical CPUs the OS reports.
    pub logical_cpus: u32,
    /// Physical memory, bytes.
    pub memory_bytes: u64,
    /// Kernel release.
    pub kernel: Name,
    /// Hypervisor or container, where it can be told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualization: Option<Name>,
    /// Which OS instance this was.
    pub instance: Instance,
}

/// Identity of one booted OS instance, so that two jobs on one instance can
/// be told apart from two jobs on two instances.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    /// Changes on every boot (Linux: /proc/sys/kernel/random/boot_id; macOS:
    /// kern.bootsessionuuid; Windows: the kernel's boot time); `unknown`
    /// where the OS does not tell.
    pub boot_id: Name,
    /// Stable per installation (Linux: /etc/machine-id; macOS:
    /// IOPlatformUUID; Windows: MachineGuid); `unknown` where the OS does not
    /// tell.
    pub machine_id: Name,
}

impl Instance {
    /// What the collector records for an identity the OS does not tell.
    pub const UNKNOWN: &'static str = "unknown";

    /// Whether `self` and `other` are one OS instance, as far as their
    /// records tell. An unknown value (`unknown` or empty) equals nothing,
    /// not even another unknown value:
    ///
    /// - `Some(false)`: a field known on both sides differs (another boot
    ///   or another installation), whatever the other field says;
    /// - `Some(true)`: both fields are known on both sides and equal;
    /// - `None`: cannot tell (every field known on both sides is equal, and
    ///   at least one field is unknown on one side or both).
    pub fn same_as(&self, other: &Instance) -> Option<bool> {
        let known = |n: &Name| {
            let s = n.as_str().trim();
            !s.is_empty() && s != Self::UNKNOWN
        };
        let mut all_known = true;
        for (a, b) in [(&self.boot_id, &other.boot_id), (&self.machine_id, &other.machine_id)] {
            if !known(a) || !known(b) {
                all_known = false;
            } else if a != b {
                return Some(false);
            }
        }
        all_known.then_some(true)
    }
}

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

/// One optional section per stage.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stages {
    /// CoreMark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuStage>,
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

/// How the collector's notice of a run interrupted by a signal begins (its
/// stage is the stage interrupted): `site check` refuses such a run as
/// incomplete unless a job that did not succeed explains it.
pub const INTERRUPTED_NOTICE: &str = "interrupted by a signal";

/// The message of the sample a signal interrupted, recorded as an error.
pub const INTERRUPTED_SAMPLE: &str = "interrupted by a signal before the sample finished";

/// How one sample ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Completed; its figures are present.
    Ok,
    /// Exceeded the sample timeout.
    Timeout,
    /// Failed; the message says why.
    Error,
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
    /// CPU seconds the sample's thread ran while those iterations ran (the
    /// thread's CPU clock): `iterations ÷ cpu_s` is the score per CPU-second,
    /// which time the thread waited for the CPU does not lower. Absent where
    /// the collector cannot read the clock, and in older files.
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

/// The disk stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskStage {
    /// Folder that held the test file.
    pub directory: Name,
    /// How the OS file cache was bypassed, e.g. `O_DIRECT`.
    pub cache_bypass: Name,
    /// Samples attempted, in order; `parameters.disk_samples` were requested.
    pub samples: Vec<DiskSample>,
}

/// One disk sample: the four operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Affinity observed during the sample.
    pub affinity: Affinity,
    /// KiB per page of the memory behind the sample's I/O buffer: the huge
    /// page size (2048 on x86-64) where Linux gave the whole buffer huge
    /// pages, one physically contiguous piece per call of a block up to
    /// that size; else the base page size (4 on x86-64), in pieces that
    /// differ from run to run. Absent
    /// where the sample ended before its buffer was made, and in files of
    /// collectors that did not record it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_page_kib: Option<u32>,
    /// 1 MiB sequential reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_read: Option<DiskOp>,
    /// 1 MiB sequential writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_write: Option<DiskOp>,
    /// 4 KiB random reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_read: Option<DiskOp>,
    /// 4 KiB random writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand_write: Option<DiskOp>,
}

/// One disk operation repeated for the profile's seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskOp {
    /// Bytes moved.
    pub bytes: u64,
    /// I/O calls made.
    pub ops: u64,
    /// Seconds, including the final flush for writes.
    pub elapsed_s: NonNeg,
    /// Median latency of one call, microseconds.
    pub latency_p50_us: NonNeg,
    /// 99th-percentile latency of one call, microseconds.
    pub latency_p99_us: NonNeg,
}

impl DiskOp {
    /// MiB per second.
    pub fn mib_per_s(&self) -> f64 {
        self.bytes as f64 / (1024.0 * 1024.0) / self.elapsed_s.get()
    }

    /// Operations per second.
    pub fn iops(&self) -> f64 {
        self.ops as f64 / self.elapsed_s.get()
    }
}

/// The cache stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheStage {
    /// Logical payload bytes.
    pub payload_bytes: u64,
    /// SHA-256 over the payload's files, in name order.
    pub payload_sha256: Sha256Hex,
    /// The backends measured.
    pub backends: Vec<CacheBackend>,
    /// Save/restore pairs, in the order they ran.
    pub pairs: Vec<CachePair>,
}

/// A cache backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheBackend {
    /// Id used by pairs and notices, e.g. `github`, `ubicloud`.
    pub id: Slug,
    /// Name as its provider gives it, e.g. `GitHub Actions cache`.
    pub name: Name,
    /// What kind of backend it is.
    pub kind: CacheKind,
    /// Service URL or folder.
    pub endpoint: Name,
}

/// Kinds of cache backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheKind {
    /// A service behind the GitHub Actions cache API (tar + zstd archives).
    ArchiveService,
    /// A folder on a mounted volume (plain copy).
    AttachedVolume,
}

impl CacheKind {
    /// The kind as the reports name it.
    pub fn name(self) -> &'static str {
        match self {
            CacheKind::ArchiveService => "archive-service",
            CacheKind::AttachedVolume => "attached-volume",
        }
    }
}

/// One unique-key save and its restore in a later job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CachePair {
    /// Trial number, from 1.
    pub trial: u32,
    /// Backend id.
    pub backend: Slug,
    /// How the transfers were made and timed; `client` where absent (files
    /// written before the action method existed), and not written then.
    #[serde(default, skip_serializing_if = "CacheMethod::is_client")]
    pub method: CacheMethod,
    /// The unique cache key.
    pub key: Name,
    /// The save.
    pub save: CacheTransfer,
    /// The restore; absent if it was never attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore: Option<CacheTransfer>,
    /// Seconds waited between the save job's end and the restore (not timed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publication_gap_s: Option<NonNeg>,
    /// What the restore verified; absent if it was never attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<CacheVerification>,
}

impl CachePair {
    /// A pair counts only with both transfers ok and every check passed.
    pub fn verified(&self) -> bool {
        self.save.status == Status::Ok
            && self.restore.as_ref().is_some_and(|r| r.status == Status::Ok)
            && self.verification.as_ref().is_some_and(CacheVerification::passed)
    }
}

/// A save or a restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheTransfer {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When it started.
    pub started_at: Timestamp,
    /// Seconds, including archiving or extraction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<NonNeg>,
    /// Bytes sent or received over the wire (the archive, for archive services).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transferred_bytes: Option<u64>,
    /// The OS instance it ran on.
    pub instance: Instance,
    /// Affinity in force: for the action method, the one-CPU affinity the
    /// collector gave the job's process tree before the action step.
    pub affinity: Affinity,
    /// The action step that made the transfer (action method only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ActionStep>,
}

/// How a cache pair's transfers were made and timed. The two are never
/// ranked together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMethod {
    /// The collector's own client: for an archive service, its tar + zstd
    /// archive and its client of the cache API, timed from archiving to
    /// finalize and from lookup to extraction; for a volume, a plain copy.
    #[default]
    Client,
    /// A real cache action as a workflow step (`uses:`), timed from the end
    /// of the collector's step before it to the start of its step after it:
    /// the action with its node start-up and the adjacent step transitions.
    Action,
}

impl CacheMethod {
    fn is_client(&self) -> bool {
        *self == CacheMethod::Client
    }

    /// The method as reports and tables name it.
    pub fn name(self) -> &'static str {
        match self {
            CacheMethod::Client => "client",
            CacheMethod::Action => "action",
        }
    }
}

/// The action step of an action-method transfer, and what was observed of
/// its processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionStep {
    /// The step's `uses:`, `owner/repo[/path]@commit`.
    pub uses: Name,
    /// The compressor runs the collector's zstd shim saw, in order, with
    /// the processes above them: at most 16.
    pub processes: Vec<ObservedProcess>,
    /// Whether every compressor run observed was forced to one thread.
    pub single_thread: Observation,
    /// Whether every observed process had the job's one-CPU affinity.
    pub affinity_inherited: Observation,
}

/// One process seen during an action step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObservedProcess {
    /// `compressor` (the command the shim ran), `shell` (the `sh -c` tar
    /// runs a compressor through), `archiver` (tar) or `action` (the
    /// process above tar, node).
    pub role: Slug,
    /// Command line, as the OS shows it (truncated to 200 characters).
    pub command: Message,
    /// The CPUs it may run on, as a list (`0`, `0-3`), or `unknown`.
    pub cpus: Name,
}

/// Whether something was seen to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Observation {
    /// Seen, and it held every time.
    Held,
    /// Seen, and it did not hold at least once.
    Failed,
    /// Not seen (no compressor ran through the shim, or the OS does not
    /// show it).
    NotObserved,
}

/// What a restore checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CacheVerification {
    /// How the key matched.
    pub key_match: KeyMatch,
    /// Whether every restored file's SHA-256 matched.
    pub sha256: DigestCheck,
    /// Who served the transfer.
    pub routing: Routing,
}

impl CacheVerification {
    /// Exact hit, matching digests and the expected routing.
    pub fn passed(&self) -> bool {
        self.key_match == KeyMatch::Exact && self.sha256 == DigestCheck::Match && self.routing.matches
    }
}

/// How a restore's key matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum KeyMatch {
    /// The exact key hit.
    Exact,
    /// Only a restore key hit: a failure.
    RestoreKey,
    /// Nothing hit: a failure.
    Miss,
}

/// A digest comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DigestCheck {
    /// Every file matched.
    Match,
    /// A file differed.
    Mismatch,
    /// Nothing to compare (the restore failed first).
    NotChecked,
}

/// Backend routing: which host served the signed URLs, and whether that is
/// the backend the pair claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    /// What the backend's configuration expects, e.g. `*.blob.core.windows.net`.
    pub expected: Name,
    /// What was seen.
    pub observed: Name,
    /// Whether they agree.
    pub matches: bool,
}

impl Routing {
    /// The routing of an archive-service pair: the hosts of the signed
    /// upload and download URLs (`None`: never reached) against the
    /// backend's host patterns, with the provider variables seen beside
    /// them. `consistent` reads the hosts back from this form.
    pub fn service(pattern: &str, upload_host: Option<&str>, download_host: Option<&str>, signals: &str) -> Routing {
        let show = |h: Option<&str>| h.unwrap_or("not reached").to_string();
        let ok = |h: Option<&str>| h.is_some_and(|h| host_matches(pattern, h));
        Routing {
            expected: Name::lossy(pattern),
            observed: Name::lossy(&format!(
                "upload {}; download {}; provider variables: {signals}",
                show(upload_host),
                show(download_host)
            )),
            matches: ok(upload_host) && ok(download_host),
        }
    }

    /// The routing of an action-method pair: the host of the cache service
    /// URL the runner gave actions (`None`: not known), against the
    /// action's host patterns. The signed storage URLs the action then
    /// uses are not visible outside its process.
    pub fn runtime(pattern: &str, service_host: Option<&str>, signals: &str) -> Routing {
        Routing {
            expected: Name::lossy(pattern),
            observed: Name::lossy(&format!(
                "runtime service {}; provider variables: {signals}",
                service_host.unwrap_or("unknown")
            )),
            matches: service_host.is_some_and(|h| host_matches(pattern, h)),
        }
    }

    /// Whether `matches` agrees with `expected` and `observed`: for an
    /// archive service, both hosts in the observed text fit the expected
    /// patterns (the form `service` writes); for a volume, and for a
    /// service's routing in any other form, the two are the same text.
    pub fn consistent(&self, kind: CacheKind) -> bool {
        let observed = self.observed.as_str();
        let host = |label: &str| observed.split("; ").find_map(|part| part.strip_prefix(label));
        let agrees = match (kind, host("upload "), host("download "), host("runtime service ")) {
            (CacheKind::ArchiveService, Some(up), Some(down), _) => {
                host_matches(self.expected.as_str(), up) && host_matches(self.expected.as_str(), down)
            }
            (CacheKind::ArchiveService, _, _, Some(service)) => {
                service != "unknown" && host_matches(self.expected.as_str(), service)
            }
            _ => self.expected == self.observed,
        };
        agrees == self.matches
    }
}

/// Whether `host` (maybe with `:port`) matches routing patterns: `*.suffix`,
/// `host` or `host:port`, several separated by `|`; `*` alone matches any
/// host (an action that talks to a service of its own).
pub fn host_matches(patterns: &str, host: &str) -> bool {
    patterns.split('|').map(str::trim).any(|pattern| {
        let bare = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
        if pattern == "*" {
            return !host.is_empty();
        }
        match pattern.strip_prefix("*.") {
            Some(suffix) => bare.ends_with(&format!(".{suffix}")),
            None => pattern == host || pattern == bare,
        }
    })
}

/// The internet stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InternetStage {
    /// The LibreSpeed backend.
    pub endpoint: Endpoint,
    /// Download samples, in order.
    pub download: Vec<TransferSample>,
    /// Upload samples, in order.
    pub upload: Vec<TransferSample>,
    /// Zero-byte HTTPS request samples (fresh connection each).
    pub request: Vec<RequestSample>,
}

/// A LibreSpeed backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// Display name, e.g. `LibreSpeed (Sharktech, Amsterdam)`.
    pub name: Name,
    /// Backend URL, e.g. `https://amsspeed.sharktech.net/backend/`.
    pub url: Name,
}

/// One download or upload sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Bytes moved, also when it failed.
    pub bytes: u64,
    /// Seconds until it ended.
    pub seconds: NonNeg,
}

impl TransferSample {
    /// Decimal megabits per second, for a completed sample.
    pub fn mbps(&self) -> Option<f64> {
        (self.status == Status::Ok && self.seconds.get() > 0.0)
            .then(|| self.bytes as f64 * 8.0 / 1e6 / self.seconds.get())
    }
}

/// One zero-byte HTTPS request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestSample {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Milliseconds for DNS, TCP, TLS and the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<NonNeg>,
}

/// The remote build-cache stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheStage {
    /// The server measured.
    pub server: HttpCacheServer,
    /// One run per backend, entry size and connection count.
    pub runs: Vec<HttpCacheRun>,
}

/// A remote build-cache server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheServer {
    /// Base URL entries are PUT to and GET from.
    pub url: Name,
    /// Server software, e.g. `RBCS 0.3.0`.
    pub software: Name,
    /// Test conditions, as the RBCS benchmark lists them. A measured
    /// stage lists here, in words, its protocol, then what `observed` and
    /// `declared` hold, each value ending in `(observed)` or `(declared)`.
    pub conditions: Vec<Condition>,
    /// The API the collector spoke to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<HttpCacheProtocol>,
    /// What the collector measured about the way to the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<HttpCacheObserved>,
    /// What the server's owner stated with flags: the collector cannot see
    /// it, so it is recorded as declared, never as measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<HttpCacheDeclared>,
}

/// A build-cache API: the shape of its PUT and GET requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HttpCacheProtocol {
    /// Gradle's HTTP build cache: `PUT`/`GET <base>/<key>`.
    Gradle,
    /// Bazel's HTTP remote cache: `PUT`/`GET <base>/cas/<sha256 of the body>`.
    Bazel,
    /// Bazel's HTTP remote cache, its action cache: `PUT`/`GET
    /// <base>/ac/<sha256>`, each value an `ActionResult` message.
    #[serde(rename = "bazel-ac")]
    BazelAc,
    /// Turborepo's remote cache API: `PUT`/`GET
    /// <base>/v8/artifacts/<hash>?teamId=<team>` with a bearer token.
    Turborepo,
    /// Plain HTTP/WebDAV: `PUT`/`GET <base>/<name>`.
    Webdav,
}

impl HttpCacheProtocol {
    /// The protocol's name in flags and result files.
    pub fn name(self) -> &'static str {
        match self {
            HttpCacheProtocol::Gradle => "gradle",
            HttpCacheProtocol::Bazel => "bazel",
            HttpCacheProtocol::BazelAc => "bazel-ac",
            HttpCacheProtocol::Turborepo => "turborepo",
            HttpCacheProtocol::Webdav => "webdav",
        }
    }
}

/// The conditions the collector observed itself, before the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheObserved {
    /// Whether the URL is https.
    pub tls: bool,
    /// The HTTP version the server answered with, e.g. `HTTP/1.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_version: Option<Name>,
    /// How the collector authenticated: `none`, `basic` or `bearer` (never
    /// the credentials).
    pub authentication: Name,
    /// Median time of a zero-byte request (a GET of an absent key) on a
    /// warm keep-alive connection, ms: the round trip through the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<NonNeg>,
    /// Throughput of one large GET on a warm connection, Mbps (10^6 bit/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<NonNeg>,
    /// Bytes of that GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_bytes: Option<u64>,
    /// Why an observation is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

/// The conditions only the server's owner knows, as they declared them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheDeclared {
    /// Server software and version, e.g. `nginx 1.24.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub software: Option<Name>,
    /// Storage backend, e.g. `filesystem`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<Name>,
    /// Server CPU quota, CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota: Option<NonNeg>,
    /// Server memory quota, GB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_quota_gb: Option<NonNeg>,
    /// Compression the server applies, e.g. `none` or `deflate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<Name>,
    /// Digest the server keys entries by, e.g. `SHA-256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Name>,
}

/// One named test condition, e.g. `TLS: disabled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// e.g. `TLS`.
    pub name: Name,
    /// e.g. `disabled`.
    pub value: Name,
}

/// PUT then GET of every entry at one entry size and connection count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCacheRun {
    /// Server-side backend, e.g. `in-memory`.
    pub backend: Name,
    /// Server CPU quota in CPUs, where limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota: Option<NonNeg>,
    /// Server memory quota, GB, where limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_quota_gb: Option<NonNeg>,
    /// Entry size, bytes.
    pub value_bytes: u64,
    /// Client connections.
    pub connections: u32,
    /// The PUT phase.
    pub put: HttpCachePhase,
    /// The GET phase.
    pub get: HttpCachePhase,
}

/// One phase of a build-cache run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCachePhase {
    /// How it ended.
    pub status: Status,
    /// What went wrong; required unless `status` is `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// Requests that succeeded (GET: byte-identical hits).
    pub succeeded: u32,
    /// Requests that failed or returned wrong bytes.
    pub failed: u32,
    /// Seconds for the phase.
    pub seconds: NonNeg,
    /// Median time of one request, from sending it to the last byte of its
    /// answer, ms (every answered request, failed ones too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p50_ms: Option<NonNeg>,
    /// 90th percentile of that time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p90_ms: Option<NonNeg>,
    /// 99th percentile of that time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ms: Option<NonNeg>,
}

impl HttpCachePhase {
    /// Requests per second, as RBCS computes it: entries ÷ seconds. The two
    /// counters are added as u64, so that no file can overflow their sum.
    pub fn requests_per_s(&self) -> Option<f64> {
        (self.status == Status::Ok && self.seconds.get() > 0.0)
            .then(|| (u64::from(self.succeeded) + u64::from(self.failed)) as f64 / self.seconds.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(boot_id: &str, machine_id: &str) -> Instance {
        Instance { boot_id: Name::lossy(boot_id), machine_id: Name::lossy(machine_id) }
    }

    const BOOT_A: &str = "6f1c2a4e-93b1-4d0e-9a57-2b8c1d0e4f10";
    const BOOT_B: &str = "0d7e5b2a-1c3f-4e8a-b6d9-7f2a1c0e9b33";
    const MACHINE_A: &str = "a3f9c0d2e4b64c1f8d2e7b9a0c1d2e3f";
    const MACHINE_B: &str = "5b1e9d7c3a2f4e6d8c0b1a2f3e4d5c6b";

    /// Issue 13: both counts at `u32::MAX` overflowed their u32 sum.
    #[test]
    fn requests_per_s_of_the_largest_counts() {
        let phase = HttpCachePhase {
            status: Status::Ok,
            message: None,
            succeeded: u32::MAX,
            failed: u32::MAX,
            seconds: NonNeg::new(2.0).unwrap(),
            latency_p50_ms: None,
            latency_p90_ms: None,
            latency_p99_ms: None,
        };
        assert_eq!(phase.requests_per_s(), Some(f64::from(u32::MAX)));
    }

    #[test]
    fn known_instances_are_the_same_only_when_both_fields_agree() {
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, MACHINE_A)), Some(true));
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_A)), Some(false), "a reboot");
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, MACHINE_B)), Some(false));
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_B)), Some(false));
    }

    #[test]
    fn unknown_never_equals_unknown() {
        let unknown = instance(Instance::UNKNOWN, Instance::UNKNOWN);
        assert_eq!(unknown.same_as(&unknown.clone()), None);
        assert_eq!(instance("", " ").same_as(&instance("", " ")), None, "empty is unknown too");
        assert_eq!(unknown.same_as(&instance(BOOT_A, MACHINE_A)), None);
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&unknown), None);
        // Equal where known, unknown elsewhere: cannot tell.
        assert_eq!(instance(BOOT_A, Instance::UNKNOWN).same_as(&instance(BOOT_A, Instance::UNKNOWN)), None);
        assert_eq!(instance(BOOT_A, MACHINE_A).same_as(&instance(BOOT_A, Instance::UNKNOWN)), None);
        assert_eq!(instance(Instance::UNKNOWN, MACHINE_A).same_as(&instance(Instance::UNKNOWN, MACHINE_A)), None);
    }

    #[test]
    fn a_known_difference_tells_apart_despite_an_unknown_field() {
        assert_eq!(instance(BOOT_A, Instance::UNKNOWN).same_as(&instance(BOOT_B, Instance::UNKNOWN)), Some(false));
        assert_eq!(instance(Instance::UNKNOWN, MACHINE_A).same_as(&instance(BOOT_B, MACHINE_B)), Some(false));
    }
}
