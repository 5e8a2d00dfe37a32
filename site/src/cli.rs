//! The command line, with clap derive.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use runner_bench_format::{Date, Name, Timestamp};

use crate::cmd;
use crate::cmd::args::{Format, SiteArgs, at_least_one};

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
    /// Check the results and write the reports and the website: each
    /// runner's result files as soon as the check has gone past them, and
    /// its page once the check has gone past its provider, so that it
    /// never holds every result whole. Where the check
    /// fails, the output folder is left empty.
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
        #[arg(long, value_parser = cmd::import::timestamp)]
        imported_at: Option<Timestamp>,
        /// The day the report's figures were measured (YYYY-MM-DD), where
        /// its publisher states it. The website dates the rows, and counts
        /// their age, from this day; without it they say "date not
        /// published" and are never marked stale.
        #[arg(long, value_parser = cmd::import::date)]
        measured_on: Option<Date>,
        /// The document's name or URL as recorded (default: the file name).
        #[arg(long, value_parser = cmd::import::document_name)]
        document: Option<Name>,
    },
    /// Build, serve the website on 127.0.0.1, and rebuild and reload the
    /// browser when results/, content/, docs/ or templates/ change.
    Serve {
        #[command(flatten)]
        site: SiteArgs,
        /// The port (at least 1).
        #[arg(long, default_value_t = 8000, value_parser = at_least_one::<u16>)]
        port: u16,
    },
}

/// Parses the arguments, runs the command and reports an error (`fail`).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check { paths, format, content } => cmd::check::run(&paths, format, &content),
        Command::Build { site } => cmd::build::run(&site).map(|_| ExitCode::SUCCESS),
        Command::Import { file, out, imported_at, measured_on, document } => {
            let when = cmd::import::When { imported_at, measured_on };
            cmd::import::run(&file, &out, when, document.as_ref()).map(|_| ExitCode::SUCCESS)
        }
        Command::Serve { site, port } => cmd::serve::run(&site, port).map(|_| ExitCode::SUCCESS),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => ExitCode::from(cmd::fail(&e)),
    }
}
