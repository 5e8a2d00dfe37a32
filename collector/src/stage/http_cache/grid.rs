//! One cell of the grid: PUT every entry over `connections` concurrent
//! keep-alive connections, then GET them all back over the same
//! connections and check every body.
//!
//! Each connection is its own client with a pool of one, as oha and the
//! RBCS benchmark keep one connection per concurrent client, so a cell
//! opens exactly `connections` connections and keeps them across both
//! phases. The connections take the entries from one shared counter, so a
//! slow connection takes fewer. A request that fails (connection error,
//! status other than 2xx, wrong bytes) is counted and never retried.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use runner_bench_format::measured::{HttpCachePhase, Status};
use runner_bench_format::{Message, NonNeg};
use tokio::task::JoinSet;

use super::entries::{self, Entry};
use super::protocol::Target;
use crate::stage::disk::percentile;
use crate::stage::http;
use crate::stage::internet::{chain, secs_label};

/// PUT or GET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Put,
    Get,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Put => "PUT",
            Phase::Get => "GET",
        }
    }
}

/// What the requests of a phase have done so far: read after the phase
/// ends, whether it finished or its time bound stopped it.
#[derive(Debug, Default)]
struct Tally {
    succeeded: u32,
    failed: u32,
    /// Each answered request's time, ns.
    latencies_ns: Vec<u64>,
    /// The first failure's message.
    first_error: Option<String>,
}

impl Tally {
    fn record(&mut self, started: Instant, outcome: Result<(), String>) {
        self.latencies_ns.push(u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX));
        match outcome {
            Ok(()) => self.succeeded += 1,
            Err(why) => {
                self.failed += 1;
                self.first_error.get_or_insert(why);
            }
        }
    }
}

/// The clients of a cell, one connection each.
pub fn clients(target: &Target, connections: u32, timeout: Duration) -> reqwest::Result<Vec<Client>> {
    (0..connections).map(|_| client(target, timeout)).collect()
}

/// A client of one keep-alive connection: rustls with the platform's roots
/// and the extra CAs, no compression, HTTP/1.1 or HTTP/2 as the server
/// offers over TLS.
pub fn client(target: &Target, timeout: Duration) -> reqwest::Result<Client> {
    let mut builder = http::client_builder(timeout).pool_max_idle_per_host(1);
    for ca in &target.extra_ca {
        builder = builder.add_root_certificate(ca.clone());
    }
    builder.build()
}

/// One phase over `clients`, stopped at `deadline`. Never fails: what went
/// wrong is recorded in the phase.
pub async fn phase(
    phase: Phase,
    target: &Arc<Target>,
    clients: &[Client],
    entries: &Arc<Vec<Entry>>,
    deadline: Instant,
    bound: Duration,
) -> HttpCachePhase {
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    for client in clients {
        let (client, target, entries, tally, next) =
            (client.clone(), Arc::clone(target), Arc::clone(entries), Arc::clone(&tally), Arc::clone(&next));
        tasks.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = entries.get(i) else { break };
                let started = Instant::now();
                let outcome = request(phase, &target, &client, entry).await;
                tally.lock().expect("no request panics while holding the tally").record(started, outcome);
            }
        });
    }
    let all_done = async { while tasks.join_next().await.is_some() {} };
    let finished = tokio::time::timeout_at(deadline.into(), all_done).await.is_ok();
    // Stops the requests still in flight: they are neither succeeded nor
    // failed, as no answer came.
    tasks.abort_all();
    let elapsed = start.elapsed();
    let tally = std::mem::take(&mut *tally.lock().expect("no request panics while holding the tally"));
    outcome(phase, tally, entries.len(), elapsed, finished.then_some(()).ok_or(bound))
}

/// One request, its body read to the end (and, for a GET, checked).
async fn request(phase: Phase, target: &Target, client: &Client, entry: &Entry) -> Result<(), String> {
    let request = match phase {
        Phase::Put => target.put(client, &entry.key, entry.body.clone()),
        Phase::Get => target.get(client, &entry.key),
    };
    let response = request.send().await.map_err(|e| chain(&e.without_url()))?;
    let status = response.status();
    let body = response.bytes().await.map_err(|e| chain(&e.without_url()))?;
    if !status.is_success() {
        return Err(status_error(phase, status));
    }
    match phase {
        Phase::Put => Ok(()),
        Phase::Get => entries::verify(entry, &body),
    }
}

/// What a status other than 2xx means for the user.
pub fn status_error(phase: Phase, status: StatusCode) -> String {
    let what = format!("HTTP {status} on {}", phase.name());
    match status.as_u16() {
        401 | 403 => format!(
            "{what}: the server refused the credentials; check --http-cache-token-env or --http-cache-basic-env"
        ),
        404 | 405 | 501 if phase == Phase::Put => {
            format!("{what}: the server does not take uploads there; check --http-cache-url and --http-cache-protocol")
        }
        404 => format!("{what}: the entry is not in the cache"),
        _ => what,
    }
}

