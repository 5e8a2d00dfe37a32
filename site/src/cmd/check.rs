//! `site check [PATHS]`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::Format;

/// Checks `paths` (default `results`), prints the problems and returns
/// exit status 1 when any file is rejected.
pub fn run(paths: &[PathBuf], format: Format) -> anyhow::Result<ExitCode> {
    let paths = if paths.is_empty() { vec![PathBuf::from("results")] } else { paths.to_vec() };
    let checked = crate::check(&paths)?;
    match format {
        Format::Human => print!("{}", checked.human_report()),
        Format::Github => print!("{}", checked.github_report()),
    }
    Ok(if checked.problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
