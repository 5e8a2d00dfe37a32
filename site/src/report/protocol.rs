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

use std::collections::BTreeSet;

use runner_bench_format::measured::{
    CacheKind, CacheMethod, CachePair, CacheStage, CacheTransfer, Conclusion, MeasuredResult, Observation,
};
use runner_bench_format::{Affinity, Parameters, Slug};
use serde::Serialize;

use super::view::count_word;
use crate::figures::escape_markdown;

/// The sentences of one paragraph, which the template joins with spaces.
pub type Paragraph = Vec<String>;

/// What a group's report says about how it was measured, paragraph by
/// paragraph. A stage the group lacks has no sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProtocolText {
    /// CoreMark: the workload, then affinity. Empty where the report says
    /// it once, above every group (see `view::build_view`).
    pub cpu: Vec<Paragraph>,
    pub disk: Paragraph,
    /// The cache stage as a whole: pairs, jobs, payload and checks.
    pub cache: Paragraph,
    /// The publication gap.
    pub gap: Paragraph,
    /// Per cache method, client before action: the transfers, threads,
    /// affinity and what a time includes. Measured results only: the
    /// published wording says it in `cache`.
    pub cache_methods: Vec<MethodText>,
    pub internet: Paragraph,
}

/// What one cache method's section says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodText {
    pub method: CacheMethod,
    pub text: Paragraph,
}

// The published sentences that measured results share word for word where
// they are true.
const HIGHER_IS_BETTER: &str = "Higher iterations/s is better.";
const PUBLISHED_PINNING: [&str; 2] = [
    "Linux/Windows require hard affinity to one logical CPU.",
    "macOS is explicitly **unpinned**: its one thread may migrate between CPUs.",
];
const NOT_ONLY_THE_RUNNER: &str = "These are runner + compiler measurements; VM host scheduling, other workloads, turbo, and image updates can affect them.";
const CACHE_BYPASS: &str = "OS file-cache bypass is required; write timings include the final flush.";
const FULLY_VERIFIED: &str = "Medians across fully verified samples.";
const INCOMPLETE_VISIBLE: &str = "Incomplete results remain visible and are excluded from complete-sample comparisons.";
const PUBLISHED_PAIRS: &str = "Protocol 2 and later measure three unique-key save/restore pairs per backend.";
const SEPARATE_JOB: &str =
    "Each trial restores in a separate runner job after the save job completes; reused save OS instances are rejected.";
const ORDER_REVERSES: &str = "Backend order reverses on trial two.";
const PUBLISHED_THREADS: &str =
    "Archive services use zstd `--single-thread`; attached-volume transfers use one thread without compression.";
const PUBLISHED_ACTION_AFFINITY: &str = "Linux/Windows action processes inherit one-CPU affinity; macOS is unpinned.";
const CHECKS: &str = "Identical random payload bytes across trials and backends on each runner; an empty local target before restore, exact cache hit, SHA-256 and backend routing checked.";
const ACTION_TIME: &str = "Each time includes the action and adjacent step transitions; MiB/s uses logical payload bytes, including compression/extraction for archive services.";
const GAP_SHARED: [&str; 3] = [
    "All providers use this publication gap; it is excluded from transfer speeds.",
    "It gives cache publication time to settle but does not guarantee cache availability.",
    "Misses remain failures; there are no retries or payload fallbacks.",
];
const INTERNET_TAIL: [&str; 4] = [
    "Mbps uses decimal megabits.",
    "Zero-byte HTTPS request time includes connection/TLS/DNS overhead and is not ICMP RTT.",
    "Compare only results using the same endpoint and payload size.",
    "Unavailable tests have no speed score.",
];

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
pub fn measured(results: &[&MeasuredResult]) -> ProtocolText {
    let mut results = results.to_vec();
    results.sort_by(|a, b| a.runner.label.as_str().cmp(b.runner.label.as_str()));
    let Some(first) = results.first() else { return ProtocolText::default() };
    let p = &first.parameters;
    let fingerprint = first.fingerprint.as_str();
    let has = |stage: fn(&MeasuredResult) -> bool| results.iter().any(|m| stage(m));
    let cached = has(|m| m.stages.cache.is_some());
    ProtocolText {
        cpu: if has(|m| m.stages.cpu.is_some()) { cpu(&results, p) } else { Vec::new() },
        disk: if has(|m| m.stages.disk.is_some()) { disk(p) } else { Vec::new() },
        cache: if cached { cache(&results, p, fingerprint) } else { Vec::new() },
        gap: if cached { gap(&results, p, fingerprint) } else { Vec::new() },
        cache_methods: if cached { methods(&results, p) } else { Vec::new() },
        internet: if has(|m| m.stages.internet.is_some()) { internet(p) } else { Vec::new() },
    }
}

