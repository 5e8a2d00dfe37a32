//! `site import FILE`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use runner_bench_format::{Date, Name, Timestamp, to_json};

use crate::import::{ImportSource, import, path_of};

/// The import's two dates, as the command line gives them.
#[derive(Debug, Clone, Default)]
pub struct When {
    /// `--imported-at` (default now).
    pub imported_at: Option<Timestamp>,
    /// `--measured-on`, where the publisher states the day.
    pub measured_on: Option<Date>,
}

/// `--imported-at`, read as the command line is parsed.
pub fn timestamp(text: &str) -> Result<Timestamp, String> {
    Timestamp::new(text)
}

/// `--measured-on`, read as the command line is parsed.
pub fn date(text: &str) -> Result<Date, String> {
    Date::new(text)
}

/// `--document`, read as the command line is parsed: a name as result
/// files hold one, and not blank.
pub fn document_name(text: &str) -> Result<Name, String> {
    if text.trim().is_empty() {
        return Err("is empty; give the document's name or URL".to_string());
    }
    Name::new(text)
}

/// Imports `file` into imported result files under `out`; returns their paths.
pub fn run(file: &Path, out: &Path, when: When, document: Option<&Name>) -> anyhow::Result<Vec<PathBuf>> {
    let imported_at = when.imported_at.unwrap_or_else(Timestamp::now);
    // The one check that needs both dates, so it cannot be made as either
    // flag is parsed; still made before anything is read or written.
    if let Some(d) = &when.measured_on
        && d.as_str() > imported_at.date()
    {
        anyhow::bail!(
            "--measured-on: {d} is after the import's own date ({}); a report cannot be measured after it is imported",
            imported_at.date()
        );
    }
    let measured_on = when.measured_on;
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let document = document
        .map(|d| d.as_str().to_string())
        .or_else(|| file.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| file.display().to_string());
    let src = ImportSource { document, bytes, imported_at, measured_on };
    let results = import(&src).with_context(|| format!("cannot import {}", file.display()))?;
    // Every file is checked as `site check` checks it before any is
    // written: a document the importer reads can still hold figures the
    // check refuses, and an import is all or nothing.
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let staging = out.join(format!(".site-import-{}", std::process::id()));
    let staged = stage_and_check(&results, &staging, out, file);
    let moved = staged.and_then(|rels| {
        let mut written = Vec::new();
        for rel in rels {
            let path = out.join(&rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::rename(staging.join(&rel), &path).with_context(|| format!("cannot write {}", path.display()))?;
            // The path is made of the document's ids, so it is escaped
            // like any text from a file.
            writeln!(std::io::stdout().lock(), "{}", crate::escape::text(&path.display().to_string()))?;
            written.push(path);
        }
        Ok(written)
    });
    let _ = std::fs::remove_dir_all(&staging);
    moved
}

/// Writes `results` under `staging` and checks them there; returns their
/// paths below it. The report names the files as they would be in `out`.
fn stage_and_check(
    results: &[runner_bench_format::ImportedResult],
    staging: &Path,
    out: &Path,
    file: &Path,
) -> anyhow::Result<Vec<String>> {
    let mut rels = Vec::new();
    for r in results {
        let rel = path_of(r);
        let path = staging.join(&rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&path, to_json(r)).with_context(|| format!("cannot write {}", path.display()))?;
        rels.push(rel);
    }
    let checked = crate::check(&[staging.to_path_buf()], None, None, &|_: &crate::Run| ())?;
    if !checked.problems.is_empty() {
        let report = checked.human_report().replace(&staging.display().to_string(), &out.display().to_string());
        anyhow::bail!(
            "cannot import {}: its results do not pass the check, so none was written:\n{}",
            file.display(),
            report.trim_end()
        );
    }
    Ok(rels)
}
