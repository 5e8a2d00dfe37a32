//! What a report says about how its figures were measured, sentence by
//! sentence.
//!
//! Imported results keep the published reports' wording (`published`): it
//! describes the protocol those reports measured, and the seed reports come
//! back byte for byte. Measured results get sentences made from what their
//! files record (`measured`): the parameters, each cache pair's method, the
//! recorded affinities, jobs and gaps, and each action step's observations.
//! Where a published sentence is true of a measured group it is made word
//! for word; where it is not, a sentence that is true takes its place
//! (docs/methodology.md, "What a report says").

use runner_bench_format::{Affinity, Parameters};

use super::cache_protocol::{cache, gap, methods};
pub use super::facts::Facts;
use super::sentence::{
    ACTION_TIME, CACHE_BYPASS, CHECKS, FULLY_VERIFIED, GAP_SHARED, HIGHER_IS_BETTER, INCOMPLETE_VISIBLE, INTERNET_TAIL,
    NOT_ONLY_THE_RUNNER, ORDER_REVERSES, PUBLISHED_ACTION_AFFINITY, PUBLISHED_PAIRS, PUBLISHED_PINNING,
    PUBLISHED_THREADS, SEPARATE_JOB, affinity, by_runner, count_word, counted, is_pinned, label, strings,
};
pub use super::sentence::{MethodText, Paragraph, ProtocolText};
use crate::figures::escape_markdown;

/// The figures the published wording quotes: the published profile's, or
/// the `standard` profile's, which every published report used.
#[derive(Debug, Clone)]
pub(super) struct Published<'a> {
    pub(super) disk_op_seconds: u32,
    pub(super) sample_timeout_s: u32,
    pub(super) max_request_mib: u32,
    /// Download and upload samples in words, e.g. `three`.
    pub(super) internet_samples: &'a str,
    /// The fingerprint and gap of the gap paragraph, where the report
    /// printed one.
    pub(super) gap: Option<(&'a str, u32)>,
    /// Whether the disk table has sample counts (the current wording).
    pub(super) disk_counts: bool,
    /// Whether the group has a runner stage, so the CoreMark introduction.
    pub(super) runner_stages: bool,
}

/// The published reports' wording, for imported results.
pub(super) fn published(p: &Published<'_>) -> ProtocolText {
    let cpu = if p.runner_stages {
        vec![
            strings(&["CoreMark, one execution thread, 2000-byte dataset.", HIGHER_IS_BETTER]),
            strings(&[PUBLISHED_PINNING[0], PUBLISHED_PINNING[1], NOT_ONLY_THE_RUNNER]),
        ]
    } else {
        Vec::new()
    };
    let mut disk = strings(&["One worker, queue depth one, 1 MiB sequential I/O, 4 KiB random I/O.", CACHE_BYPASS]);
    disk.push(format!(
        "Protocol 2 and later repeat each operation for at least {} seconds against the same file; total transferred \
         bytes can exceed the file size.",
        p.disk_op_seconds
    ));
    if p.disk_counts {
        disk.push(FULLY_VERIFIED.to_string());
        disk.push(format!(
            "Every requested sample is attempted, including after a {}-second sample timeout.",
            p.sample_timeout_s
        ));
        disk.push(INCOMPLETE_VISIBLE.to_string());
    } else {
        disk.push("Medians across samples.".to_string());
    }
    let cache = strings(&[
        PUBLISHED_PAIRS,
        SEPARATE_JOB,
        ORDER_REVERSES,
        PUBLISHED_THREADS,
        PUBLISHED_ACTION_AFFINITY,
        CHECKS,
        ACTION_TIME,
    ]);
    let gap = match p.gap {
        Some((fingerprint, seconds)) if seconds > 0 => {
            let mut gap = vec![format!(
                "Profile `{fingerprint}` waits {seconds} seconds after the save job finishes, before allocating its \
                 first restore runner."
            )];
            gap.extend(strings(&GAP_SHARED));
            gap
        }
        _ => Vec::new(),
    };
    let w = p.internet_samples;
    let mut internet = vec![
        format!("One HTTP/1.1 stream at a time, {w} downloads and {w} uploads."),
        requests_sentence(p.max_request_mib),
    ];
    internet.extend(strings(&INTERNET_TAIL));
    ProtocolText { cpu, disk, cache, gap, cache_methods: Vec::new(), internet }
}

