//! Where a result file lives under results/, derived from its content, so
//! that a reviewer can tell from a path what a file claims:
//!
//! - measured: `<provider>/<runner>/<YYYY-MM-DD>-<run>.json`, the date of
//!   `provenance.started_at` and `<run>` the GitHub run id and attempt
//!   (`<run_id>-<attempt>`), or, without GitHub provenance, the first 12
//!   hex digits of the file's SHA-256;
//! - imported: `<provider>/<runner>/<YYYY-MM-DD>-imported-<sha12>.json`, the
//!   date of `source.imported_at` and the first 12 hex digits of the
//!   document's SHA-256.

use runner_bench_format::{ImportedResult, MeasuredResult};

/// The path below results/ of a measured result whose bytes hash to `sha256`.
pub fn measured_path(m: &MeasuredResult, sha256: &str) -> String {
    let run = match &m.provenance.github {
        Some(g) => format!("{}-{}", g.run_id, g.run_attempt),
        None => sha256[..12].to_string(),
    };
    format!("{}/{}/{}-{run}.json", m.provider.id, m.runner.label, m.provenance.started_at.date())
}

/// The path below results/ of an imported result.
pub fn imported_path(i: &ImportedResult) -> String {
    format!(
        "{}/{}/{}-imported-{}.json",
        i.provider.id,
        i.runner.label,
        i.source.imported_at.date(),
        &i.source.document_sha256.as_str()[..12]
    )
}
