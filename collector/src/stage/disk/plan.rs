//! What the disk stage needs to know, and the alignment its buffers,
//! offsets and sizes keep.

use std::path::PathBuf;
use std::time::Duration;

use runner_bench_format::Parameters;

/// Direct I/O needs buffers, offsets and sizes aligned to the device's
/// logical block; 4 KiB covers every common device.
pub const ALIGN: usize = 4096;

/// The fill's deadline allows a sample timeout per this many MiB: 240 s
/// for the standard profile's 1 GiB file, a disk writing at 4.3 MiB/s or
/// more. A disk slower than that, or one call that hangs, ends the stage
/// with a notice instead of the job at its own time limit.
pub const FILL_MIB_PER_TIMEOUT: u32 = 256;

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct DiskPlan {
    pub samples: u32,
    pub file_bytes: u64,
    pub op_time: Duration,
    pub timeout: Duration,
    /// How long the test file's fill may take: `timeout` for every
    /// `FILL_MIB_PER_TIMEOUT` MiB, at least one `timeout`.
    pub fill_timeout: Duration,
    pub seq_block: usize,
    pub rand_block: usize,
    pub dir: PathBuf,
    pub cpu: Option<u32>,
}

impl DiskPlan {
    pub fn new(params: &Parameters, dir: PathBuf, cpu: Option<u32>) -> Self {
        DiskPlan {
            samples: params.disk_samples,
            file_bytes: u64::from(params.disk_file_mib) << 20,
            op_time: Duration::from_secs(params.disk_op_seconds.into()),
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
            fill_timeout: Duration::from_secs(params.sample_timeout_s.into())
                * params.disk_file_mib.div_ceil(FILL_MIB_PER_TIMEOUT).max(1),
            seq_block: params.disk_seq_block_kib as usize * 1024,
            rand_block: params.disk_rand_block_kib as usize * 1024,
            dir,
            cpu,
        }
    }
}