fn cpu(results: &[&MeasuredResult], p: &Parameters) -> Vec<Paragraph> {
    let workload = match data_size(&p.cpu_workload) {
        Some(bytes) => format!("CoreMark, one execution thread, {bytes}-byte dataset."),
        None => format!("CoreMark, one execution thread, workload {}.", escape_markdown(&p.cpu_workload)),
    };
    let with_cpu: Vec<(&MeasuredResult, Vec<Affinity>)> = results
        .iter()
        .filter_map(|m| Some((*m, m.stages.cpu.as_ref()?.samples.iter().map(|s| s.affinity).collect())))
        .collect();
    // As published: every Linux and Windows sample pinned, every macOS one not.
    let as_published = with_cpu.iter().all(|(m, samples)| samples.iter().all(|a| is_pinned(*a) == m.machine.os.pins()));
    let mut pinning = if as_published {
        strings(&PUBLISHED_PINNING)
    } else {
        let ran = by_runner(
            with_cpu.iter().filter(|(_, s)| !s.is_empty()).map(|(m, s)| (label(m), affinity(s, "samples"))).collect(),
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

fn cache(results: &[&MeasuredResult], p: &Parameters, fingerprint: &str) -> Paragraph {
    let mut text = vec![if p.protocol >= 2 && p.cache_trials == 3 {
        PUBLISHED_PAIRS.to_string()
    } else {
        format!(
            "Profile `{fingerprint}` (protocol {}) measures {} per backend, each with a payload of {} MiB in {}.",
            p.protocol,
            counted(p.cache_trials, "unique-key save/restore pair", "unique-key save/restore pairs"),
            p.cache_payload_mib,
            counted(p.cache_payload_files, "file", "files")
        )
    }];
    text.push(SEPARATE_JOB.to_string());
    // Said where the recorded order shows it: pairs are in the order they
    // ran, and a result with one backend or one trial has none to reverse.
    let reversals: Vec<bool> = results.iter().filter_map(|m| reversed(m.stages.cache.as_ref()?, p)).collect();
    if !reversals.is_empty() && reversals.iter().all(|r| *r) {
        text.push(ORDER_REVERSES.to_string());
    }
    // An action that uses a service of its own has the routing pattern
    // `*`: any host passes, so its routing is not checked.
    let mut unrouted: Vec<String> = Vec::new();
    for m in results {
        let Some(stage) = &m.stages.cache else { continue };
        for b in &stage.backends {
            let any_host = stage
                .pairs
                .iter()
                .filter(|pair| pair.backend == b.id)
                .any(|pair| pair.verification.as_ref().is_some_and(|v| v.routing.expected.as_str().trim() == "*"));
            let name = escape_markdown(b.name.as_str());
            if any_host && !unrouted.contains(&name) {
                unrouted.push(name);
            }
        }
    }
    if unrouted.is_empty() {
        text.push(CHECKS.to_string());
    } else {
        text.push(format!(
            "Identical random payload bytes across trials and backends on each runner; an empty local target before \
             restore, exact cache hit and SHA-256 checked, and backend routing except for {}, whose action uses a \
             service of its own (routing `*`: any host).",
            list(&unrouted)
        ));
    }
    text
}

/// Whether trial 2 ran the backends in trial 1's order reversed; `None`
/// where there is nothing to reverse.
fn reversed(stage: &CacheStage, p: &Parameters) -> Option<bool> {
    if stage.backends.len() < 2 || p.cache_trials < 2 {
        return None;
    }
    let order = |trial: u32| stage.pairs.iter().filter(|x| x.trial == trial).map(|x| &x.backend).collect::<Vec<_>>();
    let (one, two) = (order(1), order(2));
    Some(one.len() >= 2 && one.iter().eq(two.iter().rev()))
}

fn gap(results: &[&MeasuredResult], p: &Parameters, fingerprint: &str) -> Paragraph {
    let seconds = p.cache_publication_gap_s;
    if seconds == 0 {
        return vec![format!("Profile `{fingerprint}` has no publication gap."), GAP_SHARED[2].to_string()];
    }
    let restored: Vec<(&MeasuredResult, &CachePair)> = results
        .iter()
        .flat_map(|m| m.stages.cache.iter().flat_map(|c| &c.pairs).map(move |pair| (*m, pair)))
        .filter(|(_, pair)| pair.restore.is_some())
        .collect();
    // Where the gap was waited: the benchmark workflow's `gap-N` job waits
    // it before `restore-N`'s runner is allocated. Said only where every
    // restored trial records that job's success.
    let in_gap_jobs = !restored.is_empty()
        && restored.iter().all(|(m, pair)| {
            let job = format!("gap-{}", pair.trial);
            m.provenance
                .jobs
                .iter()
                .any(|j| j.job.as_str() == job && j.trial == Some(pair.trial) && j.conclusion == Conclusion::Success)
        });
    let gaps: Vec<f64> = restored.iter().filter_map(|(_, pair)| pair.publication_gap_s.map(|g| g.get())).collect();
    let first = if in_gap_jobs {
        format!(
            "Profile `{fingerprint}` waits {} after the save job finishes, before allocating its first restore runner.",
            counted(seconds, "second", "seconds")
        )
    } else if let Some(least) = gaps.iter().copied().reduce(f64::min) {
        let each = if gaps.len() == restored.len() { "each restore" } else { "each restore that records it" };
        format!(
            "Profile `{fingerprint}` has a publication gap of {}: at least {} passed between the save job's end and \
             {each}.",
            counted(seconds, "second", "seconds"),
            counted(least.floor() as u32, "second", "seconds")
        )
    } else {
        format!("Profile `{fingerprint}` has a publication gap of {}.", counted(seconds, "second", "seconds"))
    };
    let mut text = vec![first];
    text.extend(strings(&GAP_SHARED));
    text
}

/// A backend of one result and its pairs.
struct Backend<'a> {
    result: &'a MeasuredResult,
    kind: CacheKind,
    pairs: Vec<&'a CachePair>,
}

impl<'a> Backend<'a> {
    /// Its saves and restores.
    fn transfers(&self) -> impl Iterator<Item = &'a CacheTransfer> + '_ {
        self.pairs.iter().flat_map(|pair| std::iter::once(&pair.save).chain(pair.restore.as_ref()))
    }
}

/// The backends of `method` in `results`, in runner then backend order.
fn backends<'a>(results: &[&'a MeasuredResult], method: CacheMethod) -> Vec<Backend<'a>> {
    let mut out = Vec::new();
    for m in results {
        let Some(stage) = &m.stages.cache else { continue };
        for b in stage.backends.iter().filter(|b| method_of(stage, &b.id) == method) {
            let pairs = stage.pairs.iter().filter(|pair| pair.backend == b.id).collect();
            out.push(Backend { result: m, kind: b.kind, pairs });
        }
    }
    out
}

