//! `site check [PATHS]`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::Problem;
use crate::cmd::args::Format;
use crate::escape;
use crate::providers::{self, ProviderError};
use crate::validate::{Verdict, escape_data, escape_property};

/// Checks `paths` (default `results`), the release manifests in
/// `content/releases` and the provider files in `content/providers`,
/// prints each accepted result's release status and accepted shortfalls,
/// then the problems, then the provider files' warnings, and returns exit
/// status 1 when any file is rejected, or any folder holds no result file.
pub fn run(paths: &[PathBuf], format: Format, content: &Path) -> anyhow::Result<ExitCode> {
    let paths = if paths.is_empty() { vec![PathBuf::from("results")] } else { paths.to_vec() };
    let releases = content.join(crate::releases::RELEASES_DIR);
    let mut checked = crate::check(&paths, Some(&releases), None, &Verdict::of)?;
    checked.refuse_empty_folders();
    let providers = providers::load(&content.join(providers::PROVIDERS_DIR));
    for e in &providers.errors {
        checked.problems.push(Problem { file: e.file.clone(), field: e.field.clone(), reason: e.reason.clone() });
    }
    let runners = checked.runs.iter().map(|v| (v.provider_id.clone(), v.runner_label.clone()));
    let mut warnings = providers.warnings(runners);
    warnings.extend(providers.machine_warnings(checked.runs.iter().filter_map(|v| {
        let (cpus, memory) = v.machine?;
        Some((v.provider_id.as_str(), v.runner_label.as_str(), v.file.as_str(), cpus, memory))
    })));
    let warnings = warnings_report(&warnings, format);
    let mut out = std::io::stdout().lock();
    match format {
        Format::Human => write!(out, "{}{}{warnings}", checked.status_report(), checked.human_report())?,
        Format::Github => write!(out, "{}{}{warnings}", checked.github_report(), checked.github_status_report())?,
    }
    let code = if checked.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
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
