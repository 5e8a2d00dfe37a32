//! `site serve`: build, serve the output folder on 127.0.0.1, watch the
//! inputs and rebuild, and reload the browser after each build.
//!
//! - The server is hyper's HTTP/1.1 server on a single-threaded tokio
//!   runtime, one task per connection: every connection is served at once
//!   and kept alive as long as the browser likes, with no thread per
//!   connection. (tiny_http 0.12, used before, handed connections to a
//!   thread pool that could leave a new connection queued behind the
//!   kept-alive ones, so some requests were never answered and plots
//!   loaded forever.) One thread is enough: a request only reads one small
//!   local file, so the other connections never wait long; no HTTP/2, no
//!   TLS, nothing that needs a multi-threaded runtime.
//! - Every response says `Cache-Control: no-store`: a preview must show the
//!   latest build, never a cached file.
//! - Watching polls the inputs' paths, sizes and modification times every
//!   200 ms on its own thread (`tree::walk`, on every CPU): no platform
//!   watcher to depend on, and cheap next to a build.
//! - A rebuild runs the whole pipeline in memory but does only what the
//!   change affects: it reads and checks only changed files, and reuses
//!   every model entry, provider and runner part, home-page row and plot
//!   and index.json object whose inputs are the same (`web::memo`); then
//!   it rewrites only the files whose content changed (`output::BuildMode::Serve`).
//! - Each HTML page gets a small script that asks `/__reload` for the build
//!   generation twice a second and reloads the page when it changes. (A
//!   long poll would hold a request open, which keeps headless browsers
//!   from ever seeing the page as loaded.)
//! - While the last build failed, every page is the error, so the browser
//!   shows it at once and reloads when a build succeeds again.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::cmd::args::SiteArgs;
use crate::output::{BuildMode, build};
use crate::web::{Options, error_page};

/// The script every served page loads.
const RELOAD_JS: &str = "\"use strict\";(function(){var gen=null;function poll(){fetch(\"/__reload\")\
.then(function(r){return r.text();}).then(function(t){if(gen!==null&&t!==gen){location.reload();return;}gen=t;})\
.catch(function(){}).then(function(){setTimeout(poll,500);});}window.addEventListener(\"load\",poll);})();\n";
/// How often the inputs are looked at.
const POLL: Duration = Duration::from_millis(200);

/// The last build: its number and its error, if it failed.
#[derive(Debug, Default)]
struct State {
    generation: u64,
    error: Option<String>,
}

type Shared = Arc<Mutex<State>>;

/// Builds into `--out`, serves it and rebuilds on change until interrupted.
pub fn run(args: &SiteArgs, port: u16) -> anyhow::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let shared: Shared = Arc::default();
    let mut mode = BuildMode::serve();
    // One build time for the session (pages show it, staleness counts from
    // it), so that a rebuild a minute later still reuses unchanged pages.
    let opts = args.options();
    rebuild(&opts, &args.out, &mut mode, &shared)?;
    writeln!(
        std::io::stdout().lock(),
        "serving {} at http://127.0.0.1:{port}/ (watching for changes)",
        args.out.display()
    )?;
    {
        let (args, shared) = (args.clone(), shared.clone());
        std::thread::spawn(move || {
            // `watch` returns only when stdout fails: end the server as
            // `cli::main` ends on an error.
            if let Err(e) = watch(&args, &opts, mode, &shared) {
                std::process::exit(crate::cmd::fail(&e.into()).into());
            }
        });
    }
    runtime.block_on(serve(listener, args.out.clone().into(), shared))
}

