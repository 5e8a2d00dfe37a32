//! The output folder as `Writer` writes it: what a build wrote there, so
//! that `site serve` rewrites only files whose content changed and removes
//! files a rebuild no longer makes.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rayon::prelude::*;

use crate::web::Body;

/// Marks a folder as written by `site`, so that a build may empty it.
pub const MARKER: &str = ".runner-bench-site";

/// Writes sites into one folder, remembering what it wrote, so that the
/// next build of `site serve` writes only what changed.
#[derive(Debug, Default)]
pub(super) struct Writer {
    /// Path below the folder → a hash of what was written there.
    written: HashMap<String, u64>,
    /// The build being written (`begin` to `end`): what it wrote so far,
    /// how many files it changed, and the folders it made or found.
    next: HashMap<String, u64>,
    changed: usize,
    folders: HashSet<PathBuf>,
    /// Each file being written a piece at a time, with the hash so far.
    pieces: HashMap<String, std::collections::hash_map::DefaultHasher>,
}

impl Writer {
    /// Starts writing a site into `out`, whose files then come in any
    /// number of `put`s, and `end` finishes it.
    ///
    /// The first write empties `out` when an earlier build made it, and
    /// refuses a folder with other files in it, so that a mistyped `--out`
    /// never deletes anything else.
    ///
    /// A later build rewrites only the files whose content changed; it
    /// does not look for each of the others on disk (a rebuild writes few
    /// of the site's files, and looking would cost it more). Where the
    /// folder lost its marker or one of its top-level files since the last
    /// build (it was removed or emptied by hand), every file is written
    /// again.
    pub(super) fn begin(&mut self, out: &Path) -> anyhow::Result<()> {
        let intact = out.join(MARKER).is_file()
            && self.written.keys().filter(|rel| !rel.contains('/')).all(|rel| out.join(rel).is_file());
        if !intact {
            self.written.clear();
        }
        if self.written.is_empty() {
            prepare(out)?;
        }
        self.next.clear();
        self.folders.clear();
        self.changed = 0;
        Ok(())
    }

