//! `collector`: measures a CI runner and writes one runner-bench result file.
//!
//! The binary is thin: `cli` parses the arguments and a command of `cmd`
//! runs.
//!
//! # Layers
//!
//! A module imports only from its own layer and the layers below it, and
//! from the format crate: `python3 scripts/check-layers.py` reads this list
//! and fails on an import that points up (`--graph` prints it).
//!
//! 1. `crate`, `cli`: this file's `main`, and the command line, composed of
//!    the commands' own arguments;
//! 2. `cmd`: the commands (`run`, `cache`, `assemble`, `profile`,
//!    `workload`), each checking its arguments and driving stages and the
//!    result;
//! 3. `result`: the result file a command starts, writes and summarises;
//! 4. `stage`: the measurement stages, each given its settings as plain
//!    data and returning its section of the result;
//! 5. `platform`: the OS and CI job around them (affinity, machine, CPU
//!    time, cleanup on an interruption, deadlines, progress);
//! 6. `error`, `rng`, `test_support`: the user's errors, the generator
//!    shared with the site, and the unit tests' helpers.
//!
//! Every error is printed once, here, with its chain of causes, except a
//! write to a pipe whose reader has gone, which ends the command quietly.

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

mod cli;
mod cmd;
mod error;
mod platform;
mod result;
mod rng;
mod stage;
#[cfg(test)]
mod test_support;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let outcome = match cli.command {
        cli::Command::Run(args) => cmd::run::run(args),
        cli::Command::Assemble(args) => cmd::assemble::run(args),
        cli::Command::Cache(args) => cmd::cache::run(args),
        cli::Command::Profile(args) => cmd::profile::print_profile(&args),
        cli::Command::Workload(args) => cmd::workload::run(&args),
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