/// Answers every connection on its own task, forever.
async fn serve(listener: std::net::TcpListener, out: Arc<Path>, shared: Shared) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, say: wait for connections to close
            // rather than spin.
            Err(e) => {
                eprintln!("error: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (out, shared) = (out.clone(), shared.clone());
        tokio::spawn(async move {
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let response = answer(&request, &out, &shared);
                async move { Ok::<_, std::convert::Infallible>(response) }
            });
            // A client that went away is no reason to stop serving; one
            // that never finishes its headers is let go.
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Builds and records the outcome. The error returned is stdout's, the
/// build's is recorded.
fn rebuild(opts: &Options, out: &Path, mode: &mut BuildMode, shared: &Shared) -> std::io::Result<()> {
    let start = Instant::now();
    let outcome = build(opts, out, mode);
    let mut state = shared.lock().unwrap_or_else(|e| e.into_inner());
    state.generation += 1;
    match outcome {
        Ok(b) => {
            state.error = None;
            writeln!(
                std::io::stdout().lock(),
                "built in {} ms: {} of {} files changed",
                start.elapsed().as_millis(),
                b.written,
                b.files
            )?;
        }
        Err(e) => {
            let message = format!("{e:#}");
            eprintln!("error: {}", crate::escape::lines(&message));
            state.error = Some(message);
        }
    }
    Ok(())
}

/// Rebuilds on every change, until stdout fails.
fn watch(args: &SiteArgs, opts: &Options, mut mode: BuildMode, shared: &Shared) -> std::io::Result<()> {
    let inputs = [args.results.clone(), args.content.clone(), args.docs.clone(), args.templates.clone()];
    let mut last = signature(&inputs);
    loop {
        std::thread::sleep(POLL);
        let now = signature(&inputs);
        if now != last {
            last = now;
            rebuild(opts, &args.out, &mut mode, shared)?;
        }
    }
}

/// A hash of every input file's path, size and modification time (and of
/// the paths of links and other entries).
pub fn signature(inputs: &[PathBuf]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for root in inputs {
        for found in crate::tree::walk(root) {
            found.path.hash(&mut h);
            if let crate::tree::FoundKind::File(Ok(meta)) = found.kind {
                meta.hash(&mut h);
            }
        }
    }
    h.finish()
}

type Response = hyper::Response<Full<Bytes>>;

/// How long a client may take to send its request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Answers one request: only GET and HEAD, and only for this server's own
/// host names, so that a page of another site whose name resolves to
/// 127.0.0.1 (DNS rebinding) cannot read the preview; production's
/// headers on every answer.
fn answer<B>(request: &hyper::Request<B>, out: &Path, shared: &Shared) -> Response {
    let host = request.headers().get(HOST).map(|h| h.to_str().unwrap_or_default());
    let path = request.uri().path();
    let mut response = if host.is_some_and(|h| !is_loopback_name(h)) {
        text("421 this server answers only for 127.0.0.1 and localhost\n".into(), "text/plain; charset=utf-8", 421)
    } else if !matches!(*request.method(), hyper::Method::GET | hyper::Method::HEAD) {
        let mut r = text("405 only GET and HEAD\n".into(), "text/plain; charset=utf-8", 405);
        r.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        r
    } else {
        respond(out, request.uri().path_and_query().map_or("/", |p| p.as_str()), shared)
    };
    for (name, value) in production_headers(path) {
        response.headers_mut().insert(name, value);
    }
    response
}

/// A netlify.toml `[[headers]]` entry: its `for` pattern and its headers.
type HeaderRule = (String, Vec<(HeaderName, HeaderValue)>);

/// Whether a Host header names this machine's loopback (any port).
pub fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    matches!(name.to_ascii_lowercase().as_str(), "127.0.0.1" | "localhost" | "::1")
}

/// The headers netlify.toml gives production for `path` (its `[[headers]]`
/// whose `for` matches, later ones overriding), so that the preview runs
/// under the same Content-Security-Policy and the browser test sees what a
/// visitor's browser would refuse. Cache-Control stays the preview's
/// `no-store`: a rebuild changes any file.
pub fn production_headers(path: &str) -> Vec<(HeaderName, HeaderValue)> {
    static RULES: std::sync::OnceLock<Vec<HeaderRule>> = std::sync::OnceLock::new();
    let rules = RULES.get_or_init(|| {
        let config: toml::Value = toml::from_str(include_str!("../../../netlify.toml")).expect("netlify.toml is TOML");
        let rules = config.get("headers").and_then(toml::Value::as_array).cloned().unwrap_or_default();
        rules
            .iter()
            .filter_map(|rule| {
                let pattern = rule.get("for")?.as_str()?.to_string();
                let values = rule.get("values")?.as_table()?;
                let headers = values
                    .iter()
                    .filter(|(name, _)| !name.eq_ignore_ascii_case("cache-control"))
                    .filter_map(|(name, value)| {
                        Some((
                            HeaderName::from_bytes(name.as_bytes()).ok()?,
                            HeaderValue::from_str(value.as_str()?).ok()?,
                        ))
                    })
                    .collect();
                Some((pattern, headers))
            })
            .collect()
    });
    let mut out: Vec<(HeaderName, HeaderValue)> = Vec::new();
    for (pattern, headers) in rules {
        let matches = match pattern.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => path == pattern,
        };
        if matches {
            for (name, value) in headers {
                out.retain(|(n, _)| n != name);
                out.push((name.clone(), value.clone()));
            }
        }
    }
    out
}

