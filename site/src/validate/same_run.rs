//! The same run twice: what makes two files one run, so that a second copy
//! is refused whatever else changed (file name, attempt number, provider,
//! runner label).
//!
//! A run is identified by any of these, each a claim the first file (in
//! path order) holds and every later file that makes it is refused for:
//!
//! - the file's bytes (`sha256`);
//! - for a measured result, its samples: the `stages` section as a typed
//!   value (`digest`), when it holds at least one completed sample. Timings to
//!   the microsecond and OS instance ids do not repeat across two runs, so
//!   equal samples are a copy, whatever the rest of the file says;
//! - for a measured result, its OS instance and start: a known `boot_id`
//!   and `machine_id` (`Instance::same_as`) with the same `started_at`.
//!   One boot of one machine starts one collector run per second at most
//!   (the run pins CPUs and owns its disk folder);
//! - for a measured result of GitHub Actions, its GitHub run, attempt and
//!   runner label, as before;
//! - for an imported result, its document and runner label, and its
//!   document and figures (the `stages` section), so that one runner's row
//!   cannot be imported again under another label or provider.

use runner_bench_format::AnyResult;
use runner_bench_format::measured::{MeasuredResult, Stages, Status};
use sha2::{Digest, Sha256};

use super::digest;

/// One identity of a run: the key two copies share (the SHA-256 of its
/// text, e.g. `sha256 …`, made here on the file's own CPU so that the
/// check's one serial pass over every file only looks it up), and which
/// identity it is, with what its report quotes of the run. The report's
/// text is made only where a second copy is reported (`reason`): made for
/// every claim of every file, it was most of the claims' memory at the
/// check's peak.
#[derive(Debug)]
pub(super) struct Claim {
    pub(super) key: [u8; 32],
    pub(super) kind: Kind,
}

/// Which identity a claim is (see the module's list).
#[derive(Debug)]
pub(super) enum Kind {
    /// The file's bytes.
    Content,
    /// A measured run's GitHub run and attempt, and its runner's label.
    GithubRun { run_id: u64, attempt: u32, runner: Box<str> },
    /// A measured run's samples.
    Samples,
    /// A measured run's OS instance (its boot id) and start.
    Instance { boot_id: Box<str>, started_at: Box<str> },
    /// An imported runner's document, and the runner's label.
    ImportedRunner { runner: Box<str> },
    /// An imported runner's document and figures.
    ImportedFigures,
}

impl Claim {
    /// The field a second copy is reported at.
    pub(super) fn field(&self) -> &'static str {
        match self.kind {
            Kind::Content => "$",
            Kind::GithubRun { .. } => "$.provenance.github.run_id",
            Kind::Samples => "$.stages",
            Kind::Instance { .. } => "$.machine.instance.boot_id",
            Kind::ImportedRunner { .. } => "$.source.document_sha256",
            Kind::ImportedFigures => "$.stages",
        }
    }

    /// What the report of a second copy says before the first file's name.
    pub(super) fn reason(&self) -> String {
        match &self.kind {
            Kind::Content => "has the same content as".into(),
            Kind::GithubRun { run_id, attempt, runner } => {
                format!("GitHub run {run_id} attempt {attempt} of runner {runner} is already claimed by")
            }
            Kind::Samples => "has the same samples as".into(),
            Kind::Instance { boot_id, started_at } => {
                format!("OS instance {boot_id} started this run at {started_at}, as it did the run of")
            }
            Kind::ImportedRunner { runner } => format!("runner {runner} of this document is already imported by"),
            Kind::ImportedFigures => "has the same figures from the same document as".into(),
        }
    }
}

/// The identities of a result whose bytes hash to `sha`.
pub(super) fn claims(result: &AnyResult, sha: &str) -> Vec<Claim> {
    let mut claims = vec![Claim { key: key(format!("sha256 {sha}")), kind: Kind::Content }];
    match result {
        AnyResult::Measured(m) => {
            if let Some(g) = &m.provenance.github {
                claims.push(Claim {
                    key: key(format!("github {} {} {}", g.run_id, g.run_attempt, m.runner.label)),
                    kind: Kind::GithubRun {
                        run_id: g.run_id,
                        attempt: g.run_attempt,
                        runner: m.runner.label.as_str().into(),
                    },
                });
            }
            if let Some(key) = samples_key(&m.stages) {
                claims.push(Claim { key, kind: Kind::Samples });
            }
            claims.extend(instance_claim(m));
        }
        AnyResult::Imported(i) => {
            claims.push(Claim {
                key: key(format!("imported {} {}", i.source.document_sha256, i.runner.label)),
                kind: Kind::ImportedRunner { runner: i.runner.label.as_str().into() },
            });
            let s = &i.stages;
            let figures = s.cpu.is_some()
                || s.cache.as_ref().is_some_and(|c| !c.backends.is_empty())
                || s.disk.as_ref().is_some_and(|d| d.read_mib_per_s.is_some() || d.rand_read_iops.is_some())
                || s.internet.as_ref().is_some_and(|n| n.download_mbps.is_some())
                || s.http_cache.as_ref().is_some_and(|h| h.tables.iter().any(|t| !t.rows.is_empty()));
            if figures {
                claims.push(Claim {
                    key: digest::key(&format!("imported-figures {}", i.source.document_sha256), s),
                    kind: Kind::ImportedFigures,
                });
            }
        }
    }
    claims
}

/// A claim's key: the SHA-256 of its text.
fn key(text: String) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// The key of `stages` as a value (`digest`), where at least one sample
/// completed (failures alone may well repeat word for word).
fn samples_key(stages: &Stages) -> Option<[u8; 32]> {
    let ok = |s: Status| s == Status::Ok;
    let completed = stages.cpu.as_ref().is_some_and(|c| c.samples.iter().any(|s| ok(s.status)))
        || stages.disk.as_ref().is_some_and(|d| d.samples.iter().any(|s| ok(s.status)))
        || stages.cache.as_ref().is_some_and(|c| c.pairs.iter().any(|p| ok(p.save.status)))
        || stages.internet.as_ref().is_some_and(|n| {
            n.download.iter().chain(&n.upload).any(|s| ok(s.status)) || n.request.iter().any(|s| ok(s.status))
        })
        || stages.http_cache.as_ref().is_some_and(|h| h.runs.iter().any(|r| ok(r.put.status) || ok(r.get.status)));
    // The typed value, not the file's text: blind to whitespace, key order
    // and number spelling.
    completed.then(|| digest::key("samples", stages))
}

/// The OS instance and start of a measured run, where the instance is known.
fn instance_claim(m: &MeasuredResult) -> Option<Claim> {
    let instance = &m.machine.instance;
    (instance.same_as(instance) == Some(true)).then(|| Claim {
        key: key(format!("instance {} {} {}", instance.boot_id, instance.machine_id, m.provenance.started_at)),
        kind: Kind::Instance {
            boot_id: instance.boot_id.as_str().into(),
            started_at: m.provenance.started_at.as_str().into(),
        },
    })
}
