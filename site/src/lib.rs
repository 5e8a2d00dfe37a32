//! The site: validates result files and turns them into the published
//! reports and a static website.
//!
//! The pipeline, one module per stage:
//!
//! 1. `load`: walk results/ and read every `*.json` (and `exclusions.toml`);
//! 2. `validate`: read each file strictly and apply every rule a reviewer
//!    must apply, collecting all problems → accepted `Run`s;
//! 3. `report`: per provider, a view model with every figure computed
//!    (`stats`) and formatted (`figures`), rendered with tera;
//! 4. `web`: the website model, pages, plots and data files;
//! 5. `output`: writes them (the only module that touches the output folder).
//!
//! `import` turns published documents into imported result files. `cli`
//! and `cmd` are the command line; `main.rs` only calls `cli::main`.

pub mod cli;
pub mod cmd;
pub mod exclusions;
pub mod figures;
pub mod import;
pub mod layout;
pub mod load;
pub mod locate;
pub mod output;
pub mod report;
pub mod stats;
pub mod validate;
pub mod web;

use std::path::PathBuf;

pub use validate::{Checked, Problem, Run};

/// Loads and validates the result files under `paths`.
pub fn check(paths: &[PathBuf]) -> anyhow::Result<Checked> {
    check_cached(paths, None)
}

/// `check`, reusing what `cache` read in an earlier check (`site serve`).
pub fn check_cached(paths: &[PathBuf], cache: Option<&mut validate::ParseCache>) -> anyhow::Result<Checked> {
    Ok(validate::validate_cached(load::load(paths)?, cache))
}

/// The providers of `runs`, sorted by id.
pub fn providers(runs: &[Run]) -> Vec<String> {
    let mut ids: Vec<String> = runs.iter().map(Run::provider_id).collect();
    ids.sort();
    ids.dedup();
    ids
}