/// The phase's record from its tally. `bound` is the run's time bound when
/// the phase hit it.
fn outcome(phase: Phase, tally: Tally, n: usize, elapsed: Duration, bound: Result<(), Duration>) -> HttpCachePhase {
    let mut sorted = tally.latencies_ns;
    sorted.sort_unstable();
    let ms = |pct| (!sorted.is_empty()).then(|| NonNeg::new(percentile(&sorted, pct) as f64 / 1e6).unwrap_or_default());
    let answered = tally.succeeded + tally.failed;
    let first = tally.first_error.map(|e| format!("; the first: {e}")).unwrap_or_default();
    let (status, message) = match bound {
        Err(bound) => (
            Status::Timeout,
            Some(format!(
                "exceeded the run's {} during the {} phase: {answered} of {n} requests answered \
                 ({} failed){first}",
                secs_label(bound),
                phase.name(),
                tally.failed
            )),
        ),
        Ok(()) if tally.succeeded == 0 => {
            (Status::Error, Some(format!("all {n} {} requests failed{first}", phase.name())))
        }
        Ok(()) if tally.failed > 0 => {
            (Status::Ok, Some(format!("{} of {n} {} requests failed{first}", tally.failed, phase.name())))
        }
        Ok(()) => (Status::Ok, None),
    };
    HttpCachePhase {
        status,
        message: message.map(|m| Message::lossy(&m)),
        succeeded: tally.succeeded,
        failed: tally.failed,
        seconds: NonNeg::new(elapsed.as_secs_f64()).unwrap_or_default(),
        latency_p50_ms: ms(50),
        latency_p90_ms: ms(90),
        latency_p99_ms: ms(99),
    }
}

/// A phase that did not run, and why.
pub fn not_run(why: &str) -> HttpCachePhase {
    HttpCachePhase {
        status: Status::Error,
        message: Some(Message::lossy(&format!("not run: {why}"))),
        succeeded: 0,
        failed: 0,
        seconds: NonNeg::default(),
        latency_p50_ms: None,
        latency_p90_ms: None,
        latency_p99_ms: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_say_what_to_check() {
        assert_eq!(
            status_error(Phase::Put, StatusCode::UNAUTHORIZED),
            "HTTP 401 Unauthorized on PUT: the server refused the credentials; check --http-cache-token-env or \
             --http-cache-basic-env"
        );
        assert_eq!(
            status_error(Phase::Put, StatusCode::METHOD_NOT_ALLOWED),
            "HTTP 405 Method Not Allowed on PUT: the server does not take uploads there; check --http-cache-url \
             and --http-cache-protocol"
        );
        assert_eq!(
            status_error(Phase::Get, StatusCode::NOT_FOUND),
            "HTTP 404 Not Found on GET: the entry is not in the cache"
        );
        assert_eq!(status_error(Phase::Get, StatusCode::BAD_GATEWAY), "HTTP 502 Bad Gateway on GET");
    }

    #[test]
    fn a_phase_with_some_failures_is_ok_and_says_so() {
        let mut tally = Tally::default();
        let t = Instant::now();
        tally.record(t, Ok(()));
        tally.record(t, Err("first".into()));
        tally.record(t, Err("second".into()));
        let p = outcome(Phase::Get, tally, 3, Duration::from_secs(2), Ok(()));
        assert_eq!((p.status, p.succeeded, p.failed), (Status::Ok, 1, 2));
        assert_eq!(p.message.unwrap().as_str(), "2 of 3 GET requests failed; the first: first");
        // RBCS counts failures in the rate.
        assert_eq!(p.seconds.get(), 2.0);
        assert!(p.latency_p50_ms.is_some() && p.latency_p99_ms.is_some());
    }

    #[test]
    fn a_phase_with_no_success_is_an_error_and_a_bound_hit_a_timeout() {
        let mut tally = Tally::default();
        tally.record(Instant::now(), Err("HTTP 404 Not Found on GET: the entry is not in the cache".into()));
        let p = outcome(Phase::Get, tally, 1, Duration::from_secs(1), Ok(()));
        assert_eq!(p.status, Status::Error);
        assert_eq!(
            p.message.unwrap().as_str(),
            "all 1 GET requests failed; the first: HTTP 404 Not Found on GET: the entry is not in the cache"
        );
        let p = outcome(Phase::Put, Tally::default(), 100, Duration::from_secs(3), Err(Duration::from_secs(3)));
        assert_eq!(p.status, Status::Timeout);
        assert_eq!(
            p.message.unwrap().as_str(),
            "exceeded the run's 3s during the PUT phase: 0 of 100 requests answered (0 failed)"
        );
        assert_eq!(p.latency_p50_ms, None);
    }
}
