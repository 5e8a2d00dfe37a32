//! The cache service double (tests/cache-service) as GitHub's cache
//! service looks from a runner: its SAS URLs point into Azure Blob Storage,
//! `https://<account>.blob.core.windows.net/<container>/<blob>?<sas>`, and
//! the collector checks that the archives travel there (the routing check,
//! pattern `*.blob.core.windows.net`).
//!
//! The double hands out Azurite's path-style URLs on loopback
//! (`http://127.0.0.1:PORT/devstoreaccount1/cache/<blob>?<sas>`), which no
//! runner on GitHub would see. This front passes every call to the double
//! and rewrites those URLs into the production form, on Azurite's port:
//! `http://devstoreaccount1.blob.core.windows.net:PORT/cache/<blob>?<sas>`.
//! The jobs' OS instances map that name to 127.0.0.1 in their /etc/hosts,
//! and Azurite takes the account from the host name of such a URL
//! ("production-style URL"). The SAS signature covers the account,
//! container and blob, not the URL's form, so it stays valid.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use anyhow::{Context, bail};

/// The account Azurite serves (its well-known development account).
const ACCOUNT: &str = "devstoreaccount1";

/// The host name of that account's blob endpoint in Azure.
pub(crate) fn blob_host() -> String {
    format!("{ACCOUNT}.blob.core.windows.net")
}

/// A running front; stopped when dropped.
pub(crate) struct CacheFront {
    /// The URL to give as ACTIONS_RESULTS_URL, ending in `/`.
    pub(crate) url: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl CacheFront {
    /// A front of the double at `upstream` (`http://127.0.0.1:PORT/`).
    pub(crate) fn start(upstream: &str) -> anyhow::Result<CacheFront> {
        let upstream = upstream
            .strip_prefix("http://")
            .and_then(|u| u.strip_suffix('/'))
            .with_context(|| format!("{upstream}: not http://HOST:PORT/"))?
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}/", listener.local_addr()?);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(s) = stream {
                    let upstream = upstream.clone();
                    std::thread::spawn(move || {
                        if let Err(e) = relay(s, &upstream) {
                            eprintln!("rehearsal: cache service front: {e:#}");
                        }
                    });
                }
            }
        });
        Ok(CacheFront { url, stop, thread: Some(thread) })
    }
}

impl Drop for CacheFront {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.url.trim_start_matches("http://").trim_end_matches('/'));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One request: read it, pass it on as HTTP/1.0 (so that the double
/// answers with a plain body and closes), rewrite the answer, send it back.
fn relay(client: TcpStream, upstream: &str) -> anyhow::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line)? == 0 {
        return Ok(()); // the wake-up connection of Drop
    }
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else { bail!("bad header line {line:?}") };
        let name_lower = name.trim().to_ascii_lowercase();
        if name_lower == "content-length" {
            length = value.trim().parse().context("content-length")?;
        }
        if !matches!(name_lower.as_str(), "host" | "connection" | "keep-alive" | "content-length") {
            headers.push(line);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or("GET"), parts.next().unwrap_or("/"));

    let mut up = TcpStream::connect(upstream).with_context(|| format!("cannot reach the double at {upstream}"))?;
    let mut head = format!("{method} {target} HTTP/1.0\r\nHost: {upstream}\r\nContent-Length: {}\r\n", body.len());
    for h in &headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    up.write_all(head.as_bytes())?;
    up.write_all(&body)?;
    let mut answer = Vec::new();
    up.read_to_end(&mut answer)?;
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").context("the double's answer has no header end")?;
    let (answer_head, answer_body) = (String::from_utf8_lossy(&answer[..split]).to_string(), &answer[split + 4..]);
    let body = rewrite(&String::from_utf8_lossy(answer_body));
    let mut lines = answer_head.lines();
    let status = lines.next().unwrap_or("HTTP/1.0 502 Bad Gateway").replacen("HTTP/1.0", "HTTP/1.1", 1);
    let mut out = format!("{status}\r\n");
    for l in lines.filter(|l| {
        let n = l.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
        !matches!(n.as_str(), "content-length" | "connection" | "keep-alive" | "transfer-encoding")
    }) {
        out.push_str(l);
        out.push_str("\r\n");
    }
    out.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    let mut client = client;
    client.write_all(out.as_bytes())?;
    client.write_all(body.as_bytes())?;
    client.flush()?;
    Ok(())
}

/// The SAS URLs of a Twirp answer in Azure's production form.
fn rewrite(body: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(body) else { return body.to_string() };
    for field in ["signed_upload_url", "signed_download_url"] {
        if let Some(serde_json::Value::String(url)) = v.get_mut(field) {
            *url = production_url(url);
        }
    }
    v.to_string()
}

/// `http://127.0.0.1:P/devstoreaccount1/c/b?q` → `http://devstoreaccount1.blob.core.windows.net:P/c/b?q`.
fn production_url(url: &str) -> String {
    let Some(rest) = url.strip_prefix("http://127.0.0.1:") else { return url.to_string() };
    let Some((port, path)) = rest.split_once('/') else { return url.to_string() };
    match path.strip_prefix(&format!("{ACCOUNT}/")) {
        Some(path) => format!("http://{}:{port}/{path}", blob_host()),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sas_urls_take_the_production_form() {
        assert_eq!(
            rewrite(
                r#"{"ok":true,"signed_upload_url":"http://127.0.0.1:4000/devstoreaccount1/cache/1-x.tzst?sv=1&sig=a%2Fb"}"#
            ),
            r#"{"ok":true,"signed_upload_url":"http://devstoreaccount1.blob.core.windows.net:4000/cache/1-x.tzst?sv=1&sig=a%2Fb"}"#
        );
        assert_eq!(rewrite(r#"{"ok":false}"#), r#"{"ok":false}"#);
        assert_eq!(rewrite("not json"), "not json");
    }
}
