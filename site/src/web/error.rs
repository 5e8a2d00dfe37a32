//! Problems with the site's own input (content pages, options), each
//! saying which file or option to fix.

use thiserror::Error;

/// A problem a person fixes in an input file or option.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum InputError {
    #[error("{file}: a page starts with TOML front matter between two `+++` lines")]
    NoFrontMatter { file: String },
    #[error("{file}: invalid front matter: {reason}")]
    FrontMatter { file: String, reason: String },
    #[error("--stale-days must be at least 1, found {0}")]
    StaleDays(u32),
    #[error("--home-rows must be at least 1, found {0}")]
    HomeRows(usize),
}
