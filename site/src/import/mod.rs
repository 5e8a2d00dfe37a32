//! `site import`: published documents → imported result files.
//!
//! - `runner_report`: a published runner report (the seeds 000–002) gives
//!   one imported result per runner row;
//! - `rbcs`: the RBCS build-cache benchmark document (the seed 003) gives
//!   one imported `http_cache` result.
//!
//! A malformed document gets an `ImportError` naming the line and what was
//! expected there.

pub mod rbcs;
pub mod runner_report;

use runner_bench_format::imported::{ImportedKind, Source};
use runner_bench_format::{Date, ImportedResult, Name, Sha256Hex, Timestamp, hex};
use sha2::{Digest, Sha256};

use crate::layout;

/// Why a document could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: expected {expected}, found {found}")]
pub struct ImportError {
    /// 1-based line number; the line after the last for a missing end.
    pub line: usize,
    /// What the importer expected there.
    pub expected: String,
    /// What it found, quoted, or `the end of the document`.
    pub found: String,
}

impl ImportError {
    pub(crate) fn new(line: usize, expected: impl Into<String>, found: Option<&str>) -> Self {
        ImportError {
            line,
            expected: expected.into(),
            found: found.map_or_else(|| "the end of the document".to_string(), |f| format!("{f:?}")),
        }
    }
}

/// What an import needs besides the text.
#[derive(Debug, Clone)]
pub struct ImportSource {
    /// The document's name or URL, as recorded in `source.document`.
    pub document: String,
    /// The document's bytes.
    pub bytes: Vec<u8>,
    /// When it is imported.
    pub imported_at: Timestamp,
    /// The day the figures were measured, where the publisher states it.
    pub measured_on: Option<Date>,
}

impl ImportSource {
    pub(crate) fn source(&self, title: &str) -> Result<Source, ImportError> {
        let name = |s: &str| Name::new(s).map_err(|e| ImportError::new(1, "a name", Some(&e)));
        Ok(Source {
            title: name(title)?,
            document: name(&self.document)?,
            document_sha256: Sha256Hex::new(hex(&Sha256::digest(&self.bytes))).expect("a SHA-256 is 64 hex digits"),
            imported_at: self.imported_at.clone(),
            measured_on: self.measured_on.clone(),
            importer: Name::new(format!("site {}", env!("CARGO_PKG_VERSION"))).expect("short"),
        })
    }
}

/// Which kind of document `text` is: the RBCS benchmark or a runner report.
pub fn import(src: &ImportSource) -> Result<Vec<ImportedResult>, ImportError> {
    // Published figures and names are taken as written, never with bytes
    // replaced; a byte order mark is no part of the text.
    let text = std::str::from_utf8(&src.bytes).map_err(|e| {
        let line = 1 + src.bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
        ImportError::new(line, "UTF-8 text", Some("bytes that are not UTF-8"))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.lines().any(|l| l.trim() == rbcs::CONDITIONS_LINE) {
        Ok(vec![rbcs::parse(text, src)?])
    } else {
        runner_report::parse(text, src)
    }
}

/// The path below results/ for an imported result.
pub fn path_of(r: &ImportedResult) -> String {
    layout::imported_path(r)
}

pub(crate) fn kind() -> ImportedKind {
    ImportedKind::Imported
}
