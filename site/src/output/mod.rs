//! Building the site into a folder: the only module that touches the
//! output folder.
//!
//! `build` is the one way in, for `site build` and each build of `site
//! serve` (`BuildMode`). Its steps, in the order it runs them:
//!
//! 1. `refuse_options`: options no build can take, before anything is
//!    written;
//! 2. the check (`check_streaming` or `check_served`): every result file
//!    judged, each accepted one handed to `web::Intake`, which keeps its
//!    model entry; a streaming build empties the folder first and writes
//!    each runner's pages as the check finishes the runner;
//! 3. `web::build`: every other file, a step at a time, each step's files
//!    written as the step ends (`WriteTo`);
//! 4. `finish`: the last files written, and those an earlier build made
//!    and this one did not removed (`writer::Writer`).

pub mod testing;
mod writer;

use std::path::Path;
use std::time::Instant;

use crate::timing::log_time;
use crate::validate::ParseCache;
pub use crate::web::html::markdown_to_html;
use crate::web::{self, Body, FileSink, Site};
pub use writer::MARKER;
use writer::Writer;

/// What a build wrote.
#[derive(Debug)]
pub struct Built {
    /// Provider ids, one report each.
    pub providers: Vec<String>,
    /// Result files copied.
    pub result_files: usize,
    /// Files written (changed), of all files of the site.
    pub written: usize,
    pub files: usize,
}

/// The two ways the site is built.
pub enum BuildMode {
    /// `site build`: one build, which streams. It writes each runner's
    /// pages as soon as the check has gone through the runner's provider,
    /// so it begins writing before the check ends, never holds every parsed
    /// result or every page, and leaves no site where the check fails.
    Stream,
    /// `site serve`: builds again and again into one folder, keeping what
    /// the last build read and made (`Served`), so that a rebuild reads
    /// only changed files, renders only what they change and writes only
    /// files whose content changed. It checks before writing, and keeps
    /// its last site where the check fails.
    Serve(Box<Served>),
}

impl BuildMode {
    /// `BuildMode::Serve` before its first build.
    pub fn serve() -> BuildMode {
        BuildMode::Serve(Box::default())
    }
}

/// What `site serve` keeps from one build to the next: what it wrote, and
/// its memo of what it read and made.
#[derive(Debug, Default)]
pub struct Served {
    writer: Writer,
    memo: ServeMemo,
}

/// `site serve`'s memo: each result file's check as it was read, and every
/// part of the site as it was made.
#[derive(Debug, Default)]
struct ServeMemo {
    parsed: ParseCache,
    pages: web::Memo,
}

/// Checks the results, stopping with every problem when any file is
/// rejected, builds the site and writes it into `out`, as `mode` says.
pub fn build(opts: &web::Options, out: &Path, mode: &mut BuildMode) -> anyhow::Result<Built> {
    refuse_options(opts)?;
    match mode {
        BuildMode::Stream => build_streaming(opts, out),
        BuildMode::Serve(served) => build_served(opts, out, served),
    }
}

/// Step 1: the options no build can take.
fn refuse_options(opts: &web::Options) -> anyhow::Result<()> {
    if opts.stale_days == 0 {
        return Err(web::error::InputError::StaleDays(0).into());
    }
    if opts.home_rows == 0 {
        return Err(web::error::InputError::HomeRows(0).into());
    }
    Ok(())
}

/// `site build`. Freed pages are kept for reuse from the check on, so
/// that each thread's next parse reuses those of the result it let go of,
/// and each step hands them back as it ends (`web::memory`).
fn build_streaming(opts: &web::Options, out: &Path) -> anyhow::Result<Built> {
    let start = Instant::now();
    let mut writer = Writer::default();
    web::memory::hold_free_memory();
    writer.begin(out)?;
    let accepted = match check_streaming(opts, out, &mut writer) {
        Ok(accepted) => accepted,
        Err(e) => {
            // A failed check leaves no half-written site.
            writer.discard(out)?;
            return Err(e);
        }
    };
    web::memory::release_free_memory();
    log_time(start, "checked the results, writing runner pages as it went");
    let site = web::build(opts, accepted, web::StepMode::Stream, &mut WriteTo { writer: &mut writer, out })?;
    finish(&mut writer, out, site, start)
}

/// Step 2 of `site build`: the check, with an intake that writes each
/// runner's pages as the check finishes the runner (`web::Intake`).
fn check_streaming(opts: &web::Options, out: &Path, writer: &mut Writer) -> anyhow::Result<web::Accepted> {
    let mut sink = WriteTo { writer, out };
    let intake = web::Intake::streaming(opts, web::PageInputs::load(opts, None), &mut sink);
    let checked = crate::check(std::slice::from_ref(&opts.results), Some(&releases(opts)), None, &intake)?;
    intake.finish(passed(checked)?)
}

/// A build of `site serve`. Freed pages are handed back slowly
/// (`web::memory`), so that the next rebuild reuses them.
fn build_served(opts: &web::Options, out: &Path, served: &mut Served) -> anyhow::Result<Built> {
    let start = Instant::now();
    web::memory::keep_free_memory();
    let Served { writer, memo } = served;
    // A failed check leaves the last build's site and memo.
    let accepted = check_served(opts, memo)?;
    log_time(start, "checked the results");
    writer.begin(out)?;
    let mode = web::StepMode::Serve(&mut memo.pages);
    let site = web::build(opts, accepted, mode, &mut WriteTo { writer, out }).inspect_err(|_| writer.abandon())?;
    finish(writer, out, site, start)
}

/// Step 2 of `site serve`: the check, reading only the files that changed
/// since the last build, with an intake that reuses the last build's
/// entries of unchanged results.
fn check_served(opts: &web::Options, memo: &mut ServeMemo) -> anyhow::Result<web::Accepted> {
    let intake = web::Intake::new(opts, Some(&memo.pages));
    let checked =
        crate::check(std::slice::from_ref(&opts.results), Some(&releases(opts)), Some(&mut memo.parsed), &intake)?;
    intake.finish(passed(checked)?)
}

/// The release manifests' folder.
fn releases(opts: &web::Options) -> std::path::PathBuf {
    opts.content.join(crate::releases::RELEASES_DIR)
}

/// The accepted results of a check, or every problem it found.
fn passed<R>(checked: crate::Checked<R>) -> anyhow::Result<Vec<R>> {
    match checked.problems.is_empty() {
        true => Ok(checked.runs),
        false => anyhow::bail!("the results do not pass the check:\n{}", checked.human_report().trim_end()),
    }
}

/// Step 4: writes the files made after the last step handed over, and
/// removes what an earlier build wrote and this one did not.
fn finish(writer: &mut Writer, out: &Path, site: Site, start: Instant) -> anyhow::Result<Built> {
    log_time(start, "built the site, writing as it went");
    let (providers, result_files) = (site.providers, site.result_files);
    writer.put(out, site.files)?;
    let (written, files) = writer.end(out)?;
    log_time(start, "wrote the files");
    Ok(Built { providers, result_files, written, files })
}

/// The `FileSink` of a build: `writer`, writing into `out`.
struct WriteTo<'w> {
    writer: &'w mut Writer,
    out: &'w Path,
}

impl FileSink for WriteTo<'_> {
    fn files(&mut self, files: Vec<(String, Body)>) -> anyhow::Result<()> {
        self.writer.put(self.out, files)
    }

    fn piece(&mut self, path: &str, bytes: Vec<u8>, first: bool) -> anyhow::Result<()> {
        self.writer.put_piece(self.out, path, &bytes, first)
    }
}
