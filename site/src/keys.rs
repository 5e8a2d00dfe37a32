//! Comparability keys: per runner stage (CoreMark, disk, cache, internet),
//! a fingerprint of what that stage's figures depend on, so that results of
//! two profiles are compared on a stage wherever it was measured the same
//! way, although their whole-profile fingerprints differ.
//!
//! - A measured result's key hashes the parameters the stage uses
//!   (`StageKind::inputs`); for CoreMark, the implementation
//!   (`build.coremark.implementation`) and, where the file records the
//!   workload executable's hash, that it ran as its own program; for disk, the page sizes behind
//!   the samples' buffers (`buffer_page_kib`), where the file records them.
//! - An imported result's key hashes the parameters its report prints for
//!   the stage and the protocol text of the stage's section, as the report
//!   printed it (`report::published_text`): two protocol versions whose
//!   CoreMark section is the same are compared on CoreMark and not on disk.
//!
//! Both are the fingerprint's scheme (`runner_bench_format::params::key_of`)
//! over a JSON object with `stage` and `source` (`measured` or `imported`),
//! so a measured and an imported key are never equal. docs/methodology.md
//! ("Comparability keys") lists the inputs; `key_inputs` makes them.

use std::sync::Mutex;

use runner_bench_format::imported::ImportedResult;
use runner_bench_format::measured::{CoreMarkImplementation, MeasuredResult, Status};
use runner_bench_format::params::key_of;
use runner_bench_format::{AnyResult, Parameters, StageKind};
use serde_json::{Map, Value, json};

use crate::report::protocol::Paragraph;

/// What an imported result's gap sentence calls its profile in the cache
/// key. The sentence names the profile by its fingerprint, which changes
/// with every parameter of every stage; the gap itself is in the key.
pub const PROFILE_PLACEHOLDER: &str = "<profile>";

/// The comparability key of each keyed stage of one result.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct StageKeys {
    pub cpu: String,
    pub disk: String,
    pub cache: String,
    pub internet: String,
}

impl StageKeys {
    /// The key of `stage`.
    pub fn get(&self, stage: StageKind) -> &str {
        match stage {
            StageKind::Cpu => &self.cpu,
            StageKind::Disk => &self.disk,
            StageKind::Cache => &self.cache,
            StageKind::Internet => &self.internet,
        }
    }
}

/// Every keyed stage's key of `result`.
pub fn stage_keys(result: &AnyResult) -> StageKeys {
    let compute = || {
        let key = |s| key_of(&Value::Object(key_inputs(result, s))).to_string();
        StageKeys {
            cpu: key(StageKind::Cpu),
            disk: key(StageKind::Disk),
            cache: key(StageKind::Cache),
            internet: key(StageKind::Internet),
        }
    };
    let AnyResult::Measured(m) = result else { return compute() };
    // Thousands of measured results share a few profiles: each set of
    // parameters and implementation is hashed once per process.
    type Seen = (Parameters, (CoreMarkImplementation, bool, bool), Vec<u32>, StageKeys);
    static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    let coremark = &m.build.coremark;
    let implementation =
        (coremark.implementation, coremark.executable_sha256.is_some(), coremark.allcore_executable_sha256.is_some());
    let pages = disk_buffer_pages(m);
    let seen = |list: &[Seen]| {
        list.iter()
            .find(|(p, i, b, _)| *p == m.parameters && *i == implementation && *b == pages)
            .map(|(.., k)| k.clone())
    };
    if let Some(keys) = seen(&SEEN.lock().unwrap_or_else(|e| e.into_inner())) {
        return keys;
    }
    let keys = compute();
    let mut list = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    // Bounded: a results folder of many custom profiles computes the rest.
    if list.len() < 64 && seen(&list).is_none() {
        list.push((m.parameters.clone(), implementation, pages, keys.clone()));
    }
    keys
}

/// What the key of `stage` hashes, for `result`.
pub fn key_inputs(result: &AnyResult, stage: StageKind) -> Map<String, Value> {
    match result {
        AnyResult::Measured(m) => measured_inputs(m, stage),
        AnyResult::Imported(i) => imported_inputs(i, stage),
    }
}

