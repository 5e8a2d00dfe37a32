//! The http-cache stage as a user runs it: `collector run --stages
//! http-cache` against turborepo-remote-cache and nginx on loopback
//! (tests/http-cache/server.rs). The stage's cases one cell at a time
//! (every protocol, a corrupted body, the time bound) are tested on the
//! stage itself, in collector/src/stage/http_cache/tests.rs.

use crate::http_cache_server as server;

use std::path::Path;
use std::process::Output;

use crate::common::{measured, quick_run};
use runner_bench_format::Profile;
use runner_bench_format::measured::{HttpCacheProtocol, Status};
use server::{Nginx, Turbo};

const SECRET: &str = "s3cret-token-that-must-not-be-written";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The site's own checks, the code behind `site check`, on the file at
/// its submission path (which the first check names) under `dir`.
fn site_check_passes(dir: &Path, out: &Path) {
    let report = site::output::testing::check(&[out.to_path_buf()]).unwrap().human_report();
    let expected = report.split("expected results/").nth(1).and_then(|t| t.split(',').next()).expect(&report);
    let submitted = dir.join("results").join(expected);
    std::fs::create_dir_all(submitted.parent().unwrap()).unwrap();
    std::fs::copy(out, &submitted).unwrap();
    let checked = site::output::testing::check(&[submitted]).unwrap();
    assert!(checked.problems.is_empty(), "site check: {}", checked.human_report());
}

#[test]
fn a_turborepo_run_measures_the_grid_and_never_writes_the_token() {
    let turbo = Turbo::start(SECRET);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", &turbo.url(), "--http-cache-protocol", "turborepo"])
        .args(["--http-cache-token-env", "HC_TEST_TOKEN"])
        .args(["--http-cache-software", "turborepo-remote-cache 2.12.0", "--http-cache-backend", "local"])
        .args(["--http-cache-cpu-quota", "2", "--http-cache-compression", "none"])
        // As a secret set from a file holds it: the line ending is dropped,
        // and the server (which refuses a wrong token) accepts the rest.
        .env("HC_TEST_TOKEN", format!("{SECRET}\r\n"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));

    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(SECRET), "the token is in the result file");
    assert!(!stderr(&output).contains(SECRET), "the token is on the terminal");
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    assert_eq!(r.notices, vec![]);
    site_check_passes(dir.path(), &out);
    let params = Profile::Quick.parameters();
    let stage = r.stages.http_cache.unwrap();
    assert_eq!(stage.server.url.as_str(), turbo.url());
    assert_eq!(stage.server.protocol, Some(HttpCacheProtocol::Turborepo));
    assert_eq!(stage.server.software.as_str(), "turborepo-remote-cache 2.12.0");
    let declared = stage.server.declared.unwrap();
    assert_eq!(declared.cpu_quota.unwrap().get(), 2.0);
    assert_eq!(declared.memory_quota_gb, None);
    let observed = stage.server.observed.unwrap();
    assert_eq!(observed.authentication.as_str(), "bearer");
    assert!(observed.rtt_ms.is_some() && observed.bandwidth_mbps.is_some(), "{observed:?}");
    let conditions: Vec<String> = stage.server.conditions.iter().map(|c| format!("{}: {}", c.name, c.value)).collect();
    assert!(conditions.contains(&"Compression: none (declared)".to_string()), "{conditions:?}");
    assert!(conditions.contains(&"TLS: disabled (observed)".to_string()), "{conditions:?}");
    assert_eq!(stage.runs.len(), params.http_cache_value_bytes.len() * params.http_cache_connections.len());
    for run in &stage.runs {
        assert_eq!(run.backend.as_str(), "local");
        assert_eq!(run.cpu_quota.unwrap().get(), 2.0);
        for phase in [&run.put, &run.get] {
            assert_eq!(phase.status, Status::Ok);
            assert_eq!(phase.succeeded, params.http_cache_entries);
            assert!(phase.latency_p99_ms.is_some());
        }
    }
    assert!(stderr(&output).contains("sample 1 of 1: 4096 B × 4: PUT "), "{}", stderr(&output));
}

/// A server that cannot be measured is an error in the result and on the
/// terminal, and the stages after it still run; the command then fails, as
/// for any stage with no completed sample.
#[test]
fn a_refused_upload_is_reported_and_the_run_goes_on() {
    let nginx = Nginx::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache,cpu").args(["--http-cache-url", &nginx.url("readonly")]).output().unwrap();
    assert!(!output.status.success());
    let why = "HTTP 405 Method Not Allowed on PUT: the server does not take uploads there; check --http-cache-url \
               and --http-cache-protocol";
    let err = stderr(&output);
    assert!(
        err.contains(&format!("error: {}: {why}; no cell of the grid was measured", nginx.url("readonly"))),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "the http-cache stage has no completed sample: all 2 failed, the first with \"not run: {why}\""
        )),
        "{err}"
    );
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    assert_eq!(r.stages.cpu.unwrap().samples.len(), Profile::Quick.parameters().cpu_samples as usize);
    let run = &r.stages.http_cache.unwrap().runs[0];
    assert_eq!(run.put.message.as_ref().unwrap().as_str(), format!("not run: {why}"));
    assert_eq!(r.notices.len(), 1);
}