fn methods(results: &[&MeasuredResult], p: &Parameters) -> Vec<MethodText> {
    [CacheMethod::Client, CacheMethod::Action]
        .into_iter()
        .filter_map(|method| {
            let backends = backends(results, method);
            if backends.is_empty() {
                return None;
            }
            let text = match method {
                CacheMethod::Client => client(&backends, p),
                CacheMethod::Action => action(&backends),
            };
            Some(MethodText { method, text })
        })
        .collect()
}

fn client(backends: &[Backend<'_>], p: &Parameters) -> Paragraph {
    let kinds: BTreeSet<CacheKind> = backends.iter().map(|b| b.kind).collect();
    let archive = kinds.contains(&CacheKind::ArchiveService);
    let volume = kinds.contains(&CacheKind::AttachedVolume);
    let mut text = vec!["The collector's own client makes every transfer; no workflow action runs.".to_string()];
    let level = p.cache_zstd_level;
    text.push(match (archive, volume) {
        (true, true) => format!(
            "The collector writes archive-service archives itself, with zstd level {level} on one thread; \
             attached-volume transfers use one thread without compression."
        ),
        (true, false) => {
            format!("The collector writes archive-service archives itself, with zstd level {level} on one thread.")
        }
        _ => "Attached-volume transfers use one thread without compression.".to_string(),
    });
    let ran = by_runner(per_runner(backends, |transfers| Some(affinity(&affinities(transfers), "transfers"))));
    if !ran.is_empty() {
        text.push(format!("As recorded, the collector's transfers ran {ran}."));
    }
    if archive {
        text.push(
            "Each archive-service save is timed from the start of archiving to the end of the finalize call, and \
             each restore from the cache lookup to the end of extraction."
                .to_string(),
        );
    }
    if volume {
        text.push(
            "Each attached-volume save and restore is timed over the copy, including syncing every written file."
                .to_string(),
        );
    }
    text.push("No time includes node start-up or step transitions.".to_string());
    text.push(if archive {
        "MiB/s uses logical payload bytes, including compression/extraction for archive services.".to_string()
    } else {
        "MiB/s uses logical payload bytes.".to_string()
    });
    text
}

fn action(backends: &[Backend<'_>]) -> Paragraph {
    let mut text = Vec::new();
    let uses = |half: fn(&CachePair) -> Option<&CacheTransfer>| -> Vec<String> {
        let mut uses: Vec<String> = Vec::new();
        for t in backends.iter().flat_map(|b| b.pairs.iter().filter_map(|pair| half(pair))) {
            if let Some(a) = &t.action {
                let u = escape_markdown(&short_uses(a.uses.as_str()));
                if !uses.contains(&u) {
                    uses.push(u);
                }
            }
        }
        uses
    };
    let (saves, restores) = (uses(|pair| Some(&pair.save)), uses(|pair| pair.restore.as_ref()));
    match (saves.is_empty(), restores.is_empty()) {
        (false, false) => text.push(format!("Saves use {}; restores use {}.", list(&saves), list(&restores))),
        (false, true) => text.push(format!("Saves use {}.", list(&saves))),
        (true, false) => text.push(format!("Restores use {}.", list(&restores))),
        (true, true) => {}
    }

    let archives: Vec<&Backend<'_>> = backends.iter().filter(|b| b.kind == CacheKind::ArchiveService).collect();
    let volumes = backends.iter().any(|b| b.kind == CacheKind::AttachedVolume);
    let single = |b: &Backend<'_>| -> Vec<Observation> {
        b.transfers().filter_map(|t| t.action.as_ref()).map(|a| a.single_thread).collect()
    };
    let all_held = archives.iter().any(|b| !single(b).is_empty())
        && archives.iter().all(|b| single(b).iter().all(|o| *o == Observation::Held));
    if all_held && !volumes {
        text.push(PUBLISHED_THREADS.to_string());
    } else {
        if all_held {
            text.push("Archive services use zstd `--single-thread`.".to_string());
        } else if !archives.is_empty() {
            let observed = by_runner(per_runner(archives.iter().copied(), |transfers| {
                let s = seen(transfers.iter().filter_map(|t| t.action.as_ref()).map(|a| a.single_thread))?;
                Some(
                    match s {
                        Seen::Held => "forced to one thread in every observed run",
                        Seen::Failed => "not forced to one thread in every observed run",
                        Seen::NotObserved => "not observed",
                        Seen::Partly => "forced to one thread where observed, but not observed in every transfer",
                    }
                    .to_string(),
                )
            }));
            if !observed.is_empty() {
                text.push(format!("As observed, zstd in archive-service actions was {observed}."));
            }
        }
        if volumes {
            text.push("Whether attached-volume actions run on one thread is not observed.".to_string());
        }
    }

    // As published: on Linux and Windows every action transfer pinned and
    // inherited by every observed process; on macOS every one unpinned.
    let as_published = backends.iter().all(|b| {
        b.transfers().all(|t| {
            if b.result.machine.os.pins() {
                is_pinned(t.affinity) && t.action.as_ref().is_some_and(|a| a.affinity_inherited == Observation::Held)
            } else {
                !is_pinned(t.affinity)
            }
        })
    });
    if as_published {
        text.push(PUBLISHED_ACTION_AFFINITY.to_string());
    } else {
        let ran = by_runner(per_runner(backends, |transfers| {
            let pinned = affinity(&affinities(transfers), "transfers");
            if transfers.iter().all(|t| !is_pinned(t.affinity)) {
                return Some(pinned);
            }
            let observed = transfers.iter().filter_map(|t| t.action.as_ref()).map(|a| a.affinity_inherited);
            let inherited = match seen(observed) {
                Some(Seen::Held) => "inherited by every observed process",
                Some(Seen::Failed) => "not inherited by every observed process",
                Some(Seen::Partly) => "inherited where observed, but not observed in every transfer",
                Some(Seen::NotObserved) | None => "no process observed",
            };
            Some(format!("{pinned} ({inherited})"))
        }));
        if !ran.is_empty() {
            text.push(format!("As recorded, action steps ran {ran}."));
        }
    }
    text.push(ACTION_TIME.to_string());
    text
}

/// How an observation turned out across transfers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Observed in every transfer, and it held.
    Held,
    /// It failed at least once.
    Failed,
    /// Never observed.
    NotObserved,
    /// Held where observed, but not observed in every transfer.
    Partly,
}

