//! The stage against the LibreSpeed test server (tests/librespeed) on
//! loopback: the cases a profile cannot reach (short timeouts, odd payload
//! sizes, servers that stop or close mid-sample).

use std::time::{Duration, Instant};

use runner_bench_format::Profile;

use super::plan::MIB;
use super::server::Server;
use super::*;

fn transfers() -> Transfers {
    Transfers::new().unwrap()
}

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
    let mut plan = InternetPlan::new(&Profile::Standard.parameters(), Target::new(DEFAULT_URL, None, None).unwrap());
    assert_eq!(plan.request_mib(), vec![32; 32]);
    plan.transfer_mib = 10;
    plan.max_request_mib = 4;
    assert_eq!(plan.request_mib(), vec![4, 4, 2]);
    plan.transfer_mib = 3;
    assert_eq!(plan.request_mib(), vec![3]);
    assert_eq!(plan.total_samples(), 6 + 5);
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
        let sample = transfers().transfer(&plan, direction);
        assert_eq!(sample.status, Status::Ok, "{direction:?}: {:?}", sample.message);
        assert_eq!(sample.bytes, 8 * MIB);
        assert!(sample.mbps().unwrap() > 1.0);
    }
    for _ in 0..2 {
        let sample = transfers().request(&plan);
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
    // nginx numbers every connection it opens, its own to php-fpm (one per
    // request) included: each sample's first number follows the one before
    // by 1 + its requests, so no sample opened a connection that carried
    // nothing.
    let firsts = [connections[0], connections[2], connections[4], connections[5]];
    assert_eq!(firsts.map(|c| c - firsts[0]), [0, 3, 6, 8], "{log:?}");
}

#[test]
fn a_server_closing_the_connection_between_requests_fails_the_sample() {
    let server = Server::start();
    for https in [false, true] {
        let plan = plan(&server, https, "closing", 3, 1);
        for direction in [Direction::Download, Direction::Upload] {
            let sample = transfers().transfer(&plan, direction);
            assert_eq!(
                (sample.status, sample.bytes, sample.message.as_ref().map(Message::as_str)),
                (
                    Status::Error,
                    MIB,
                    Some(
                        "request 2 of 3 failed: it went over a new connection, not request 1's; \
                         a sample's requests must share one connection"
                    )
                ),
                "{direction:?}"
            );
        }
    }
}

#[test]
fn without_the_extra_ca_the_certificate_is_refused() {
    let server = Server::start();
    let mut plan = plan(&server, true, "backend", 1, 1);
    plan.target.extra_ca.clear();
    let sample = transfers().transfer(&plan, Direction::Download);
    assert_eq!(sample.status, Status::Error);
    let message = sample.message.unwrap();
    assert!(message.as_str().contains("certificate"), "{message}");
    assert_eq!(transfers().request(&plan).status, Status::Error);
}

#[test]
fn a_payload_not_a_multiple_of_the_request_size_moves_exactly() {
    let server = Server::start();
    let plan = plan(&server, false, "backend", 7, 3);
    assert_eq!(plan.request_mib(), vec![3, 3, 1]);
    for direction in [Direction::Download, Direction::Upload] {
        let sample = transfers().transfer(&plan, direction);
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
    let sample = transfers().transfer(&plan, Direction::Download);
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
    let sample = transfers().transfer(&plan, Direction::Upload);
    assert_eq!((sample.status, sample.bytes), (Status::Timeout, 0), "{:?}", sample.message);
}

/// A server that sends more than was asked for fails the sample, which
/// records no more bytes than its transfer's (what `site check` allows).
#[test]
fn a_server_sending_too_much_is_an_error_that_counts_only_what_was_asked() {
    let server = Server::start();
    let plan = plan(&server, false, "generous", 4, 4);
    let sample = transfers().transfer(&plan, Direction::Download);
    assert_eq!(
        (sample.status, sample.bytes, sample.message.as_ref().map(Message::as_str)),
        (
            Status::Error,
            4 * MIB,
            Some("request 1 of 1 failed: garbage.php sent more than the 4194304 bytes of ckSize=4")
        )
    );
}

#[test]
fn a_server_closing_mid_transfer_is_an_error_with_the_bytes_moved() {
    let server = Server::start();
    let plan = plan(&server, true, "broken", 8, 4);
    let sample = transfers().transfer(&plan, Direction::Download);
    assert_eq!(sample.status, Status::Error, "{:?}", sample.message);
    // garbage.php sends half of the first request's 4 MiB, then stops.
    assert_eq!(sample.bytes, 2 * MIB);
    let message = sample.message.unwrap();
    assert!(message.as_str().starts_with("request 1 of 2 failed: "), "{message}");

    let sample = transfers().transfer(&plan, Direction::Upload);
    assert_eq!((sample.status, sample.bytes), (Status::Error, 0), "{:?}", sample.message);
}
