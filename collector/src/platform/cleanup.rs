//! Files and folders the collector creates while measuring (the disk test
//! file, the cache stage's work folder with its payload and archives) are
//! removed when the stage ends, when it fails, and when the process is
//! interrupted with Ctrl-C or SIGTERM (a job being cancelled).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Removes everything registered, records the interruption in the result of
/// a `collector run` in progress (`record`, which says what it recorded, or
/// gives `None` where no run is in progress), then exits as an interrupted
/// process does. Other result files need no care: they are only
/// ever replaced atomically, so they keep everything finished before the
/// interruption.
pub fn install_handler(record: fn() -> Option<String>) {
    let _ = ctrlc::set_handler(move || {
        // The result first: it is what a cancelled job must not lose.
        let recorded = record();
        // Before the files: a running program holds its own on Windows.
        kill_children();
        for path in REGISTERED.lock().map(|v| v.clone()).unwrap_or_default() {
            remove(&path);
        }
        match recorded {
            Some(what) => say!("{what}; temporary files removed"),
            None => {
                say!("interrupted: temporary files removed; the result file keeps everything measured so far")
            }
        }
        std::process::exit(130);
    });
}

fn register(path: &Path) {
    if let Ok(mut v) = REGISTERED.lock() {
        v.push(path.to_path_buf());
    }
}

/// Removes `path` first, then forgets it: an interruption in between only
/// removes it again.
fn release(path: &Path) {
    remove(path);
    if let Ok(mut v) = REGISTERED.lock() {
        v.retain(|p| p != path);
    }
}

/// Removes a file, or a folder with everything in it. The main thread may
/// still be writing into a folder when an interruption removes it, so a
/// folder that is not empty by the time its entries are gone is tried again.
fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            for _ in 0..10 {
                match std::fs::remove_dir_all(path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    _ => return,
                }
            }
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Kills every registered child process: the CPU stage's workload program
/// would otherwise run on until its sample's deadline. On Windows it is
/// also waited for (at most a second), since a running program's file
/// cannot be removed there. (A Ctrl-C in a console reaches the program
/// too, but a runner cancelling a job may signal the collector alone.)
fn kill_children() {
    // Under the lock, so that no owner unregisters a child while it is
    // being killed: on Windows an owner unregisters its child before std
    // closes the child's handle, so every pid here names that child.
    if let Ok(children) = CHILDREN.lock() {
        for &pid in children.iter() {
            kill(pid);
        }
    }
}

#[cfg(unix)]
fn kill(pid: u32) {
    // SAFETY: kill has no memory preconditions. The pid is a child this
    // process started; its owner unregisters it right after reaping it, so
    // only in that instant could the pid name another process.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
}

#[cfg(windows)]
fn kill(pid: u32) {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Threading::{
        OpenProcess, PROCESS_SYNCHRONIZE, PROCESS_TERMINATE, TerminateProcess, WaitForSingleObject,
    };
    // SAFETY: OpenProcess returns a handle or null; the handle is used only
    // while open and closed once. The pid is a registered child, whose
    // handle std still holds (see kill_children), so it names that child.
    unsafe {
        let process = OpenProcess(PROCESS_TERMINATE | PROCESS_SYNCHRONIZE, 0, pid);
        if !process.is_null() {
            TerminateProcess(process, 130);
            WaitForSingleObject(process, 1000);
            CloseHandle(process);
        }
    }
}

#[cfg(not(any(unix, windows)))]
fn kill(_pid: u32) {}

/// A child process that is killed when the run is interrupted, and
/// forgotten when the guard is dropped, which its owner does as soon as it
/// has reaped the child (its pid may then be reused).
pub struct ChildProcess {
    pid: u32,
}

impl ChildProcess {
    pub fn register(pid: u32) -> Self {
        if let Ok(mut v) = CHILDREN.lock() {
            v.push(pid);
        }
        ChildProcess { pid }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if let Ok(mut v) = CHILDREN.lock() {
            v.retain(|&p| p != self.pid);
        }
    }
}

/// A file that is removed when the guard is dropped or the run interrupted.
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    pub fn register(path: PathBuf) -> Self {
        register(&path);
        TempFile { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        release(&self.path);
    }
}

/// A new folder that is removed with everything in it when the guard is
/// dropped or the process interrupted.
pub struct TempFolder {
    path: PathBuf,
}

impl TempFolder {
    /// Registers `path`, then creates it (registered first, so that no
    /// interruption can leave it behind); on failure it is removed again.
    pub fn create(path: PathBuf) -> std::io::Result<Self> {
        register(&path);
        let folder = TempFolder { path };
        std::fs::create_dir_all(&folder.path)?;
        Ok(folder)
    }

    /// Registers `path`, then creates it as a new folder only this user
    /// may enter (0700 on Unix): it fails where `path` already exists, so
    /// that nobody else can have prepared it (the CPU stage writes a program
    /// there and runs it).
    pub fn create_private(path: PathBuf) -> std::io::Result<Self> {
        register(&path);
        // Elsewhere the user's own temporary folder keeps others out.
        #[cfg_attr(not(unix), allow(unused_mut, reason = "only Unix sets a mode"))]
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&path) {
            Ok(()) => Ok(TempFolder { path }),
            Err(e) => {
                // Someone else's folder: forget it, do not remove it.
                if let Ok(mut v) = REGISTERED.lock() {
                    v.retain(|p| p != &path);
                }
                Err(e)
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        release(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_remove_what_they_registered() {
        let dir = tempfile::tempdir().unwrap();
        let folder = TempFolder::create(dir.path().join("a/b")).unwrap();
        std::fs::create_dir(folder.path().join("c")).unwrap();
        std::fs::write(folder.path().join("c/d"), b"x").unwrap();
        let file = TempFile::register(folder.path().join("e"));
        std::fs::write(file.path(), b"y").unwrap();
        let registered = |p: &Path| REGISTERED.lock().unwrap().iter().any(|r| r == p);
        assert!(registered(folder.path()) && registered(file.path()));
        let (folder_path, file_path) = (folder.path().to_path_buf(), file.path().to_path_buf());
        drop(file);
        assert!(!file_path.exists() && !registered(&file_path));
        drop(folder);
        assert!(!folder_path.exists() && !registered(&folder_path));
        assert!(dir.path().join("a").is_dir(), "only the registered folder is removed");
    }

    #[test]
    fn a_child_is_registered_until_its_guard_is_dropped() {
        let registered = |pid: u32| CHILDREN.lock().unwrap().contains(&pid);
        let guard = ChildProcess::register(u32::MAX - 7);
        assert!(registered(u32::MAX - 7));
        drop(guard);
        assert!(!registered(u32::MAX - 7));
    }
}
