//! `site import FILE`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use runner_bench_format::{Date, Timestamp, to_json};

use crate::import::{ImportSource, import, path_of};

/// The import's two dates, as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct When<'a> {
    /// `--imported-at` (default now).
    pub imported_at: Option<&'a str>,
    /// `--measured-on`, where the publisher states the day.
    pub measured_on: Option<&'a str>,
}

/// Imports `file` into imported result files under `out`; returns their paths.
pub fn run(file: &Path, out: &Path, when: When<'_>, document: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    let imported_at = match when.imported_at {
        Some(t) => Timestamp::new(t).map_err(anyhow::Error::msg).context("--imported-at")?,
        None => Timestamp::now(),
    };
    let measured_on = match when.measured_on {
        Some(d) => {
            let d = Date::new(d).map_err(anyhow::Error::msg).context("--measured-on")?;
            if d.as_str() > imported_at.date() {
                anyhow::bail!(
                    "--measured-on: {d} is after the import's own date ({}); a report cannot be measured after it is imported",
                    imported_at.date()
                );
            }
            Some(d)
        }
        None => None,
    };
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let document = document
        .map(str::to_string)
        .or_else(|| file.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| file.display().to_string());
    let src = ImportSource { document, bytes, imported_at, measured_on };
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
