//! `site serve`: build, then serve the output folder on 127.0.0.1.
//! (Watching and live reload come later.)

use std::path::{Component, Path, PathBuf};

use anyhow::Context;

use crate::output::build_site;

/// Builds into `out` and serves it until interrupted.
pub fn run(results: &Path, out: &Path, port: u16) -> anyhow::Result<()> {
    build_site(results, out)?;
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    println!("serving {} at http://127.0.0.1:{port}/", out.display());
    for request in server.incoming_requests() {
        let response = match file_for(out, request.url()) {
            Some(path) => match std::fs::read(&path) {
                Ok(bytes) => tiny_http::Response::from_data(bytes).with_header(content_type(&path)),
                Err(_) => not_found(),
            },
            None => not_found(),
        };
        // A client that went away is no reason to stop serving.
        let _ = request.respond(response);
    }
    Ok(())
}

fn not_found() -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    tiny_http::Response::from_string("404 not found\n")
        .with_status_code(404)
        .with_header(header("text/plain; charset=utf-8"))
}

/// The file a URL names under `root`, `index.html` for a folder; `None`
/// for anything outside `root` or missing.
pub fn file_for(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut full = root.join(rel);
    if full.is_dir() {
        full = full.join("index.html");
    }
    full.is_file().then_some(full)
}

/// The Content-Type of a file, by extension.
pub fn content_type_of(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("md") => "text/markdown; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn content_type(path: &Path) -> tiny_http::Header {
    header(content_type_of(path))
}

fn header(value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(&b"Content-Type"[..], value.as_bytes()).expect("a valid header")
}
