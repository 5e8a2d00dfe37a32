//! What a build makes: the site's files as bytes or as copies of files,
//! which `output` writes.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// One output file.
#[derive(Debug, Clone)]
pub enum Body {
    /// The file's bytes and their fingerprint (`Body::bytes`). Shared, so
    /// that a part `site serve` reuses from its last build is neither copied
    /// nor hashed again: every reused page copied and hashed was a large
    /// share of a rebuild's CPU time (docs/benchmarks.md).
    Bytes { bytes: bytes::Bytes, fingerprint: u64 },
    /// A file copied as it is (result files are published as submitted),
    /// with its SHA-256 where the build knows it already.
    Copy { from: PathBuf, sha256: Option<String> },
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

/// Where a build hands the files of each step as soon as the step made
/// them (`output` writes them), so that a build never holds every page at
/// once. The `Site` a build returns then holds only the files made after
/// the last step handed over. (`Send`: a streaming build, `web::Intake`,
/// hands over runner pages from the check's thread.)
pub trait FileSink: Send {
    /// Takes whole files.
    fn files(&mut self, files: Vec<(String, Body)>) -> anyhow::Result<()>;

    /// Takes the next piece of a file made a piece at a time, in order:
    /// the first piece (`first`) makes the file, each next one is appended
    /// to it. A streaming build writes index.json so, as it is the largest
    /// file the site has and would otherwise be held whole.
    fn piece(&mut self, path: &str, bytes: Vec<u8>, first: bool) -> anyhow::Result<()>;
}

/// A build's `FileSink`.
pub type Emit<'a> = &'a mut dyn FileSink;
