//! `/index.json`: every result with its place and marks, and the newest
//! figures per runner, for anyone who wants the data without scraping.
//! Each result's CoreMark row carries its place in its comparison table and
//! whether it is tied, as the CSV files do (`csv`), within its group
//! (`coremark_stage_key`) only; after the results, `overview` holds the
//! overview's rows (one per runner and CoreMark table) with both costs and
//! their places.
//!
//! Each result's object is serialized on its own (on every CPU) and the
//! objects joined, so that `site serve` can keep them by the entry's key and
//! serialize again only the changed ones; the bytes are the same as
//! pretty-printing the whole index at once, which a test checks.

use std::collections::HashMap;

use bytes::Bytes;
use rayon::prelude::*;
use serde::Serialize;

use super::overview::{self, OverviewRow};
use crate::memo_key::key_of;
use crate::model::{Entry, Meta, Model};
use crate::stats::Rank;

/// Bumped when a field changes meaning.
const INDEX_VERSION: u32 = 1;

/// Each result's serialized object by its entry's key and its CoreMark
/// place (`IndexEntry::key`), which `site serve` keeps between builds. Shared bytes: a rebuild takes the 10,000 objects it
/// reuses without copying them.
pub type IndexCache = HashMap<u64, Bytes>;

#[derive(Serialize)]
struct IndexEntry<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    coremark_median_it_s: Option<f64>,
    /// The key of the CoreMark table the row is in (the CSV's `stage_key`),
    /// its place there and whether it shares it: none where the row is in
    /// no table or has no place (marked, stale or without a figure).
    coremark_stage_key: Option<&'a str>,
    coremark_place: Option<usize>,
    coremark_tied: Option<bool>,
    /// The median, least and greatest accepted all-core sample (it/s).
    coremark_all_core_median_it_s: Option<f64>,
    coremark_all_core_min_it_s: Option<f64>,
    coremark_all_core_max_it_s: Option<f64>,
    /// Why a CoreMark row has no all-core figure.
    coremark_all_core_missing: Option<&'static str>,
    /// The all-core median ÷ (the one-thread median × the logical CPUs).
    vcpu_worth: Option<f64>,
}

/// Each CoreMark row's table key and place, by the address of its entry's
/// `Meta` (which the rows share with the entry).
type Places<'a> = HashMap<usize, (&'a str, Option<Rank>)>;

/// The key of `meta` in `Places`.
fn address(meta: &std::sync::Arc<Meta>) -> usize {
    std::sync::Arc::as_ptr(meta) as usize
}

/// The places of every result's CoreMark row.
fn places(model: &Model) -> Places<'_> {
    let mut out = Places::new();
    for g in &model.groups {
        for r in g.cpu.iter().chain(&g.cpu_eembc) {
            out.insert(address(&r.meta), (g.key.as_str(), r.place));
        }
    }
    out
}

impl<'a> IndexEntry<'a> {
    fn of(e: &'a Entry, places: &Places<'a>) -> Self {
        let cpu = e.cpu.as_ref();
        let (key, place) = places.get(&address(&e.meta)).copied().unzip();
        let place = place.flatten();
        let all = cpu.and_then(|c| c.all_core);
        IndexEntry {
            meta: &e.meta,
            coremark_median_it_s: cpu.and_then(|c| c.median_value),
            coremark_stage_key: key,
            coremark_place: place.map(|p| p.place),
            coremark_tied: place.map(|p| p.tied),
            coremark_all_core_median_it_s: all.map(|a| a[0]),
            coremark_all_core_min_it_s: all.map(|a| a[1]),
            coremark_all_core_max_it_s: all.map(|a| a[2]),
            coremark_all_core_missing: cpu.and_then(|c| c.all_core_why),
            vcpu_worth: cpu.and_then(|c| c.vcpu_worth),
        }
    }

    /// What its object is made of: the entry's key and its place, which
    /// other results can move, so that `site serve` never reuses an object
    /// whose place has changed.
    fn key(e: &Entry, places: &Places<'_>) -> u64 {
        let place = places.get(&address(&e.meta)).map(|(key, p)| (*key, p.map(|p| (p.place, p.tied))));
        key_of((e.key, place))
    }
}

/// One row of the overview, as `overview` lists it.
#[derive(Serialize)]
struct OverviewEntry<'a> {
    /// The CoreMark table's key; none for the runners without CoreMark.
    stage_key: Option<&'a str>,
    /// The table's name, as the overview's heading gives it.
    group: &'a str,
    provider: &'a str,
    runner: &'a str,
    coremark_it_s: Option<f64>,
    coremark_place: Option<usize>,
    coremark_tied: Option<bool>,
    all_core_it_s: Option<f64>,
    all_core_place: Option<usize>,
    all_core_tied: Option<bool>,
    all_core_missing: Option<&'static str>,
    vcpu_worth: Option<f64>,
    usd_per_minute: Option<f64>,
    /// The cost of one-thread work (`overview::cost_of_work`), US dollars,
    /// and whether it is made from a tied place's figure.
    cost_one_thread_usd: Option<f64>,
    cost_one_thread_tied: Option<bool>,
    /// The cost of 10⁹ iterations on all cores (`overview::all_core_cost`).
    cost_all_core_usd_per_1e9_it: Option<f64>,
    cost_all_core_tied: Option<bool>,
}