fn measured_inputs(m: &MeasuredResult, stage: StageKind) -> Map<String, Value> {
    let mut inputs = m.parameters.stage_inputs(stage);
    inputs.insert("stage".into(), stage.name().into());
    inputs.insert("source".into(), "measured".into());
    if stage == StageKind::Cpu {
        // Two CoreMark implementations are different programs, however close
        // their speed (`site/tests/suite/cpu_implementation.rs`).
        let implementation = serde_json::to_value(m.build.coremark.implementation).expect("an enum serializes");
        inputs.insert("implementation".into(), implementation);
        if m.build.coremark.executable_sha256.is_some() {
            // The workload run as a program of its own, whose speed no
            // longer depends on the collector's Rust code, against the same
            // objects linked into the collector, whose speed did (up to 4 %
            // between builds, issue 56): never compared with each other.
            // Files without it keep the key they always had.
            inputs.insert("workload".into(), "executable".into());
        }
        if m.build.coremark.allcore_executable_sha256.is_some() {
            // The all-core figure, which this key also compares, from a
            // threaded program of its own against the collector's own
            // threads running the objects linked into it: several per cent
            // apart on the same machine (issue 56), so never compared.
            inputs.insert("allcore_workload".into(), "executable".into());
        }
    }
    if stage == StageKind::Internet
        && let Some(net) = &m.stages.internet
    {
        // Throughput to one server says nothing of throughput to another:
        // results are compared only against the same endpoint, as the
        // report's protocol text says and imported keys have it.
        inputs.insert("endpoint_url".into(), net.endpoint.url.as_str().into());
    }
    let pages = disk_buffer_pages(m);
    if stage == StageKind::Disk && !pages.is_empty() {
        // 1 MiB transfers from one huge page and from base pages scattered
        // in memory are different measurements on some virtual disks
        // (`collector/src/stage/disk/buffer.rs`). Files that do not record
        // the pages keep the key they always had.
        inputs.insert("buffer_page_kib".into(), pages.into());
    }
    inputs
}

/// The page sizes behind the buffers of the disk samples whose figures
/// count (`ok` ones), ascending, each once: `[2048]` where every one had a
/// huge page, `[4, 2048]` for a mix.
pub fn disk_buffer_pages(m: &MeasuredResult) -> Vec<u32> {
    let mut pages: Vec<u32> = m
        .stages
        .disk
        .iter()
        .flat_map(|d| &d.samples)
        .filter(|s| s.status == Status::Ok)
        .filter_map(|s| s.buffer_page_kib)
        .collect();
    pages.sort_unstable();
    pages.dedup();
    pages
}

fn imported_inputs(i: &ImportedResult, stage: StageKind) -> Map<String, Value> {
    let text = crate::report::published_text(i, PROFILE_PLACEHOLDER);
    let p = i.published_profile.as_ref();
    let mut inputs = match stage {
        StageKind::Cpu => json!({
            "cpu_disk_samples": p.map(|p| p.cpu_disk_samples),
            "cpu_seconds": p.map(|p| p.cpu_seconds),
            "text": section(&text.cpu),
        }),
        StageKind::Disk => json!({
            "cpu_disk_samples": p.map(|p| p.cpu_disk_samples),
            "disk_file_mib": p.map(|p| p.disk_file_mib),
            "text": section(&[text.disk]),
        }),
        StageKind::Cache => json!({
            "cache_payload_mib": p.map(|p| p.cache_payload_mib),
            "cache_publication_gap_s": p.and_then(|p| p.cache_publication_gap_s),
            "text": section(&[text.cache, text.gap]),
        }),
        // The section lists the endpoint and says to compare only results of
        // one endpoint and payload size.
        StageKind::Internet => json!({
            "internet": p.map(|p| p.internet),
            "internet_transfer_mib": p.map(|p| p.internet_transfer_mib),
            "endpoint": i.stages.internet.as_ref().map(|n| json!({"name": n.endpoint.name.as_str(), "url": n.endpoint.url.as_str()})),
            "text": section(&[text.internet]),
        }),
    };
    let Value::Object(ref mut map) = inputs else { unreachable!("json! of an object") };
    map.insert("stage".into(), stage.name().into());
    map.insert("source".into(), "imported".into());
    std::mem::take(map)
}

/// A section's paragraphs as the report prints them: sentences joined by a
/// space, paragraphs by a blank line; empty paragraphs are not printed.
fn section(paragraphs: &[Paragraph]) -> String {
    paragraphs.iter().filter(|p| !p.is_empty()).map(|p| p.join(" ")).collect::<Vec<_>>().join("\n\n")
}
