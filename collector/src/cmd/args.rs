//! Arguments that several commands share: `run` and the cache jobs take
//! the same profile and identity flags, and default their work folders
//! alike (`folder_or_temp`). Their own module, so that the commands'
//! modules depend on it and not on each other.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use runner_bench_format::{Name, Profile, Provider, Runner, Slug};

use crate::error::UsageError;

/// A measurement profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// The published protocol: 5 CPU samples of 30 s, 1024 MiB disk file, ...
    Standard,
    /// Small sizes, seconds not minutes: for trying the tool and for tests.
    Quick,
}

impl ProfileArg {
    pub fn profile(self) -> Profile {
        match self {
            ProfileArg::Standard => Profile::Standard,
            ProfileArg::Quick => Profile::Quick,
        }
    }
}

/// Who is measured: the same flags for every command that writes a result.
#[derive(Debug, Args)]
pub struct IdentityArgs {
    /// Provider id: lowercase letters, digits and dashes, e.g. `ubicloud`.
    #[arg(long, env = "RUNNER_BENCH_PROVIDER")]
    pub provider: Option<String>,

    /// Provider display name, e.g. `Ubicloud`.
    #[arg(long, env = "RUNNER_BENCH_PROVIDER_NAME")]
    pub provider_name: Option<String>,

    /// Runner label: lowercase letters, digits and dashes, e.g.
    /// `ubicloud-linux-x64`.
    #[arg(long, env = "RUNNER_BENCH_RUNNER")]
    pub runner: Option<String>,

    /// Runner display name.
    #[arg(long, env = "RUNNER_BENCH_RUNNER_NAME")]
    pub runner_name: Option<String>,
}

impl IdentityArgs {
    /// The provider and runner, checked: ids must be slugs, names bounded text.
    pub fn resolve(&self) -> Result<(Provider, Runner), UsageError> {
        let slug = |flag: &'static str, v: &Option<String>, missing: UsageError| -> Result<Slug, UsageError> {
            let v = v.clone().ok_or(missing)?;
            Slug::new(v).map_err(|reason| UsageError::InvalidValue { flag, reason })
        };
        let name = |flag: &'static str, v: &Option<String>| -> Result<Option<Name>, UsageError> {
            v.clone().map(|v| Name::new(v).map_err(|reason| UsageError::InvalidValue { flag, reason })).transpose()
        };
        let provider = Provider {
            id: slug("provider", &self.provider, UsageError::MissingProvider)?,
            name: name("provider-name", &self.provider_name)?,
        };
        let runner = Runner {
            label: slug("runner", &self.runner, UsageError::MissingRunner)?,
            name: name("runner-name", &self.runner_name)?,
        };
        Ok((provider, runner))
    }
}

/// The folder a flag names, which must exist, or else the runner's
/// temporary folder (RUNNER_TEMP in GitHub Actions, else the OS's).
pub fn folder_or_temp(flag: &'static str, dir: Option<PathBuf>) -> Result<PathBuf, UsageError> {
    match dir {
        Some(dir) if !dir.is_dir() => Err(UsageError::InvalidValue {
            flag,
            reason: format!("{} is not a folder; create it or choose another", dir.display()),
        }),
        Some(dir) => Ok(dir),
        None => match std::env::var_os("RUNNER_TEMP").filter(|v| !v.is_empty()) {
            Some(dir) if !Path::new(&dir).is_dir() => Err(UsageError::InvalidValue {
                flag,
                reason: format!(
                    "RUNNER_TEMP, its default, is {}, which is not a folder; set --{flag} or fix RUNNER_TEMP",
                    Path::new(&dir).display()
                ),
            }),
            Some(dir) => Ok(PathBuf::from(dir)),
            None => Ok(std::env::temp_dir()),
        },
    }
}
