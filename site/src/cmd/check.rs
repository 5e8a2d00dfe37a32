//! `site check [PATHS]`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::Format;

/// Checks `paths` (default `results`) and the release manifests in
/// `content/releases`, prints each accepted result's release status and
/// accepted shortfalls, then the problems, and returns exit status 1 when
/// any file is rejected, or any folder holds no result file.
pub fn run(paths: &[PathBuf], format: Format, content: &Path) -> anyhow::Result<ExitCode> {
    let paths = if paths.is_empty() { vec![PathBuf::from("results")] } else { paths.to_vec() };
    let mut checked = crate::check_with_releases(&paths, &content.join(crate::releases::RELEASES_DIR))?;
    checked.refuse_empty_folders();
    let mut out = std::io::stdout().lock();
    match format {
        Format::Human => write!(out, "{}{}", checked.status_report(), checked.human_report())?,
        Format::Github => write!(out, "{}{}", checked.github_report(), checked.github_status_report())?,
    }
    Ok(if checked.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
