//! Ways into the library for tests only: the binary checks and builds
//! through `crate::check` and `output::build`. These check without the
//! release manifests or in a context of the test's own (a fixed clock, the
//! profiles it allows), and build from results the check never saw.

use std::path::{Path, PathBuf};

use crate::validate::{self, Checked, Context, Run};
use crate::web::{self, Body, FileSink};

/// Checks the result files under `paths` with no release manifests (every
/// measured result is judged self-built), keeping each accepted `Run`.
pub fn check(paths: &[PathBuf]) -> anyhow::Result<Checked> {
    check_in(paths, None, Context::default())
}

/// `check`, judging each measured result's collector against the release
/// manifests in `releases` and checking those too.
pub fn check_with_releases(paths: &[PathBuf], releases: &Path) -> anyhow::Result<Checked> {
    check_in(paths, Some(releases), Context::default())
}

/// `check` in `context` (the time the check compares dates with, the
/// profiles it takes), with the release manifests in `releases` where
/// given.
pub fn check_in(paths: &[PathBuf], releases: Option<&Path>, context: Context) -> anyhow::Result<Checked> {
    let releases = releases.map(crate::releases::load).unwrap_or_default();
    let keep = |run: &Run| run.clone();
    Ok(validate::validate(crate::load::load(paths)?, &releases, None, context, &keep))
}

/// Builds every file of the site from `runs` as if the check had accepted
/// them, in memory (`site serve`'s mode, with nothing written), so that
/// tests of the build can give it files the check would refuse.
pub fn build_runs(opts: &web::Options, runs: Vec<Run>) -> anyhow::Result<()> {
    use rayon::prelude::*;
    super::refuse_options(opts)?;
    let intake = web::Intake::new(opts, None);
    let taken = runs.par_iter().map(|r| intake.take(r)).collect();
    drop(runs);
    let mut memo = web::Memo::default();
    web::build(opts, intake.finish(taken)?, web::StepMode::Serve(&mut memo), &mut Nowhere)?;
    Ok(())
}

/// A `FileSink` that drops every file.
struct Nowhere;

impl FileSink for Nowhere {
    fn files(&mut self, _: Vec<(String, Body)>) -> anyhow::Result<()> {
        Ok(())
    }

    fn piece(&mut self, _: &str, _: Vec<u8>, _: bool) -> anyhow::Result<()> {
        Ok(())
    }
}
