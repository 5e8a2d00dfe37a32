//! `collector workload`: writes out a CoreMark program the collector
//! embeds, the exact bytes its one-thread stage (or, with `--all-core`, its
//! all-core stage) runs, so that a reviewer can hash it against a result's
//! `build.coremark.executable_sha256` (`allcore_executable_sha256`) or run
//! it by hand, and the release check can read the glibc it needs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::stage::cpu::coremark::build::{ALLCORE_SHA256, WORKLOAD_SHA256};
use crate::stage::cpu::process::{ALL_CORE, ONE_THREAD};

#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// Where to write the program; an existing file is never replaced.
    pub out: PathBuf,
    /// Write the all-core stage's program (one thread per context) instead
    /// of the one-thread stage's.
    #[arg(long)]
    pub all_core: bool,
}

/// Writes the embedded program to `args.out` (executable on Unix) and says
/// what it wrote.
pub fn run(args: &WorkloadArgs) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o755);
    let (program, sha256, which) = match args.all_core {
        false => (&ONE_THREAD, WORKLOAD_SHA256, "one-thread"),
        true => (&ALL_CORE, ALLCORE_SHA256, "all-core"),
    };
    let mut file = options.open(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    if let Err(e) = file.write_all(program.bytes).and_then(|()| file.sync_all()) {
        // Half a program is worse than none: it would run and fail oddly.
        drop(file);
        let _ = std::fs::remove_file(&args.out);
        return Err(e).with_context(|| format!("cannot write {}", args.out.display()));
    }
    say!(
        "wrote the {which} CoreMark program ({} bytes, SHA-256 {sha256}) to {}",
        program.bytes.len(),
        args.out.display()
    );
    Ok(())
}
