//! The http-cache stage: a remote build-cache server's PUT and GET
//! requests per second, measured the way the RBCS benchmark measures them.
//!
//! - First a probe on one warm keep-alive connection (conditions.rs): the
//!   HTTP version, the median time of zero-byte requests (the RTT through
//!   the server) and the bandwidth of one 8 MiB GET. A server that refuses
//!   the connection or the credentials, or that does not take PUTs at the
//!   URL, ends the stage here: every cell is recorded as not run, with the
//!   reason, and the run goes on to its next stage.
//! - Then each cell of the profile's grid, entry size × connections
//!   (grid.rs): `http_cache_entries` unique random entries PUT over that
//!   many concurrent keep-alive connections, then all GET back over the
//!   same connections, every body checked against its SHA-256 key
//!   (entries.rs). requests/s = (succeeded + failed) ÷ seconds, as RBCS
//!   computes it; failures are counted, never retried.
//! - A run (PUT and GET) has `sample_timeout_s`; a run that reaches it is
//!   recorded as `timeout` with what it had done.
//! - What only the server's owner knows (software, backend, quotas,
//!   compression, digest) comes from `collector run`'s flags
//!   (cmd/run/http_cache_args.rs) and is recorded as declared.
//!
//! The requests go over hyper's HTTP/1.1 client connections (client.rs),
//! spread over a thread per logical CPU (grid.rs), as oha's are. GET bodies
//! are compared byte for byte with what was PUT as they arrive
//! (entries.rs), which costs far less than hashing them.

mod action_result;
mod client;
mod conditions;
mod entries;
mod grid;
pub mod protocol;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use runner_bench_format::measured::{
    HttpCacheDeclared, HttpCachePhase, HttpCacheRun, HttpCacheServer, HttpCacheStage, Stages, Status,
};
use runner_bench_format::{Message, Name, Notice, Parameters};

use grid::{Phase, not_run};
pub use protocol::HttpCacheSettings;
use protocol::Target;

use crate::platform::progress::Progress;
use crate::rng::SplitMix64;
use crate::stage::http;
use crate::stage::internet::{chain, secs_label};
use crate::stage::{Stage, StageKind};
use client::Connector;

/// What a value stands for when its owner declared none.
const UNDECLARED: &str = "undeclared";

/// What the stage needs to know.
#[derive(Debug, Clone)]
pub struct HttpCachePlan {
    pub target: Target,
    pub declared: HttpCacheDeclared,
    pub entries: u32,
    pub value_bytes: Vec<u64>,
    pub connections: Vec<u32>,
    /// The bound on one run (its PUT and GET phases together), and on the probe.
    pub timeout: Duration,
}

impl HttpCachePlan {
    pub fn new(params: &Parameters, settings: HttpCacheSettings) -> Self {
        HttpCachePlan {
            target: settings.target,
            declared: settings.declared,
            entries: params.http_cache_entries,
            value_bytes: params.http_cache_value_bytes.clone(),
            connections: params.http_cache_connections.clone(),
            timeout: Duration::from_secs(params.sample_timeout_s.into()),
        }
    }

    /// The grid's cells in the order they run: entry size, then connections.
    pub fn cells(&self) -> Vec<(u64, u32)> {
        self.value_bytes.iter().flat_map(|&b| self.connections.iter().map(move |&c| (b, c))).collect()
    }
}

/// The stage before the probe: the server as the flags describe it.
pub fn empty_stage(plan: &HttpCachePlan) -> HttpCacheStage {
    HttpCacheStage {
        server: HttpCacheServer {
            url: Name::lossy(plan.target.base.as_str()),
            software: plan.declared.software.clone().unwrap_or_else(|| Name::lossy(UNDECLARED)),
            conditions: Vec::new(),
            protocol: Some(plan.target.protocol),
            observed: None,
            declared: Some(plan.declared.clone()),
        },
        runs: Vec::new(),
    }
}

