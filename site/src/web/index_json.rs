//! `/index.json`: every result with its place and marks, and the newest
//! figures per runner, for anyone who wants the data without scraping.

use serde::Serialize;

use super::model::{Meta, Model};

#[derive(Serialize)]
struct Index<'a> {
    /// Bumped when a field changes meaning.
    index_version: u32,
    built: &'a str,
    stale_days: u32,
    results: Vec<IndexEntry<'a>>,
}

#[derive(Serialize)]
struct IndexEntry<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    coremark_median_it_s: Option<f64>,
}

/// The combined index, pretty-printed with a trailing newline.
pub fn render(model: &Model, built: &str, stale_days: u32) -> anyhow::Result<Vec<u8>> {
    let results = model
        .entries
        .iter()
        .map(|e| IndexEntry { meta: &e.meta, coremark_median_it_s: e.cpu.as_ref().and_then(|c| c.median_value) })
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&Index { index_version: 1, built, stale_days, results })?;
    bytes.push(b'\n');
    Ok(bytes)
}
