//! The stage against real servers on loopback (tests/http-cache/server.rs):
//! nginx with WebDAV PUT for the Gradle, Bazel and WebDAV protocols,
//! turborepo-remote-cache for Turborepo's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use runner_bench_format::measured::{HttpCacheDeclared, HttpCacheProtocol, HttpCacheStage, Status};
use runner_bench_format::{Name, Notice};

use super::client::Connector;
use super::grid::{Phase, Workers};
use super::protocol::{Auth, Target, base_url};
use super::server::{Nginx, Turbo};
use super::{HttpCachePlan, entries, run};
use crate::platform::progress::Progress;
use crate::rng::SplitMix64;

const TOKEN: &str = "test-token-not-a-secret";

fn target(url: &str, protocol: HttpCacheProtocol, auth: Auth) -> Target {
    Target { base: base_url(url).unwrap(), protocol, auth, team: "runner-bench".into(), extra_ca: Vec::new() }
}

fn plan(target: Target) -> HttpCachePlan {
    HttpCachePlan {
        target,
        declared: HttpCacheDeclared { backend: Some(Name::lossy("filesystem")), ..HttpCacheDeclared::default() },
        entries: 40,
        value_bytes: vec![128, 4096],
        connections: vec![1, 3],
        timeout: Duration::from_secs(30),
    }
}

/// The stage, and the notices it raised.
fn measure(plan: &HttpCachePlan) -> (HttpCacheStage, Vec<Notice>) {
    let mut notices = Vec::new();
    let stage = run(plan, &mut Progress::quiet(), |_, n| {
        notices.extend(n.cloned());
        Ok(())
    })
    .unwrap();
    (stage, notices)
}

fn assert_measured(stage: &HttpCacheStage, plan: &HttpCachePlan) {
    assert_eq!(stage.runs.len(), 4);
    let cells: Vec<(u64, u32)> = stage.runs.iter().map(|r| (r.value_bytes, r.connections)).collect();
    assert_eq!(cells, plan.cells());
    for run in &stage.runs {
        for phase in [&run.put, &run.get] {
            assert_eq!((phase.status, phase.succeeded, phase.failed), (Status::Ok, 40, 0), "{run:?}");
            assert_eq!(phase.message, None);
            let (p50, p90, p99) =
                (phase.latency_p50_ms.unwrap(), phase.latency_p90_ms.unwrap(), phase.latency_p99_ms.unwrap());
            assert!(p50.get() > 0.0 && p50 <= p90 && p90 <= p99, "{phase:?}");
            assert!(phase.requests_per_s().unwrap() > 0.0);
        }
        assert_eq!(run.backend.as_str(), "filesystem");
    }
    let observed = stage.server.observed.as_ref().unwrap();
    assert!(!observed.tls);
    assert_eq!(observed.http_version.as_ref().unwrap().as_str(), "HTTP/1.1");
    assert!(observed.rtt_ms.unwrap().get() > 0.0);
    assert!(observed.bandwidth_mbps.unwrap().get() > 0.0);
    assert_eq!(observed.message, None);
    assert_eq!(stage.server.protocol, Some(plan.target.protocol));
    assert_eq!(stage.server.software.as_str(), "undeclared");
}

#[test]
fn gradle_bazel_and_webdav_against_nginx_store_every_entry_where_their_clients_would() {
    let nginx = Nginx::start();
    for (protocol, folder) in [
        (HttpCacheProtocol::Gradle, "gradle"),
        (HttpCacheProtocol::Bazel, "bazel"),
        (HttpCacheProtocol::Webdav, "webdav"),
        (HttpCacheProtocol::BazelAc, "bazel-ac"),
    ] {
        let url = format!("{}{folder}/", nginx.url("cache"));
        let plan = plan(target(&url, protocol, Auth::None));
        let (stage, notices) = measure(&plan);
        assert_eq!(notices, vec![]);
        assert_measured(&stage, &plan);
        // Every entry (4 cells × 40, and the probe's one) is a file where
        // the protocol puts it, named by its SHA-256.
        let dir = match protocol {
            HttpCacheProtocol::Bazel => nginx.folder("cache").join(folder).join("cas"),
            HttpCacheProtocol::BazelAc => nginx.folder("cache").join(folder).join("ac"),
            _ => nginx.folder("cache").join(folder),
        };
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap()).collect();
        assert_eq!(files.len(), 161, "{protocol:?}");
        for f in &files {
            let name = f.file_name().into_string().unwrap();
            let body = std::fs::read(f.path()).unwrap();
            assert_eq!(entries::key_of(&body), name);
            if protocol == HttpCacheProtocol::BazelAc {
                assert_action_result(&body);
            }
        }
    }
}

