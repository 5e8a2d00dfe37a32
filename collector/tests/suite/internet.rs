//! The internet stage as a user runs it: `collector run --stages internet`
//! against a LibreSpeed server (nginx + php-fpm) on loopback. The cases a
//! profile cannot reach (short timeouts, odd payload sizes, servers that
//! stop mid-transfer) are tested on the stage itself, in
//! collector/src/stage/internet/tests.rs, against the same server.

use crate::librespeed_server as server;

use std::process::Command;

use crate::common::{measured, quick_run};
use runner_bench_format::Profile;
use runner_bench_format::measured::Status;
use server::Server;

#[test]
fn an_https_run_measures_every_sample_and_records_the_endpoint() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let url = server.url(true, "backend");
    // A proxy in the environment is not used: the stage measures the
    // runner's own path (this one would refuse every connection).
    let status = quick_run(&out, "internet")
        .args(["--internet-url", &url, "--internet-name", "LibreSpeed (loopback)", "--internet-ca-cert"])
        .arg(server.ca_cert())
        .envs([
            ("HTTPS_PROXY", "http://127.0.0.1:9"),
            ("HTTP_PROXY", "http://127.0.0.1:9"),
            ("ALL_PROXY", "http://127.0.0.1:9"),
        ])
        .env_remove("NO_PROXY")
        .status()
        .unwrap();
    assert!(status.success());

    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    assert_eq!(r.notices, vec![]);
    let params = Profile::Quick.parameters();
    let net = r.stages.internet.unwrap();
    assert_eq!((net.endpoint.name.as_str(), net.endpoint.url.as_str()), ("LibreSpeed (loopback)", url.as_str()));
    assert_eq!((net.download.len(), net.upload.len()), (3, 3));
    for s in net.download.iter().chain(&net.upload) {
        assert_eq!(s.status, Status::Ok, "{:?}", s.message);
        assert_eq!(s.bytes, u64::from(params.internet_transfer_mib) << 20);
        assert!(s.mbps().unwrap() > 1.0, "{s:?}");
    }
    assert_eq!(net.request.len(), params.internet_request_samples as usize);
    assert!(net.request.iter().all(|s| s.status == Status::Ok && s.ms.is_some()), "{:?}", net.request);
}

#[test]
fn a_refusing_server_leaves_the_test_unavailable_and_the_run_failed() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let output =
        quick_run(&out, "internet").args(["--internet-url", &server.url(false, "forbidden")]).output().unwrap();
    // Every sample failed: the file is written, and the run fails.
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.lines().last().unwrap(),
        format!(
            "error: the internet stage has no completed sample: all 9 failed, the first with \"request 1 of 2 \
             failed: HTTP 403 Forbidden from garbage.php\"; {} keeps every sample and its message",
            out.display()
        )
    );

    let r = measured(&out);
    assert_eq!(r.problems(), vec![]);
    let net = r.stages.internet.unwrap();
    assert_eq!(net.endpoint.name.as_str(), "127.0.0.1");
    assert!(net.download.iter().chain(&net.upload).all(|s| s.status == Status::Error && s.mbps().is_none()));
    assert!(net.request.iter().all(|s| s.status == Status::Error && s.ms.is_none()));
    assert_eq!(r.notices.len(), 3 + 3 + 3);
    assert!(r.notices.iter().all(|n| n.stage.as_str() == "internet"));
    assert_eq!(
        r.notices[0].message.as_str(),
        "HTTP download sample 1: request 1 of 2 failed: HTTP 403 Forbidden from garbage.php; 0 bytes reported; \
         no speed score"
    );
}

#[test]
fn bad_endpoint_options_fail_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let stderr = |cmd: &mut Command| {
        let output = cmd.output().unwrap();
        assert!(!output.status.success());
        String::from_utf8(output.stderr).unwrap()
    };
    assert_eq!(
        stderr(quick_run(&out, "internet").args(["--internet-url", "ftp://example.org/backend/"])),
        "error: --internet-url: \"ftp://example.org/backend/\" is not an http:// or https:// URL\n"
    );
    assert_eq!(
        stderr(quick_run(&out, "internet").args(["--internet-url", "https://me:secret@speed.example.org/backend/"])),
        "error: --internet-url: https://…@speed.example.org: the URL holds credentials, which the result would \
         publish; give the URL without them\n"
    );
    let missing = dir.path().join("missing.pem");
    assert_eq!(
        stderr(quick_run(&out, "internet").arg("--internet-ca-cert").arg(&missing)),
        format!("error: --internet-ca-cert: {}: No such file or directory (os error 2)\n", missing.display())
    );
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    assert_eq!(
        stderr(quick_run(&out, "internet").arg("--internet-ca-cert").arg(&empty)),
        format!("error: --internet-ca-cert: {}: no PEM certificate found\n", empty.display())
    );
    // PEM armour around bytes that are no certificate: refused here, not
    // by every sample's TLS client.
    let garbled = dir.path().join("garbled.pem");
    std::fs::write(&garbled, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").unwrap();
    assert_eq!(
        stderr(quick_run(&out, "internet").arg("--internet-ca-cert").arg(&garbled)),
        format!(
            "error: --internet-ca-cert: {}: certificate 1 of 1: invalid peer certificate: BadEncoding\n",
            garbled.display()
        )
    );
    assert!(!out.exists(), "nothing is written before the options are checked");
}
