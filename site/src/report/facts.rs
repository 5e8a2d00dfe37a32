//! What the wording of a measured report reads of each result (`Facts`):
//! a build keeps this of each runner's newest result for the provider
//! reports, not the parsed result, whose samples the sentences read only as
//! affinities and whose observed processes they never read.

use runner_bench_format::measured::{
    CacheKind, CacheMethod, CachePair, CacheStage, CacheTransfer, Conclusion, MeasuredResult, Observation,
};
use runner_bench_format::{Affinity, Parameters};

/// What the sentences of `protocol::measured` read of one measured result
/// (`of`): a
/// report keeps this of each runner's newest result, not the parsed
/// result, whose samples it reads only as affinities.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The runner's label.
    pub(super) label: String,
    pub(super) parameters: Parameters,
    pub(super) fingerprint: String,
    /// Whether the runner's OS pins threads (macOS does not).
    pub(super) pins: bool,
    /// The affinity of each CoreMark sample, where the stage ran.
    pub(super) cpu: Option<Vec<Affinity>>,
    /// Whether the disk stage ran.
    pub(super) disk: bool,
    /// Whether the internet stage ran.
    pub(super) internet: bool,
    pub(super) cache: Option<CacheFacts>,
}

impl Facts {
    /// What the sentences read of `m`.
    pub fn of(m: &MeasuredResult) -> Facts {
        Facts {
            label: m.runner.label.to_string(),
            parameters: m.parameters.clone(),
            fingerprint: m.fingerprint.to_string(),
            pins: m.machine.os.pins(),
            cpu: m.stages.cpu.as_ref().map(|c| c.samples.iter().map(|s| s.affinity).collect()),
            disk: m.stages.disk.is_some(),
            internet: m.stages.internet.is_some(),
            cache: m.stages.cache.as_ref().map(|c| CacheFacts::of(m, c)),
        }
    }
}

/// What the cache stage's sentences read of one result's cache stage
/// (`of`): a report keeps this of each runner's newest result, not the
/// parsed result, whose samples and observed processes it never reads.
#[derive(Debug, Clone)]
pub(super) struct CacheFacts {
    /// Whether trial 2 ran the backends in trial 1's order reversed, where
    /// the stage has two backends or more (`reversed`).
    pub(super) reversed: Option<bool>,
    /// Its backends, in the recorded order.
    pub(super) backends: Vec<BackendFacts>,
    /// Each pair with a restore, in the recorded order: whether its `gap-N`
    /// job records success (`gap`), and its publication gap.
    pub(super) restored: Vec<(bool, Option<f64>)>,
}

/// A backend and its pairs, in the recorded order.
#[derive(Debug, Clone)]
pub(super) struct BackendFacts {
    pub(super) name: String,
    pub(super) kind: CacheKind,
    /// The method its pairs were measured with (`cache_protocol::method_of`).
    pub(super) method: CacheMethod,
    /// Whether a pair's routing pattern is `*` (any host).
    pub(super) any_host: bool,
    pub(super) pairs: Vec<PairFacts>,
}

#[derive(Debug, Clone)]
pub(super) struct PairFacts {
    pub(super) save: TransferFacts,
    pub(super) restore: Option<TransferFacts>,
}

/// What the sentences read of a save or a restore.
#[derive(Debug, Clone)]
pub(super) struct TransferFacts {
    pub(super) affinity: Affinity,
    /// The action step's `uses:` and observations, where an action ran it.
    pub(super) action: Option<(String, Observation, Observation)>,
}

impl TransferFacts {
    fn of(t: &CacheTransfer) -> TransferFacts {
        TransferFacts {
            affinity: t.affinity,
            action: t.action.as_ref().map(|a| (a.uses.to_string(), a.single_thread, a.affinity_inherited)),
        }
    }

    pub(super) fn uses(&self) -> Option<&str> {
        self.action.as_ref().map(|a| a.0.as_str())
    }

    pub(super) fn single_thread(&self) -> Option<Observation> {
        self.action.as_ref().map(|a| a.1)
    }

    pub(super) fn affinity_inherited(&self) -> Option<Observation> {
        self.action.as_ref().map(|a| a.2)
    }
}

impl CacheFacts {
    /// What the sentences read of `stage`, a stage of `m`.
    pub(super) fn of(m: &MeasuredResult, stage: &CacheStage) -> CacheFacts {
        let backends = stage
            .backends
            .iter()
            .map(|b| {
                let pairs: Vec<&CachePair> = stage.pairs.iter().filter(|pair| pair.backend == b.id).collect();
                // (The method of its first pair: `check` allows one per
                // backend, as `cache_protocol::method_of` reads it.)
                BackendFacts {
                    name: b.name.to_string(),
                    kind: b.kind,
                    method: pairs.first().map_or(CacheMethod::Client, |pair| pair.method),
                    any_host: pairs.iter().any(|pair| {
                        pair.verification.as_ref().is_some_and(|v| v.routing.expected.as_str().trim() == "*")
                    }),
                    pairs: pairs
                        .iter()
                        .map(|pair| PairFacts {
                            save: TransferFacts::of(&pair.save),
                            restore: pair.restore.as_ref().map(TransferFacts::of),
                        })
                        .collect(),
                }
            })
            .collect();
        let restored = stage
            .pairs
            .iter()
            .filter(|pair| pair.restore.is_some())
            .map(|pair| {
                let job = format!("gap-{}", pair.trial);
                let in_gap_job = m.provenance.jobs.iter().any(|j| {
                    j.job.as_str() == job && j.trial == Some(pair.trial) && j.conclusion == Conclusion::Success
                });
                (in_gap_job, pair.publication_gap_s.map(|g| g.get()))
            })
            .collect();
        CacheFacts { reversed: reversed(stage), backends, restored }
    }
}

/// Whether trial 2 ran the backends in trial 1's order reversed; `None`
/// where there is nothing to reverse (one backend; `cache` also leaves out
/// a profile of one trial).
fn reversed(stage: &CacheStage) -> Option<bool> {
    if stage.backends.len() < 2 {
        return None;
    }
    let order = |trial: u32| stage.pairs.iter().filter(|x| x.trial == trial).map(|x| &x.backend).collect::<Vec<_>>();
    let (one, two) = (order(1), order(2));
    Some(one.len() >= 2 && one.iter().eq(two.iter().rev()))
}
