//! `site build`.

use std::path::Path;

use crate::output::{Built, build_site};

/// Checks `results` and writes the website to `out`.
pub fn run(results: &Path, out: &Path) -> anyhow::Result<Built> {
    let built = build_site(results, out)?;
    println!(
        "wrote {} provider reports and {} result files to {}",
        built.providers.len(),
        built.result_files,
        out.display()
    );
    Ok(built)
}
