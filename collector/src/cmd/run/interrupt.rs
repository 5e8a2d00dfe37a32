//! What `collector run` writes when a signal interrupts it (Ctrl-C, SIGINT,
//! SIGTERM, SIGHUP; Ctrl-C, Ctrl-Break or a closed console on Windows): the
//! result file as last saved, plus a notice naming the interruption and the
//! stage it stopped, and that stage's sample in progress as an error. The
//! samples that never started are not invented: the file shows them as
//! missing, and `site check` refuses the run as incomplete.
//!
//! The journal is the one copy of the result that the interruption handler
//! (another thread) can see. Saving and recording the interruption hold the
//! same lock, so the two never write the file at once.

use std::sync::{Mutex, MutexGuard, PoisonError};

use runner_bench_format::measured::{
    INTERRUPTED_NOTICE, INTERRUPTED_SAMPLE, RequestSample, Stages, Status, TransferSample,
};
use runner_bench_format::{Affinity, MeasuredResult, Message, Name, NonNeg, Notice};

use crate::result::output::ResultWriter;
use crate::stage::StageKind;

struct State {
    writer: ResultWriter,
    /// The result as last written.
    result: MeasuredResult,
    /// The stage running now, and that stage with no samples, for an
    /// interruption before its first sample is saved.
    stage: Option<(StageKind, Stages)>,
    /// The affinity samples are measured under, for the sample in progress
    /// (the handler's own thread is not the measuring one).
    affinity: Affinity,
}

static JOURNAL: Mutex<Option<State>> = Mutex::new(None);

fn journal() -> MutexGuard<'static, Option<State>> {
    // A panic elsewhere while saving leaves the last good copy: keep using it.
    JOURNAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `collector run`'s handle on the journal; dropping it ends the journal.
pub struct Journal(());

impl Journal {
    /// Starts the journal of the run that `writer` writes.
    pub fn start(writer: ResultWriter, result: &MeasuredResult, affinity: Affinity) -> Self {
        *journal() = Some(State { writer, result: result.clone(), stage: None, affinity });
        Journal(())
    }

    /// Stamps the end time and replaces the file with `result`.
    pub fn save(&self, result: &mut MeasuredResult) -> anyhow::Result<()> {
        let mut guard = journal();
        // Present while a `Journal` lives; after an interruption is recorded
        // the lock is never released, and this waits for the exit.
        let Some(state) = guard.as_mut() else { return Ok(()) };
        state.writer.write_result(result)?;
        state.result = result.clone();
        Ok(())
    }

    /// `kind` runs from now on; `empty` holds it with no samples.
    pub fn stage_start(&self, kind: StageKind, empty: Stages) {
        if let Some(state) = journal().as_mut() {
            state.stage = Some((kind, empty));
        }
    }

    /// No stage runs until the next `stage_start`.
    pub fn stage_end(&self) {
        if let Some(state) = journal().as_mut() {
            state.stage = None;
        }
    }

    pub fn path(&self) -> std::path::PathBuf {
        journal().as_ref().map(|s| s.writer.path().to_path_buf()).unwrap_or_default()
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        journal().take();
    }
}

/// For the interruption handler: writes the interrupted run's result, if a
/// run is in progress, and says what it recorded. The journal stays locked
/// afterwards, so the main thread can neither overwrite the file nor finish
/// the run with status 0 before the handler exits.
pub fn record() -> Option<String> {
    let mut guard = journal();
    let state = guard.as_mut()?;
    let mut result = state.result.clone();
    let stage = state.stage.as_ref().map_or("collector", |(kind, _)| kind.name());
    let what = format!("{stage}: {}", mark(&mut result, state.stage.as_ref(), state.affinity));
    let line = match state.writer.write_result(&mut result) {
        Ok(()) => format!("{what}; {} records it", state.writer.path().display()),
        Err(e) => format!("{what}, but {} could not be rewritten: {e:#}", state.writer.path().display()),
    };
    std::mem::forget(guard);
    Some(line)
}

