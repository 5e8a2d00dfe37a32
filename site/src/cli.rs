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
    },
    /// Check, then write the reports and the website.
    Build {
        /// The results folder.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// Where to write the website.
        #[arg(long, default_value = "public")]
        out: PathBuf,
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
        /// The document's name or URL as recorded (default: the file name).
        #[arg(long)]
        document: Option<String>,
    },
    /// Build, then serve the website on 127.0.0.1.
    Serve {
        /// The results folder.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// Where to write the website.
        #[arg(long, default_value = "public")]
        out: PathBuf,
        /// The port.
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
}

/// Output formats of `site check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: problems grouped by file.
    Human,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
}

/// Parses the arguments, runs the command and prints an error once, with
/// its chain of causes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Check { paths, format } => cmd::check::run(&paths, format),
        Command::Build { results, out } => cmd::build::run(&results, &out).map(|_| ExitCode::SUCCESS),
        Command::Import { file, out, imported_at, document } => {
            cmd::import::run(&file, &out, imported_at.as_deref(), document.as_deref()).map(|_| ExitCode::SUCCESS)
        }
        Command::Serve { results, out, port } => cmd::serve::run(&results, &out, port).map(|_| ExitCode::SUCCESS),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
