//! `site serve` over plain TCP: many keep-alive connections at once are all
//! answered, a connection serves a second request, and the reload endpoint,
//! the 404 page and the no-store header are as the browser expects, and the
//! server ends quietly when the reader of its stdout has gone.
//!
//! Browsers open several connections to a server at once and keep them
//! open. tiny_http 0.12, which served before, could leave a new connection
//! queued behind open ones, so some requests were never answered (6 open
//! connections: 2 unanswered after 5 s, 4 tries of 4); this test holds 8.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::*;

/// How many connections are held open at once.
const CONNECTIONS: usize = 8;
/// How long all of them together may take.
const DEADLINE: Duration = Duration::from_secs(10);

/// One HTTP/1.1 response: status, headers (names lowercased) and body.
#[derive(Debug)]
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `GET path` on `stream`, keeping the connection alive.
fn send(stream: &mut TcpStream, path: &str) {
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    stream.flush().unwrap();
}

/// Reads one response (its body by Content-Length, so the connection stays
/// usable) by `deadline`; `Err` says what was missing.
fn receive(stream: &mut TcpStream, deadline: Instant) -> Result<Response, String> {
    let mut data = Vec::new();
    let mut buf = [0; 8192];
    let mut read_more = |data: &mut Vec<u8>| -> Result<(), String> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("no complete response by the deadline; got {} bytes", data.len()));
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buf) {
            Ok(0) => Err(format!("connection closed after {} bytes", data.len())),
            Ok(n) => {
                data.extend_from_slice(&buf[..n]);
                Ok(())
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(format!("no complete response by the deadline; got {} bytes", data.len()))
            }
            Err(e) => Err(format!("{e} after {} bytes", data.len())),
        }
    };
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        read_more(&mut data)?;
    };
    let head = String::from_utf8(data[..head_end].to_vec()).map_err(|e| e.to_string())?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status =
        status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or(format!("status line {status_line:?}"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .ok_or(format!("no Content-Length in {head:?}"))?;
    let body_start = head_end + 4;
    while data.len() < body_start + length {
        read_more(&mut data)?;
    }
    if data.len() > body_start + length {
        return Err(format!("{} bytes past the body", data.len() - body_start - length));
    }
    Ok(Response { status, headers, body: data[body_start..].to_vec() })
}

/// One request on a fresh connection that closes after the response.
fn get(port: u16, path: &str) -> Option<Response> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    receive(&mut s, Instant::now() + Duration::from_secs(10)).ok()
}

/// Up to `n` URL paths of built files: plots first, then pages.
fn paths_in(out: &Path, n: usize) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(out)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| format!("/{}", e.path().strip_prefix(out).unwrap().display()))
        .filter(|p| p.ends_with(".svg") || p.ends_with(".html"))
        .collect();
    files.sort_by_key(|p| !p.ends_with(".svg"));
    files.truncate(n);
    files
}

/// `site serve` of the golden result on a free port, after its first
/// build: the folder (results/ and public/), the port and the server.
fn serving_golden() -> (tempfile::TempDir, u16, Server) {
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results");
    put(&results, GOLDEN_PATH, &golden());
    let port = free_port();
    let server = serve(port, &results, &work.path().join("public"), &[]);
    let start = Instant::now();
    while !get(port, "/__reload").is_some_and(|r| r.status == 200 && r.body == b"1") {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for the first build");
        std::thread::sleep(Duration::from_millis(100));
    }
    (work, port, server)
}