/// Adds the interruption to `result`: the sample in progress of `stage` as
/// an error and a notice. Returns the notice's text.
fn mark(result: &mut MeasuredResult, stage: Option<&(StageKind, Stages)>, affinity: Affinity) -> String {
    let Some((kind, empty)) = stage else {
        let text = format!("{INTERRUPTED_NOTICE} between stages; the stages after it did not run");
        result.notices.push(Notice { stage: Name::lossy("collector"), message: Message::lossy(&text) });
        return text;
    };
    // A stage interrupted before its first sample was saved is not yet in
    // the result.
    let stages = &mut result.stages;
    stages.cpu = stages.cpu.take().or_else(|| empty.cpu.clone());
    stages.cpu_allcore = stages.cpu_allcore.take().or_else(|| empty.cpu_allcore.clone());
    stages.disk = stages.disk.take().or_else(|| empty.disk.clone());
    stages.internet = stages.internet.take().or_else(|| empty.internet.clone());
    stages.http_cache = stages.http_cache.take().or_else(|| empty.http_cache.clone());
    let params = &result.parameters;
    let interrupted = || Some(Message::lossy(INTERRUPTED_SAMPLE));
    // The sample in progress is the first one not yet recorded: (its name,
    // its number, how many were requested).
    let slot: Option<(&str, usize, u32)> = match kind {
        StageKind::Cpu => result.stages.cpu.as_mut().and_then(|stage| {
            let k = stage.samples.len() + 1;
            (k <= params.cpu_samples as usize).then(|| {
                let affinity = stage.samples.last().map_or(affinity, |s| s.affinity);
                stage.samples.push(crate::stage::cpu::failed(Status::Error, INTERRUPTED_SAMPLE, affinity));
                ("sample", k, params.cpu_samples)
            })
        }),
        StageKind::CpuAllCore => result.stages.cpu_allcore.as_mut().and_then(|stage| {
            let k = stage.samples.len() + 1;
            (k <= params.cpu_samples as usize).then(|| {
                let contexts =
                    stage.samples.last().map_or_else(crate::platform::affinity::offered_cpus, |s| s.contexts);
                stage.samples.push(crate::stage::cpu_allcore::failed(Status::Error, INTERRUPTED_SAMPLE, contexts));
                ("sample", k, params.cpu_samples)
            })
        }),
        StageKind::Disk => result.stages.disk.as_mut().and_then(|stage| {
            let k = stage.samples.len() + 1;
            (k <= params.disk_samples as usize).then(|| {
                let affinity = stage.samples.last().map_or(affinity, |s| s.affinity);
                stage.samples.push(crate::stage::disk::failed(Status::Error, INTERRUPTED_SAMPLE, affinity));
                ("sample", k, params.disk_samples)
            })
        }),
        StageKind::Internet => result.stages.internet.as_mut().and_then(|stage| {
            let transfer = || TransferSample {
                status: Status::Error,
                message: interrupted(),
                bytes: 0,
                seconds: NonNeg::default(),
            };
            let (n, requests) = (params.internet_samples, params.internet_request_samples);
            if stage.download.len() < n as usize {
                stage.download.push(transfer());
                Some(("download sample", stage.download.len(), n))
            } else if stage.upload.len() < n as usize {
                stage.upload.push(transfer());
                Some(("upload sample", stage.upload.len(), n))
            } else if stage.request.len() < requests as usize {
                stage.request.push(RequestSample { status: Status::Error, message: interrupted(), ms: None });
                Some(("request sample", stage.request.len(), requests))
            } else {
                None
            }
        }),
        StageKind::HttpCache => result.stages.http_cache.as_mut().and_then(|stage| {
            // The cells in the order the stage runs them (entry size, then
            // connections); the first not recorded was in progress.
            let cells: Vec<(u64, u32)> = params
                .http_cache_value_bytes
                .iter()
                .flat_map(|&b| params.http_cache_connections.iter().map(move |&c| (b, c)))
                .collect();
            let k = stage.runs.len() + 1;
            let &cell = cells.get(k - 1)?;
            let declared = stage.server.declared.clone().unwrap_or_default();
            let phase = || crate::stage::http_cache::interrupted_phase(INTERRUPTED_SAMPLE);
            stage.runs.push(crate::stage::http_cache::new_run(&declared, cell, phase(), phase()));
            Some(("run", k, u32::try_from(cells.len()).unwrap_or(u32::MAX)))
        }),
        // `collector run` runs no other stage.
        StageKind::Cache => None,
    };
    let text = match slot {
        Some((what, k, n)) => format!(
            "{INTERRUPTED_NOTICE} during {what} {k} of {n}, which is recorded as not completed; the samples and \
             stages after it did not run"
        ),
        None => format!("{INTERRUPTED_NOTICE} after the stage's last sample; the stages after it did not run"),
    };
    result.notices.push(Notice { stage: Name::lossy(kind.name()), message: Message::lossy(&text) });
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::golden;

    fn internet(r: &MeasuredResult) -> Stages {
        Stages { internet: r.stages.internet.clone(), ..Stages::default() }
    }

    #[test]
    fn the_internet_sample_in_progress_is_the_first_one_not_recorded() {
        let mut r = golden();
        let net = r.stages.internet.as_mut().unwrap();
        net.upload.truncate(1);
        net.request.clear();
        let empty = internet(&r);
        let text = mark(&mut r, Some(&(StageKind::Internet, empty)), Affinity::Unpinned);
        assert_eq!(
            text,
            "interrupted by a signal during upload sample 2 of 3, which is recorded as not completed; the samples and \
             stages after it did not run"
        );
        let net = r.stages.internet.as_ref().unwrap();
        assert_eq!((net.download.len(), net.upload.len(), net.request.len()), (3, 2, 0));
        assert_eq!(net.upload[1].message.as_ref().unwrap().as_str(), INTERRUPTED_SAMPLE);
        assert_eq!(r.notices.last().unwrap().stage.as_str(), "internet");
        assert_eq!(r.problems(), vec![]);
    }

    #[test]
    fn a_stage_interrupted_before_its_first_sample_gets_that_sample_alone() {
        let mut r = golden();
        let empty =
            Stages { cpu: Some(runner_bench_format::measured::CpuStage { samples: Vec::new() }), ..internet(&r) };
        r.stages.cpu = None;
        let pinned = Affinity::Pinned { cpu: 3, group: 0 };
        mark(&mut r, Some(&(StageKind::Cpu, empty)), pinned);
        let cpu = r.stages.cpu.unwrap();
        assert_eq!(cpu.samples.len(), 1);
        assert_eq!((cpu.samples[0].status, cpu.samples[0].affinity), (Status::Error, pinned));
    }

    #[test]
    fn the_http_cache_run_in_progress_is_the_next_cell_of_the_grid() {
        use runner_bench_format::measured::{HttpCacheDeclared, HttpCacheServer, HttpCacheStage};
        let mut r = golden();
        r.stages.http_cache = None;
        let declared = HttpCacheDeclared { backend: Some(Name::lossy("filesystem")), ..HttpCacheDeclared::default() };
        let stage = HttpCacheStage {
            server: HttpCacheServer {
                url: Name::lossy("http://127.0.0.1:1/"),
                software: Name::lossy("undeclared"),
                conditions: Vec::new(),
                protocol: None,
                observed: None,
                declared: Some(declared),
            },
            runs: Vec::new(),
        };
        let empty = Stages { http_cache: Some(stage), ..Stages::default() };
        let text = mark(&mut r, Some(&(StageKind::HttpCache, empty)), Affinity::Unpinned);
        let params = &r.parameters;
        let cells = params.http_cache_value_bytes.len() * params.http_cache_connections.len();
        assert_eq!(
            text,
            format!(
                "interrupted by a signal during run 1 of {cells}, which is recorded as not completed; the samples and \
                 stages after it did not run"
            )
        );
        let run = &r.stages.http_cache.as_ref().unwrap().runs[0];
        assert_eq!(
            (run.value_bytes, run.connections),
            (params.http_cache_value_bytes[0], params.http_cache_connections[0])
        );
        assert_eq!(run.backend.as_str(), "filesystem");
        for phase in [&run.put, &run.get] {
            assert_eq!((phase.status, phase.message.as_ref().unwrap().as_str()), (Status::Error, INTERRUPTED_SAMPLE));
        }
        assert_eq!(r.problems(), vec![]);
    }

    #[test]
    fn after_a_stages_last_sample_or_between_stages_no_sample_is_added() {
        let mut r = golden();
        let before = r.stages.clone();
        let text = mark(&mut r, Some(&(StageKind::Internet, internet(&golden()))), Affinity::Unpinned);
        assert_eq!(text, "interrupted by a signal after the stage's last sample; the stages after it did not run");
        let text = mark(&mut r, None, Affinity::Unpinned);
        assert_eq!(text, "interrupted by a signal between stages; the stages after it did not run");
        assert_eq!(r.stages, before);
        assert_eq!(r.notices.last().unwrap().stage.as_str(), "collector");
    }
}
