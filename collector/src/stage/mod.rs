//! The measurement stages. Each stage is one module with one entry point
//! that takes the run's context and returns its section of the result;
//! those `collector run` runs offer it the same interface, `Stage`.

pub mod cache;
pub mod cpu;
pub mod cpu_allcore;
pub mod disk;
pub mod http;
pub mod http_cache;
pub mod internet;

use runner_bench_format::Notice;
use runner_bench_format::measured::Stages;

use crate::platform::progress::Progress;

/// A stage of the protocol, in the order `collector run` runs them by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    Cpu,
    CpuAllCore,
    Disk,
    Cache,
    Internet,
    HttpCache,
}

impl StageKind {
    /// The stages `collector run` can run: all but the cache stage, which
    /// runs across two jobs, with `collector cache`.
    pub const IN_RUN: [StageKind; 5] =
        [StageKind::Cpu, StageKind::CpuAllCore, StageKind::Disk, StageKind::Internet, StageKind::HttpCache];

    /// The stages `collector run` runs when none are named: the http-cache
    /// stage needs a server to measure, so it runs only when asked for.
    pub const DEFAULT: [StageKind; 4] = [StageKind::Cpu, StageKind::CpuAllCore, StageKind::Disk, StageKind::Internet];

    /// The stage's name in flags, notices and result files.
    pub fn name(self) -> &'static str {
        match self {
            StageKind::Cpu => "cpu",
            StageKind::CpuAllCore => "cpu-allcore",
            StageKind::Disk => "disk",
            StageKind::Cache => "cache",
            StageKind::Internet => "internet",
            StageKind::HttpCache => "http-cache",
        }
    }

    /// A heading for progress output.
    pub fn title(self) -> &'static str {
        match self {
            StageKind::Cpu => "CPU (CoreMark, one pinned thread)",
            StageKind::CpuAllCore => "CPU (CoreMark, every logical CPU)",
            StageKind::Disk => "Disk I/O",
            StageKind::Cache => "Cache backends",
            StageKind::Internet => "Internet",
            StageKind::HttpCache => "Remote build cache",
        }
    }
}

/// What a stage that `collector run` runs offers it, implemented by the
/// stage's plan (what the stage needs to know): which stage it is, its
/// samples, its section of the result and where that goes, what it tells
/// people before its first sample, and its sample loop.
pub trait Stage {
    /// The stage's section of the result.
    type Section: Clone;

    /// Which stage this is.
    const KIND: StageKind;

    /// The samples (or runs) that progress counts.
    fn samples(&self) -> usize;

    /// The section before the first sample.
    fn empty(&self) -> Self::Section;

    /// Puts `section` in its place among the result's stages.
    fn place(section: Self::Section, stages: &mut Stages);

    /// Notices the plan itself raises, added before the first sample.
    fn notices(&self) -> Vec<Notice> {
        Vec::new()
    }

    /// What people are told before the first sample, if anything.
    fn intro(&self) -> Option<String> {
        None
    }

    /// Runs every sample. After each, `after_sample` sees the section so far
    /// and the notice that sample raised, so the caller can write both out
    /// before the next begins. Returns the section and the notices the stage
    /// adds at its end.
    fn run(
        &self,
        progress: &mut Progress,
        after_sample: impl FnMut(&Self::Section, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(Self::Section, Vec<Notice>)>;
}
