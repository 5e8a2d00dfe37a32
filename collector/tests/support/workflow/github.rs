//! A double of the parts of GitHub that the benchmark workflow's
//! `preflight` and `sign` jobs reach over HTTP, on loopback: the REST API's
//! list of a run's jobs, a repository file through the contents API, and a
//! release's download URL. GitHub itself cannot be reached from here, so
//! this is a double, shaped after GitHub's published REST API description
//! (the `job` schema of `GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs`,
//! its `filter`, `per_page` and `page` parameters, the 403 answer to a token
//! without `actions: read`) and the `https://github.com/{owner}/{repo}/releases/download/{tag}/{file}`
//! form; the workflow's steps call it with curl, as they call GitHub.
//!
//! The runner (run.rs) keeps the job list as it runs the jobs: a job is
//! listed `in_progress` from its start and `completed` at its end, with the
//! whole-second timestamps GitHub gives, the runner's name and the labels
//! its `runs-on` gave. Each job's token is registered with whether its
//! `permissions` grant `actions: read`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// The double's host name. Under `.localhost`, as GitHub's own is not: a
/// server URL of another host makes @actions/cache take the server for
/// GitHub Enterprise Server and use the v1 cache service only
/// (`isGhes()`), where github.com's runners use v2. curl resolves
/// `.localhost` names to loopback itself; the runner maps it in every
/// instance's /etc/hosts for the rest.
pub(crate) const HOST: &str = "github.localhost";

/// What the double answers with; the runner writes, the server reads.
#[derive(Default)]
pub(crate) struct State {
    /// The run's jobs, as the API lists them (`filter=all`), in start order.
    pub(crate) jobs: Vec<Value>,
    /// Each job's `github.token`, and whether it may list the run's jobs.
    pub(crate) tokens: BTreeMap<String, bool>,
    /// URL path (below the server's root) → the file served there: the
    /// contents API's raw files (`/api/repos/{owner}/{repo}/contents/{path}`)
    /// and release downloads (`/{owner}/{repo}/releases/download/{tag}/{file}`).
    pub(crate) files: BTreeMap<String, PathBuf>,
}

/// A running double; stopped when dropped.
pub(crate) struct GitHubDouble {
    /// The server root, `http://127.0.0.1:PORT`: `github.server_url`.
    pub(crate) url: String,
    pub(crate) state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl GitHubDouble {
    pub(crate) fn start(files: BTreeMap<String, PathBuf>) -> std::io::Result<GitHubDouble> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{HOST}:{}", listener.local_addr()?.port());
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(State { files, ..State::default() }));
        let (flag, shared) = (stop.clone(), state.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(s) = stream {
                    // A client that goes away mid-request is its own problem.
                    let _ = serve(s, &shared);
                }
            }
        });
        Ok(GitHubDouble { url, state, stop, thread: Some(thread) })
    }

    /// `github.api_url`.
    pub(crate) fn api_url(&self) -> String {
        format!("{}/api", self.url)
    }
}

impl Drop for GitHubDouble {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.url.replace(&format!("http://{HOST}"), "127.0.0.1"));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let mut token = None;
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        if let Some((name, value)) = line.trim_end().split_once(':')
            && name.eq_ignore_ascii_case("authorization")
        {
            token = value.trim().strip_prefix("Bearer ").map(str::to_string);
        }
        line.clear();
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (status, body) = if method != "GET" {
        (405, b"{\"message\":\"Method Not Allowed\"}".to_vec())
    } else {
        answer(path, query, token.as_deref(), &state.lock().unwrap())
    };
    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let mut out = stream;
    write!(out, "HTTP/1.1 {status} {reason}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
    out.write_all(&body)?;
    out.flush()
}