/// A run of the grid with both phases; the declared backend and quotas.
pub fn new_run(
    declared: &HttpCacheDeclared,
    (value_bytes, connections): (u64, u32),
    put: HttpCachePhase,
    get: HttpCachePhase,
) -> HttpCacheRun {
    HttpCacheRun {
        backend: declared.backend.clone().unwrap_or_else(|| Name::lossy(UNDECLARED)),
        cpu_quota: declared.cpu_quota,
        memory_quota_gb: declared.memory_quota_gb,
        value_bytes,
        connections,
        put,
        get,
    }
}

/// A phase cut short by an interruption (cmd/run/interrupt.rs), with its message.
pub fn interrupted_phase(message: &str) -> HttpCachePhase {
    HttpCachePhase { message: Some(Message::lossy(message)), ..not_run("") }
}

/// Runs the probe, then every cell. `after_run` sees the stage after the
/// probe and after each cell, with the notice that step raised, so the
/// caller can record both before the next begins.
pub fn run(
    plan: &HttpCachePlan,
    progress: &mut Progress,
    mut after_run: impl FnMut(&HttpCacheStage, Option<&Notice>) -> anyhow::Result<()>,
) -> anyhow::Result<HttpCacheStage> {
    let rt = http::runtime().context("the http-cache stage's HTTP runtime did not start")?;
    let mut rng = SplitMix64::unseeded();
    let mut stage = empty_stage(plan);
    let protocol = plan.target.protocol.name();

    let connector = Connector::new(&plan.target).map(Arc::new);
    let probe = match &connector {
        Ok(connector) => {
            let probe = conditions::probe(&plan.target, connector, &mut rng);
            rt.block_on(async { tokio::time::timeout(plan.timeout, probe).await }).unwrap_or_else(|_| {
                conditions::Probe {
                    observed: conditions::unobserved(&plan.target),
                    fatal: Some(format!("the probe exceeded {}", secs_label(plan.timeout))),
                }
            })
        }
        Err(e) => conditions::Probe {
            observed: conditions::unobserved(&plan.target),
            fatal: Some(format!("the HTTP client failed: {e}")),
        },
    };
    // The probe's connection is closed with its runtime, before the grid.
    drop(rt);
    stage.server.conditions = conditions::list(protocol, &probe.observed, &plan.declared);
    progress.note(&format!(
        "{} ({protocol}): {}",
        plan.target.base,
        stage
            .server
            .conditions
            .iter()
            .skip(1)
            .map(|c| format!("{} {}", c.name, c.value))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let probe_notice = probe.observed.message.as_ref().map(|m| notice(&format!("{}: {m}", plan.target.base)));
    stage.server.observed = Some(probe.observed);

    let cells = plan.cells();
    if let Some(why) = probe.fatal {
        let text = format!("{}: {why}; no cell of the grid was measured", plan.target.base);
        progress.note(&format!("error: {text}"));
        for &cell in &cells {
            stage.runs.push(new_run(&plan.declared, cell, not_run(&why), not_run(&why)));
        }
        after_run(&stage, Some(&notice(&text)))?;
        return Ok(stage);
    }
    after_run(&stage, probe_notice.as_ref())?;

    let connector = connector.expect("a probe without a connector is fatal");
    let n = cells.len();
    let mut spent = Duration::ZERO;
    for (k, &cell) in cells.iter().enumerate() {
        let per_cell = if k > 0 { spent / k as u32 } else { plan.timeout };
        progress.sample_start(k + 1, n, per_cell * (n - k) as u32);
        let started = Instant::now();
        let run = cell_run(plan, &connector, cell, &mut rng);
        spent += started.elapsed();
        progress.sample_done(k + 1, n, &describe(&run));
        let failed = [(Phase::Put, &run.put), (Phase::Get, &run.get)]
            .into_iter()
            .filter(|(_, p)| p.status != Status::Ok)
            .map(|(phase, p)| format!("{} {}", phase.name(), p.message.as_ref().map_or("failed", Message::as_str)))
            .collect::<Vec<_>>();
        let notice = (!failed.is_empty())
            .then(|| notice(&format!("{} bytes over {} connections: {}", cell.0, cell.1, failed.join("; "))));
        stage.runs.push(run);
        after_run(&stage, notice.as_ref())?;
    }
    Ok(stage)
}

/// One cell: its entries and connections, the PUT phase, then the GET
/// phase in what is left of the run's bound.
fn cell_run(plan: &HttpCachePlan, connector: &Arc<Connector>, cell: (u64, u32), rng: &mut SplitMix64) -> HttpCacheRun {
    let (value_bytes, connections) = cell;
    let entries = match entries::for_protocol(plan.target.protocol, plan.entries, value_bytes, rng) {
        Ok(entries) => Arc::new(entries),
        Err(why) => return new_run(&plan.declared, cell, not_run(&why), not_run(&why)),
    };
    let workers = match grid::Workers::start(connector, connections) {
        Ok(w) => w,
        Err(e) => {
            let why = format!("the HTTP client's threads did not start: {}", chain(&e));
            return new_run(&plan.declared, cell, not_run(&why), not_run(&why));
        }
    };
    let deadline = Instant::now() + plan.timeout;
    let put = workers.phase(Phase::Put, &entries, deadline, plan.timeout);
    let get = match put.status {
        Status::Timeout => not_run("the run's time bound ran out in the PUT phase"),
        _ if put.succeeded == 0 => not_run("the PUT phase stored no entry"),
        _ => workers.phase(Phase::Get, &entries, deadline, plan.timeout),
    };
    new_run(&plan.declared, cell, put, get)
}

/// "4096 B × 4: PUT 5321/s, GET 8110/s (p99 1.2 ms, 0.8 ms)", or what failed.
fn describe(run: &HttpCacheRun) -> String {
    let phase = |name: &str, p: &HttpCachePhase| match p.requests_per_s() {
        Some(rate) => format!(
            "{name} {rate:.0}/s (p99 {:.2} ms{})",
            p.latency_p99_ms.map_or(0.0, |v| v.get()),
            if p.failed > 0 { format!(", {} failed", p.failed) } else { String::new() }
        ),
        None => {
            format!("{name} {:?}: {}", p.status, p.message.as_ref().map_or("failed", Message::as_str)).to_lowercase()
        }
    };
    format!("{} B × {}: {}, {}", run.value_bytes, run.connections, phase("PUT", &run.put), phase("GET", &run.get))
}

fn notice(text: &str) -> Notice {
    Notice { stage: Name::lossy("http-cache"), message: Message::lossy(text) }
}

impl Stage for HttpCachePlan {
    type Section = HttpCacheStage;
    const KIND: StageKind = StageKind::HttpCache;

    fn samples(&self) -> usize {
        self.cells().len()
    }

    fn empty(&self) -> HttpCacheStage {
        empty_stage(self)
    }

    fn place(section: HttpCacheStage, stages: &mut Stages) {
        stages.http_cache = Some(section);
    }

    fn intro(&self) -> Option<String> {
        Some(format!(
            "{} ({}): {} entries per run, PUT then GET, over {:?} keep-alive connections at {:?} bytes",
            self.target.base,
            self.target.protocol.name(),
            self.entries,
            self.connections,
            self.value_bytes,
        ))
    }

    fn run(
        &self,
        progress: &mut Progress,
        after_run: impl FnMut(&HttpCacheStage, Option<&Notice>) -> anyhow::Result<()>,
    ) -> anyhow::Result<(HttpCacheStage, Vec<Notice>)> {
        Ok((run(self, progress, after_run)?, Vec::new()))
    }
}

// The stage against real servers on loopback: Debian's nginx and node's
// turborepo-remote-cache, which the test command installs on Linux. The
// Windows and macOS jobs run the stage's other unit tests.
#[cfg(all(test, target_os = "linux"))]
#[path = "../../../../tests/http-cache/server.rs"]
mod server;

#[cfg(all(test, target_os = "linux"))]
mod tests;
