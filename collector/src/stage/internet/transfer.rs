//! One transfer sample or request sample, on the stages' shared async
//! client (stage/http.rs): the bytes move on the thread that runs the stage,
//! as curl moves them on its own, with no hand-off to a client thread per
//! chunk.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use hyper_util::client::legacy::connect::HttpInfo;
use reqwest::header::ACCEPT_ENCODING;
use reqwest::{Client, Response, Url};
use runner_bench_format::measured::{RequestSample, Status, TransferSample};
use runner_bench_format::{Message, NonNeg};

use super::plan::{Direction, InternetPlan, MIB, secs_label};
use crate::rng::SplitMix64;
use crate::stage::http;

/// The runtime every sample of the stage runs on.
pub struct Transfers {
    rt: tokio::runtime::Runtime,
}

/// How far a transfer sample got: read after it ends, whether it finished,
/// failed or was stopped by the timeout.
#[derive(Default)]
struct Moved {
    /// Download bytes received, or upload bytes the server answered with 2xx.
    bytes: u64,
    /// The request under way, from 1.
    request: usize,
}

impl Transfers {
    pub fn new() -> std::io::Result<Transfers> {
        Ok(Transfers { rt: http::runtime()? })
    }

    /// One download or upload sample. Never fails: what went wrong is
    /// recorded in the sample.
    pub fn transfer(&self, plan: &InternetPlan, direction: Direction) -> TransferSample {
        let sizes = plan.request_mib();
        let client = match client(plan) {
            Ok(c) => c,
            Err(e) => return failed(Status::Error, format!("the HTTP client failed: {}", chain(&e)), 0, 0.0),
        };
        let mut rng = SplitMix64::unseeded();
        let url = plan.target.script(direction.script());
        let bodies = match direction {
            Direction::Download => Vec::new(),
            Direction::Upload => upload_bodies(&sizes, &mut rng),
        };
        let mut moved = Moved::default();

        let start = Instant::now();
        let requests = requests(&client, direction, &url, &sizes, &bodies, &mut rng, &mut moved);
        // The sample's deadline, whatever state the transfer is in: dropping
        // the requests' future ends them.
        let outcome = self.rt.block_on(async { tokio::time::timeout(plan.timeout, requests).await });
        let elapsed = start.elapsed();

        let which = format!("request {} of {}", moved.request, sizes.len());
        match outcome {
            Ok(Ok(())) => TransferSample {
                status: Status::Ok,
                message: None,
                bytes: moved.bytes,
                seconds: NonNeg::new(elapsed.as_secs_f64()).unwrap_or_default(),
            },
            // A timeout can also surface as whatever error the transfer was
            // in when reqwest's own clock stopped it.
            Ok(Err(why)) if elapsed < plan.timeout => {
                failed(Status::Error, format!("{which} failed: {why}"), moved.bytes, elapsed.as_secs_f64())
            }
            _ => {
                let message =
                    format!("exceeded {} during {which}; {} bytes moved", secs_label(plan.timeout), moved.bytes);
                failed(Status::Timeout, message, moved.bytes, elapsed.as_secs_f64())
            }
        }
    }

    /// One zero-byte request on a fresh connection. Never fails: what went
    /// wrong is recorded in the sample.
    pub fn request(&self, plan: &InternetPlan) -> RequestSample {
        let failed = |status: Status, message: String| RequestSample {
            status,
            message: Some(Message::lossy(&message)),
            ms: None,
        };
        let client = match client(plan) {
            Ok(c) => c,
            Err(e) => return failed(Status::Error, format!("the HTTP client failed: {}", chain(&e))),
        };
        let url = plan.target.script("empty.php");
        let request = client.get(url.clone()).query(&[("r", SplitMix64::unseeded().next_u64().to_string())]);

        let start = Instant::now();
        let exchange = async {
            let response = request.send().await.map_err(|e| chain(&e.without_url()))?;
            let mut response = check_status(response, &url)?;
            while response.chunk().await.map_err(|e| chain(&e.without_url()))?.is_some() {}
            Ok::<(), String>(())
        };
        let outcome = self.rt.block_on(async { tokio::time::timeout(plan.timeout, exchange).await });
        let elapsed = start.elapsed();

        match outcome {
            Ok(Ok(())) => RequestSample {
                status: Status::Ok,
                message: None,
                ms: NonNeg::new(elapsed.as_secs_f64() * 1000.0).ok(),
            },
            Ok(Err(why)) if elapsed < plan.timeout => failed(Status::Error, format!("request failed: {why}")),
            _ => failed(Status::Timeout, format!("exceeded {}", secs_label(plan.timeout))),
        }
    }
}

