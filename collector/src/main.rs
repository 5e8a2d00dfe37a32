//! `collector`: measures a CI runner and writes one runner-bench result file.
//!
//! The binary is thin: `cli` parses the arguments, `config` turns them into
//! a validated `RunConfig`, and `run` drives the stages and the output. Every
//! error is printed once, here, with its chain of causes, except a write to
//! a pipe whose reader has gone, which ends the command quietly.

#![allow(unreachable_pub, reason = "a binary crate: pub only marks a module's interface")]

/// `eprintln!` that never panics: progress, notes and the final error are
/// for people, and a stderr whose reader has gone (`collector run 2>&1 |
/// head -1`) must not end a run half-way, losing the samples still to come.
/// `eprintln!` panics when the write fails; this drops what cannot be written.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod affinity;
mod args;
mod assemble;
mod cache_action_cmd;
mod cache_cmd;
mod cache_handoff;
mod cleanup;
mod cli;
mod config;
mod coremark;
mod cputime;
mod error;
mod interrupt;
mod machine;
mod output;
mod progress;
mod provenance;
mod rng;
mod run;
mod stage;
mod summary;
#[cfg(test)]
mod test_support;
mod watchdog;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let outcome = match cli.command {
        cli::Command::Run(args) => run::run(args),
        cli::Command::Assemble(args) => assemble::run(args),
        cli::Command::Cache(args) => cache_cmd::run(args),
        cli::Command::Profile(args) => cli::print_profile(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // The reader has all it wanted (`collector profile | head -1`): end
        // quietly, as a program killed by SIGPIPE would, but with status 0,
        // as ripgrep does.
        Err(err) if closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            say!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `err` comes from writing to a pipe whose reader has gone.
fn closed_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
