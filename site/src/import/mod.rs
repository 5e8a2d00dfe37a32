//! `site import`: published documents → imported result files.
//!
//! - `runner_report`: a published runner report (the seeds 000–002) gives
//!   one imported result per runner row;
//! - `rbcs`: the RBCS build-cache benchmark document (the seed 003) gives
//!   one imported `http_cache` result;
//! - `report_cells`: a runner report's sections, table rows and cells.
//!
//! A malformed document gets an `ImportError` naming the line and what was
//! expected there.

pub mod rbcs;
mod report_cells;
pub mod runner_report;
pub mod source;

use runner_bench_format::ImportedResult;

pub use self::source::{ImportError, ImportSource};
use crate::layout;

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
