//! A walk of a folder that lists every entry below it in path order, never
//! follows a link, and reads the folders' listings and the files' sizes and
//! modification times on every thread.
//!
//! `site serve` walks the results (10,000 files in the benchmark) before
//! every rebuild and polls every input five times a second; walkdir did that
//! on one thread and looked up each file by its whole path. Here each
//! folder's entries are looked up relative to the open folder (`statx` on
//! its descriptor, as `std::fs::DirEntry::metadata` does on Linux) and the
//! subfolders are walked in parallel; the order is walkdir's
//! `sort_by_file_name`, depth first.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

/// One entry below the walked folder (the folders themselves are not
/// listed: a folder is only what it holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The walked folder joined with the entry's path below it.
    pub path: PathBuf,
    /// The entry's path below the walked folder, with `/` separators (its
    /// components as `to_string_lossy` writes them), e.g. `a/b.json`.
    pub rel: String,
    /// 1 for an entry directly in the walked folder.
    pub depth: usize,
    /// The entry's last path component.
    pub name: OsString,
    /// What it is.
    pub kind: FoundKind,
}

/// What a walked entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundKind {
    /// A plain file: its size and modification time, or why they could not
    /// be read.
    File(Result<FileMeta, String>),
    /// A symbolic link, never followed.
    Link,
    /// Neither a plain file, a folder nor a link (a FIFO, a socket, a device).
    NotPlain,
    /// A folder whose listing could not be read (the entry is the folder):
    /// the reason.
    Unreadable(String),
}

/// A plain file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileMeta {
    /// Bytes.
    pub size: u64,
    /// Where the file system records it.
    pub modified: Option<SystemTime>,
}

/// Every entry below `root`, in path order (each folder's entries sorted by
/// name, a folder's contents right after its place in that order).
pub fn walk(root: &Path) -> Vec<Found> {
    list(root, "", 1)
}

/// The entries below `dir`, whose path below the walked folder is `rel`.
fn list(dir: &Path, rel: &str, depth: usize) -> Vec<Found> {
    let unreadable = |e: std::io::Error| Found {
        path: dir.to_path_buf(),
        rel: rel.to_string(),
        depth: depth - 1,
        name: dir.file_name().unwrap_or_default().to_os_string(),
        kind: FoundKind::Unreadable(e.to_string()),
    };
    let mut entries = Vec::new();
    let mut failed = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(listing) => {
            for entry in listing {
                match entry {
                    Ok(entry) => entries.push(entry),
                    Err(e) => failed.push(unreadable(e)),
                }
            }
        }
        Err(e) => return vec![unreadable(e)],
    }
    entries.sort_by_key(std::fs::DirEntry::file_name);
    let mut found: Vec<Found> = entries
        .into_par_iter()
        .flat_map_iter(|entry| {
            let (path, name) = (entry.path(), entry.file_name());
            let rel = match rel {
                "" => name.to_string_lossy().into_owned(),
                above => format!("{above}/{}", name.to_string_lossy()),
            };
            let one = |kind| vec![Found { path: path.clone(), rel: rel.clone(), depth, name: name.clone(), kind }];
            match entry.file_type() {
                Ok(t) if t.is_dir() => list(&path, &rel, depth + 1),
                Ok(t) if t.is_symlink() => one(FoundKind::Link),
                Ok(t) if t.is_file() => one(FoundKind::File(
                    entry
                        .metadata()
                        .map(|m| FileMeta { size: m.len(), modified: m.modified().ok() })
                        .map_err(|e| e.to_string()),
                )),
                Ok(_) => one(FoundKind::NotPlain),
                Err(e) => one(FoundKind::Unreadable(e.to_string())),
            }
        })
        .collect();
    found.append(&mut failed);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[Found], root: &Path) -> Vec<String> {
        found.iter().map(|f| f.path.strip_prefix(root).unwrap().display().to_string()).collect()
    }

    #[test]
    fn entries_come_depth_first_in_name_order_and_folders_are_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in ["b/2.json", "b/10.json", "a.json", "c/x/y.json", "c/z.md", "B.json"] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), f).unwrap();
        }
        std::fs::create_dir(d.join("empty")).unwrap();
        let found = walk(d);
        assert_eq!(names(&found, d), ["B.json", "a.json", "b/10.json", "b/2.json", "c/x/y.json", "c/z.md"]);
        assert_eq!(found.iter().map(|f| f.depth).collect::<Vec<_>>(), [1, 1, 2, 2, 3, 2]);
        assert_eq!(found.iter().map(|f| f.rel.as_str()).collect::<Vec<_>>(), names(&found, d));
        assert_eq!(found[3].name, "2.json");
        let FoundKind::File(Ok(meta)) = &found[3].kind else { panic!("{:?}", found[3]) };
        assert_eq!(meta.size, "b/2.json".len() as u64);
        assert!(meta.modified.is_some());
    }

    #[cfg(unix)]
    #[test]
    fn links_and_fifos_are_named_and_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("real")).unwrap();
        std::fs::write(d.join("real/x.json"), "{}").unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("linked")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(d.join("pipe")).status().unwrap().success());
        let found = walk(d);
        assert_eq!(names(&found, d), ["linked", "pipe", "real/x.json"]);
        assert_eq!(found[0].kind, FoundKind::Link);
        assert_eq!(found[1].kind, FoundKind::NotPlain);
    }

    #[test]
    fn a_missing_folder_is_one_unreadable_entry() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let found = walk(&missing);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, missing);
        let FoundKind::Unreadable(reason) = &found[0].kind else { panic!("{:?}", found[0]) };
        assert_eq!(reason, "No such file or directory (os error 2)");
    }
}
