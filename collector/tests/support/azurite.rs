//! Azurite (Microsoft's Azure Storage emulator) and the test double of the
//! GitHub Actions cache service (tests/cache-service/server.mjs), started on
//! loopback for the cache tests. One implementation, included with
//! `#[path]` by collector/tests/cache.rs and by the unit tests of
//! collector/src/stage/cache/ghacache.rs. Needs `npm ci --prefix
//! tests/cache-service` (scripts/test.sh runs it) and node.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bearer token the double accepts.
pub(crate) const TOKEN: &str = "test-token";

/// tests/cache-service: the double, its cross-check script and its modules.
pub(crate) fn service_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cache-service")
}

fn node_modules() -> PathBuf {
    let dir = service_dir().join("node_modules");
    assert!(
        dir.join("azurite").is_dir() && dir.join("@actions/cache").is_dir(),
        "{} is missing: run `npm ci --prefix tests/cache-service` (scripts/test.sh does)",
        dir.display()
    );
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Azurite and the cache service double, on loopback; killed when dropped.
pub(crate) struct Services {
    children: Vec<Child>,
    /// The double's base URL, ending in `/`.
    pub(crate) url: String,
    _dir: tempfile::TempDir,
}

impl Services {
    pub(crate) fn start() -> Self {
        let modules = node_modules();
        let dir = tempfile::tempdir().unwrap();
        let blob_port = free_port();
        let azurite = Command::new("node")
            .arg(modules.join("azurite/dist/src/blob/main.js"))
            .args(["--blobHost", "127.0.0.1", "--blobPort", &blob_port.to_string(), "--location"])
            .arg(dir.path())
            .args(["--skipApiVersionCheck", "--loose", "--silent"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs Azurite");
        let mut services = Services { children: vec![azurite], url: String::new(), _dir: dir };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", blob_port)).is_err() {
            assert!(Instant::now() < deadline, "Azurite did not listen on port {blob_port} within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut double = Command::new("node")
            .arg(service_dir().join("server.mjs"))
            .env("AZURITE_BLOB_URL", format!("http://127.0.0.1:{blob_port}/devstoreaccount1"))
            .env("CACHE_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs the cache service double");
        let mut line = String::new();
        BufReader::new(double.stdout.take().unwrap()).read_line(&mut line).unwrap();
        services.children.push(double);
        let port = line.trim().strip_prefix("listening ").unwrap_or_else(|| panic!("the double said {line:?}"));
        services.url = format!("http://127.0.0.1:{port}/");
        services
    }

    /// A GET of the double's control endpoint `_control/<path>`.
    pub(crate) fn control(&self, path: &str) -> reqwest::blocking::RequestBuilder {
        reqwest::blocking::Client::new().get(format!("{}_control/{path}", self.url))
    }

    /// Makes the next call of `method` answer HTTP `status`.
    pub(crate) fn fault(&self, method: &str, status: u16) {
        let c = reqwest::blocking::Client::new();
        let body = serde_json::json!({"method": method, "status": status, "count": 1}).to_string();
        assert!(c.post(format!("{}_control/fault", self.url)).body(body).send().unwrap().status().is_success());
    }

    /// The HTTP statuses of the calls of `method` so far, in order.
    pub(crate) fn calls(&self, method: &str) -> Vec<u64> {
        let v: serde_json::Value =
            serde_json::from_str(&self.control("calls").send().unwrap().text().unwrap()).unwrap();
        v.as_array().unwrap().iter().filter(|c| c["method"] == method).map(|c| c["status"].as_u64().unwrap()).collect()
    }
}

impl Drop for Services {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
