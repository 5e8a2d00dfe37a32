//! What a report's sentences are made of: the paragraphs of a report's
//! protocol text, the published sentences that measured results share word
//! for word where they are true, and the small helpers that put names and
//! counts into words.

use runner_bench_format::Affinity;
use runner_bench_format::measured::CacheMethod;
use serde::Serialize;

use crate::figures::escape_markdown;

/// The sentences of one paragraph, which the template joins with spaces.
pub type Paragraph = Vec<String>;

/// What a group's report says about how it was measured, paragraph by
/// paragraph. A stage the group lacks has no sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProtocolText {
    /// CoreMark: the workload, then affinity. Empty where the report says
    /// it once, above every group (see `assemble::build_view`).
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
pub(super) const HIGHER_IS_BETTER: &str = "Higher iterations/s is better.";
pub(super) const PUBLISHED_PINNING: [&str; 2] = [
    "Linux/Windows require hard affinity to one logical CPU.",
    "macOS is explicitly **unpinned**: its one thread may migrate between CPUs.",
];
pub(super) const NOT_ONLY_THE_RUNNER: &str = "These are runner + compiler measurements; VM host scheduling, other workloads, turbo, and image updates can affect them.";
pub(super) const CACHE_BYPASS: &str = "OS file-cache bypass is required; write timings include the final flush.";
pub(super) const FULLY_VERIFIED: &str = "Medians across fully verified samples.";
pub(super) const INCOMPLETE_VISIBLE: &str =
    "Incomplete results remain visible and are excluded from complete-sample comparisons.";
pub(super) const PUBLISHED_PAIRS: &str =
    "Protocol 2 and later measure three unique-key save/restore pairs per backend.";
pub(super) const SEPARATE_JOB: &str =
    "Each trial restores in a separate runner job after the save job completes; reused save OS instances are rejected.";
pub(super) const ORDER_REVERSES: &str = "Backend order reverses on trial two.";
pub(super) const PUBLISHED_THREADS: &str =
    "Archive services use zstd `--single-thread`; attached-volume transfers use one thread without compression.";
pub(super) const PUBLISHED_ACTION_AFFINITY: &str =
    "Linux/Windows action processes inherit one-CPU affinity; macOS is unpinned.";
pub(super) const CHECKS: &str = "Identical random payload bytes across trials and backends on each runner; an empty local target before restore, exact cache hit, SHA-256 and backend routing checked.";
pub(super) const ACTION_TIME: &str = "Each time includes the action and adjacent step transitions; MiB/s uses logical payload bytes, including compression/extraction for archive services.";
pub(super) const GAP_SHARED: [&str; 3] = [
    "All providers use this publication gap; it is excluded from transfer speeds.",
    "It gives cache publication time to settle but does not guarantee cache availability.",
    "Misses remain failures; there are no retries or payload fallbacks.",
];
pub(super) const INTERNET_TAIL: [&str; 4] = [
    "Mbps uses decimal megabits.",
    "Zero-byte HTTPS request time includes connection/TLS/DNS overhead and is not ICMP RTT.",
    "Compare only results using the same endpoint and payload size.",
    "Unavailable tests have no speed score.",
];

/// The runner's label, escaped for the paragraph it goes into.
pub(super) fn label(runner: &str) -> String {
    escape_markdown(runner)
}

/// `n` in words (up to ten) with the noun: `one second`, `three files`;
/// seconds stay in digits, as the published wording writes them.
pub(super) fn counted(n: u32, one: &str, many: &str) -> String {
    let number = if one == "second" { n.to_string() } else { count_word(n) };
    format!("{number} {}", if n == 1 { one } else { many })
}

/// `description on runners` for each description, runners sharing one
/// listed together: `pinned to CPU 1 / group 0 on a and b; unpinned on c`.
pub(super) fn by_runner(items: Vec<(String, String)>) -> String {
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
pub(super) fn list(items: &[String]) -> String {
    join(items, " and ")
}

fn join(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., tail] => format!("{}{last}{tail}", init.join(", ")),
    }
}

pub(super) fn strings(sentences: &[&str]) -> Paragraph {
    sentences.iter().map(|s| s.to_string()).collect()
}

/// Small counts in words, as the reports' wording uses them.
pub(super) fn count_word(n: u32) -> String {
    const WORDS: [&str; 11] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    WORDS.get(n as usize).map_or_else(|| n.to_string(), |w| w.to_string())
}

/// Whether a sample or transfer ran pinned to one CPU.
pub(super) fn is_pinned(a: Affinity) -> bool {
    matches!(a, Affinity::Pinned { .. })
}

/// The recorded affinity of a runner's samples or transfers (`what`).
pub(super) fn affinity(list: &[Affinity], what: &str) -> String {
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