#[test]
fn keep_alive_connections_are_served_at_once() {
    let (work, port, _server) = serving_golden();
    let out = work.path().join("public");

    let paths = paths_in(&out, CONNECTIONS);
    assert_eq!(paths.len(), CONNECTIONS, "too few files built: {paths:?}");
    assert!(paths.iter().any(|p| p.ends_with(".svg")), "no plots built: {paths:?}");
    // All connections open, then one request on each, as a browser does.
    let mut streams: Vec<TcpStream> = paths.iter().map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    for (stream, path) in streams.iter_mut().zip(&paths) {
        send(stream, path);
    }
    let deadline = Instant::now() + DEADLINE;
    let answers: Vec<_> = streams.iter_mut().map(|s| receive(s, deadline)).collect();
    let failed: Vec<String> = paths
        .iter()
        .zip(&answers)
        .filter_map(|(path, answer)| match answer {
            Ok(r) if r.status == 200 => None,
            Ok(r) => Some(format!("{path}: status {}", r.status)),
            Err(e) => Some(format!("{path}: {e}")),
        })
        .collect();
    assert!(failed.is_empty(), "{} of {CONNECTIONS} requests not answered:\n{}", failed.len(), failed.join("\n"));
    for (path, answer) in paths.iter().zip(&answers) {
        let r = answer.as_ref().unwrap();
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
        let file = std::fs::read(out.join(path.trim_start_matches('/'))).unwrap();
        if path.ends_with(".svg") {
            assert_eq!(r.header("content-type"), Some("image/svg+xml"), "{path}");
            assert_eq!(r.body, file, "{path}");
        } else {
            assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
            assert!(r.text().contains("<script src=\"/__reload.js\"></script></body>"), "{path}: no reload script");
        }
    }

    // The same connections serve more requests.
    let stream = &mut streams[0];
    send(stream, "/__reload");
    let reload = receive(stream, Instant::now() + DEADLINE).unwrap();
    assert_eq!((reload.status, reload.text().as_str()), (200, "1"));
    assert_eq!(reload.header("content-type"), Some("text/plain; charset=utf-8"));
    send(stream, "/no/such/page/");
    let missing = receive(stream, Instant::now() + DEADLINE).unwrap();
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(missing.text().starts_with("<!doctype html>"), "{}", missing.text());
    assert!(missing.text().contains("<script src=\"/__reload.js\"></script></body>"));
    let stream = &mut streams[CONNECTIONS - 1];
    send(stream, "/__reload.js");
    let script = receive(stream, Instant::now() + DEADLINE).unwrap();
    assert_eq!(script.status, 200);
    assert_eq!(script.header("content-type"), Some("text/javascript; charset=utf-8"));
    assert!(script.text().contains("fetch(\"/__reload\")"));
}

/// One raw request on a fresh connection.
fn raw(port: u16, request: &str) -> Response {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    receive(&mut s, Instant::now() + Duration::from_secs(10)).unwrap()
}

/// The preview answers as production does where it matters to a page
/// (netlify.toml's Content-Security-Policy and nosniff), only to GET and
/// HEAD, only for loopback names (not a rebound DNS name), and never
/// through a link in its folder.
#[test]
fn serve_sends_production_headers_and_answers_only_what_it_should() {
    let (work, port, _server) = serving_golden();
    let out = work.path().join("public");
    let netlify = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../netlify.toml")).unwrap();
    let page = get(port, "/").unwrap();
    assert_eq!(page.status, 200);
    let csp = page.header("content-security-policy").unwrap();
    assert!(netlify.contains(&format!("Content-Security-Policy = \"{csp}\"")), "{csp}");
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let csv = get(port, "/data/coremark.csv").unwrap();
    assert_eq!(csv.header("access-control-allow-origin"), Some("*"));

    let post = raw(port, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert_eq!((post.status, post.header("allow")), (405, Some("GET, HEAD")));
    let rebound = raw(port, "GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n");
    assert_eq!(rebound.status, 421);
    let local = raw(port, &format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"));
    assert_eq!(local.status, 200);

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", out.join("etc-link")).unwrap();
        assert_eq!(get(port, "/etc-link/hostname").unwrap().status, 404);
    }
}

#[test]
fn serve_ends_quietly_when_its_stdout_reader_has_gone() {
    // `site serve | head -0`: the first build's line fails with a broken
    // pipe, and the server ends without a word, as `site check` does.
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results");
    put(&results, GOLDEN_PATH, &golden());
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_site"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["serve", "--port", &free_port().to_string(), "--results"])
        .arg(&results)
        .arg("--out")
        .arg(work.path().join("public"))
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
}
