//! The internet stage: download and upload throughput against a LibreSpeed
//! backend, and the time of a zero-byte HTTPS request.
//!
//! - One HTTP/1.1 stream at a time. Each transfer sample has its own client,
//!   so its own single persistent connection, and moves the profile's payload
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
//! - An HTTP status other than 2xx (redirects are not followed), a connection
//!   error, a response of the wrong size or the sample timeout ends a sample
//!   with `error` or `timeout`, its bytes so far and its seconds, and raises a
//!   notice. Every requested sample is still attempted. Download bytes count
//!   what was received; upload bytes count the requests the server answered
//!   with 2xx, since bytes handed to the network are not bytes delivered.
//! - Upload bodies are random bytes from a xoshiro256** generator, fresh for
//!   every sample. Within a sample each request sends the same bytes (or a
//!   prefix of them): one repeat per 32 MiB is far beyond the window of any
//!   HTTP compressor, and generating them during the sample would slow it.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::ACCEPT_ENCODING;
use reqwest::{Certificate, Url};
use runner_bench_format::measured::{Endpoint, InternetStage, RequestSample, Status, TransferSample};
use runner_bench_format::{Message, Name, NonNeg, Notice, Parameters};

use crate::progress::Progress;

/// The backend the published reports use.
pub const DEFAULT_URL: &str = "https://amsspeed.sharktech.net/backend/";
/// Its display name in the reports.
pub const DEFAULT_NAME: &str = "LibreSpeed (Sharktech, Amsterdam)";

const MIB: u64 = 1 << 20;
/// Size of the buffer a download is read into.
const READ_BUFFER: usize = 256 * 1024;

/// Where the stage measures, as `collector run` was told.
#[derive(Debug, Clone)]
pub struct Target {
    /// Recorded in the result.
    pub endpoint: Endpoint,
    /// The backend folder, ending in `/`.
    pub base: Url,
    /// CAs trusted beside the platform's roots.
    pub extra_ca: Vec<Certificate>,
}

impl Target {
    /// Checks a backend URL, a display name and a CA file; each error names
    /// what is wrong and is prefixed by the caller with the flag's name.
    /// Without a name, the default URL gets the reports' name and any other
    /// URL its host.
    pub fn new(url: &str, name: Option<&str>, extra_ca: Option<&Path>) -> Result<Target, (TargetField, String)> {
        let base = backend_url(url).map_err(|e| (TargetField::Url, e))?;
        let name = match name {
            Some(n) => n.to_string(),
            None if base.as_str() == DEFAULT_URL => DEFAULT_NAME.to_string(),
            None => base.host_str().unwrap_or(base.as_str()).to_string(),
        };
        let name = Name::new(name).map_err(|e| (TargetField::Name, e))?;
        let url_name = Name::new(base.as_str()).map_err(|e| (TargetField::Url, e))?;
        let extra_ca = match extra_ca {
            Some(path) => load_ca(path).map_err(|e| (TargetField::CaCert, e))?,
            None => Vec::new(),
        };
        Ok(Target { endpoint: Endpoint { name, url: url_name }, base, extra_ca })
    }
}

/// Which part of a `Target` was wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetField {
    Url,
    Name,
    CaCert,
}

/// An http or https URL without query or fragment, as a folder.
fn backend_url(text: &str) -> Result<Url, String> {
    let mut url = Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("{text:?} is not an http:// or https:// URL"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?} has a query or fragment; give the backend folder, e.g. {DEFAULT_URL}"));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

fn load_ca(path: &Path) -> Result<Vec<Certificate>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let certs = Certificate::from_pem_bundle(&pem).map_err(|e| format!("{}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("{}: no PEM certificate found", path.display()));
    }
    Ok(certs)
}

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
    fn protocol(&self) -> String {
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

    fn backend(&self, script: &str) -> Url {
        self.target.base.join(script).expect("a file name joins onto a folder URL")
    }
}

/// Download or upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Download,
    Upload,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Download => "download",
            Direction::Upload => "upload",
        }
    }
}

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
            let sample = transfer(plan, direction);
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
        let sample = request(plan);
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

/// "60s", or "1.5s" for a timeout that is not whole seconds.
fn secs_label(d: Duration) -> String {
    match d.subsec_nanos() {
        0 => format!("{}s", d.as_secs()),
        _ => format!("{}s", d.as_secs_f64()),
    }
}

