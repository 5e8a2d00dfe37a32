//! The disk stage and its samples.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::Affinity;
use crate::values::{Message, Name, NonNeg};

use super::status::Status;

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