    /// Writes those of `files` whose content changed since the last build.
    pub(super) fn put(&mut self, out: &Path, files: Vec<(String, Body)>) -> anyhow::Result<()> {
        // Files are independent: hash them on every CPU, create each folder
        // that a changed file needs once (creating it again per file costs
        // a failed mkdir each), then write the changed files on every CPU.
        let written = &self.written;
        let hashed = files
            .into_par_iter()
            .map(|(rel, body)| {
                let hash = fingerprint(&body)?;
                let changed = written.get(&rel) != Some(&hash);
                Ok((rel, body, hash, changed))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        // Each changed file's folder, found and deduplicated as text first:
        // ordering the folders as `Path`s, a component at a time, was most
        // of the serial time of `put`.
        let mut parents: Vec<&str> =
            hashed.iter().filter(|f| f.3).map(|f| f.0.rsplit_once('/').map_or("", |(folder, _)| folder)).collect();
        parents.sort_unstable();
        parents.dedup();
        let folders: BTreeSet<&Path> = parents.into_iter().map(Path::new).collect();
        create_folders(out, folders, &mut self.folders)?;
        hashed.par_iter().filter(|f| f.3).try_for_each(|(rel, body, ..)| write(&out.join(rel), body))?;
        self.changed += hashed.iter().filter(|f| f.3).count();
        self.next.extend(hashed.into_iter().map(|(rel, _, hash, _)| (rel, hash)));
        Ok(())
    }

    /// Writes one piece of a file made a piece at a time: the first makes
    /// (or empties) the file, the others are appended. Such a file is
    /// always written, and counts as changed.
    pub(super) fn put_piece(&mut self, out: &Path, rel: &str, bytes: &[u8], first: bool) -> anyhow::Result<()> {
        use std::io::Write as _;
        let path = out.join(rel);
        let mut hasher = match first {
            true => {
                if let Some(folder) = Path::new(rel).parent().filter(|f| !f.as_os_str().is_empty()) {
                    create_folders(out, BTreeSet::from([folder]), &mut self.folders)?;
                }
                std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
                self.changed += 1;
                std::collections::hash_map::DefaultHasher::new()
            }
            false => {
                std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .and_then(|mut f| f.write_all(bytes))
                    .with_context(|| format!("cannot write {}", path.display()))?;
                self.pieces.remove(rel).unwrap_or_default()
            }
        };
        hasher.write(bytes);
        self.next.insert(rel.to_string(), hasher.finish());
        self.pieces.insert(rel.to_string(), hasher);
        Ok(())
    }

    /// Ends a streaming build whose check failed after it wrote some of its
    /// files: the folder is emptied again, as a failed build leaves no
    /// site (the first write of this writer emptied it, `begin`).
    pub(super) fn discard(&mut self, out: &Path) -> anyhow::Result<()> {
        self.written.clear();
        self.next.clear();
        prepare(out)
    }

    /// Ends a build that failed after writing some of its files: they are
    /// remembered beside the last build's, so that the next build removes
    /// those it does not make.
    pub(super) fn abandon(&mut self) {
        let next = std::mem::take(&mut self.next);
        self.written.extend(next);
    }

    /// Ends a build: removes the files that the last build wrote and this
    /// one did not; returns how many files this build (re)wrote, of how
    /// many.
    pub(super) fn end(&mut self, out: &Path) -> anyhow::Result<(usize, usize)> {
        for rel in self.written.keys().filter(|k| !self.next.contains_key(*k)) {
            let path = out.join(rel);
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
        self.written = std::mem::take(&mut self.next);
        Ok((self.changed, self.written.len()))
    }
}

/// Creates `folders` (paths below `out`) and every folder above them that
/// is not in `made` (this build's folders so far), a level at a time with
/// the folders of a level on every CPU: creating a folder on ext4 costs an
/// inode allocation in the kernel, about as much as a file's
/// (docs/benchmarks.md), and a site has thousands.
fn create_folders(out: &Path, folders: BTreeSet<&Path>, made: &mut HashSet<PathBuf>) -> anyhow::Result<()> {
    let mut levels: Vec<BTreeSet<&Path>> = Vec::new();
    for folder in folders {
        for above in folder.ancestors().filter(|a| !a.as_os_str().is_empty() && !made.contains(*a)) {
            let depth = above.components().count();
            if levels.len() < depth {
                levels.resize_with(depth, BTreeSet::new);
            }
            if !levels[depth - 1].insert(above) {
                break;
            }
        }
    }
    for level in levels {
        level.par_iter().try_for_each(|folder| {
            let dir = out.join(folder);
            match std::fs::create_dir(&dir) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
                other => other.with_context(|| format!("cannot create {}", dir.display())),
            }
        })?;
        made.extend(level.into_iter().map(Path::to_path_buf));
    }
    Ok(())
}

fn prepare(out: &Path) -> anyhow::Result<()> {
    if out.join(MARKER).is_file() {
        std::fs::remove_dir_all(out).with_context(|| format!("cannot empty {}", out.display()))?;
    } else if std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
        bail!(
            "{} is not empty and was not written by site build; choose another --out or remove the folder",
            out.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    std::fs::write(out.join(MARKER), "written by `site build`; the next build empties this folder\n")
        .with_context(|| format!("cannot write into {}", out.display()))
}

/// What identifies a file's content: its bytes' fingerprint; for a copy the source's
/// path and SHA-256 where the check computed it, else its path, size and
/// modification time (reading it would cost as much as copying it).
fn fingerprint(body: &Body) -> anyhow::Result<u64> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match body {
        Body::Bytes { fingerprint, .. } => return Ok(*fingerprint),
        Body::Copy { from, sha256: Some(sha256) } => (from, sha256).hash(&mut h),
        Body::Copy { from, sha256: None } => {
            let meta = std::fs::metadata(from).with_context(|| format!("cannot read {}", from.display()))?;
            (from, meta.len(), meta.modified().ok()).hash(&mut h);
        }
    }
    Ok(h.finish())
}

/// Writes one file; its folder exists. A new file is written in place (a
/// clean build makes only new files, and a rename each would cost it); a
/// file that exists is replaced whole, by a rename, so that `site serve`
/// never answers with a file half written.
fn write(path: &Path, body: &Body) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut temp = path.as_os_str().to_owned();
    temp.push(".site-tmp");
    let temp = PathBuf::from(temp);
    // (A rename onto a link of the same file does nothing and leaves the
    // temporary name: it goes either way.)
    let replace = |made: std::io::Result<()>| {
        let renamed = made.and_then(|()| std::fs::rename(&temp, path));
        let _ = std::fs::remove_file(&temp);
        renamed
    };
    match body {
        Body::Bytes { bytes, .. } => {
            let written = match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
                Ok(mut file) => file.write_all(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => replace(std::fs::write(&temp, bytes)),
                Err(e) => Err(e),
            };
            written.with_context(|| format!("cannot write {}", path.display()))
        }
        // A hard link where the file system allows it: result files are
        // published unchanged, and linking thousands of them is much faster
        // than copying them. A rebuild replaces an older link.
        Body::Copy { from, .. } => {
            let linked = match std::fs::hard_link(from, path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let _ = std::fs::remove_file(&temp);
                    replace(std::fs::hard_link(from, &temp).or_else(|_| std::fs::copy(from, &temp).map(|_| ())))
                }
                other => other.or_else(|_| std::fs::copy(from, path).map(|_| ())),
            };
            linked.with_context(|| format!("cannot copy {} to {}", from.display(), path.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(files: &[(&str, &str)]) -> Vec<(String, Body)> {
        files.iter().map(|(rel, text)| (rel.to_string(), Body::bytes(text.as_bytes().to_vec()))).collect()
    }

    fn read(out: &Path, rel: &str) -> String {
        std::fs::read_to_string(out.join(rel)).unwrap()
    }

    #[test]
    fn a_build_written_in_parts_rewrites_only_changed_files_and_removes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let mut writer = Writer::default();
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("a/b/c/one.html", "1"), ("a/two.html", "2")])).unwrap();
        writer.put(&out, bytes(&[("a/b/d/three.html", "3"), ("four.txt", "4")])).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (4, 4));
        assert_eq!(read(&out, "a/b/d/three.html"), "3");

