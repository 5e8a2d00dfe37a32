//! `site import FILE`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use runner_bench_format::{Timestamp, to_json};

use crate::import::{ImportSource, import, path_of};

/// Imports `file` into imported result files under `out`; returns their paths.
pub fn run(file: &Path, out: &Path, imported_at: Option<&str>, document: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let imported_at = match imported_at {
        Some(t) => Timestamp::new(t).map_err(anyhow::Error::msg).context("--imported-at")?,
        None => Timestamp::now(),
    };
    let document = document
        .map(str::to_string)
        .or_else(|| file.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| file.display().to_string());
    let src = ImportSource { document, bytes, imported_at };
    let results = import(&src).with_context(|| format!("cannot import {}", file.display()))?;
    let mut written = Vec::new();
    for r in &results {
        let path = out.join(path_of(r));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&path, to_json(r)).with_context(|| format!("cannot write {}", path.display()))?;
        // The path is made of the document's ids, so it is escaped like
        // any text from a file.
        writeln!(std::io::stdout().lock(), "{}", crate::escape::text(&path.display().to_string()))?;
        written.push(path);
    }
    Ok(written)
}
