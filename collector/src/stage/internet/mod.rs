//! The internet stage: download and upload throughput against a LibreSpeed
//! backend, and the time of a zero-byte HTTPS request.
//!
//! - One HTTP/1.1 stream at a time, on the stages' shared async client
//!   (stage/http.rs), so the bytes move on the stage's own thread. Each
//!   transfer sample has its own client, so its own single persistent
//!   connection, and moves the profile's payload
//!   as sequential requests of at most `internet_max_request_mib`: GETs of
//!   `garbage.php?ckSize=N` for downloads, POSTs of random bytes to
//!   `empty.php` for uploads. Both sizes are whole MiB, and ckSize counts
//!   MiB, so the last request of a payload that is not a multiple of the
//!   request size asks for exactly the MiB that are left: no byte is fetched
//!   that is not counted, and none is counted that was not fetched.
//! - A sample's seconds run from its first request to the last byte of its
//!   last response; building the client (loading the platform's roots) and
//!   generating the upload bytes come before. Mbps = bytes × 8 ÷ 10^6 ÷ s.
//! - A request sample builds a fresh client and times one GET of empty.php:
//!   DNS, TCP, TLS and the request, so it is not an ICMP round trip.
//! - Every response says which connection carried it (its local and remote
//!   address); a request that went over another connection than the
//!   sample's first fails the sample, since its figure would then include a
//!   second TCP (and TLS) handshake that the reference client does not pay.
//! - An HTTP status other than 2xx (redirects are not followed), a connection
//!   error, a new connection, a response of the wrong size or the sample
//!   timeout (a deadline on the whole sample, whatever the transfer is doing)
//!   ends a sample with `error` or `timeout`, its bytes so far and its
//!   seconds, and raises a notice. Every requested sample is still attempted.
//!   Download bytes count what was received; upload bytes count the requests
//!   the server answered with 2xx, since bytes handed to the network are not
//!   bytes delivered.
//! - Upload bodies are random bytes from the unseeded SplitMix64, fresh for
//!   every sample. Within a sample each request sends the same bytes (or a
//!   prefix of them): one repeat per 32 MiB is far beyond the window of any
//!   HTTP compressor, and generating them during the sample would slow it.
//!
//! Files: plan.rs (what the stage needs to know), target.rs (the backend
//! and its checks), transfer.rs (one sample's requests), and here the stage
//! loop.

mod plan;
mod target;
mod transfer;

use std::time::Duration;

use anyhow::Context;
use runner_bench_format::measured::{InternetStage, Stages, Status, TransferSample};
use runner_bench_format::{Message, Name, Notice};

pub use plan::{Direction, InternetPlan, secs_label};
pub use target::{DEFAULT_URL, Target, TargetField};
pub use transfer::{Transfers, chain};

use crate::platform::progress::Progress;
use crate::stage::{Stage, StageKind};

/// The stage before its first sample.
pub fn empty_stage(plan: &InternetPlan) -> InternetStage {
    InternetStage {
        endpoint: plan.target.endpoint.clone(),
        download: Vec::new(),
        upload: Vec::new(),
        request: Vec::new(),
    }
}