fn seen(observations: impl Iterator<Item = Observation>) -> Option<Seen> {
    let all: Vec<Observation> = observations.collect();
    if all.is_empty() {
        return None;
    }
    Some(if all.contains(&Observation::Failed) {
        Seen::Failed
    } else if all.iter().all(|o| *o == Observation::Held) {
        Seen::Held
    } else if all.iter().all(|o| *o == Observation::NotObserved) {
        Seen::NotObserved
    } else {
        Seen::Partly
    })
}

/// `describe` of each runner's transfers (of the given backends), in
/// runner order; a runner `describe` says nothing of is left out.
fn per_runner<'a, 'b: 'a>(
    backends: impl IntoIterator<Item = &'a Backend<'b>>,
    describe: impl Fn(&[&CacheTransfer]) -> Option<String>,
) -> Vec<(String, String)> {
    let mut runners: Vec<(&MeasuredResult, Vec<&CacheTransfer>)> = Vec::new();
    for b in backends {
        match runners.iter_mut().find(|(m, _)| std::ptr::eq(*m, b.result)) {
            Some((_, transfers)) => transfers.extend(b.transfers()),
            None => runners.push((b.result, b.transfers().collect())),
        }
    }
    runners
        .into_iter()
        .filter(|(_, transfers)| !transfers.is_empty())
        .filter_map(|(m, transfers)| Some((label(m), describe(&transfers)?)))
        .collect()
}