/// The sentences that describe `results`, measured results of one
/// fingerprint (so of one set of parameters).
pub fn measured(results: &[&Facts]) -> ProtocolText {
    let mut results = results.to_vec();
    results.sort_by(|a, b| a.label.cmp(&b.label));
    let Some(first) = results.first() else { return ProtocolText::default() };
    let p = &first.parameters;
    let fingerprint = first.fingerprint.as_str();
    let has = |stage: fn(&Facts) -> bool| results.iter().any(|m| stage(m));
    let cached = has(|m| m.cache.is_some());
    ProtocolText {
        cpu: if has(|m| m.cpu.is_some()) { cpu(&results, p) } else { Vec::new() },
        disk: if has(|m| m.disk) { disk(p) } else { Vec::new() },
        cache: if cached { cache(&results, p, fingerprint) } else { Vec::new() },
        gap: if cached { gap(&results, p, fingerprint) } else { Vec::new() },
        cache_methods: if cached { methods(&results, p) } else { Vec::new() },
        internet: if has(|m| m.internet) { internet(p) } else { Vec::new() },
    }
}

fn cpu(results: &[&Facts], p: &Parameters) -> Vec<Paragraph> {
    let workload = match data_size(&p.cpu_workload) {
        Some(bytes) => format!("CoreMark, one execution thread, {bytes}-byte dataset."),
        None => format!("CoreMark, one execution thread, workload {}.", escape_markdown(&p.cpu_workload)),
    };
    let with_cpu: Vec<(&Facts, &[Affinity])> = results.iter().filter_map(|m| Some((*m, m.cpu.as_deref()?))).collect();
    // As published: every Linux and Windows sample pinned, every macOS one not.
    let as_published = with_cpu.iter().all(|(m, samples)| samples.iter().all(|a| is_pinned(*a) == m.pins));
    let mut pinning = if as_published {
        strings(&PUBLISHED_PINNING)
    } else {
        let ran = by_runner(
            with_cpu
                .iter()
                .filter(|(_, s)| !s.is_empty())
                .map(|(m, s)| (label(&m.label), affinity(s, "samples")))
                .collect(),
        );
        let mut text = vec![format!("As recorded, CoreMark ran {ran}.")];
        if with_cpu.iter().any(|(_, samples)| samples.iter().any(|a| !is_pinned(*a))) {
            text.push("An unpinned thread may migrate between CPUs.".to_string());
        }
        text
    };
    pinning.push(NOT_ONLY_THE_RUNNER.to_string());
    vec![vec![workload, HIGHER_IS_BETTER.to_string()], pinning]
}

/// The dataset size of `coremark-<version>-total-data-size-<bytes>`.
fn data_size(workload: &str) -> Option<u32> {
    workload.strip_prefix("coremark-")?.split_once("-total-data-size-")?.1.parse().ok()
}

fn disk(p: &Parameters) -> Paragraph {
    let repeats = if p.protocol >= 2 {
        "Protocol 2 and later repeat each operation".to_string()
    } else {
        format!("Protocol {} repeats each operation", p.protocol)
    };
    vec![
        format!(
            "One worker, queue depth {}, {} sequential I/O, {} random I/O.",
            count_word(p.disk_queue_depth),
            block(p.disk_seq_block_kib),
            block(p.disk_rand_block_kib)
        ),
        CACHE_BYPASS.to_string(),
        format!(
            "{repeats} for at least {} against the same file; total transferred bytes can exceed the file size.",
            counted(p.disk_op_seconds, "second", "seconds")
        ),
        FULLY_VERIFIED.to_string(),
        format!("Every requested sample is attempted, including after a {}-second sample timeout.", p.sample_timeout_s),
        INCOMPLETE_VISIBLE.to_string(),
    ]
}

/// A block size: `1 MiB`, `4 KiB`.
fn block(kib: u32) -> String {
    if kib >= 1024 && kib.is_multiple_of(1024) { format!("{} MiB", kib / 1024) } else { format!("{kib} KiB") }
}

fn internet(p: &Parameters) -> Paragraph {
    let n = p.internet_samples;
    let mut text = vec![
        format!(
            "One HTTP/1.1 stream at a time, {} and {}.",
            counted(n, "download", "downloads"),
            counted(n, "upload", "uploads")
        ),
        requests_sentence(p.internet_max_request_mib),
    ];
    text.extend(strings(&INTERNET_TAIL));
    text
}

fn requests_sentence(max_request_mib: u32) -> String {
    format!(
        "Each sample transfers the configured payload through sequential requests of at most {max_request_mib} MiB on \
         one persistent connection."
    )
}
