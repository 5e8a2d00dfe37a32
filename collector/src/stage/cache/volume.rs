//! The attached-volume backend: a folder on a mounted volume that the user
//! names. A save copies the payload folder to `<folder>/<key>/`, a restore
//! copies it back; one thread, no compression, 1 MiB reads and writes
//! (never `copy_file_range` or reflinks, which would move no data), and
//! every written file is synced before the transfer counts as done.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const BUFFER: usize = 1 << 20;

/// Copies the files of `from` into the new folder `to`; returns the bytes.
pub fn copy_folder(from: &Path, to: &Path) -> io::Result<u64> {
    fs::create_dir_all(to)?;
    let mut names: Vec<_> = fs::read_dir(from)?.map(|e| e.map(|e| e.file_name())).collect::<Result<_, _>>()?;
    names.sort();
    let mut buf = vec![0u8; BUFFER];
    let mut total = 0u64;
    for name in names {
        let mut src = File::open(from.join(&name))?;
        let mut dst = File::create(to.join(&name))?;
        loop {
            let n = src.read(&mut buf)?;
            if n == 0 {
                break;
            }
            dst.write_all(&buf[..n])?;
            total += n as u64;
        }
        dst.sync_all()?;
    }
    Ok(total)
}

/// Where an entry lives on the volume.
pub fn entry_dir(root: &Path, key: &str) -> PathBuf {
    root.join(key)
}

/// The mount holding a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub point: String,
    pub fstype: String,
    pub source: String,
}

impl Mount {
    /// What must be the same in the save and the restore job: the mount
    /// point and file system (device names may differ between machines).
    pub fn label(&self) -> String {
        format!("{} ({})", self.point, self.fstype)
    }
}

/// The mount point holding `path`, from /proc/self/mountinfo (Linux);
/// elsewhere the path itself, file system unknown.
pub fn mount_of(path: &Path) -> Mount {
    let path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    #[cfg(target_os = "linux")]
    if let Ok(info) = fs::read_to_string("/proc/self/mountinfo") {
        let mut best: Option<Mount> = None;
        for line in info.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            let Some(dash) = f.iter().position(|x| *x == "-") else { continue };
            if f.len() < dash + 3 || f.len() < 5 {
                continue;
            }
            let point = f[4].replace("\\040", " ");
            if path.starts_with(&point) && best.as_ref().is_none_or(|m| point.len() >= m.point.len()) {
                best = Some(Mount { point, fstype: f[dash + 1].to_string(), source: f[dash + 2].to_string() });
            }
        }
        if let Some(m) = best {
            return m;
        }
    }
    Mount { point: path.display().to_string(), fstype: "unknown".into(), source: "unknown".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_finds_the_mount() {
        let dir = tempfile::tempdir().unwrap();
        let m = super::super::payload::generate(&dir.path().join("a"), 1, 2).unwrap();
        assert_eq!(copy_folder(&dir.path().join("a"), &dir.path().join("b/c")).unwrap(), 1 << 20);
        assert_eq!(super::super::payload::verify(&dir.path().join("b/c"), &m).unwrap(), None);
        let mount = mount_of(dir.path());
        assert!(dir.path().starts_with(&mount.point) || mount.fstype == "unknown", "{mount:?}");
        #[cfg(target_os = "linux")]
        assert_ne!(mount.fstype, "unknown");
    }
}
