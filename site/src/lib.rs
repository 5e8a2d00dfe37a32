//! The site: validates result files and turns them into the published
//! reports and a static website.
//!
//! The pipeline, one module per stage:
//!
//! 1. `load`: walk results/ and read every `*.json` (and `exclusions.toml`),
//!    noting anything else it holds (a link, another name), which
//!    `validate` reports;
//! 2. `validate`: read each file strictly and apply every rule a reviewer
//!    must apply, collecting all problems → accepted `Run`s, each measured
//!    one with its release status (`releases`: content/releases/*.toml);
//!    or, for `site build`, what `web::Intake` makes of each run as the
//!    check accepts it, so that a build never holds every parsed result:
//!    the check goes through the files in path order, one runner's folder
//!    after another, and as it finishes each runner the intake writes its
//!    plot and result files, drafts its page (written when the check
//!    finishes the provider) and keeps a summary of each result;
//! 3. `report`: per provider, a view model with every figure computed
//!    (`stats`) and formatted (`figures`), rendered with tera;
//! 4. `model`: the comparison built from each accepted run's figures: its
//!    entry, the ranked groups, each runner's history and change flags; its
//!    tables compare each runner stage by the stage's comparability key
//!    (`keys`);
//! 5. `web`: the website's pages, plots and data files, made from the
//!    model;
//! 6. `output`: writes them (the only module that touches the output folder).
//!
//! Whatever the command line prints of a file's text goes through `escape`;
//! with `SITE_TIMINGS` set, a build prints each stage's time (`timing`).
//!
//! `import` turns published documents into imported result files. `cli`
//! and `cmd` are the command line: one module per subcommand, the
//! arguments they share in `cmd::args`, and `cli` composing them;
//! `main.rs` only calls `cli::main`.
//!
//! # Layers
//!
//! A module imports only from its own layer and the layers below it, and
//! from the format crate: `python3 scripts/check-layers.py` reads this list
//! and fails on an import that points up (`--graph` prints it).
//!
//! 1. `cli`: the command line;
//! 2. `cmd`: one module per subcommand;
//! 3. `output`, `import`: the build that writes the output folder, and the
//!    reading of published documents that `site import` writes as results;
//! 4. `web`: the pages, plots and data files;
//! 5. `model`: the comparison;
//! 6. `keys`: the comparability keys the model's tables compare by;
//! 7. `report`: the per-provider reports;
//! 8. `validate`, `crate`: the checks, and this file's entry points to them;
//! 9. `load`, `releases`, `providers`: the inputs besides the results'
//!    contents (the folder, the release manifests, the provider files);
//! 10. `escape`, `exclusions`, `figures`, `layout`, `locate`, `memo_key`,
//!     `stats`, `timing`, `tree`: helpers that import nothing of the crate.

pub mod cli;
pub mod cmd;
pub mod escape;
pub mod exclusions;
pub mod figures;
pub mod import;
pub mod keys;
pub mod layout;
pub mod load;
pub mod locate;
pub mod memo_key;
pub mod model;
pub mod output;
pub mod providers;
pub mod releases;
pub mod report;
pub mod stats;
pub mod timing;
pub mod tree;
pub mod validate;
pub mod web;

use std::path::{Path, PathBuf};

pub use validate::{Checked, Context, Note, Problem, Run};

/// Loads and validates the result files under `paths`, with no release
/// manifests: every measured result is judged self-built.
pub fn check(paths: &[PathBuf]) -> anyhow::Result<Checked> {
    check_cached(paths, None, None)
}

/// `check`, judging each measured result's collector against the release
/// manifests in `releases` (`content/releases`; a missing folder has none)
/// and checking those too.
pub fn check_with_releases(paths: &[PathBuf], releases: &Path) -> anyhow::Result<Checked> {
    check_cached(paths, Some(releases), None)
}

/// `check_with_releases` (without manifests where `releases` is `None`),
/// reusing what `cache` read in an earlier check (`site serve`).
pub fn check_cached(
    paths: &[PathBuf],
    releases: Option<&Path>,
    cache: Option<&mut validate::ParseCache>,
) -> anyhow::Result<Checked> {
    let releases = releases.map(releases::load).unwrap_or_default();
    Ok(validate::validate_cached(load::load(paths)?, &releases, cache))
}

/// `check_cached`, handing each file that passes its own rules to `derive`
/// as soon as it is checked and keeping what that makes of it
/// (`validate::validate_with`).
pub fn check_with<D: Send>(
    paths: &[PathBuf],
    releases: Option<&Path>,
    cache: Option<&mut validate::ParseCache>,
    derive: &dyn validate::Derive<D>,
) -> anyhow::Result<Checked<D>> {
    let releases = releases.map(releases::load).unwrap_or_default();
    Ok(validate::validate_with(load::load(paths)?, &releases, cache, validate::Context::default(), derive))
}

/// `check_cached` without a cache, in `context`: the time the check
/// compares dates with, and the profiles it takes (tests set both, so that
/// they do not depend on the clock).
pub fn check_in(paths: &[PathBuf], releases: Option<&Path>, context: validate::Context) -> anyhow::Result<Checked> {
    let releases = releases.map(releases::load).unwrap_or_default();
    Ok(validate::validate_in(load::load(paths)?, &releases, None, context))
}

/// The providers of `runs`, sorted by id.
pub fn providers(runs: &[Run]) -> Vec<String> {
    let mut ids: Vec<String> = runs.iter().map(Run::provider_id).collect();
    ids.sort();
    ids.dedup();
    ids
}
