//! The http-cache stage's test servers, started on loopback, each with its
//! own port and folder, stopped when dropped:
//!
//! - nginx with WebDAV PUT, the setup Gradle documents for its HTTP build
//!   cache (`dav_methods PUT; create_full_put_path on;`). It also serves
//!   Bazel's `/cas/` paths and plain WebDAV: `/cache/` takes PUTs,
//!   `/readonly/` answers them 405, as a server without WebDAV does. Over
//!   plain HTTP, or over HTTPS with a certificate from the LibreSpeed test
//!   server's make-certs.sh, signed by a CA made for this server alone.
//! - turborepo-remote-cache from npm (tests/http-cache/package.json,
//!   installed by scripts/test.sh), Turborepo's remote cache API with a
//!   static bearer token and local storage.
//!
//! Included with `#[path]` by the stage's unit tests and by
//! collector/tests/http_cache.rs, so both test the same servers.

#![allow(dead_code, reason = "each includer uses a different part")]

// For its process helpers; the collector's unit tests also load it for the
// internet stage, where it is a different module of the same file.
#[allow(clippy::duplicate_mod, reason = "only the helpers are used here, and they hold no state")]
#[path = "../librespeed/server.rs"]
mod librespeed;

use std::fs;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub(crate) use librespeed::free_port;
use librespeed::{is_root, spawn, stop};

const NGINX: &str = "install Debian's nginx (scripts/test.sh does: apt-get install -y nginx)";
const OPENSSL: &str = "install Debian's openssl (scripts/test.sh does: apt-get install -y openssl)";
const TURBO: &str = "run `npm ci --prefix tests/http-cache` (scripts/test.sh does)";

/// nginx serving WebDAV PUT and GET.
pub(crate) struct Nginx {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
    tls: bool,
}

impl Nginx {
    /// Starts nginx over plain HTTP, or panics saying what is missing or
    /// what failed.
    pub(crate) fn start() -> Nginx {
        Nginx::start_with(false)
    }

    /// Starts nginx over HTTPS only; `ca_cert` is the CA that signed its
    /// certificate.
    pub(crate) fn start_tls() -> Nginx {
        Nginx::start_with(true)
    }

    fn start_with(tls: bool) -> Nginx {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("nginx is not installed; {NGINX}"));
        let dir = tempfile::tempdir().expect("a temporary folder");
        for sub in ["root/cache", "root/readonly", "root/small"] {
            fs::create_dir_all(dir.path().join(sub)).expect("the server's folders");
        }
        if tls {
            let certs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/librespeed/make-certs.sh");
            let made = Command::new("sh")
                .arg(&certs)
                .arg(dir.path())
                .status()
                .unwrap_or_else(|e| panic!("could not run {}: {e}; {OPENSSL}", certs.display()));
            assert!(made.success(), "make-certs.sh failed ({made}); {OPENSSL}");
        }
        let mut last_error = String::new();
        // A port picked here may be taken by the time nginx binds it.
        for _ in 0..3 {
            let port = free_port();
            let listen = match tls {
                true => format!(
                    "listen 127.0.0.1:{port} ssl;\n        ssl_certificate @DIR@/server.crt;\n        \
                     ssl_certificate_key @DIR@/server.key;"
                ),
                false => format!("listen 127.0.0.1:{port};"),
            };
            let conf = CONF
                .replace("@LISTEN@", &listen)
                .replace("@DIR@", &dir.path().display().to_string())
                .replace("@USER@", if is_root() { "user root;" } else { "" });
            fs::write(dir.path().join("nginx.conf"), conf).expect("nginx.conf is writable");
            let child = spawn(
                Command::new(&nginx)
                    .arg("-p")
                    .arg(dir.path())
                    .arg("-c")
                    .arg(dir.path().join("nginx.conf"))
                    .arg("-e")
                    .arg(dir.path().join("error.log")),
                &dir.path().join("nginx.out"),
            )
            .unwrap_or_else(|e| panic!("{e}; {NGINX}"));
            match wait_for(child, port, dir.path(), &["nginx.out", "error.log"]) {
                Ok(child) => return Nginx { dir, child, port, tls },
                Err(e) => last_error = e,
            }
        }
        panic!("nginx did not start: {last_error}");
    }

    /// The URL of a folder: `cache` (takes PUTs), `small` (takes PUTs of
    /// at most 1 MiB) or `readonly`.
    pub(crate) fn url(&self, folder: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/{folder}/", self.port)
    }

    /// The CA certificate (PEM) that signed the HTTPS server's certificate.
    pub(crate) fn ca_cert(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    /// Where the folder's entries are on disk.
    pub(crate) fn folder(&self, folder: &str) -> PathBuf {
        self.dir.path().join("root").join(folder)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

const CONF: &str = "@USER@
worker_processes 1;
daemon off;
pid @DIR@/nginx.pid;
error_log @DIR@/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path @DIR@/client-body;
    proxy_temp_path @DIR@/proxy;
    fastcgi_temp_path @DIR@/fastcgi;
    uwsgi_temp_path @DIR@/uwsgi;
    scgi_temp_path @DIR@/scgi;
    client_max_body_size 0;
    keepalive_requests 1000000;
    server {
        @LISTEN@
        root @DIR@/root;
        location /cache/ {
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
        location /readonly/ {
        }
        # nginx's default limit on an upload, which many servers keep.
        location /small/ {
            client_max_body_size 1m;
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
    }
}
";

/// turborepo-remote-cache with one static token.
pub(crate) struct Turbo {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl Turbo {
    /// Starts the server with `token` as its only accepted bearer token,
    /// or panics saying what is missing or what failed.
    pub(crate) fn start(token: &str) -> Turbo {
        let cli = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/http-cache/node_modules/turborepo-remote-cache/dist/cli.js");
        assert!(cli.is_file(), "turborepo-remote-cache is not installed ({} is missing); {TURBO}", cli.display());
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port();
            let child = spawn(
                Command::new("node")
                    .arg(&cli)
                    .env("HOST", "127.0.0.1")
                    .env("PORT", port.to_string())
                    .env("STORAGE_PROVIDER", "local")
                    .env("STORAGE_PATH", dir.path())
                    .env("STORAGE_PATH_USE_TMP_FOLDER", "false")
                    .env("TURBO_TOKEN", token)
                    .env("LOG_LEVEL", "warn"),
                &dir.path().join("turbo.out"),
            )
            .unwrap_or_else(|e| panic!("{e}; install Node.js and {TURBO}"));
            match wait_for(child, port, dir.path(), &["turbo.out"]) {
                Ok(child) => return Turbo { dir, child, port },
                Err(e) => last_error = e,
            }
        }
        panic!("turborepo-remote-cache did not start: {last_error}");
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Turbo {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Waits until `port` takes connections; a server that exits or takes
/// longer than 20 s is stopped and its logs returned.
fn wait_for(mut child: Child, port: u16, dir: &Path, logs: &[&str]) -> Result<Child, String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(child);
        }
        if matches!(child.try_wait(), Ok(Some(_))) || Instant::now() > deadline {
            stop(&mut child);
            return Err(logs.iter().map(|l| fs::read_to_string(dir.join(l)).unwrap_or_default()).collect());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
