//! Stage 1: find the result files (every `*.json` under the given folders)
//! and their sizes, along with each folder's exclusions file, and whatever
//! else the folders hold that is not a result file (links, other names),
//! which the check reports instead of passing over in silence.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::exclusions::{EXCLUSIONS_FILE, Exclusions};
use crate::tree::{self, FoundKind};

/// One file found under a results folder.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    /// The path as problems name it, e.g. `results/ubicloud/…/x.json`.
    pub path: PathBuf,
    /// The path below the results folder, with `/` separators, e.g.
    /// `ubicloud/ubicloud-linux-x64/2026-11-29-123-1.json`.
    pub rel_path: String,
    /// Its size, bytes. The bytes are read by `validate`, one file at a
    /// time per thread, so that a build never holds every file in memory
    /// and a file over the size limit is never read.
    pub size: u64,
    /// Its modification time, which `site serve` uses to reuse what it read.
    pub modified: Option<std::time::SystemTime>,
}

/// Everything `validate` needs.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Result files, in path order.
    pub files: Vec<LoadedFile>,
    /// Each results folder's exclusions file, where it has one.
    pub exclusions: Vec<Exclusions>,
    /// What the walk found that is not a result file, in path order:
    /// each is a problem (`validate::walk`).
    pub skipped: Vec<Skipped>,
    /// Folders given that hold no result file at all.
    pub empty_folders: Vec<PathBuf>,
}

/// Files a results folder may hold at its top besides result files:
/// the folder's README and its exclusions file.
pub const OTHER_FILES: [&str; 2] = ["README.md", EXCLUSIONS_FILE];

/// Something under a results folder that is not a result file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path, as problems name it.
    pub path: PathBuf,
    /// What it is.
    pub kind: SkipKind,
}

/// Why a walked entry is not read as a result file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipKind {
    /// A symbolic link, to a file or a folder, dangling or not: never
    /// followed, so that a submission cannot point the check (or the build)
    /// at a file outside the pull request, a device or a loop.
    Link,
    /// A plain file whose name does not end in `.json` (and is not one of
    /// `OTHER_FILES` at the top).
    OtherName,
    /// Neither a plain file, a folder nor a link (a FIFO, a socket, a
    /// device).
    NotPlain,
    /// The walk could not read it; the reason.
    Unreadable(String),
}

/// Walks `paths`: folders are walked for `*.json` files (and their
/// `exclusions.toml` read); a file is taken as it is, its layout judged by
/// its last three path components.
pub fn load(paths: &[PathBuf]) -> anyhow::Result<Loaded> {
    let mut loaded = Loaded::default();
    for root in paths {
        // Not `is_file`, which follows a link: a link named on the command
        // line is reported like one found by the walk.
        if std::fs::symlink_metadata(root).is_ok_and(|m| m.file_type().is_symlink()) && !root.is_dir() {
            loaded.skipped.push(Skipped { path: root.clone(), kind: SkipKind::Link });
            continue;
        }
        if root.is_file() {
            let parts: Vec<_> = root.components().rev().take(3).collect();
            let rel: Vec<String> = parts.iter().rev().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let meta = std::fs::metadata(root).with_context(|| format!("cannot read {}", root.display()))?;
            loaded.files.push(file(root, rel.join("/"), &meta));
            continue;
        }
        if !root.is_dir() {
            anyhow::bail!("{} is neither a file nor a folder", root.display());
        }
        let results_before = loaded.files.len();
        let exclusions = root.join(EXCLUSIONS_FILE);
        // A linked exclusions file is reported by the walk, not read.
        if std::fs::symlink_metadata(&exclusions).is_ok_and(|m| m.is_file()) {
            loaded.exclusions.push(Exclusions::read(&exclusions)?);
        }
        // Links are not followed: a link is an entry of its own, reported
        // below, and its target is never read.
        for found in tree::walk(root) {
            let path = found.path;
            let skip = |kind| Skipped { path: path.clone(), kind };
            let skipped = match found.kind {
                FoundKind::Link => skip(SkipKind::Link),
                FoundKind::NotPlain => skip(SkipKind::NotPlain),
                FoundKind::Unreadable(reason) => skip(SkipKind::Unreadable(reason)),
                FoundKind::File(meta) if path.extension().is_some_and(|e| e == "json") => match meta {
                    Ok(meta) => {
                        let rel_path = found.rel;
                        loaded.files.push(LoadedFile { path, rel_path, size: meta.size, modified: meta.modified });
                        continue;
                    }
                    Err(reason) => skip(SkipKind::Unreadable(reason)),
                },
                FoundKind::File(_) if found.depth == 1 && OTHER_FILES.iter().any(|n| found.name == *n) => continue,
                FoundKind::File(_) => skip(SkipKind::OtherName),
            };
            loaded.skipped.push(skipped);
        }
        if loaded.files.len() == results_before {
            loaded.empty_folders.push(root.clone());
        }
    }
    Ok(loaded)
}

fn file(path: &Path, rel_path: String, meta: &std::fs::Metadata) -> LoadedFile {
    LoadedFile { path: path.to_path_buf(), rel_path, size: meta.len(), modified: meta.modified().ok() }
}
