//! A real browser against `site serve`: Debian's chromium, headless.
//! Loads the home page, a provider page and the methodology page, checks
//! that the page script ran without errors (it records errors and CSP
//! violations on `<html data-js-errors>`, and chromium logs console
//! messages to stderr), that tables and plots are there, and that markup
//! in result strings stayed text; saves screenshots to target/screenshots/.
//! Also checks that a broken input shows the error page and that fixing
//! it recovers.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::json;

const CHROMIUM: &str = "/usr/bin/chromium";
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Stops the server when the test ends, passed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `GET path` → (status, body).
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default()))
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs chromium headless; returns (stdout, stderr). A run that hangs is
/// killed after 45 s and retried: headless chromium in containers now and
/// then never exits after the page loaded.
fn chromium(args: &[&str]) -> (String, String) {
    let mut last = String::new();
    for _ in 0..3 {
        let profile = tempfile::tempdir().unwrap();
        let out = Command::new("timeout")
            .args(["45", CHROMIUM])
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        if out.status.success() {
            return (
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        last = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    panic!("chromium failed three times: {last}");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn pages_load_in_chromium_without_errors() {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: run scripts/test.sh, which installs Debian's chromium for this test"
    );
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results");
    copy_dir(&Path::new(REPO).join("results"), &results);
    let mut v = golden();
    v["provider"]["name"] = json!("<script>alert(1)</script>");
    v["notices"] = json!([{"stage": "cpu", "message": "<img src=x onerror=alert(2)>"}]);
    put(&results, GOLDEN_PATH, &v);
    let content = work.path().join("content");
    copy_dir(&Path::new(REPO).join("content"), &content);

    let port = free_port();
    let out = work.path().join("public");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_site"))
            .current_dir(REPO)
            .args(["serve", "--port", &port.to_string()])
            .arg("--results")
            .arg(&results)
            .arg("--content")
            .arg(&content)
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_until("the first build", || get(port, "/__reload").is_some_and(|(s, b)| s == 200 && b == "1"));

    let shots = PathBuf::from(REPO).join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, path, expect) in [
        (
            "home",
            "/",
            vec![
                "<table class=\"sortable\" id=\"t-866df6f892c3-cpu\">",
                "<img src=\"/plots/866df6f892c3/coremark.svg\"",
            ],
        ),
        ("provider", "/providers/ubicloud/", vec!["<table>", "<img src=\"/plots/providers/ubicloud/"]),
        ("methodology", "/methodology/", vec!["<h1>Methodology</h1>", "<table>"]),
    ] {
        let url = format!("http://127.0.0.1:{port}{path}");
        let (dom, log) = chromium(&["--dump-dom", &url]);
        assert!(dom.contains("<html lang=\"en\" data-js=\"ok\">"), "{name}: the page script did not finish:\n{dom}");
        assert!(!dom.contains("data-js-errors"), "{name}: script errors:\n{dom}");
        let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
        assert!(console.is_empty(), "{name}: console messages:\n{}", console.join("\n"));
        for e in expect {
            assert!(dom.contains(e), "{name}: no {e}");
        }
        assert!(!dom.contains("<script>alert") && !dom.contains("<img src=\"x\""), "{name}: injected markup is live");
        let shot = shots.join(format!("{name}.png"));
        chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1280,1600", "--hide-scrollbars", &url]);
        assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "{name}: empty screenshot");
    }
    let (_, home) = get(port, "/").unwrap();
    assert!(home.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"));
    assert!(home.contains("<script src=\"/__reload.js\"></script></body>"));
    let (dom, _) =
        chromium(&["--dump-dom", &format!("http://127.0.0.1:{port}/?sort=t-866df6f892c3-cpu:3:asc&q=latchkey")]);
    assert!(dom.contains("aria-sort=\"ascending\""), "the sort in the URL was not applied:\n{dom}");
    assert!(dom.contains("id=\"filter\""), "no filter box");

    // A broken page shows the error; fixing it recovers.
    let about = content.join("about.md");
    let good = std::fs::read_to_string(&about).unwrap();
    std::fs::write(&about, "no front matter\n").unwrap();
    wait_until("the error page", || get(port, "/").is_some_and(|(s, _)| s == 500));
    let (_, page) = get(port, "/").unwrap();
    assert!(
        page.contains(&format!("{}: a page starts with TOML front matter between two `+++` lines", about.display())),
        "{page}"
    );
    std::fs::write(&about, good).unwrap();
    wait_until("the recovery", || get(port, "/").is_some_and(|(s, _)| s == 200));
}