impl<'a> OverviewEntry<'a> {
    fn of(s: &'a overview::Section, r: &'a OverviewRow) -> Self {
        let a = &r.all_core;
        OverviewEntry {
            stage_key: (!s.key.is_empty()).then_some(s.key.as_str()),
            group: &s.name,
            provider: &r.provider_id,
            runner: &r.label,
            coremark_it_s: r.cpu_value,
            coremark_place: r.place.map(|p| p.place),
            coremark_tied: r.place.map(|p| p.tied),
            all_core_it_s: a.median(),
            all_core_place: a.place.map(|p| p.place),
            all_core_tied: a.place.map(|p| p.tied),
            all_core_missing: a.why,
            vcpu_worth: a.worth_value(),
            usd_per_minute: r.machine.usd_per_minute,
            cost_one_thread_usd: r.cost_usd,
            cost_one_thread_tied: r.cost_usd.map(|_| r.cost_tied),
            cost_all_core_usd_per_1e9_it: a.cost_usd,
            cost_all_core_tied: a.cost_usd.map(|_| a.place.is_some_and(|p| p.tied)),
        }
    }
}

/// The index's `overview`: every section's rows, pretty-printed as they
/// stand one level deep.
fn overview_json(sections: &[overview::Section]) -> anyhow::Result<Vec<u8>> {
    let rows: Vec<OverviewEntry<'_>> =
        sections.iter().flat_map(|s| s.rows.iter().map(move |r| OverviewEntry::of(s, r))).collect();
    let mut out = b",\n  \"overview\": ".to_vec();
    let json = serde_json::to_vec_pretty(&rows)?;
    // Indented by two spaces after its first line, as the whole index
    // pretty-printed at once would be.
    for (i, line) in json.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\n  ");
        }
        out.extend_from_slice(line);
    }
    Ok(out)
}

/// The combined index, pretty-printed with a trailing newline, and each
/// result's object by key. Objects `cache` holds are reused. Without a
/// cache (`site build`) no object is kept: they are made a chunk at a time
/// and appended, since holding every object beside the joined index
/// doubled the index's share of the build's peak (twice 200 MiB at 100,000
/// results).
pub fn render(
    model: &Model,
    sections: &[overview::Section],
    built: &str,
    stale_days: u32,
    cache: Option<&IndexCache>,
) -> anyhow::Result<(Vec<u8>, IndexCache)> {
    let Some(cache) = cache else {
        let mut whole = Vec::new();
        render_pieces(model, sections, built, stale_days, &mut |piece| {
            whole.extend_from_slice(&piece);
            Ok(())
        })?;
        return Ok((whole, IndexCache::new()));
    };
    let mut out = header(built, stale_days)?;
    let places = places(model);
    let objects = model
        .entries
        .par_iter()
        .map(|e| {
            let key = IndexEntry::key(e, &places);
            match cache.get(&key) {
                Some(bytes) => Ok((key, bytes.clone())),
                None => Ok((key, Bytes::from(object(e, &places)?))),
            }
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
    out.extend_from_slice(&overview_json(sections)?);
    out.extend_from_slice(b"\n}\n");
    Ok((out, objects.into_iter().collect()))
}

/// The combined index of `render`, made a chunk of objects at a time, each
/// chunk's bytes handed to `piece` in order (a build without a cache keeps
/// no object): a build that writes the pieces as they come never holds
/// the whole index (110 MB at 100,000 results).
pub fn render_pieces(
    model: &Model,
    sections: &[overview::Section],
    built: &str,
    stale_days: u32,
    piece: &mut dyn FnMut(Vec<u8>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut out = header(built, stale_days)?;
    let places = places(model);
    let mut done = 0;
    for chunk in model.entries.chunks(INDEX_CHUNK) {
        let objects = chunk.par_iter().map(|e| object(e, &places)).collect::<anyhow::Result<Vec<Vec<u8>>>>()?;
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
    out.extend_from_slice(&overview_json(sections)?);
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
fn object(e: &Entry, places: &Places<'_>) -> anyhow::Result<Vec<u8>> {
    Ok(indented(&serde_json::to_vec_pretty(&IndexEntry::of(e, places))?))
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
        overview: Vec<OverviewEntry<'a>>,
    }

    /// The whole index pretty-printed at once: what `render` must equal.
    fn whole(model: &Model, sections: &[overview::Section], built: &str, stale_days: u32) -> Vec<u8> {
        let places = places(model);
        let results = model.entries.iter().map(|e| IndexEntry::of(e, &places)).collect();
        let overview = sections.iter().flat_map(|s| s.rows.iter().map(move |r| OverviewEntry::of(s, r))).collect();
        let index = Index { index_version: INDEX_VERSION, built, stale_days, results, overview };
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
        // A price for one runner, so that the overview's costs are in it.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("starsling.toml"),
            "name = \"StarSling\"\n[runners.starsling-linux-x64]\nvcpu = 2\nprice = { usd_per_minute = 0.008, \
             source = \"https://starsling.example/pricing\", read_on = \"2026-11-20\" }\n",
        )
        .unwrap();
        let sections = overview::sections(&model, &crate::providers::load(dir.path()), now);
        assert!(sections.iter().flat_map(|s| &s.rows).any(|r| r.cost_usd.is_some()));
        let (bytes, kept) = render(&model, &sections, built, 180, Some(&IndexCache::new())).unwrap();
        assert_eq!(kept.len(), model.entries.len());
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            String::from_utf8(whole(&model, &sections, built, 180)).unwrap()
        );
        // From kept objects: the same bytes.
        let (again, _) = render(&model, &sections, built, 180, Some(&kept)).unwrap();
        assert_eq!(again, bytes);
        // Without a cache, made a chunk at a time: the same bytes.
        let (streamed, none) = render(&model, &sections, built, 180, None).unwrap();
        assert_eq!(streamed, bytes);
        assert!(none.is_empty());

        let empty = crate::model::build(&[], now, None);
        assert_eq!(render(&empty, &[], built, 7, None).unwrap().0, whole(&empty, &[], built, 7));
        assert_eq!(render(&empty, &[], built, 7, Some(&IndexCache::new())).unwrap().0, whole(&empty, &[], built, 7));
    }
}
