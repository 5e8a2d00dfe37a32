//! What the internet stage needs to know: the plan of its samples, the two
//! directions of a transfer, and how a timeout is named in messages.

use std::time::Duration;

use runner_bench_format::Parameters;

use super::target::Target;

pub const MIB: u64 = 1 << 20;

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct InternetPlan {
    pub target: Target,
    /// Download samples, and upload samples.
    pub samples: u32,
    pub transfer_mib: u32,
    pub max_request_mib: u32,
    pub request_samples: u32,
    pub timeout: Duration,
}

impl InternetPlan {
    pub fn new(params: &Parameters, target: Target) -> Self {
        InternetPlan {
            target,
            samples: params.internet_samples,
            transfer_mib: params.internet_transfer_mib,
            max_request_mib: params.internet_max_request_mib,
            request_samples: params.internet_request_samples,
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
        }
    }

    /// Every sample of the stage: downloads, uploads, then requests.
    pub fn total_samples(&self) -> usize {
        2 * self.samples as usize + self.request_samples as usize
    }

    /// "HTTPS" or "HTTP", for messages.
    pub fn protocol(&self) -> String {
        self.target.base.scheme().to_uppercase()
    }

    /// The MiB of each request of one transfer sample, in order.
    pub fn request_mib(&self) -> Vec<u32> {
        let max = self.max_request_mib.max(1);
        let mut left = self.transfer_mib;
        let mut sizes = Vec::with_capacity(left.div_ceil(max) as usize);
        while left > 0 {
            let n = left.min(max);
            sizes.push(n);
            left -= n;
        }
        sizes
    }
}

/// Download or upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Download,
    Upload,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Download => "download",
            Direction::Upload => "upload",
        }
    }

    /// The backend script a sample's requests go to.
    pub fn script(self) -> &'static str {
        match self {
            Direction::Download => "garbage.php",
            Direction::Upload => "empty.php",
        }
    }
}

/// "60s", or "1.5s" for a timeout that is not whole seconds.
pub fn secs_label(d: Duration) -> String {
    match d.subsec_nanos() {
        0 => format!("{}s", d.as_secs()),
        _ => format!("{}s", d.as_secs_f64()),
    }
}