fn not_found() -> (u16, Vec<u8>) {
    (404, br#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}"#.to_vec())
}

fn answer(path: &str, query: &str, token: Option<&str>, state: &State) -> (u16, Vec<u8>) {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if let ["api", "repos", _, _, "actions", "runs", run, "jobs"] = segments.as_slice() {
        if token.is_none_or(|t| state.tokens.get(t) != Some(&true)) {
            return (
                403,
                br#"{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run","status":"403"}"#.to_vec(),
            );
        }
        return (200, jobs_page(run, query, &state.jobs));
    }
    if path.contains("..") {
        return not_found();
    }
    match state.files.get(path).map(std::fs::read) {
        Some(Ok(bytes)) => (200, bytes),
        _ => not_found(),
    }
}

/// A page of the list: `filter=latest` (the default) keeps each job's
/// latest attempt, `filter=all` every attempt; `per_page` (default 30, at
/// most 100) and `page` (from 1).
fn jobs_page(run: &str, query: &str, jobs: &[Value]) -> Vec<u8> {
    let param = |name: &str| query.split('&').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='));
    let per_page: usize = param("per_page").and_then(|v| v.parse().ok()).unwrap_or(30).clamp(1, 100);
    let page: usize = param("page").and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let of_run: Vec<&Value> =
        jobs.iter().filter(|j| j["run_id"].as_u64().is_some_and(|id| id.to_string() == run)).collect();
    let listed: Vec<&Value> = if param("filter") == Some("all") {
        of_run
    } else {
        let latest = of_run.iter().filter_map(|o| o["run_attempt"].as_u64()).max();
        of_run.into_iter().filter(|j| j["run_attempt"].as_u64() == latest).collect()
    };
    let total = listed.len();
    let slice: Vec<&Value> = listed.into_iter().skip((page - 1) * per_page).take(per_page).collect();
    serde_json::to_vec(&json!({"total_count": total, "jobs": slice})).expect("JSON values serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(url: &str, token: Option<&str>) -> (String, String) {
        let mut cmd = std::process::Command::new("curl");
        cmd.args(["--silent", "--show-error", "--write-out", "\n%{http_code}"]);
        if let Some(t) = token {
            cmd.args(["-H", &format!("Authorization: Bearer {t}")]);
        }
        let out = cmd.arg(url).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let (body, code) = text.rsplit_once('\n').unwrap();
        (code.to_string(), body.to_string())
    }

    #[test]
    fn lists_jobs_to_a_token_that_may_read_them_page_by_page() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("manifest.toml"), "tag = \"v1\"\n").unwrap();
        let files = BTreeMap::from([(
            "/api/repos/o/r/contents/content/releases/v1.toml".to_string(),
            dir.path().join("manifest.toml"),
        )]);
        let gh = GitHubDouble::start(files).unwrap();
        {
            let mut s = gh.state.lock().unwrap();
            s.tokens.insert("reader".into(), true);
            s.tokens.insert("other".into(), false);
            for (name, attempt) in [("a", 1), ("b", 1), ("a", 2)] {
                s.jobs.push(json!({"run_id": 7, "run_attempt": attempt, "name": name}));
            }
        }
        let jobs = format!("{}/repos/o/r/actions/runs/7/jobs", gh.api_url());
        let (code, body) = get(&format!("{jobs}?filter=all&per_page=2&page=2"), Some("reader"));
        assert_eq!(
            (code.as_str(), body.as_str()),
            ("200", r#"{"jobs":[{"name":"a","run_attempt":2,"run_id":7}],"total_count":3}"#)
        );
        let (_, body) = get(&jobs, Some("reader"));
        assert_eq!(body, r#"{"jobs":[{"name":"a","run_attempt":2,"run_id":7}],"total_count":1}"#);
        assert_eq!(get(&jobs, Some("other")).0, "403");
        assert_eq!(get(&jobs, None).0, "403");
        let manifest = format!("{}/repos/o/r/contents/content/releases/v1.toml", gh.api_url());
        assert_eq!(get(&manifest, None), ("200".into(), "tag = \"v1\"\n".into()));
        assert_eq!(get(&format!("{}/o/r/releases/download/v1/x", gh.url), None).0, "404");
    }
}