/// A server that takes the grid's entries but not the probe's 8 MiB one
/// (nginx at its default upload limit) is measured without a bandwidth,
/// and says why.
#[test]
fn an_upload_limit_below_the_bandwidth_entry_leaves_only_the_bandwidth_out() {
    let nginx = Nginx::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache").args(["--http-cache-url", &nginx.url("small")]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let why = "no bandwidth: HTTP 413 Payload Too Large on PUT";
    let notices: Vec<(&str, &str)> = r.notices.iter().map(|n| (n.stage.as_str(), n.message.as_str())).collect();
    assert_eq!(notices, [("http-cache", format!("{}: {why}", nginx.url("small")).as_str())]);
    let stage = r.stages.http_cache.unwrap();
    let observed = stage.server.observed.unwrap();
    assert_eq!(observed.message.as_ref().map(|m| m.as_str()), Some(why));
    assert_eq!((observed.bandwidth_mbps, observed.bandwidth_bytes), (None, None));
    assert!(observed.rtt_ms.is_some());
    let params = Profile::Quick.parameters();
    assert_eq!(stage.runs.len(), params.http_cache_value_bytes.len() * params.http_cache_connections.len());
    for run in &stage.runs {
        for phase in [&run.put, &run.get] {
            assert_eq!((phase.status, phase.succeeded), (Status::Ok, params.http_cache_entries), "{run:?}");
        }
    }
    site_check_passes(dir.path(), &out);
}

#[test]
fn the_stage_needs_a_url_and_a_set_credential_variable() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache").output().unwrap();
    assert_eq!(
        stderr(&output),
        "error: --http-cache-url: the http-cache stage needs the cache server's base URL, e.g. --http-cache-url \
         https://cache.example.org/cache/\n"
    );
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", "http://127.0.0.1:9/", "--http-cache-token-env", "HC_TEST_UNSET"])
        .env_remove("HC_TEST_UNSET")
        .output()
        .unwrap();
    assert_eq!(stderr(&output), "error: --http-cache-token-env: the environment variable HC_TEST_UNSET is not set\n");
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", "http://127.0.0.1:9/", "--http-cache-token-env", "HC_TEST_TOKEN"])
        .env("HC_TEST_TOKEN", format!("{SECRET}\n\n"))
        .output()
        .unwrap();
    assert_eq!(
        stderr(&output),
        "error: --http-cache-token-env: the environment variable HC_TEST_TOKEN holds the control character U+000A at \
         character 38, which an HTTP header cannot carry\n"
    );
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", "http://127.0.0.1:9/", "--http-cache-basic-env", "HC_TEST_BASIC"])
        .env("HC_TEST_BASIC", SECRET)
        .output()
        .unwrap();
    assert_eq!(stderr(&output), "error: --http-cache-basic-env: HC_TEST_BASIC holds no `user:password`\n");
    let output = quick_run(&out, "http-cache").args(["--http-cache-url", "ftp://x/"]).output().unwrap();
    assert_eq!(stderr(&output), "error: --http-cache-url: \"ftp://x/\" is not an http:// or https:// URL\n");
    // A path so long that no request could carry it, with its key: refused
    // here, where `http` refused it at the first request, in a panic.
    let long = format!("http://127.0.0.1:9/{}", "a".repeat(66_000));
    let output = quick_run(&out, "http-cache").args(["--http-cache-url", &long]).output().unwrap();
    assert_eq!(
        stderr(&output),
        "error: --http-cache-url: a request's path and query would be 66066 bytes with a 64-digit key; HTTP requests \
         here carry at most 65534\n"
    );
    let garbled = out.with_file_name("garbled.pem");
    std::fs::write(&garbled, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").unwrap();
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", "https://127.0.0.1:9/", "--http-cache-ca-cert"])
        .arg(&garbled)
        .output()
        .unwrap();
    assert_eq!(
        stderr(&output),
        format!(
            "error: --http-cache-ca-cert: {}: certificate 1 of 1: invalid peer certificate: BadEncoding\n",
            garbled.display()
        )
    );
    assert!(!out.exists(), "nothing is measured before the flags are checked");
}

