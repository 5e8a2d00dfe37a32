//! `collector profile`: prints a profile's parameters and fingerprint.

use std::io::Write;

use clap::Args;

use crate::cmd::args::ProfileArg;

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The profile to print.
    #[arg(value_enum, default_value = "standard")]
    pub profile: ProfileArg,
}

/// `collector profile`: what a fingerprint stands for, for reviewers.
pub fn print_profile(args: &ProfileArgs) -> anyhow::Result<()> {
    let params = args.profile.profile().parameters();
    // A write error is returned, not a panic as `println!`'s: `main` ends
    // quietly on a closed pipe.
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", params.canonical_json())?;
    writeln!(out, "fingerprint {}", params.fingerprint())?;
    Ok(())
}