fn notice(text: &str) -> Notice {
    Notice { stage: Name::lossy("internet"), message: Message::lossy(text) }
}

/// One download or upload sample. Never fails: what went wrong is recorded
/// in the sample.
pub fn transfer(plan: &InternetPlan, direction: Direction) -> TransferSample {
    let sizes = plan.request_mib();
    let client = match client(plan) {
        Ok(c) => c,
        Err(e) => return transfer_failed(Status::Error, format!("the HTTP client failed: {}", chain(&e)), 0, 0.0),
    };
    let mut rng = Rng::new();
    let url = match direction {
        Direction::Download => plan.backend("garbage.php"),
        Direction::Upload => plan.backend("empty.php"),
    };
    // One body per distinct size (at most two), cloned per request without
    // copying the bytes.
    let mut bodies: Vec<(u32, RequestBuilder)> = Vec::new();
    if direction == Direction::Upload {
        let mut distinct = sizes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let mut bytes = rng.bytes(distinct.last().map_or(0, |&mib| mib as usize * MIB as usize));
        // Smallest first, so the largest can take the bytes without a copy.
        for (n, &mib) in distinct.iter().enumerate() {
            let body = match n + 1 == distinct.len() {
                true => std::mem::take(&mut bytes),
                false => bytes[..mib as usize * MIB as usize].to_vec(),
            };
            bodies.push((mib, client.post(url.clone()).header(ACCEPT_ENCODING, "identity").body(body)));
        }
    }
    let mut buffer = vec![0u8; READ_BUFFER];
    let count = sizes.len();

    let start = Instant::now();
    let mut bytes = 0u64;
    for (r, &mib) in sizes.iter().enumerate() {
        let which = format!("request {} of {count}", r + 1);
        let Some(left) = plan.timeout.checked_sub(start.elapsed()).filter(|d| !d.is_zero()) else {
            return timed_out(plan, &which, bytes, start);
        };
        let request = match direction {
            Direction::Download => client
                .get(url.clone())
                .query(&[("r", rng.next_u64().to_string()), ("ckSize", mib.to_string())])
                .header(ACCEPT_ENCODING, "identity"),
            Direction::Upload => {
                let template = &bodies.iter().find(|(m, _)| *m == mib).expect("a body for every size").1;
                template.try_clone().expect("byte bodies clone").query(&[("r", rng.next_u64().to_string())])
            }
        };
        let response = match request.timeout(left).send() {
            Ok(resp) => resp,
            Err(e) => return transfer_error(plan, &which, &chain(&e.without_url()), bytes, start),
        };
        if let Err(why) = check_status(&response, &url) {
            return transfer_error(plan, &which, &why, bytes, start);
        }
        let want = u64::from(mib) * MIB;
        let got = match read_body(response, &mut buffer, |n| {
            if direction == Direction::Download {
                bytes += n;
            }
        }) {
            Ok(got) => got,
            Err(e) => return transfer_error(plan, &which, &chain(&e), bytes, start),
        };
        match direction {
            Direction::Download if got != want => {
                let why = format!("garbage.php sent {got} bytes for ckSize={mib}; {want} expected");
                return transfer_error(plan, &which, &why, bytes, start);
            }
            Direction::Download => {}
            Direction::Upload => bytes += want,
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    TransferSample { status: Status::Ok, message: None, bytes, seconds: NonNeg::new(seconds).unwrap_or_default() }
}

/// Reads a body to its end, calling `moved` with each piece's size; returns
/// the total.
fn read_body(mut response: Response, buffer: &mut [u8], mut moved: impl FnMut(u64)) -> std::io::Result<u64> {
    let mut total = 0u64;
    loop {
        match response.read(buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => {
                total += n as u64;
                moved(n as u64);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn check_status(response: &Response, url: &Url) -> Result<(), String> {
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let script = url.path_segments().and_then(|mut s| s.next_back()).unwrap_or("");
    Err(format!("HTTP {status} from {script}"))
}

/// An error, unless the sample's time ran out first: a timeout surfaces as
/// whatever error the transfer was in when the clock stopped it.
fn transfer_error(plan: &InternetPlan, which: &str, why: &str, bytes: u64, start: Instant) -> TransferSample {
    if start.elapsed() >= plan.timeout {
        return timed_out(plan, which, bytes, start);
    }
    let seconds = start.elapsed().as_secs_f64();
    transfer_failed(Status::Error, format!("{which} failed: {why}"), bytes, seconds)
}

fn timed_out(plan: &InternetPlan, which: &str, bytes: u64, start: Instant) -> TransferSample {
    let seconds = start.elapsed().as_secs_f64();
    let message = format!("exceeded {} during {which}; {bytes} bytes moved", secs_label(plan.timeout));
    transfer_failed(Status::Timeout, message, bytes, seconds)
}

fn transfer_failed(status: Status, message: String, bytes: u64, seconds: f64) -> TransferSample {
    TransferSample {
        status,
        message: Some(Message::lossy(&message)),
        bytes,
        seconds: NonNeg::new(seconds).unwrap_or_default(),
    }
}

/// One zero-byte request on a fresh connection. Never fails: what went
/// wrong is recorded in the sample.
pub fn request(plan: &InternetPlan) -> RequestSample {
    let failed =
        |status: Status, message: String| RequestSample { status, message: Some(Message::lossy(&message)), ms: None };
    let client = match client(plan) {
        Ok(c) => c,
        Err(e) => return failed(Status::Error, format!("the HTTP client failed: {}", chain(&e))),
    };
    let url = plan.backend("empty.php");
    let mut buffer = [0u8; 1024];
    let request = client.get(url.clone()).query(&[("r", Rng::new().next_u64().to_string())]).timeout(plan.timeout);

    let start = Instant::now();
    let outcome = request
        .send()
        .map_err(|e| chain(&e.without_url()))
        .and_then(|resp| check_status(&resp, &url).map(|()| resp))
        .and_then(|resp| read_body(resp, &mut buffer, |_| {}).map_err(|e| chain(&e)));
    let elapsed = start.elapsed();

    match outcome {
        Ok(_) => {
            RequestSample { status: Status::Ok, message: None, ms: NonNeg::new(elapsed.as_secs_f64() * 1000.0).ok() }
        }
        Err(_) if elapsed >= plan.timeout => failed(Status::Timeout, format!("exceeded {}", secs_label(plan.timeout))),
        Err(why) => failed(Status::Error, format!("request failed: {why}")),
    }
}

/// A client with an empty connection pool: HTTP/1.1, rustls with the
/// platform's roots and the extra CAs, no redirects, no compression.
fn client(plan: &InternetPlan) -> reqwest::Result<Client> {
    let mut builder = Client::builder()
        .http1_only()
        .pool_max_idle_per_host(1)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(plan.timeout)
        .user_agent(concat!("runner-bench-collector/", env!("CARGO_PKG_VERSION")));
    for ca in &plan.target.extra_ca {
        builder = builder.add_root_certificate(ca.clone());
    }
    builder.build()
}

/// An error and its causes, "outer: inner: innermost", without repeats.
fn chain(err: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.last().is_some_and(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

/// xoshiro256**, seeded from the clock and a counter through splitmix64:
/// fast, and its output does not compress.
struct Rng([u64; 4]);

impl Rng {
    fn new() -> Rng {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let mut seed = nanos ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(32) ^ u64::from(std::process::id());
        let mut splitmix = || {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng([splitmix(), splitmix(), splitmix(), splitmix()])
    }

    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for chunk in out.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }
}

#[cfg(test)]
#[path = "../../../tests/librespeed/server.rs"]
mod server;

#[cfg(test)]
mod tests {
    use super::*;
    use runner_bench_format::Profile;
    use server::Server;

    fn plan(server: &Server, https: bool, backend: &str, transfer_mib: u32, max_request_mib: u32) -> InternetPlan {
        let ca = server.ca_cert();
        let target = Target::new(&server.url(https, backend), Some("test server"), Some(&ca)).unwrap();
        InternetPlan {
            target,
            samples: 1,
            transfer_mib,
            max_request_mib,
            request_samples: 2,
            timeout: Duration::from_secs(20),
        }
    }

    #[test]
    fn requests_split_the_payload_and_end_with_the_remainder() {
        let mut plan =
            InternetPlan::new(&Profile::Standard.parameters(), Target::new(DEFAULT_URL, None, None).unwrap());
        assert_eq!(plan.request_mib(), vec![32; 32]);
        plan.transfer_mib = 10;
        plan.max_request_mib = 4;
        assert_eq!(plan.request_mib(), vec![4, 4, 2]);
        plan.transfer_mib = 3;
        assert_eq!(plan.request_mib(), vec![3]);
        assert_eq!(plan.total_samples(), 6 + 5);
    }

    #[test]
    fn targets_are_checked_and_named() {
        let t = Target::new(DEFAULT_URL, None, None).unwrap();
        assert_eq!((t.endpoint.name.as_str(), t.endpoint.url.as_str()), (DEFAULT_NAME, DEFAULT_URL));
        let t = Target::new("http://speed.example.org:8080/lib", None, None).unwrap();
        assert_eq!(t.endpoint.url.as_str(), "http://speed.example.org:8080/lib/");
        assert_eq!(t.endpoint.name.as_str(), "speed.example.org");
        assert_eq!(t.base.join("garbage.php").unwrap().as_str(), "http://speed.example.org:8080/lib/garbage.php");
        for bad in ["ftp://x/", "not a url", "https://x/backend/?a=1"] {
            assert_eq!(Target::new(bad, None, None).unwrap_err().0, TargetField::Url, "{bad}");
        }
        let err = Target::new(DEFAULT_URL, None, Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert_eq!(err.0, TargetField::CaCert);
    }

    #[test]
    fn random_bodies_do_not_repeat() {
        let mut rng = Rng::new();
        let a = rng.bytes(1 << 16);
        assert_ne!(a[..8], a[8..16]);
        assert_ne!(a, Rng::new().bytes(1 << 16));
        // Every byte value turns up about equally often.
        let mut counts = [0u32; 256];
        a.iter().for_each(|&b| counts[b as usize] += 1);
        assert!(counts.iter().all(|&c| (128..=384).contains(&c)), "{counts:?}");
    }

    /// The access log's lines as (connection, request on it, method, path),
    /// once it has `lines` of them: nginx logs just after the response.
    fn logged(server: &Server, lines: usize) -> Vec<(u64, u64, String, String)> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let log = server.access_log();
            if log.lines().count() >= lines || Instant::now() > deadline {
                return log
                    .lines()
                    .map(|line| {
                        let f: Vec<&str> = line.split(' ').collect();
                        (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].to_string(), f[3].to_string())
                    })
                    .collect();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn https_samples_succeed_with_the_extra_ca_each_on_one_connection() {
        let server = Server::start();
        let plan = plan(&server, true, "backend", 8, 4);
        for direction in [Direction::Download, Direction::Upload] {
            let sample = transfer(&plan, direction);
            assert_eq!(sample.status, Status::Ok, "{direction:?}: {:?}", sample.message);
            assert_eq!(sample.bytes, 8 * MIB);
            assert!(sample.mbps().unwrap() > 1.0);
        }
        for _ in 0..2 {
            let sample = request(&plan);
            assert_eq!(sample.status, Status::Ok, "{:?}", sample.message);
            assert!(sample.ms.unwrap().get() > 0.0);
        }

        let log = logged(&server, 6);
        let shape: Vec<(u64, &str, &str)> = log.iter().map(|(_, n, m, p)| (*n, m.as_str(), p.as_str())).collect();
        assert_eq!(
            shape,
            [
                (1, "GET", "/backend/garbage.php"),
                (2, "GET", "/backend/garbage.php"),
                (1, "POST", "/backend/empty.php"),
                (2, "POST", "/backend/empty.php"),
                (1, "GET", "/backend/empty.php"),
                (1, "GET", "/backend/empty.php"),
            ]
        );
        // A sample's requests share its connection; nothing else does.
        let connections: Vec<u64> = log.iter().map(|l| l.0).collect();
        assert_eq!(connections[0], connections[1]);
        assert_eq!(connections[2], connections[3]);
        let mut distinct = vec![connections[0], connections[2], connections[4], connections[5]];
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{log:?}");
    }

    #[test]
    fn without_the_extra_ca_the_certificate_is_refused() {
        let server = Server::start();
        let mut plan = plan(&server, true, "backend", 1, 1);
        plan.target.extra_ca.clear();
        let sample = transfer(&plan, Direction::Download);
        assert_eq!(sample.status, Status::Error);
        let message = sample.message.unwrap();
        assert!(message.as_str().contains("certificate"), "{message}");
        assert_eq!(request(&plan).status, Status::Error);
    }

    #[test]
    fn a_payload_not_a_multiple_of_the_request_size_moves_exactly() {
        let server = Server::start();
        let plan = plan(&server, false, "backend", 7, 3);
        assert_eq!(plan.request_mib(), vec![3, 3, 1]);
        for direction in [Direction::Download, Direction::Upload] {
            let sample = transfer(&plan, direction);
            assert_eq!((sample.status, sample.bytes), (Status::Ok, 7 * MIB), "{direction:?}: {:?}", sample.message);
        }
    }

    #[test]
    fn a_403_fails_every_sample_with_a_notice() {
        let server = Server::start();
        let plan = plan(&server, true, "forbidden", 2, 1);
        let mut notices = Vec::new();
        let stage = run(&plan, &mut Progress::quiet(), |_, notice| {
            notices.extend(notice.cloned());
            Ok(())
        })
        .unwrap();
        assert_eq!((stage.download.len(), stage.upload.len(), stage.request.len()), (1, 1, 2));
        for sample in stage.download.iter().chain(&stage.upload) {
            assert_eq!((sample.status, sample.bytes, sample.mbps()), (Status::Error, 0, None));
        }
        assert!(stage.request.iter().all(|s| s.status == Status::Error && s.ms.is_none()));
        let texts: Vec<&str> = notices.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            texts,
            [
                "HTTPS download sample 1: request 1 of 2 failed: HTTP 403 Forbidden from garbage.php; \
                 0 bytes reported; no speed score",
                "HTTPS upload sample 1: request 1 of 2 failed: HTTP 403 Forbidden from empty.php; \
                 0 bytes reported; no speed score",
                "HTTPS request sample 1: request failed: HTTP 403 Forbidden from empty.php; no request time",
                "HTTPS request sample 2: request failed: HTTP 403 Forbidden from empty.php; no request time",
            ]
        );
        assert!(notices.iter().all(|n| n.stage.as_str() == "internet"));
    }

    #[test]
    fn a_slow_server_trips_the_timeout() {
        let server = Server::start();
        let mut plan = plan(&server, false, "slow", 8, 4);
        plan.timeout = Duration::from_millis(1500);
        let sample = transfer(&plan, Direction::Download);
        assert_eq!(sample.status, Status::Timeout, "{:?}", sample.message);
        // One MiB every 250 ms: some of the payload, not all of it.
        assert!(sample.bytes >= MIB && sample.bytes < 8 * MIB, "{}", sample.bytes);
        assert!(sample.seconds.get() >= 1.5 && sample.seconds.get() < 3.0, "{}", sample.seconds.get());
        let message = sample.message.clone().unwrap();
        assert!(message.as_str().starts_with("exceeded 1.5s during request "), "{message}");
        let notice = transfer_notice(&plan, Direction::Download, 1, &sample).unwrap();
        assert_eq!(
            notice.message.as_str(),
            format!("HTTP download sample 1 exceeded 1.5s; {} bytes reported; no speed score", sample.bytes)
        );

        // The upload is sent, but the answer comes too late: nothing counts.
        let sample = transfer(&plan, Direction::Upload);
        assert_eq!((sample.status, sample.bytes), (Status::Timeout, 0), "{:?}", sample.message);
    }

    #[test]
    fn a_server_closing_mid_transfer_is_an_error_with_the_bytes_moved() {
        let server = Server::start();
        let plan = plan(&server, true, "broken", 8, 4);
        let sample = transfer(&plan, Direction::Download);
        assert_eq!(sample.status, Status::Error, "{:?}", sample.message);
        // garbage.php sends half of the first request's 4 MiB, then stops.
        assert_eq!(sample.bytes, 2 * MIB);
        let message = sample.message.unwrap();
        assert!(message.as_str().starts_with("request 1 of 2 failed: "), "{message}");

        let sample = transfer(&plan, Direction::Upload);
        assert_eq!((sample.status, sample.bytes), (Status::Error, 0), "{:?}", sample.message);
    }
}