/// A sample's requests in order, on one connection; `moved` follows them.
async fn requests(
    client: &Client,
    direction: Direction,
    url: &Url,
    sizes: &[u32],
    bodies: &[(u32, Bytes)],
    rng: &mut SplitMix64,
    moved: &mut Moved,
) -> Result<(), String> {
    let mut first_connection = None;
    for (r, &mib) in sizes.iter().enumerate() {
        moved.request = r + 1;
        let r_param = [("r", rng.next_u64().to_string())];
        let request = match direction {
            Direction::Download => client.get(url.clone()).query(&r_param).query(&[("ckSize", mib.to_string())]),
            Direction::Upload => {
                let body = &bodies.iter().find(|(m, _)| *m == mib).expect("a body for every size").1;
                client.post(url.clone()).query(&r_param).body(body.clone())
            }
        };
        let request = request.header(ACCEPT_ENCODING, "identity");
        let response = request.send().await.map_err(|e| chain(&e.without_url()))?;
        let mut response = check_status(response, url)?;
        let connection = connection(&response)
            .ok_or_else(|| "the HTTP client did not say which connection carried it".to_string())?;
        match first_connection {
            None => first_connection = Some(connection),
            Some(first) if first != connection => {
                return Err("it went over a new connection, not request 1's; \
                            a sample's requests must share one connection"
                    .to_string());
            }
            Some(_) => {}
        }
        let want = u64::from(mib) * MIB;
        let mut got = 0u64;
        while let Some(chunk) = response.chunk().await.map_err(|e| chain(&e.without_url()))? {
            let n = chunk.len() as u64;
            if direction == Direction::Download {
                // What was asked for, never more: a sample records at most
                // its transfer's bytes, as `site check` holds it to.
                moved.bytes += n.min(want.saturating_sub(got));
                if got + n > want {
                    return Err(format!("garbage.php sent more than the {want} bytes of ckSize={mib}"));
                }
            }
            got += n;
        }
        match direction {
            Direction::Download if got != want => {
                return Err(format!("garbage.php sent {got} bytes for ckSize={mib}; {want} expected"));
            }
            Direction::Download => {}
            Direction::Upload => moved.bytes += want,
        }
    }
    Ok(())
}

/// One body per distinct request size (at most two), each a view of the
/// same random bytes: cloning one for a request copies no byte.
fn upload_bodies(sizes: &[u32], rng: &mut SplitMix64) -> Vec<(u32, Bytes)> {
    let largest = sizes.iter().max().map_or(0, |&mib| mib as usize * MIB as usize);
    let mut bytes = vec![0u8; largest];
    rng.fill(&mut bytes);
    let bytes = Bytes::from(bytes);
    let mut distinct = sizes.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.into_iter().map(|mib| (mib, bytes.slice(..mib as usize * MIB as usize))).collect()
}

/// The connection that carried a response, as its local and remote
/// addresses: two connections open at once never share both, and the
/// kernel does not hand a closed connection's local port straight back.
fn connection(response: &Response) -> Option<(SocketAddr, SocketAddr)> {
    response.extensions().get::<HttpInfo>().map(|info| (info.local_addr(), info.remote_addr()))
}

fn check_status(response: Response, url: &Url) -> Result<Response, String> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let script = url.path_segments().and_then(|mut s| s.next_back()).unwrap_or("");
    Err(format!("HTTP {status} from {script}"))
}

fn failed(status: Status, message: String, bytes: u64, seconds: f64) -> TransferSample {
    TransferSample {
        status,
        message: Some(Message::lossy(&message)),
        bytes,
        seconds: NonNeg::new(seconds).unwrap_or_default(),
    }
}

/// A client with an empty connection pool: HTTP/1.1, rustls with the
/// platform's roots and the extra CAs, no compression, and no proxy from
/// `HTTP_PROXY`, `HTTPS_PROXY` or `ALL_PROXY`: the stage measures the
/// runner's own path to the server, and the result names no proxy.
fn client(plan: &InternetPlan) -> reqwest::Result<Client> {
    let mut builder = http::client_builder(plan.timeout).http1_only().pool_max_idle_per_host(1).no_proxy();
    for ca in &plan.target.extra_ca {
        builder = builder.add_root_certificate(ca.clone());
    }
    builder.build()
}

/// An error and its causes, "outer: inner: innermost", without repeats.
pub fn chain(err: &dyn std::error::Error) -> String {
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
