//! What both importers share: the document being imported, the error a
//! malformed one gets, and the provenance recorded in each imported file.

use runner_bench_format::imported::{ImportedKind, Source};
use runner_bench_format::{Date, Name, Sha256Hex, Timestamp, hex};
use sha2::{Digest, Sha256};

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

pub(crate) fn kind() -> ImportedKind {
    ImportedKind::Imported
}