/// What nginx stored for the action cache is an ActionResult (read back
/// field by field) with one output file, whose digest is its inlined
/// contents' SHA-256 and size, and whose whole size is a cell's or the
/// probe's value size.
fn assert_action_result(body: &[u8]) {
    use super::action_result::read::{Field, fields};
    assert!([128, 4096, super::conditions::BANDWIDTH_BYTES].contains(&(body.len() as u64)), "{}", body.len());
    let top = fields(body).unwrap();
    let (Field::Bytes(2, file), [] | [Field::Varint(4, 0)]) = (&top[0], &top[1..]) else {
        panic!("one output_files field, then at most exit_code 0: {top:?}")
    };
    let file = fields(file).unwrap();
    let [Field::Bytes(1, b"out"), Field::Bytes(2, digest), Field::Bytes(5, contents)] = file.as_slice() else {
        panic!("path, digest and contents: {:?}", &file[..1])
    };
    let digest = fields(digest).unwrap();
    let [Field::Bytes(1, hash), Field::Varint(2, size)] = digest.as_slice() else {
        panic!("hash and size: {digest:?}")
    };
    assert_eq!(*size, contents.len() as u64);
    assert_eq!(std::str::from_utf8(hash).unwrap(), entries::key_of(contents));
}

/// An action-cache value is a message of at least 79 bytes: a smaller
/// cell is not run, and says why, in the result and in a notice.
#[test]
fn bazel_ac_refuses_a_value_smaller_than_its_smallest_message() {
    let nginx = Nginx::start();
    let url = format!("{}bazel-ac-small/", nginx.url("cache"));
    let mut plan = plan(target(&url, HttpCacheProtocol::BazelAc, Auth::None));
    plan.value_bytes = vec![64];
    plan.connections = vec![1];
    let (stage, notices) = measure(&plan);
    let why = "not run: bazel-ac values are ActionResult messages of at least 79 bytes, not 64";
    assert_eq!(stage.runs.len(), 1);
    for phase in [&stage.runs[0].put, &stage.runs[0].get] {
        assert_eq!((phase.status, phase.succeeded, phase.failed), (Status::Error, 0, 0));
        assert_eq!(phase.message.as_ref().map(|m| m.as_str()), Some(why));
    }
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].message.as_str(), format!("64 bytes over 1 connections: PUT {why}; GET {why}"));
}

#[test]
fn turborepo_against_turborepo_remote_cache() {
    let turbo = Turbo::start(TOKEN);
    let plan = plan(target(&turbo.url(), HttpCacheProtocol::Turborepo, Auth::Bearer(TOKEN.into())));
    let (stage, notices) = measure(&plan);
    assert_eq!(notices, vec![]);
    assert_measured(&stage, &plan);
    assert_eq!(stage.server.observed.unwrap().authentication.as_str(), "bearer");
}

/// Every cell is recorded as not run, with the probe's reason, and one
/// notice says why.
fn assert_not_run(stage: &HttpCacheStage, notices: &[Notice], why: &str) {
    assert_eq!(stage.runs.len(), 4);
    for run in &stage.runs {
        for phase in [&run.put, &run.get] {
            assert_eq!(phase.status, Status::Error);
            assert_eq!(phase.message.as_ref().unwrap().as_str(), format!("not run: {why}"));
        }
    }
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].message.as_str(), format!("{}: {why}; no cell of the grid was measured", stage.server.url));
    assert_eq!(notices[0].stage.as_str(), "http-cache");
}

