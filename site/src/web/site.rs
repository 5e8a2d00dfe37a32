//! What a build makes: the site's files as bytes or as copies of files,
//! which `output` writes.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// One output file.
#[derive(Debug, Clone)]
pub enum Body {
    /// The file's bytes and their fingerprint (`Body::bytes`). Shared, so
    /// that a part `site serve` reuses from its last build is neither copied
    /// nor hashed again: copying and hashing every reused page (about 80 MB
    /// for 10,000 results) was a fifth of a rebuild's CPU time.
    Bytes { bytes: bytes::Bytes, fingerprint: u64 },
    /// A file copied as it is (result files are published as submitted),
    /// with its SHA-256 where the build knows it already.
    Copy { from: PathBuf, sha256: Option<String> },
    /// One piece of a file made a piece at a time, in order: the first
    /// piece makes the file, each next one is appended to it. A build
    /// without a cache writes index.json so (at 100,000 results it is
    /// 110 MB, which the build then never holds at once).
    Piece { bytes: Vec<u8>, first: bool },
}

impl Body {
    /// A file of `bytes`, fingerprinted once here: `output::Writer`
    /// rewrites a file only where its fingerprint changed.
    pub fn bytes(bytes: Vec<u8>) -> Body {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        Body::Bytes { fingerprint: h.finish(), bytes: bytes.into() }
    }
}

/// Everything a build produces.
#[derive(Debug, Default, Clone)]
pub struct Site {
    /// `(path below the output folder, body)`.
    pub files: Vec<(String, Body)>,
    /// Provider ids, one report each.
    pub providers: Vec<String>,
    /// Result files published.
    pub result_files: usize,
}

impl Site {
    pub(super) fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.push((path.into(), Body::bytes(bytes.into())));
    }

    /// Appends the files of a part built on its own.
    pub(super) fn join(&mut self, part: Site) {
        self.files.extend(part.files);
    }
}

/// Where a build hands the files of each stage as soon as the stage made
/// them (`output::build_with` writes them): the pages of 10,000 results are
/// tens of megabytes, and holding them all until the end added them to the
/// build's peak memory. The `Site` a build returns then holds only the
/// files made after the last stage handed over. (`Send`: a streaming
/// build, `web::Intake`, hands over runner pages from the check.)
pub type Emit<'a> = &'a mut (dyn FnMut(Vec<(String, Body)>) -> anyhow::Result<()> + Send);
