//! One cell of the grid: PUT every entry over `connections` concurrent
//! keep-alive connections, then GET them all back over the same
//! connections and check every body.
//!
//! The connections are spread over a thread per logical CPU, each with its
//! own current-thread runtime, as oha spreads its own: no task moves
//! between threads and no request waits on another thread's lock. Each
//! connection is one hyper client connection (client.rs), as oha and the
//! RBCS benchmark keep one connection per concurrent client, so a cell
//! opens exactly `connections` connections and keeps them across both
//! phases. The connections take the entries from one shared counter, so a
//! slow connection takes fewer. A request that fails (connection error,
//! status other than 2xx, wrong bytes) is counted and never retried.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hyper::StatusCode;
use runner_bench_format::measured::{HttpCachePhase, Status};
use runner_bench_format::{Message, NonNeg};
use tokio::task::JoinSet;

use super::client::{self, Connection, Connector};
use super::entries::Entry;
use crate::stage::disk::percentile;
use crate::stage::internet::secs_label;

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

    fn merge(&mut self, other: Tally) {
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.latencies_ns.extend(other.latencies_ns);
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// A phase for one worker thread.
struct Job {
    phase: Phase,
    entries: Arc<Vec<Entry>>,
    next: Arc<AtomicUsize>,
    deadline: Instant,
    /// Where the thread sends whether its requests all finished before the
    /// deadline, and its tally.
    done: mpsc::Sender<(bool, Tally)>,
}

/// The threads of a cell and their connections, kept from the PUT phase
/// to the GET phase. Dropping it closes the connections.
pub struct Workers {
    jobs: Vec<mpsc::Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// `connections` connections, not opened yet (each opens with its
    /// first request, inside the timed phase, as oha's do), spread over a
    /// thread per logical CPU.
    pub fn start(connector: &Arc<Connector>, connections: u32) -> std::io::Result<Workers> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let n = (connections as usize).clamp(1, cpus);
        let mut workers = Workers { jobs: Vec::new(), threads: Vec::new() };
        for i in 0..n {
            // As oha splits them: the remainder to the first threads.
            let mine = connections as usize / n + usize::from(i < connections as usize % n);
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let (jobs, receiver) = mpsc::channel();
            let connector = Arc::clone(connector);
            let thread = std::thread::Builder::new()
                .name(format!("http-cache-{i}"))
                .spawn(move || worker(&rt, &connector, mine, &receiver))?;
            workers.jobs.push(jobs);
            workers.threads.push(thread);
        }
        Ok(workers)
    }

    /// One phase over every connection, stopped at `deadline`. Never
    /// fails: what went wrong is recorded in the phase.
    pub fn phase(&self, phase: Phase, entries: &Arc<Vec<Entry>>, deadline: Instant, bound: Duration) -> HttpCachePhase {
        let (done, results) = mpsc::channel();
        let next = Arc::new(AtomicUsize::new(0));
        let start = Instant::now();
        for jobs in &self.jobs {
            let job =
                Job { phase, entries: Arc::clone(entries), next: Arc::clone(&next), deadline, done: done.clone() };
            // A thread that is gone took its connections with it; the
            // entries it would have taken go to the others.
            let _ = jobs.send(job);
        }
        drop(done);
        let mut tally = Tally::default();
        let mut finished = true;
        // Until every thread has answered or is gone.
        for (all_done, t) in results.iter() {
            finished &= all_done;
            tally.merge(t);
        }
        let elapsed = start.elapsed();
        outcome(phase, tally, entries.len(), elapsed, finished.then_some(()).ok_or(bound))
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.jobs.clear();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A worker thread: its connections, and each phase it is given run on
/// its own runtime until the phase's deadline.
fn worker(rt: &tokio::runtime::Runtime, connector: &Arc<Connector>, connections: usize, jobs: &mpsc::Receiver<Job>) {
    let mut idle: Vec<Connection> = (0..connections).map(|_| Connection::default()).collect();
    while let Ok(job) = jobs.recv() {
        // One thread's tasks share its tally; its lock is never contended.
        let tally = Arc::new(Mutex::new(Tally::default()));
        let (finished, kept) = rt.block_on(async {
            let mut tasks = JoinSet::new();
            for connection in idle.drain(..) {
                let (connector, tally) = (Arc::clone(connector), Arc::clone(&tally));
                let (entries, next) = (Arc::clone(&job.entries), Arc::clone(&job.next));
                tasks.spawn(requests(job.phase, connection, connector, entries, next, tally));
            }
            let mut kept = Vec::with_capacity(connections);
            let all_done = async {
                while let Some(done) = tasks.join_next().await {
                    kept.extend(done.ok());
                }
            };
            let finished = tokio::time::timeout_at(job.deadline.into(), all_done).await.is_ok();
            // Stops the requests still in flight: they are neither
            // succeeded nor failed, as no answer came. Their connections
            // close, and the next phase opens new ones in their place.
            tasks.abort_all();
            (finished, kept)
        });
        idle = kept;
        idle.resize_with(connections, Connection::default);
        let tally = std::mem::take(&mut *tally.lock().expect("no request panics while holding the tally"));
        let _ = job.done.send((finished, tally));
    }
}

/// One connection's requests: entries from the shared counter until none
/// is left. Returns the connection, for the next phase.
async fn requests(
    phase: Phase,
    mut connection: Connection,
    connector: Arc<Connector>,
    entries: Arc<Vec<Entry>>,
    next: Arc<AtomicUsize>,
    tally: Arc<Mutex<Tally>>,
) -> Connection {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(entry) = entries.get(i) else { break };
        let started = Instant::now();
        let outcome = request(phase, &connector, &mut connection, entry).await;
        tally.lock().expect("no request panics while holding the tally").record(started, outcome);
    }
    connection
}

/// One request, its body read to the end (and, for a GET, checked).
async fn request(
    phase: Phase,
    connector: &Connector,
    connection: &mut Connection,
    entry: &Entry,
) -> Result<(), String> {
    let request = match phase {
        Phase::Put => connector.requests.put(&entry.key, entry.body.clone()),
        Phase::Get => connector.requests.get(&entry.key),
    };
    let response = connection.send(connector, request).await?;
    let status = response.status();
    let body = response.into_body();
    if !status.is_success() {
        // Read to its end, so that the connection serves the next request.
        client::drain(body).await?;
        return Err(status_error(phase, status));
    }
    match phase {
        Phase::Put => client::drain(body).await,
        Phase::Get => client::read_entry(body, entry).await?,
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