#[test]
fn a_wrong_token_is_a_clear_authentication_error() {
    let turbo = Turbo::start(TOKEN);
    let plan = plan(target(&turbo.url(), HttpCacheProtocol::Turborepo, Auth::Bearer("wrong".into())));
    let (stage, notices) = measure(&plan);
    assert_not_run(
        &stage,
        &notices,
        "HTTP 401 Unauthorized on GET: the server refused the credentials; check --http-cache-token-env or \
         --http-cache-basic-env",
    );
}

#[test]
fn a_refused_connection_is_a_clear_error() {
    let port = super::server::free_port();
    let plan = plan(target(&format!("http://127.0.0.1:{port}/cache/"), HttpCacheProtocol::Gradle, Auth::None));
    let (stage, notices) = measure(&plan);
    let why = stage.runs[0].put.message.as_ref().unwrap().as_str().trim_start_matches("not run: ").to_string();
    assert!(why.contains("Connection refused"), "{why}");
    assert_not_run(&stage, &notices, &why);
}

#[test]
fn a_server_that_takes_no_put_there_is_a_wrong_protocol_error() {
    let nginx = Nginx::start();
    let why = "HTTP 405 Method Not Allowed on PUT: the server does not take uploads there; check --http-cache-url \
               and --http-cache-protocol";
    let (stage, notices) = measure(&plan(target(&nginx.url("readonly"), HttpCacheProtocol::Gradle, Auth::None)));
    assert_not_run(&stage, &notices, why);
    // Gradle's paths on a Turborepo server: no such route.
    let turbo = Turbo::start(TOKEN);
    let (stage, notices) = measure(&plan(target(&turbo.url(), HttpCacheProtocol::Gradle, Auth::Bearer(TOKEN.into()))));
    assert_not_run(&stage, &notices, &why.replace("405 Method Not Allowed", "404 Not Found"));
}

/// Runs one phase of `entries` on two new connections, bounded by `bound`.
fn phase(
    which: Phase,
    target: &Target,
    entries: &Arc<Vec<entries::Entry>>,
    bound: Duration,
) -> runner_bench_format::measured::HttpCachePhase {
    let workers = Workers::start(&Arc::new(Connector::new(target).unwrap()), 2).unwrap();
    workers.phase(which, entries, Instant::now() + bound, bound)
}

#[test]
fn a_get_whose_body_differs_is_a_failed_request() {
    let nginx = Nginx::start();
    let target = target(&nginx.url("cache"), HttpCacheProtocol::Webdav, Auth::None);
    let entries = Arc::new(entries::random(10, 256, &mut SplitMix64::new(3)));
    let put = phase(Phase::Put, &target, &entries, Duration::from_secs(30));
    assert_eq!((put.status, put.succeeded), (Status::Ok, 10));
    // The server's file changes between the phases, as a corrupted disk
    // or a cache that mixed up two entries would serve it.
    let victim = nginx.folder("cache").join(&entries[4].key);
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&victim, &bytes).unwrap();
    let get = phase(Phase::Get, &target, &entries, Duration::from_secs(30));
    assert_eq!((get.status, get.succeeded, get.failed), (Status::Ok, 9, 1));
    assert_eq!(
        get.message.unwrap().as_str(),
        format!(
            "1 of 10 GET requests failed; the first: GET {} returned 256 bytes whose SHA-256 is {}, not the entry's",
            entries[4].key,
            entries::key_of(&bytes)
        )
    );
}

#[test]
fn a_run_that_reaches_its_bound_is_a_timeout() {
    let nginx = Nginx::start();
    let target = target(&nginx.url("cache"), HttpCacheProtocol::Gradle, Auth::None);
    let entries = Arc::new(entries::random(20_000, 128, &mut SplitMix64::new(5)));
    let put = phase(Phase::Put, &target, &entries, Duration::from_millis(200));
    assert_eq!(put.status, Status::Timeout);
    assert!(put.succeeded < 20_000, "{put:?}");
    let message = put.message.clone().unwrap();
    assert!(message.as_str().starts_with("exceeded the run's 0.2s during the PUT phase: "), "{message}");
    assert!((0.2..5.0).contains(&put.seconds.get()), "{put:?}");
}
