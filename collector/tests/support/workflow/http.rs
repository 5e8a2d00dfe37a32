//! A static file server on loopback: HTTP/1.1 GET of the files in one
//! folder, one connection at a time. The rehearsal serves its collector
//! "release" (the binary under test and SHA256SUMS) with it, where
//! scripts/collector.sh downloads a release from GitHub.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// A running server; stopped when dropped.
pub(crate) struct FileServer {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub(crate) url: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FileServer {
    pub(crate) fn start(root: &Path) -> std::io::Result<FileServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}", listener.local_addr()?);
        let stop = Arc::new(AtomicBool::new(false));
        let (root, flag) = (root.to_path_buf(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(s) = stream {
                    // A client that goes away mid-request is its own problem.
                    let _ = serve(s, &root);
                }
            }
        });
        Ok(FileServer { url, stop, thread: Some(thread) })
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // The headers are not needed; read them to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let name = target.trim_start_matches('/');
    let file: Option<PathBuf> = (!name.is_empty() && !name.contains("..") && !name.contains('/'))
        .then(|| root.join(name))
        .filter(|p| p.is_file());
    let mut out = stream;
    match (method, file) {
        ("GET" | "HEAD", Some(path)) => {
            let body = std::fs::read(path)?;
            write!(out, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
            if method == "GET" {
                out.write_all(&body)?;
            }
        }
        ("GET" | "HEAD", None) => {
            out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?
        }
        _ => out.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?,
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_files_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SHA256SUMS"), "abc  collector\n").unwrap();
        let server = FileServer::start(dir.path()).unwrap();
        let get = |name: &str| {
            let out = std::process::Command::new("curl")
                .args(["--silent", "--show-error", "--write-out", "\n%{http_code}"])
                .arg(format!("{}/{name}", server.url))
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(get("SHA256SUMS"), "abc  collector\n\n200");
        assert_eq!(get("nothing"), "\n404");
        assert_eq!(get("..%2FSHA256SUMS"), "\n404");
    }
}
