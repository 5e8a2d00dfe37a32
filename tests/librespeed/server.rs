//! A LibreSpeed test server: Debian's nginx and php-fpm on loopback, serving
//! the backends in this folder (see nginx.conf.in) over HTTP and HTTPS, with
//! a certificate made by make-certs.sh for this server alone. Each `Server`
//! has its own ports, folder and processes, and stops them when dropped.
//!
//! Included with `#[path]` by the internet stage's unit tests and by
//! collector/tests/internet.rs, so both test the same server.

#![allow(dead_code, reason = "each includer uses a different part")]

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PACKAGES: &str = "install Debian's nginx, php-fpm and openssl packages (scripts/test.sh does: \
                        apt-get install -y nginx php-fpm openssl curl)";

/// A running nginx + php-fpm pair.
pub(crate) struct Server {
    dir: tempfile::TempDir,
    nginx: Child,
    php_fpm: Child,
    http_port: u16,
    https_port: u16,
}

impl Server {
    /// Starts a server, or panics saying what is missing or what failed.
    pub(crate) fn start() -> Server {
        let nginx = find_program(&["/usr/sbin/nginx", "/usr/bin/nginx"], "nginx");
        let php_fpm = find_php_fpm();
        let dir = tempfile::tempdir().expect("a temporary folder");
        let certs = Command::new("sh")
            .arg(files().join("make-certs.sh"))
            .arg(dir.path())
            .status()
            .unwrap_or_else(|e| panic!("could not run make-certs.sh: {e}; {PACKAGES}"));
        assert!(certs.success(), "make-certs.sh failed ({certs}); {PACKAGES}");

        let mut last_error = String::new();
        // A port picked here may be taken by the time nginx binds it, so a
        // failed start is retried with new ports.
        for _ in 0..3 {
            match Server::try_start(dir.path(), &nginx, &php_fpm) {
                Ok((nginx, php_fpm, http_port, https_port)) => {
                    return Server { dir, nginx, php_fpm, http_port, https_port };
                }
                Err(e) => last_error = e,
            }
        }
        panic!("the LibreSpeed test server did not start: {last_error}");
    }

    fn try_start(dir: &Path, nginx: &Path, php_fpm: &Path) -> Result<(Child, Child, u16, u16), String> {
        let (http_port, https_port) = (free_port(), free_port());
        let root = is_root();
        let fill = |template: &str| -> String {
            let text = fs::read_to_string(files().join(template)).expect("the server templates are readable");
            text.replace("@DIR@", &dir.display().to_string())
                .replace("@ROOT@", &files().display().to_string())
                .replace("@HTTP_PORT@", &http_port.to_string())
                .replace("@HTTPS_PORT@", &https_port.to_string())
                .replace("@NGINX_USER@", if root { "user root;" } else { "" })
                .replace("@FPM_USER@", if root { "user = root\ngroup = root" } else { "" })
        };
        fs::write(dir.join("nginx.conf"), fill("nginx.conf.in")).map_err(|e| e.to_string())?;
        fs::write(dir.join("php-fpm.conf"), fill("php-fpm.conf.in")).map_err(|e| e.to_string())?;
        let socket = dir.join("php-fpm.sock");
        let _ = fs::remove_file(&socket);

        let mut fpm = Command::new(php_fpm);
        fpm.arg("--nodaemonize").arg("--fpm-config").arg(dir.join("php-fpm.conf"));
        if root {
            fpm.arg("--allow-to-run-as-root");
        }
        let mut php = spawn(&mut fpm, &dir.join("php-fpm.out"))?;
        let mut web = match spawn(
            Command::new(nginx)
                .arg("-p")
                .arg(dir)
                .arg("-c")
                .arg(dir.join("nginx.conf"))
                .arg("-e")
                .arg(dir.join("nginx-error.log")),
            &dir.join("nginx.out"),
        ) {
            Ok(child) => child,
            Err(e) => {
                stop(&mut php);
                return Err(e);
            }
        };

        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let up = socket.exists()
                && TcpStream::connect(("127.0.0.1", http_port)).is_ok()
                && TcpStream::connect(("127.0.0.1", https_port)).is_ok();
            if up {
                return Ok((web, php, http_port, https_port));
            }
            let exited = [web.try_wait(), php.try_wait()].into_iter().any(|w| matches!(w, Ok(Some(_))));
            if exited || Instant::now() > deadline {
                stop(&mut web);
                stop(&mut php);
                let log = |name: &str| fs::read_to_string(dir.join(name)).unwrap_or_default();
                return Err(format!(
                    "nginx: {} {} php-fpm: {} {}",
                    log("nginx.out"),
                    log("nginx-error.log"),
                    log("php-fpm.out"),
                    log("php-fpm.log")
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The URL of a backend folder (`backend`, `slow`, `broken`, `generous`,
    /// `forbidden`, `closing`), over HTTPS or plain HTTP.
    pub(crate) fn url(&self, https: bool, backend: &str) -> String {
        match https {
            true => format!("https://127.0.0.1:{}/{backend}/", self.https_port),
            false => format!("http://127.0.0.1:{}/{backend}/", self.http_port),
        }
    }

    /// nginx's access log so far: one line per request, "CONNECTION
    /// REQUESTS-ON-IT METHOD PATH STATUS".
    pub(crate) fn access_log(&self) -> String {
        fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }

    /// The CA certificate that signed the server's certificate (PEM).
    pub(crate) fn ca_cert(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        stop(&mut self.nginx);
        stop(&mut self.php_fpm);
    }
}

/// tests/librespeed, where the PHP files and templates are.
fn files() -> PathBuf {
    // Without "..": php-fpm refuses script paths that hold it.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/librespeed");
    fs::canonicalize(&path).unwrap_or(path)
}

fn find_program(candidates: &[&str], name: &str) -> PathBuf {
    candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed (looked at {}); {PACKAGES}", candidates.join(", ")))
}

/// Debian names the binary after PHP's version: /usr/sbin/php-fpm8.2.
fn find_php_fpm() -> PathBuf {
    let mut found: Vec<PathBuf> = ["/usr/sbin", "/usr/bin"]
        .iter()
        .filter_map(|d| fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("php-fpm"))
        .map(|e| e.path())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| panic!("php-fpm is not installed (no /usr/sbin/php-fpm*); {PACKAGES}"))
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0)).and_then(|l| l.local_addr()).expect("a free loopback port").port()
}

#[cfg(unix)]
pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The servers run on Linux only; elsewhere this is only compiled.
#[cfg(not(unix))]
pub(crate) fn is_root() -> bool {
    false
}

pub(crate) fn spawn(cmd: &mut Command, output: &Path) -> Result<Child, String> {
    let out = fs::File::create(output).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn().map_err(|e| format!("{cmd:?}: {e}"))
}

/// SIGTERM, so the masters take their workers down, then SIGKILL if one is
/// still there after two seconds.
pub(crate) fn stop(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: signalling our own child, which has not been reaped yet.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}
