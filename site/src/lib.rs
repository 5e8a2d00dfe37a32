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
//! 6. `output`: the build, `output::build`, in one of two modes
//!    (`output::BuildMode`: `site build` streams, `site serve` keeps a
//!    memo), which runs the check and then `web`'s steps, and writes what
//!    they make (the only module that touches the output folder).
//!
//! `check` and `output::build` are the ways in for the binary; tests have
//! theirs in `output::testing`.
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

/// The check, as every command runs it: loads the result files under
/// `paths`, judges each measured result's collector against the release
/// manifests in `releases` (`content/releases`; a missing folder has none,
/// and without one every measured result is judged self-built) and checks
/// those too, and hands each file that passes its own rules to `keep`,
/// keeping what that makes of it (`validate::validate`); `cache`, where
/// `site serve` keeps what the last check read. Tests check in a context
/// of their own (`output::testing`).
pub fn check<D: Send>(
    paths: &[PathBuf],
    releases: Option<&Path>,
    cache: Option<&mut validate::ParseCache>,
    keep: &dyn validate::KeepAccepted<D>,
) -> anyhow::Result<Checked<D>> {
    let releases = releases.map(releases::load).unwrap_or_default();
    Ok(validate::validate(load::load(paths)?, &releases, cache, Context::default(), keep))
}

/// The providers of `runs`, sorted by id.
pub fn providers(runs: &[Run]) -> Vec<String> {
    let mut ids: Vec<String> = runs.iter().map(Run::provider_id).collect();
    ids.sort();
    ids.dedup();
    ids
}
