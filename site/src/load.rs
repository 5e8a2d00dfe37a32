//! Stage 1: find the result files (every `*.json` under the given folders)
//! and their sizes, along with each folder's exclusions file.

use std::path::{Path, PathBuf};

use anyhow::Context;
use walkdir::WalkDir;

use crate::exclusions::{EXCLUSIONS_FILE, Exclusions};

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
}

/// Walks `paths`: folders are walked for `*.json` files (and their
/// `exclusions.toml` read); a file is taken as it is, its layout judged by
/// its last three path components.
pub fn load(paths: &[PathBuf]) -> anyhow::Result<Loaded> {
    let mut loaded = Loaded::default();
    for root in paths {
        if root.is_file() {
            let parts: Vec<_> = root.components().rev().take(3).collect();
            let rel: Vec<String> = parts.iter().rev().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            loaded.files.push(read(root, rel.join("/"))?);
            continue;
        }
        if !root.is_dir() {
            anyhow::bail!("{} is neither a file nor a folder", root.display());
        }
        let exclusions = root.join(EXCLUSIONS_FILE);
        if exclusions.is_file() {
            loaded.exclusions.push(Exclusions::read(&exclusions)?);
        }
        let walk = WalkDir::new(root).sort_by_file_name();
        for entry in walk {
            let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
            let path = entry.path();
            if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let rel = rel_path(path, root);
            loaded.files.push(read(path, rel)?);
        }
    }
    Ok(loaded)
}

/// `path` below `root`, with `/` separators.
pub fn rel_path(path: &Path, root: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

fn read(path: &Path, rel_path: String) -> anyhow::Result<LoadedFile> {
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(LoadedFile { path: path.to_path_buf(), rel_path, size: meta.len(), modified: meta.modified().ok() })
}