fn affinities(transfers: &[&CacheTransfer]) -> Vec<Affinity> {
    transfers.iter().map(|t| t.affinity).collect()
}

fn is_pinned(a: Affinity) -> bool {
    matches!(a, Affinity::Pinned { .. })
}

/// The recorded affinity of a runner's samples or transfers (`what`).
fn affinity(list: &[Affinity], what: &str) -> String {
    let mut cpus: Vec<(u32, u32)> = Vec::new();
    for a in list {
        if let Affinity::Pinned { cpu, group } = *a
            && !cpus.contains(&(cpu, group))
        {
            cpus.push((cpu, group));
        }
    }
    let unpinned = list.iter().any(|a| !is_pinned(*a));
    let name = |(cpu, group): &(u32, u32)| format!("CPU {cpu} / group {group}");
    match (cpus.as_slice(), unpinned) {
        ([], _) => "unpinned".to_string(),
        ([one], false) => format!("pinned to {}", name(one)),
        (_, false) => {
            let names: Vec<String> = cpus.iter().map(name).collect();
            format!("pinned to one CPU at a time ({})", join(&names, " or "))
        }
        (_, true) => format!("pinned in some {what} and unpinned in others"),
    }
}

/// The distinct method a backend's pairs were measured with (`check`
/// allows one per backend); `client` for a backend without pairs.
pub(crate) fn method_of(stage: &CacheStage, backend: &Slug) -> CacheMethod {
    stage.pairs.iter().find(|pair| pair.backend == *backend).map_or(CacheMethod::Client, |pair| pair.method)
}

