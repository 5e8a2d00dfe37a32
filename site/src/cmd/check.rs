//! `site check [PATHS]`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::Problem;
use crate::cli::Format;
use crate::escape;
use crate::providers::{self, ProviderError};
use crate::validate::{escape_data, escape_property};

/// Checks `paths` (default `results`), the release manifests in
/// `content/releases` and the provider files in `content/providers`,
/// prints each accepted result's release status and accepted shortfalls,
/// then the problems, then the provider files' warnings, and returns exit
/// status 1 when any file is rejected, or any folder holds no result file.
pub fn run(paths: &[PathBuf], format: Format, content: &Path) -> anyhow::Result<ExitCode> {
    let paths = if paths.is_empty() { vec![PathBuf::from("results")] } else { paths.to_vec() };
    let mut checked = crate::check_with_releases(&paths, &content.join(crate::releases::RELEASES_DIR))?;
    checked.refuse_empty_folders();
    let providers = providers::load(&content.join(providers::PROVIDERS_DIR));
    for e in &providers.errors {
        checked.problems.push(Problem { file: e.file.clone(), field: e.field.clone(), reason: e.reason.clone() });
    }
    let warnings = warnings_report(&providers.warnings(&checked.runs), format);
    let mut out = std::io::stdout().lock();
    match format {
        Format::Human => write!(out, "{}{}{warnings}", checked.status_report(), checked.human_report())?,
        Format::Github => write!(out, "{}{}{warnings}", checked.github_report(), checked.github_status_report())?,
    }
    let code = if checked.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    // The process ends next, and the OS takes its memory back at once:
    // freeing every parsed result one at a time was about 7 % of the CPU
    // time of `site check` of 10,000 results, on one CPU after the parallel
    // part (docs/benchmarks.md, 2026-12-02).
    std::mem::forget(checked);
    Ok(code)
}

/// The provider files' warnings (`Providers::warnings`): for people one
/// line each, for GitHub a warning annotation each; text escaped as in
/// every report.
pub fn warnings_report(warnings: &[ProviderError], format: Format) -> String {
    let mut out = String::new();
    for w in warnings {
        let _ = match format {
            Format::Human => writeln!(
                out,
                "warning: {}: {}: {}",
                escape::text(&w.file),
                escape::text(&w.field),
                escape::text(&w.reason)
            ),
            Format::Github => writeln!(
                out,
                "::warning file={},title={}::{}",
                escape_property(&w.file),
                escape_property("site check"),
                escape_data(&format!("{}: {}", w.field, w.reason))
            ),
        };
    }
    out
}