/// Runs every sample: the downloads, the uploads, then the zero-byte
/// requests. `after_sample` sees the stage after each sample, with the
/// notice that sample raised, if it failed, so the caller can record both
/// before the next sample begins.
pub fn run(
    plan: &InternetPlan,
    progress: &mut Progress,
    mut after_sample: impl FnMut(&InternetStage, Option<&Notice>) -> anyhow::Result<()>,
) -> anyhow::Result<InternetStage> {
    let transfers = Transfers::new().context("the internet stage's HTTP runtime did not start")?;
    let mut stage = empty_stage(plan);
    let n = plan.total_samples();
    let mut k = 0;
    let mut transfer_time = Duration::ZERO;
    for direction in [Direction::Download, Direction::Upload] {
        for i in 1..=plan.samples {
            k += 1;
            // Until a sample has run, the timeout is the only estimate.
            let per_sample = if k > 1 { transfer_time / (k - 1) as u32 } else { plan.timeout };
            progress.sample_start(k, n, per_sample * (2 * plan.samples as usize - k + 1) as u32);
            let sample = transfers.transfer(plan, direction);
            transfer_time += Duration::from_secs_f64(sample.seconds.get());
            progress.sample_done(k, n, &format!("{} {i}: {}", direction.name(), describe_transfer(&sample)));
            let notice = transfer_notice(plan, direction, i, &sample);
            match direction {
                Direction::Download => stage.download.push(sample),
                Direction::Upload => stage.upload.push(sample),
            }
            after_sample(&stage, notice.as_ref())?;
        }
    }
    for i in 1..=plan.request_samples {
        k += 1;
        progress.sample_start(k, n, Duration::from_secs(u64::from(plan.request_samples - i + 1)));
        let sample = transfers.request(plan);
        let outcome = match (sample.ms, &sample.message) {
            (Some(ms), _) => format!("{:.1} ms", ms.get()),
            (None, m) => failure_text(sample.status, m.as_ref()),
        };
        progress.sample_done(k, n, &format!("{} request {i}: {outcome}", plan.protocol()));
        let notice = (sample.status != Status::Ok).then(|| {
            let why = sample.message.as_ref().map_or("failed", Message::as_str);
            notice(&format!("{} request sample {i}: {why}; no request time", plan.protocol()))
        });
        stage.request.push(sample);
        after_sample(&stage, notice.as_ref())?;
    }
    Ok(stage)
}

fn describe_transfer(sample: &TransferSample) -> String {
    match sample.mbps() {
        Some(mbps) => format!("{mbps:.2} Mbps ({} bytes in {:.2} s)", sample.bytes, sample.seconds.get()),
        None => failure_text(sample.status, sample.message.as_ref()),
    }
}

fn failure_text(status: Status, message: Option<&Message>) -> String {
    let status = format!("{status:?}").to_lowercase();
    match message {
        Some(m) => format!("{status}: {m}"),
        None => status,
    }
}

/// The notice for a failed transfer sample, in the reports' words:
/// "HTTPS upload sample 1 exceeded 60s; 872415232 bytes reported; no speed
/// score".
fn transfer_notice(plan: &InternetPlan, direction: Direction, i: u32, sample: &TransferSample) -> Option<Notice> {
    let what = format!("{} {} sample {i}", plan.protocol(), direction.name());
    let text = match sample.status {
        Status::Ok => return None,
        Status::Timeout => format!("{what} exceeded {}", secs_label(plan.timeout)),
        Status::Error => format!("{what}: {}", sample.message.as_ref().map_or("failed", Message::as_str)),
    };
    Some(notice(&format!("{text}; {} bytes reported; no speed score", sample.bytes)))
}

fn notice(text: &str) -> Notice {
    Notice { stage: Name::lossy("internet"), message: Message::lossy(text) }
}

impl Stage for InternetPlan {
    type Section = InternetStage;
    const KIND: StageKind = StageKind::Internet;

    fn samples(&self) -> usize {
        self.total_samples()
    }

    fn empty(&self) -> InternetStage {
        empty_stage(self)
    }

    fn place(section: InternetStage, stages: &mut Stages) {
        stages.internet = Some(section);
    }

    fn intro(&self) -> Option<String> {
        Some(format!(
            "{} ({}): {} MiB per sample in requests of at most {} MiB, one {} connection per sample; request times \
             include DNS, TCP and TLS (not ICMP RTT)",
            self.target.endpoint.name,
            self.target.endpoint.url,
            self.transfer_mib,
            self.max_request_mib,
            self.target.base.scheme().to_uppercase(),
        ))
    }

    fn run(
        &self,
        progress: &mut Progress,
        after_sample: impl FnMut(&InternetStage, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(InternetStage, Vec<Notice>)> {
        Ok((run(self, progress, after_sample)?, Vec::new()))
    }
}

#[cfg(test)]
#[path = "../../../../tests/librespeed/server.rs"]
mod server;

#[cfg(test)]
mod tests;
