//! The command line, with clap derive.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::cmd;

/// Validates runner-bench results and builds the comparison website.
#[derive(Debug, Parser)]
#[command(name = "site", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check result files; exits 1 when any file is rejected.
    Check {
        /// Result files or folders (default: results).
        paths: Vec<PathBuf>,
        /// `human`: grouped by file; `github`: workflow annotations.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Hand-written content; the collector's release manifests are
        /// read from its `releases/` folder, the provider files (what
        /// runners are and cost) from `providers/`.
        #[arg(long, default_value = "content")]
        content: PathBuf,
    },
    /// Check, then write the reports and the website.
    Build {
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Import a published runner report or the RBCS benchmark document.
    Import {
        /// The document.
        file: PathBuf,
        /// The results folder to write into.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// The import time recorded in the files (UTC RFC 3339, default now).
        #[arg(long)]
        imported_at: Option<String>,
        /// The day the report's figures were measured (YYYY-MM-DD), where
        /// its publisher states it. The website dates the rows, and counts
        /// their age, from this day; without it they say "date not
        /// published" and are never marked stale.
        #[arg(long)]
        measured_on: Option<String>,
        /// The document's name or URL as recorded (default: the file name).
        #[arg(long)]
        document: Option<String>,
    },
    /// Build, serve the website on 127.0.0.1, and rebuild and reload the
    /// browser when results/, content/, docs/ or templates/ change.
    Serve {
        #[command(flatten)]
        site: SiteArgs,
        /// The port.
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
}

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
    /// Results older than this many days are marked stale.
    #[arg(long, default_value_t = 180)]
    pub stale_days: u32,
    /// The most rows a home-page table shows; a longer table gets a page of
    /// its own with every row, linked from the home page.
    #[arg(long, default_value_t = crate::web::DEFAULT_HOME_ROWS)]
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

/// Output formats of `site check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: problems grouped by file.
    Human,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
}

/// Parses the arguments, runs the command and reports an error (`fail`).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check { paths, format, content } => cmd::check::run(&paths, format, &content),
        Command::Build { site } => cmd::build::run(&site).map(|_| ExitCode::SUCCESS),
        Command::Import { file, out, imported_at, measured_on, document } => {
            let when = cmd::import::When { imported_at: imported_at.as_deref(), measured_on: measured_on.as_deref() };
            cmd::import::run(&file, &out, when, document.as_deref()).map(|_| ExitCode::SUCCESS)
        }
        Command::Serve { site, port } => cmd::serve::run(&site, port).map(|_| ExitCode::SUCCESS),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => ExitCode::from(fail(&e)),
    }
}

/// Prints `err` once, with its chain of causes, its control characters
/// escaped (`escape`), and returns the exit status, 1. An error from writing
/// to a pipe whose reader has gone (`site check | head -1`) is not one: the
/// reader has all it wanted, so the command ends without a word, as a
/// program killed by SIGPIPE would, but with status 0, as ripgrep does.
pub fn fail(err: &anyhow::Error) -> u8 {
    let closed_pipe = err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if closed_pipe {
        return 0;
    }
    eprintln!("error: {}", crate::escape::lines(&format!("{err:#}")));
    1
}
