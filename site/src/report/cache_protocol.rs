//! What a measured report says about its cache stage: the pairs, jobs,
//! payload and checks, the publication gap, and per method what a
//! transfer's time includes, made from what each file records (see
//! `protocol` for how these sentences relate to the published wording).

use std::collections::BTreeSet;

use runner_bench_format::measured::{CacheKind, CacheMethod, CacheStage, Observation};
use runner_bench_format::{Affinity, Parameters, Slug};

use super::facts::{Facts, PairFacts, TransferFacts};
use super::sentence::{
    ACTION_TIME, CHECKS, GAP_SHARED, MethodText, ORDER_REVERSES, PUBLISHED_ACTION_AFFINITY, PUBLISHED_PAIRS,
    PUBLISHED_THREADS, Paragraph, SEPARATE_JOB, affinity, by_runner, counted, is_pinned, label, list, strings,
};
use crate::figures::escape_markdown;

pub(super) fn cache(results: &[&Facts], p: &Parameters, fingerprint: &str) -> Paragraph {
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
    let reversals: Vec<bool> =
        results.iter().filter_map(|m| m.cache.as_ref()?.reversed.filter(|_| p.cache_trials >= 2)).collect();
    if !reversals.is_empty() && reversals.iter().all(|r| *r) {
        text.push(ORDER_REVERSES.to_string());
    }
    // An action that uses a service of its own has the routing pattern
    // `*`: any host passes, so its routing is not checked.
    let mut unrouted: Vec<String> = Vec::new();
    for m in results {
        let Some(stage) = &m.cache else { continue };
        for b in &stage.backends {
            let name = escape_markdown(&b.name);
            if b.any_host && !unrouted.contains(&name) {
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

pub(super) fn gap(results: &[&Facts], p: &Parameters, fingerprint: &str) -> Paragraph {
    let seconds = p.cache_publication_gap_s;
    if seconds == 0 {
        return vec![format!("Profile `{fingerprint}` has no publication gap."), GAP_SHARED[2].to_string()];
    }
    let restored: Vec<(bool, Option<f64>)> =
        results.iter().flat_map(|m| m.cache.iter().flat_map(|c| c.restored.iter().copied())).collect();
    // Where the gap was waited: the benchmark workflow's `gap-N` job waits
    // it before `restore-N`'s runner is allocated. Said only where every
    // restored trial records that job's success.
    let in_gap_jobs = !restored.is_empty() && restored.iter().all(|(in_gap_job, _)| *in_gap_job);
    let gaps: Vec<f64> = restored.iter().filter_map(|(_, gap)| *gap).collect();
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
    result: &'a Facts,
    kind: CacheKind,
    pairs: &'a [PairFacts],
}

impl<'a> Backend<'a> {
    /// Its saves and restores.
    fn transfers(&self) -> impl Iterator<Item = &'a TransferFacts> + '_ {
        self.pairs.iter().flat_map(|pair| std::iter::once(&pair.save).chain(pair.restore.as_ref()))
    }
}

/// The backends of `method` in `results`, in runner then backend order.
fn backends<'a>(results: &[&'a Facts], method: CacheMethod) -> Vec<Backend<'a>> {
    let mut out = Vec::new();
    for m in results {
        let Some(stage) = &m.cache else { continue };
        for b in stage.backends.iter().filter(|b| b.method == method) {
            out.push(Backend { result: m, kind: b.kind, pairs: &b.pairs });
        }
    }
    out
}

pub(super) fn methods(results: &[&Facts], p: &Parameters) -> Vec<MethodText> {
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
    let uses = |half: fn(&PairFacts) -> Option<&TransferFacts>| -> Vec<String> {
        let mut uses: Vec<String> = Vec::new();
        for t in backends.iter().flat_map(|b| b.pairs.iter().filter_map(|pair| half(pair))) {
            if let Some(a) = t.uses() {
                let u = escape_markdown(&short_uses(a));
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
    let single =
        |b: &Backend<'_>| -> Vec<Observation> { b.transfers().filter_map(TransferFacts::single_thread).collect() };
    let all_held = archives.iter().any(|b| !single(b).is_empty())
        && archives.iter().all(|b| single(b).iter().all(|o| *o == Observation::Held));
    if all_held && !volumes {
        text.push(PUBLISHED_THREADS.to_string());
    } else {
        if all_held {
            text.push("Archive services use zstd `--single-thread`.".to_string());
        } else if !archives.is_empty() {
            let observed = by_runner(per_runner(archives.iter().copied(), |transfers| {
                let s = seen(transfers.iter().filter_map(|t| t.single_thread()))?;
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
            if b.result.pins {
                is_pinned(t.affinity) && t.affinity_inherited() == Some(Observation::Held)
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
            let observed = transfers.iter().filter_map(|t| t.affinity_inherited());
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
    describe: impl Fn(&[&TransferFacts]) -> Option<String>,
) -> Vec<(String, String)> {
    let mut runners: Vec<(&Facts, Vec<&TransferFacts>)> = Vec::new();
    for b in backends {
        match runners.iter_mut().find(|(m, _)| std::ptr::eq(*m, b.result)) {
            Some((_, transfers)) => transfers.extend(b.transfers()),
            None => runners.push((b.result, b.transfers().collect())),
        }
    }
    runners
        .into_iter()
        .filter(|(_, transfers)| !transfers.is_empty())
        .filter_map(|(m, transfers)| Some((label(&m.label), describe(&transfers)?)))
        .collect()
}

fn affinities(transfers: &[&TransferFacts]) -> Vec<Affinity> {
    transfers.iter().map(|t| t.affinity).collect()
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
