//! The arguments that more than one command takes, or that a command's
//! `run` takes as a type: `cli` composes them into the command line.

use std::path::PathBuf;

use clap::ValueEnum;

/// What `build` and `serve` read and write.
#[derive(Debug, Clone, clap::Args)]
pub struct SiteArgs {
    /// The results folder.
    #[arg(long, default_value = "results")]
    pub results: PathBuf,
    /// Where to write the website.
    #[arg(long, default_value = "public")]
    pub out: PathBuf,
    /// Hand-written pages (`*.md` with front matter) and the provider
    /// files in its `providers/` folder.
    #[arg(long, default_value = "content")]
    pub content: PathBuf,
    /// The documents published as pages (methodology, result format).
    #[arg(long, default_value = "docs")]
    pub docs: PathBuf,
    /// Templates; any missing file falls back to the built-in copy.
    #[arg(long, default_value = "templates")]
    pub templates: PathBuf,
    /// Absolute URL of the site, for the sitemap and the feed (default:
    /// Netlify's $URL, else https://runner-bench.netlify.app).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Results older than this many days are marked stale (at least 1).
    #[arg(long, default_value_t = 180, value_parser = at_least_one::<u32>)]
    pub stale_days: u32,
    /// The most rows a home-page table shows (at least 1); a longer table
    /// gets a page of its own with every row, linked from the home page.
    #[arg(long, default_value_t = crate::web::DEFAULT_HOME_ROWS, value_parser = at_least_one::<usize>)]
    pub home_rows: usize,
}

impl SiteArgs {
    /// The build options, timed now.
    pub fn options(&self) -> crate::web::Options {
        let mut o = crate::web::Options::new(&self.results);
        o.content = self.content.clone();
        o.docs = self.docs.clone();
        o.templates = self.templates.clone();
        o.stale_days = self.stale_days;
        o.home_rows = self.home_rows;
        if let Some(url) = self.base_url.clone().or_else(|| std::env::var("URL").ok().filter(|u| !u.is_empty())) {
            o.base_url = url;
        }
        o
    }
}

/// A count that must be at least 1 (`--stale-days`, `--home-rows`,
/// `--port`), refused as the command line is parsed: before a command
/// starts, so that it writes nothing.
pub fn at_least_one<T>(text: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
    T::Err: std::fmt::Display,
{
    let n: T = text.parse().map_err(|e: T::Err| e.to_string())?;
    if n < T::from(1) {
        return Err(format!("must be at least 1, found {text}"));
    }
    Ok(n)
}

/// Output formats of `site check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: problems grouped by file.
    Human,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
}
