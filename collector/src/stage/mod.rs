//! The measurement stages. Each stage is one module with one entry point
//! that takes the run's context and returns its section of the result.

pub mod cache;
pub mod cpu;
pub mod disk;
pub mod http;
pub mod http_cache;
pub mod internet;

/// A stage of the protocol, in the order `collector run` runs them by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    Cpu,
    Disk,
    Cache,
    Internet,
    HttpCache,
}

impl StageKind {
    /// The stages `collector run` can run: all but the cache stage, which
    /// runs across two jobs, with `collector cache`.
    pub const IN_RUN: [StageKind; 4] = [StageKind::Cpu, StageKind::Disk, StageKind::Internet, StageKind::HttpCache];

    /// The stages `collector run` runs when none are named: the http-cache
    /// stage needs a server to measure, so it runs only when asked for.
    pub const DEFAULT: [StageKind; 3] = [StageKind::Cpu, StageKind::Disk, StageKind::Internet];

    /// The stage's name in flags, notices and result files.
    pub fn name(self) -> &'static str {
        match self {
            StageKind::Cpu => "cpu",
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
            StageKind::Disk => "Disk I/O",
            StageKind::Cache => "Cache backends",
            StageKind::Internet => "Internet",
            StageKind::HttpCache => "Remote build cache",
        }
    }
}