        // The next build changes one file, keeps two and drops one.
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("a/b/c/one.html", "1"), ("a/two.html", "two")])).unwrap();
        writer.put(&out, bytes(&[("four.txt", "4")])).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (1, 3));
        assert_eq!(read(&out, "a/two.html"), "two");
        assert!(!out.join("a/b/d/three.html").exists());
        assert!(out.join(MARKER).is_file());

        // A build that fails after writing a file: the next build that
        // does not make it removes it.
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("half/five.html", "5")])).unwrap();
        writer.abandon();
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("a/b/c/one.html", "1"), ("a/two.html", "two"), ("four.txt", "4")])).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (0, 3));
        assert!(!out.join("half/five.html").exists());

        // A folder emptied by hand (the marker left, as `rm -r out/*`
        // leaves it) is written whole again.
        for entry in std::fs::read_dir(&out).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                std::fs::remove_dir_all(path).unwrap();
            } else if !path.ends_with(MARKER) {
                std::fs::remove_file(path).unwrap();
            }
        }
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("a/b/c/one.html", "1"), ("a/two.html", "two"), ("four.txt", "4")])).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (3, 3));
        assert_eq!(read(&out, "a/b/c/one.html"), "1");

        // So is a removed folder.
        std::fs::remove_dir_all(&out).unwrap();
        writer.begin(&out).unwrap();
        writer.put(&out, bytes(&[("a/b/c/one.html", "1"), ("four.txt", "4")])).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (2, 2));
        assert_eq!(read(&out, "four.txt"), "4");
    }

    #[test]
    fn a_file_written_a_piece_at_a_time_is_its_pieces_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let mut writer = Writer::default();
        writer.begin(&out).unwrap();
        let index = "data/index.json";
        writer.put_piece(&out, index, b"[1", true).unwrap();
        writer.put(&out, vec![("a.html".to_string(), Body::bytes(b"a".to_vec()))]).unwrap();
        writer.put_piece(&out, index, b",2", false).unwrap();
        writer.put_piece(&out, index, b"]", false).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (2, 2));
        assert_eq!(read(&out, "data/index.json"), "[1,2]");
        // The next build's first piece empties the file again.
        writer.begin(&out).unwrap();
        writer.put_piece(&out, index, b"[]", true).unwrap();
        assert_eq!(writer.end(&out).unwrap(), (1, 1));
        assert_eq!(read(&out, "data/index.json"), "[]");
        assert!(!out.join("a.html").exists());
    }

    #[test]
    fn a_file_that_exists_is_replaced_whole_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let (page, copy, source) = (dir.path().join("page.html"), dir.path().join("r.json"), dir.path().join("src"));
        std::fs::write(&source, "result").unwrap();
        for text in ["first", "second, longer"] {
            write(&page, &Body::bytes(text.as_bytes().to_vec())).unwrap();
            write(&copy, &Body::Copy { from: source.clone(), sha256: None }).unwrap();
            assert_eq!(std::fs::read_to_string(&page).unwrap(), text);
        }
        assert_eq!(std::fs::read_to_string(&copy).unwrap(), "result");
        let mut names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["page.html", "r.json", "src"]);
    }

    #[test]
    fn folders_are_made_with_every_folder_above_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut made = HashSet::new();
        let folders = BTreeSet::from([Path::new("x/y/z"), Path::new("x/w"), Path::new("v")]);
        create_folders(dir.path(), folders, &mut made).unwrap();
        for folder in ["x", "x/y", "x/y/z", "x/w", "v"] {
            assert!(dir.path().join(folder).is_dir(), "{folder}");
        }
        let mut made: Vec<String> = made.iter().map(|p| p.display().to_string()).collect();
        made.sort();
        assert_eq!(made, ["v", "x", "x/w", "x/y", "x/y/z"]);
        // A folder that exists already is no error.
        create_folders(dir.path(), BTreeSet::from([Path::new("x/y")]), &mut HashSet::new()).unwrap();
    }
}
