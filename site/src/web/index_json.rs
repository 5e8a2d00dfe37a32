//! `/index.json`: every result with its place and marks, and the newest
//! figures per runner, for anyone who wants the data without scraping.
//!
//! Each result's object is serialized on its own (on every CPU) and the
//! objects joined, so that `site serve` can keep them by the entry's key and
//! serialize again only the changed ones; the bytes are the same as
//! pretty-printing the whole index at once, which a test checks.

use std::collections::HashMap;

use bytes::Bytes;
use rayon::prelude::*;
use serde::Serialize;

use crate::model::{Entry, Meta, Model};

/// Bumped when a field changes meaning.
const INDEX_VERSION: u32 = 1;

/// Each result's serialized object by its entry's key, which `site serve`
/// keeps between builds. Shared bytes: a rebuild takes the 10,000 objects it
/// reuses without copying them.
pub type IndexCache = HashMap<u64, Bytes>;

#[derive(Serialize)]
struct IndexEntry<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    coremark_median_it_s: Option<f64>,
}

impl<'a> IndexEntry<'a> {
    fn of(e: &'a Entry) -> Self {
        IndexEntry { meta: &e.meta, coremark_median_it_s: e.cpu.as_ref().and_then(|c| c.median_value) }
    }
}

/// The combined index, pretty-printed with a trailing newline, and each
/// result's object by key. Objects `cache` holds are reused. Without a
/// cache (`site build`) no object is kept: they are made a chunk at a time
/// and appended, since holding every object beside the joined index
/// doubled the index's share of the build's peak (twice 200 MiB at 100,000
/// results).
pub fn render(
    model: &Model,
    built: &str,
    stale_days: u32,
    cache: Option<&IndexCache>,
) -> anyhow::Result<(Vec<u8>, IndexCache)> {
    let Some(cache) = cache else {
        let mut whole = Vec::new();
        render_pieces(model, built, stale_days, &mut |piece| {
            whole.extend_from_slice(&piece);
            Ok(())
        })?;
        return Ok((whole, IndexCache::new()));
    };
    let mut out = header(built, stale_days)?;
    let objects = model
        .entries
        .par_iter()
        .map(|e| match cache.get(&e.key) {
            Some(bytes) => Ok((e.key, bytes.clone())),
            None => Ok((e.key, Bytes::from(object(e)?))),
        })
        .collect::<anyhow::Result<Vec<(u64, Bytes)>>>()?;
    // One allocation for the whole index (tens of megabytes with 10,000
    // results), not a doubling as it grows.
    out.reserve(objects.iter().map(|(_, o)| o.len() + 2).sum::<usize>() + 16);
    if objects.is_empty() {
        out.extend_from_slice(b"[]");
    } else {
        out.extend_from_slice(b"[\n");
        for (i, (_, object)) in objects.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            out.extend_from_slice(object);
        }
        out.extend_from_slice(b"\n  ]");
    }
    out.extend_from_slice(b"\n}\n");
    Ok((out, objects.into_iter().collect()))
}

/// The combined index of `render`, made a chunk of objects at a time, each
/// chunk's bytes handed to `piece` in order (a build without a cache keeps
/// no object): a build that writes the pieces as they come never holds
/// the whole index (110 MB at 100,000 results).
pub fn render_pieces(
    model: &Model,
    built: &str,
    stale_days: u32,
    piece: &mut dyn FnMut(Vec<u8>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut out = header(built, stale_days)?;
    let mut done = 0;
    for chunk in model.entries.chunks(INDEX_CHUNK) {
        let objects = chunk.par_iter().map(|e| object(e)).collect::<anyhow::Result<Vec<Vec<u8>>>>()?;
        // One allocation per piece, where doubling as it grows held two
        // copies at once.
        out.reserve(objects.iter().map(|o| o.len() + 2).sum());
        for object in &objects {
            out.extend_from_slice(if done == 0 { b"[\n" } else { b",\n" });
            out.extend_from_slice(object);
            done += 1;
        }
        piece(std::mem::take(&mut out))?;
    }
    out.extend_from_slice(if done == 0 { b"[]" } else { b"\n  ]" });
    out.extend_from_slice(b"\n}\n");
    piece(out)
}

/// The index up to its list of results.
fn header(built: &str, stale_days: u32) -> anyhow::Result<Vec<u8>> {
    Ok(format!(
        "{{\n  \"index_version\": {INDEX_VERSION},\n  \"built\": {},\n  \"stale_days\": {stale_days},\n  \"results\": ",
        serde_json::to_string(built)?
    )
    .into_bytes())
}

/// A result's object, pretty-printed as it stands in the index.
fn object(e: &Entry) -> anyhow::Result<Vec<u8>> {
    Ok(indented(&serde_json::to_vec_pretty(&IndexEntry::of(e))?))
}

/// How many objects a build without a cache serializes at once: enough
/// to keep every CPU busy, few enough to hold little beside the index.
const INDEX_CHUNK: usize = 2_000;

/// A pretty-printed object as it stands two levels deep: every line
/// indented by four spaces.
fn indented(object: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(object.len() + object.len() / 8);
    for (i, line) in object.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(b"    ");
        out.extend_from_slice(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Index<'a> {
        index_version: u32,
        built: &'a str,
        stale_days: u32,
        results: Vec<IndexEntry<'a>>,
    }

    /// The whole index pretty-printed at once: what `render` must equal.
    fn whole(model: &Model, built: &str, stale_days: u32) -> Vec<u8> {
        let results = model.entries.iter().map(|e| IndexEntry::of(e)).collect();
        let index = Index { index_version: INDEX_VERSION, built, stale_days, results };
        let mut bytes = serde_json::to_vec_pretty(&index).unwrap();
        bytes.push(b'\n');
        bytes
    }

    #[test]
    fn joined_objects_equal_the_whole_index_pretty_printed() {
        let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
        let checked = crate::check(&[results], None, None, &|r: &crate::Run| r.clone()).unwrap();
        let now: jiff::Timestamp = "2026-12-01T00:00:00Z".parse().unwrap();
        let model = crate::model::build(&checked.runs, now, None);
        assert!(model.entries.len() >= 5);
        let built = "2026-12-01 00:00 \"UTC\"";
        let (bytes, kept) = render(&model, built, 180, Some(&IndexCache::new())).unwrap();
        assert_eq!(kept.len(), model.entries.len());
        assert_eq!(String::from_utf8(bytes.clone()).unwrap(), String::from_utf8(whole(&model, built, 180)).unwrap());
        // From kept objects: the same bytes.
        let (again, _) = render(&model, built, 180, Some(&kept)).unwrap();
        assert_eq!(again, bytes);
        // Without a cache, made a chunk at a time: the same bytes.
        let (streamed, none) = render(&model, built, 180, None).unwrap();
        assert_eq!(streamed, bytes);
        assert!(none.is_empty());

        let empty = crate::model::build(&[], now, None);
        assert_eq!(render(&empty, built, 7, None).unwrap().0, whole(&empty, built, 7));
        assert_eq!(render(&empty, built, 7, Some(&IndexCache::new())).unwrap().0, whole(&empty, built, 7));
    }
}
