//! Files the collector creates while measuring (the disk test file, cache
//! payloads) are removed when the stage ends, when it fails, and when the
//! run is interrupted with Ctrl-C or SIGTERM (a job being cancelled).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes everything registered, then exits as an interrupted process does.
/// The result file needs no care: it is only ever replaced atomically.
pub fn install_handler() {
    let _ = ctrlc::set_handler(|| {
        for path in REGISTERED.lock().map(|v| v.clone()).unwrap_or_default() {
            let _ = std::fs::remove_file(&path);
        }
        eprintln!("interrupted: temporary files removed; the result file keeps every finished sample");
        std::process::exit(130);
    });
}

/// A file that is removed when the guard is dropped or the run interrupted.
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    pub fn register(path: PathBuf) -> Self {
        if let Ok(mut v) = REGISTERED.lock() {
            v.push(path.clone());
        }
        TempFile { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        if let Ok(mut v) = REGISTERED.lock() {
            v.retain(|p| p != &self.path);
        }
    }
}