/// A backend's method as tables show it: `client`, or `action: ` and the
/// distinct `uses:` of its steps (`short_uses`).
pub(crate) fn method_label(stage: &CacheStage, backend: &Slug) -> String {
    match method_of(stage, backend) {
        CacheMethod::Client => CacheMethod::Client.name().to_string(),
        CacheMethod::Action => {
            let mut uses: Vec<String> = Vec::new();
            for pair in stage.pairs.iter().filter(|pair| pair.backend == *backend) {
                for t in std::iter::once(&pair.save).chain(pair.restore.as_ref()) {
                    if let Some(a) = &t.action {
                        let u = short_uses(a.uses.as_str());
                        if !uses.contains(&u) {
                            uses.push(u);
                        }
                    }
                }
            }
            if uses.is_empty() { "action".to_string() } else { format!("action: {}", uses.join(", ")) }
        }
    }
}

/// `owner/repo[/path]@commit` with a full commit shortened to 7 digits.
pub(crate) fn short_uses(uses: &str) -> String {
    match uses.rsplit_once('@') {
        Some((path, commit)) if commit.len() == 40 && commit.bytes().all(|c| c.is_ascii_hexdigit()) => {
            format!("{path}@{}", &commit[..7])
        }
        _ => uses.to_string(),
    }
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

/// The runner's label, escaped for the paragraph it goes into.
fn label(m: &MeasuredResult) -> String {
    escape_markdown(m.runner.label.as_str())
}

/// `n` in words (up to ten) with the noun: `one second`, `three files`;
/// seconds stay in digits, as the published wording writes them.
fn counted(n: u32, one: &str, many: &str) -> String {
    let number = if one == "second" { n.to_string() } else { count_word(n) };
    format!("{number} {}", if n == 1 { one } else { many })
}

/// `description on runners` for each description, runners sharing one
/// listed together: `pinned to CPU 1 / group 0 on a and b; unpinned on c`.
fn by_runner(items: Vec<(String, String)>) -> String {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    for (runner, description) in items {
        match grouped.iter_mut().find(|(d, _)| *d == description) {
            Some((_, runners)) => runners.push(runner),
            None => grouped.push((description, vec![runner])),
        }
    }
    let parts: Vec<String> = grouped.into_iter().map(|(d, runners)| format!("{d} on {}", list(&runners))).collect();
    parts.join("; ")
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    join(items, " and ")
}

fn join(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., tail] => format!("{}{last}{tail}", init.join(", ")),
    }
}

fn strings(sentences: &[&str]) -> Paragraph {
    sentences.iter().map(|s| s.to_string()).collect()
}
