//! `collector workload`: writes out the one-thread CoreMark program the
//! collector embeds, the exact bytes its one-thread stage runs, so that a
//! reviewer can hash it against a result's `build.coremark.executable_sha256`
//! or run it by hand, and the release check can read the glibc it needs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::stage::cpu::coremark::build::WORKLOAD_SHA256;
use crate::stage::cpu::process::EXECUTABLE;

#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// Where to write the program; an existing file is never replaced.
    pub out: PathBuf,
}

/// Writes the embedded program to `args.out` (executable on Unix) and says
/// what it wrote.
pub fn run(args: &WorkloadArgs) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o755);
    let mut file = options.open(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    if let Err(e) = file.write_all(EXECUTABLE).and_then(|()| file.sync_all()) {
        // Half a program is worse than none: it would run and fail oddly.
        drop(file);
        let _ = std::fs::remove_file(&args.out);
        return Err(e).with_context(|| format!("cannot write {}", args.out.display()));
    }
    say!(
        "wrote the one-thread CoreMark program ({} bytes, SHA-256 {WORKLOAD_SHA256}) to {}",
        EXECUTABLE.len(),
        args.out.display()
    );
    Ok(())
}