/// The grid's flags replace the profile's count, sizes and connections, and
/// the result records what was measured; bad values are refused first.
#[test]
fn the_grid_flags_replace_the_profiles_and_are_checked() {
    let nginx = Nginx::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", &nginx.url("cache"), "--http-cache-entries", "7"])
        .args(["--http-cache-value-bytes", "128,256", "--http-cache-connections", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let r = measured(&out);
    assert_eq!(r.parameters.http_cache_entries, 7);
    assert_eq!(r.parameters.http_cache_value_bytes, vec![128, 256]);
    assert_eq!(r.parameters.http_cache_connections, vec![2]);
    assert_ne!(r.parameters, Profile::Quick.parameters(), "the result is no profile's");
    let runs = r.stages.http_cache.unwrap().runs;
    let cells: Vec<(u64, u32)> = runs.iter().map(|r| (r.value_bytes, r.connections)).collect();
    assert_eq!(cells, [(128, 2), (256, 2)]);
    for run in &runs {
        assert_eq!((run.put.succeeded, run.get.succeeded, run.put.failed, run.get.failed), (7, 7, 0, 0), "{run:?}");
    }

    let refused = |args: &[&str]| {
        let output = quick_run(&out, "http-cache")
            .args(["--http-cache-url", "http://127.0.0.1:9/"])
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success());
        stderr(&output)
    };
    assert_eq!(refused(&["--http-cache-entries", "0"]), "error: --http-cache-entries: a cell needs at least 1 entry\n");
    assert_eq!(
        refused(&["--http-cache-value-bytes", "128,0"]),
        "error: --http-cache-value-bytes: an entry needs at least 1 byte\n"
    );
    assert_eq!(
        refused(&["--http-cache-connections", "0"]),
        "error: --http-cache-connections: a cell needs at least 1 connection\n"
    );
    assert_eq!(
        refused(&["--http-cache-entries", "100000", "--http-cache-value-bytes", "65536"]),
        "error: --http-cache-entries: 100000 entries of 65536 bytes, each with 160 bytes of key and bookkeeping, \
         would hold 6569600000 bytes in memory; a cell may hold at most 4294967296\n"
    );
    // Small values, many entries: what each entry holds beside its value
    // counts too.
    assert_eq!(
        refused(&["--http-cache-entries", "4000000000", "--http-cache-value-bytes", "1"]),
        "error: --http-cache-entries: 4000000000 entries of 1 bytes, each with 160 bytes of key and bookkeeping, would \
         hold 644000000000 bytes in memory; a cell may hold at most 4294967296\n"
    );
}

/// A cell needs a socket per connection: past the process's open-file limit
/// every connect would fail, so such a grid is refused before anything is
/// measured. The limit is lowered for the collector alone, by the shell
/// that starts it.
#[cfg(unix)]
#[test]
fn more_connections_than_the_process_may_open_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let with_limit = |connections: &str| {
        let cmd = quick_run(&out, "http-cache");
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c").arg("ulimit -n 150 && exec \"$0\" \"$@\"").arg(cmd.get_program()).args(cmd.get_args());
        // The collector's own environment, as `quick_run()` set it.
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => sh.env(key, value),
                None => sh.env_remove(key),
            };
        }
        sh.args(["--http-cache-url", "http://127.0.0.1:9/", "--http-cache-connections", connections]).output().unwrap()
    };
    let output = with_limit("10,100");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: --http-cache-connections: a cell of 100 connections needs 100 sockets and this run about 64 more \
         files, but the process may open 150 (`ulimit -n`); raise the limit or use fewer connections\n"
    );
    assert!(!out.exists(), "nothing is measured before the flags are checked");
    // 86 + 64 fit in 150: the run goes on (to a server that is not there).
    let output = with_limit("86");
    assert!(!stderr(&output).contains("--http-cache-connections"), "{}", stderr(&output));
    assert!(out.exists());
}

/// Over HTTPS, the server's CA from --http-cache-ca-cert is trusted beside
/// the platform's roots, and the stage records TLS as observed; without it
/// the certificate is refused, in the result and on the terminal.
#[test]
fn over_tls_the_extra_ca_is_trusted_and_tls_is_observed() {
    let nginx = Nginx::start_tls();
    let url = nginx.url("cache");
    assert!(url.starts_with("https://"), "{url}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output = quick_run(&out, "http-cache")
        .args(["--http-cache-url", &url, "--http-cache-ca-cert"])
        .arg(nginx.ca_cert())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    site_check_passes(dir.path(), &out);
    let stage = r.stages.http_cache.unwrap();
    let observed = stage.server.observed.unwrap();
    assert!(observed.tls);
    assert_eq!(observed.http_version.unwrap().as_str(), "HTTP/1.1");
    let conditions: Vec<String> = stage.server.conditions.iter().map(|c| format!("{}: {}", c.name, c.value)).collect();
    assert!(conditions.contains(&"TLS: enabled (observed)".to_string()), "{conditions:?}");
    for run in &stage.runs {
        assert_eq!((run.put.status, run.get.status), (Status::Ok, Status::Ok), "{run:?}");
    }

    let out = dir.path().join("untrusted.json");
    let output = quick_run(&out, "http-cache").args(["--http-cache-url", &url]).output().unwrap();
    assert!(!output.status.success());
    let why = "error sending request: client error (Connect): invalid peer certificate: UnknownIssuer: the \
               collector does not trust the server's certificate; pass the CA that signed it with --http-cache-ca-cert";
    let err = stderr(&output);
    assert!(err.contains(&format!("error: {url}: {why}; no cell of the grid was measured")), "{err}");
    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let stage = r.stages.http_cache.unwrap();
    assert!(stage.server.observed.unwrap().tls);
    assert_eq!(stage.runs[0].put.message.as_ref().unwrap().as_str(), format!("not run: {why}"));
}
