//! What a build reads and how it marks results: the command line's
//! options, with their defaults.

use std::path::{Path, PathBuf};

/// What a build reads and how it marks results.
#[derive(Debug, Clone)]
pub struct Options {
    pub results: PathBuf,
    pub content: PathBuf,
    pub docs: PathBuf,
    pub templates: PathBuf,
    /// Absolute URL of the site, no trailing slash (sitemap, feed).
    pub base_url: String,
    /// Results older than this many days are marked stale.
    pub stale_days: u32,
    /// The most rows a home-page table shows (the best ones, see
    /// `model::build`); a longer table links to a page of its own with
    /// every row, so that the home page stays small with many runners.
    pub home_rows: usize,
    /// The build time; tests fix it.
    pub now: jiff::Timestamp,
}

/// The default of `Options::home_rows`: with 1,000 runners (10,000
/// results) the home page's four tables of 50 rows keep it under 200 KiB
/// (docs/benchmarks.md).
pub const DEFAULT_HOME_ROWS: usize = 50;

/// The default base URL; Netlify's `URL` overrides it (see `cli`).
pub const DEFAULT_BASE_URL: &str = "https://runner-bench.netlify.app";

impl Options {
    /// The defaults for a results folder, as the command line has them.
    pub fn new(results: &Path) -> Options {
        Options {
            results: results.to_path_buf(),
            content: PathBuf::from("content"),
            docs: PathBuf::from("docs"),
            templates: PathBuf::from("templates"),
            base_url: DEFAULT_BASE_URL.to_string(),
            stale_days: 180,
            home_rows: DEFAULT_HOME_ROWS,
            now: jiff::Timestamp::now(),
        }
    }
}
