//! results/exclusions.toml: results that maintainers keep on record but
//! out of comparisons, each with the reason the site shows. Results are
//! never deleted to hide them.
//!
//! ```toml
//! [[exclude]]
//! file = "example/example-linux-x64/2026-11-29-18342215517-1.json"
//! reason = "The runner image was misconfigured (issue #12)."
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The file name, in the results folder.
pub const EXCLUSIONS_FILE: &str = "exclusions.toml";

/// One results folder's exclusions.
#[derive(Debug, Clone)]
pub struct Exclusions {
    /// The exclusions file itself.
    pub path: PathBuf,
    /// Entries in file order; `Err` holds why the file did not parse.
    pub entries: Result<Vec<Exclusion>, String>,
}

/// One excluded result.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    /// Path below the results folder.
    pub file: String,
    /// Why it is excluded; shown on the site.
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExclusionsFile {
    #[serde(default)]
    exclude: Vec<Exclusion>,
}

impl Exclusions {
    /// Reads `path`; a file that does not parse becomes a problem of the
    /// check, not an error that stops it.
    pub fn read(path: &Path) -> anyhow::Result<Exclusions> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Exclusions { path: path.to_path_buf(), entries: parse(&text) })
    }

    /// The reason `rel_path` is excluded, if it is.
    pub fn reason(&self, rel_path: &str) -> Option<&str> {
        self.entries.as_ref().ok()?.iter().find(|e| e.file == rel_path).map(|e| e.reason.as_str())
    }
}

/// Parses the text of an exclusions file.
pub fn parse(text: &str) -> Result<Vec<Exclusion>, String> {
    toml::from_str::<ExclusionsFile>(text).map(|f| f.exclude).map_err(|e| runner_bench_format::plain_words(e.message()))
}