fn respond(out: &Path, url: &str, shared: &Shared) -> Response {
    let (generation, error) = {
        let state = shared.lock().unwrap_or_else(|e| e.into_inner());
        (state.generation, state.error.clone())
    };
    match url.split('?').next() {
        Some("/__reload.js") => return text(RELOAD_JS.to_string(), "text/javascript; charset=utf-8", 200),
        Some("/__reload") => return text(generation.to_string(), "text/plain; charset=utf-8", 200),
        _ => {}
    }
    let file = file_for(out, url);
    let is_page = file.as_ref().is_none_or(|f| f.extension().is_some_and(|e| e == "html"));
    if let Some(error) = error.filter(|_| is_page) {
        return text(with_reload(&error_page(&error)), "text/html; charset=utf-8", 500);
    }
    let (path, status) = match file {
        Some(path) => (path, 200),
        None => (out.join("404.html"), 404),
    };
    match std::fs::read(&path) {
        Ok(bytes) if content_type_of(&path).starts_with("text/html") => {
            text(with_reload(&String::from_utf8_lossy(&bytes)), content_type_of(&path), status)
        }
        Ok(bytes) => response(bytes, content_type_of(&path), status),
        Err(_) => text("404 not found\n".to_string(), "text/plain; charset=utf-8", 404),
    }
}

/// Adds the reload script to a page.
pub fn with_reload(html: &str) -> String {
    let tag = "<script src=\"/__reload.js\"></script>";
    match html.rfind("</body>") {
        Some(i) => format!("{}{tag}{}", &html[..i], &html[i..]),
        None => format!("{html}{tag}"),
    }
}

fn text(body: String, content_type: &'static str, status: u16) -> Response {
    response(body.into_bytes(), content_type, status)
}

fn response(body: Vec<u8>, content_type: &'static str, status: u16) -> Response {
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = hyper::StatusCode::from_u16(status).expect("a valid status");
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The file a URL names under `root`, `index.html` for a folder; `None`
/// for anything outside `root` or missing.
pub fn file_for(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    // No link is followed: a build writes none, and one put into the
    // folder could point anywhere on the machine.
    let mut full = root.to_path_buf();
    for part in rel.components() {
        full.push(part);
        if std::fs::symlink_metadata(&full).ok()?.file_type().is_symlink() {
            return None;
        }
    }
    if full.is_dir() {
        full = full.join("index.html");
        if std::fs::symlink_metadata(&full).ok()?.file_type().is_symlink() {
            return None;
        }
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
        Some("csv") => "text/csv; charset=utf-8",
        Some("xml") => "application/xml",
        _ => "application/octet-stream",
    }
}
