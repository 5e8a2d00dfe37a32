//! What a build makes of each accepted result as the check hands it over
//! (`validate::KeepAccepted`, on the CPU that checked it): its model entry,
//! and what a provider report reads of it. A build thus never holds every
//! parsed result, and never goes over them a second time.
//!
//! `site build` streams (`validate::StreamAccepted`): the layout puts each
//! result in its runner's folder (`layout`), and the check visits the
//! folders one after another, so it finishes one runner's results (and one
//! provider's) before the next one's. As it finishes each runner, the
//! runner's page is drafted, its plot and result files written, the flags
//! of its history kept, and the results that the comparison tables show
//! picked (`model::picks`); each entry is then replaced by what the pages
//! made after the check read (`Entry::summary`), so that the build never
//! holds every whole entry. The drafted pages are written when the check
//! finishes their provider, whose name they show. A result of a runner or
//! provider already finished is an error of the build (the check's order
//! is what the streaming relies on, and is checked as it goes). Pages
//! written before the check has judged every file are removed again where
//! it fails (`output`), as a failed check stops the build.
//!
//! `site serve` keeps whole entries between builds (`memo`), and makes
//! every page after the check, whose failure leaves the last build's site.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::inputs::PageInputs;
use super::memo::Memo;
use super::options::Options;
use super::runner_pages::{Draft, PAGES_AT_ONCE, drafts, finish_drafts};
use super::site::{Body, Emit, Site};
use crate::Run;
use crate::model::{self, Entry, Picks, changes::Changes};
use crate::validate::{KeepAccepted, StreamAccepted};

/// An accepted result's model entry and its file, published as submitted.
struct EntryAndFile {
    entry: Arc<Entry>,
    file: (String, Body),
}

/// What the check holds of each accepted result to its end
/// (`Intake::take`): the entry and file, or nothing where a streaming
/// intake took them. Boxed, so that the check holds a pointer per file.
pub struct AcceptedResult(Option<Box<EntryAndFile>>);

/// What a build needs of the accepted results, in path order: their model
/// entries and files, what the provider reports read of the results
/// (`report::ReportRuns`), and what a streaming intake made as the check
/// went.
pub struct Accepted {
    pub(super) entries: Vec<Arc<Entry>>,
    pub(super) copies: Vec<(String, Body)>,
    /// How many result files the build publishes (`copies`, or those a
    /// streaming intake wrote).
    pub(super) result_files: usize,
    pub(super) report_runs: Vec<crate::report::ReportRun>,
    pub(super) streamed: Option<Streamed>,
}

/// What a streaming intake made as the check went: the runner pages are
/// written; these are what the rest of the build reads.
pub(super) struct Streamed {
    /// The inputs of every page, or why they could not be read (a build
    /// reports it after the check, as one that does not stream).
    pub(super) inputs: anyhow::Result<PageInputs>,
    /// Each entry's change flags.
    pub(super) changes: Changes,
    /// The results the comparison tables show.
    pub(super) picks: Picks,
}

/// Takes each accepted result as the check hands it over.
pub struct Intake<'a> {
    stale_before: jiff::Timestamp,
    now: jiff::Timestamp,
    /// `site serve`'s entries of the last build.
    cache: Option<&'a model::EntryCache>,
    reports: crate::report::ReportRuns,
    /// The newest server tables per runner and server, where no memo keeps
    /// the entries whole (`site serve` does: a rebuild may make an older
    /// result a server's newest).
    server_tables: Option<model::ServerTables>,
    stream: Option<Stream<'a>>,
    /// Each provider file's `name` by provider id: a result that names no
    /// provider is shown under it rather than under the bare id.
    provider_names: BTreeMap<String, String>,
}

/// A streaming intake's pages and entries.
struct Stream<'a> {
    inputs: anyhow::Result<PageInputs>,
    /// Entries made and not yet accepted by the pass across files, by path.
    pending: Mutex<HashMap<String, EntryAndFile>>,
    state: Mutex<Streaming<'a>>,
}

struct Streaming<'a> {
    emit: Emit<'a>,
    /// Accepted entries, in path order, of the runner the check may not
    /// have finished.
    open: Vec<EntryAndFile>,
    /// Entries of finished runners, in path order, each keeping what the
    /// pages after the check read (`Entry::summary`).
    done: Vec<Arc<Entry>>,
    changes: Changes,
    picks: Picks,
    /// The first error in making or writing a page: the build reports it.
    error: Option<anyhow::Error>,
    /// The provider whose runners are being finished, and where its
    /// entries start in `done`.
    provider: Option<(String, usize)>,
    /// Its finished runners' pages, drafted: a runner page names the
    /// provider, whose name is its last result's (`Model::providers`).
    drafts: Vec<Draft>,
    /// How many entries were done when freed pages were last handed back.
    purged_at: usize,
    /// The runners and providers finished so far: the check must not hand
    /// over another result of one of them (`Streaming::finish_in_order`).
    finished_runners: HashSet<(String, String)>,
    finished_providers: HashSet<String>,
}

/// How many results a build finishes between handing freed pages back.
const PURGE_EVERY: usize = 2048;

impl<'a> Intake<'a> {
    /// An intake for a build with `opts`, reusing the entries of `memo`.
    pub fn new(opts: &Options, memo: Option<&'a Memo>) -> Intake<'a> {
        let stale_before = opts.now - jiff::SignedDuration::from_hours(24 * i64::from(opts.stale_days));
        Intake {
            stale_before,
            now: opts.now,
            cache: memo.map(|m| &m.entries),
            reports: Default::default(),
            server_tables: memo.is_none().then(model::ServerTables::default),
            stream: None,
            provider_names: crate::providers::load(&opts.content.join(crate::providers::PROVIDERS_DIR))
                .files
                .into_iter()
                .map(|(id, file)| (id, file.name))
                .collect(),
        }
    }

    /// An intake that makes each runner's page as the check finishes the
    /// runner's results (its provider's name last, when the check finishes
    /// the provider), and hands them to `emit`; for a build that stops at
    /// the check's first problem.
    pub fn streaming(opts: &Options, inputs: anyhow::Result<PageInputs>, emit: Emit<'a>) -> Intake<'a> {
        let state = Streaming {
            emit,
            open: Vec::new(),
            done: Vec::new(),
            changes: Changes::default(),
            picks: Picks::default(),
            error: None,
            provider: None,
            drafts: Vec::new(),
            purged_at: 0,
            finished_runners: HashSet::new(),
            finished_providers: HashSet::new(),
        };
        let stream = Stream { inputs, pending: Mutex::default(), state: Mutex::new(state) };
        Intake { stream: Some(stream), ..Intake::new(opts, None) }
    }

    pub fn take(&self, run: &Run) -> AcceptedResult {
        self.reports.offer(run);
        // Every result file is published as submitted.
        let body = Body::Copy { from: PathBuf::from(&run.file), sha256: Some(run.sha256.clone()) };
        let mut entry = model::entry_of(run, self.stale_before, self.cache);
        if let Some(name) = self.provider_names.get(&entry.meta.provider_id) {
            model::name_provider(&mut entry, name);
        }
        if let Some(tables) = &self.server_tables {
            tables.take_from(&mut entry);
        }
        let made = EntryAndFile { entry, file: (format!("results/{}", run.rel_path), body) };
        match &self.stream {
            Some(stream) => {
                // (A poisoned lock means a thread panicked while holding it,
                // and the build has failed already.)
                let mut pending = stream.pending.lock().unwrap_or_else(PoisonError::into_inner);
                pending.insert(run.rel_path.clone(), made);
                AcceptedResult(None)
            }
            None => AcceptedResult(Some(Box::new(made))),
        }
    }

    /// The build's input from what `take` made of each accepted result,
    /// in path order: a streaming intake first finishes the last runner
    /// and provider.
    pub fn finish(self, taken: Vec<AcceptedResult>) -> anyhow::Result<Accepted> {
        let result_files = taken.len();
        let (entries, copies): (Vec<Arc<Entry>>, Vec<(String, Body)>) =
            taken.into_iter().filter_map(|t| t.0).map(|made| (made.entry, made.file)).unzip();
        let (mut entries, streamed) = match self.stream {
            None => (entries, None),
            Some(stream) => {
                let mut state = stream.state.into_inner().unwrap_or_else(PoisonError::into_inner);
                let last = std::mem::take(&mut state.open);
                finish_runners(&mut state, &stream.inputs, self.now, last);
                finish_provider(&mut state, &stream.inputs, self.now);
                if let Some(e) = state.error {
                    return Err(e);
                }
                // Every file that `take` saw passed the check, so the pass
                // across files accepted each in turn.
                anyhow::ensure!(
                    state.done.len() == result_files,
                    "the build kept {} results of the {} accepted",
                    state.done.len(),
                    result_files
                );
                let streamed = Streamed { inputs: stream.inputs, changes: state.changes, picks: state.picks };
                (state.done, Some(streamed))
            }
        };
        if let Some(tables) = self.server_tables {
            tables.give_back(&mut entries);
        }
        let order: HashMap<&str, usize> =
            entries.iter().enumerate().map(|(i, e)| (e.meta.rel_path.as_str(), i)).collect();
        let report_runs = self.reports.into_runs(&order);
        Ok(Accepted { entries, copies, result_files, report_runs, streamed })
    }
}

impl KeepAccepted<AcceptedResult> for Intake<'_> {
    fn keep(&self, run: &Run) -> AcceptedResult {
        self.take(run)
    }

    fn stream(&self) -> Option<&dyn StreamAccepted> {
        self.stream.as_ref().map(|_| self as &dyn StreamAccepted)
    }
}

impl StreamAccepted for Intake<'_> {
    /// Every runner the check finished (all but the last one it reached)
    /// has its page drafted, its result files written and its entries let
    /// go of what only its page reads; every provider it finished, its
    /// runner pages written.
    fn accepted(&self, accepted: &mut dyn Iterator<Item = &str>) {
        let Some(stream) = &self.stream else { return };
        let mut state = stream.state.lock().unwrap_or_else(PoisonError::into_inner);
        {
            let mut pending = stream.pending.lock().unwrap_or_else(PoisonError::into_inner);
            for rel_path in accepted {
                if let Some(made) = pending.remove(rel_path) {
                    state.open.push(made);
                }
            }
        }
        let last = state.open.last().map(|made| runner_of(&made.entry));
        let open_from = state.open.iter().rposition(|made| Some(runner_of(&made.entry)) != last).map_or(0, |i| i + 1);
        let finished: Vec<EntryAndFile> = state.open.drain(..open_from).collect();
        if !finished.is_empty() {
            finish_runners(&mut state, &stream.inputs, self.now, finished);
        }
        // What the finished runners' whole entries held goes back to the
        // OS every so many results: a build holds freed pages for reuse
        // during the check (`memory::hold_free_memory`), and these are far
        // more than the next chunk reuses; handing them back after every
        // chunk made the next ones fault fresh pages in.
        if state.done.len() >= state.purged_at + PURGE_EVERY {
            super::memory::release_free_memory();
            state.purged_at = state.done.len();
        }
    }
}

impl Streaming<'_> {
    /// Records the runners of `entries` (the results of runners being
    /// finished, in the check's order) as finished, and an error where a
    /// runner's results do not follow each other: its page would miss
    /// some, and the comparison's picks were made without them. The
    /// check's order (`validate::StreamAccepted`) rules this out; this
    /// keeps it so.
    fn finish_in_order(&mut self, entries: &[Arc<Entry>]) {
        let mut last: Option<(&str, &str)> = None;
        for e in entries {
            let runner = runner_of(e);
            if last == Some(runner) {
                continue;
            }
            if let Some((provider, label)) = last {
                self.finished_runners.insert((provider.to_string(), label.to_string()));
            }
            if self.finished_runners.contains(&(runner.0.to_string(), runner.1.to_string())) {
                self.out_of_order(e, format!("runner {}/{}", runner.0, runner.1));
            }
            last = Some(runner);
        }
        if let Some((provider, label)) = last {
            self.finished_runners.insert((provider.to_string(), label.to_string()));
        }
    }

    /// Records that the check handed over `entry` after the build had
    /// finished `what`, its runner or its provider.
    fn out_of_order(&mut self, entry: &Entry, what: String) {
        if self.error.is_none() {
            self.error = Some(anyhow::anyhow!(
                "a streaming build was handed results/{} after it had finished {what}: it needs each runner's \
                 results one after another, and each provider's runners one after another",
                entry.meta.rel_path
            ));
        }
    }
}

/// The runner an entry is a result of: the layout's folder of its file.
fn runner_of(e: &Entry) -> (&str, &str) {
    (&e.meta.provider_id, &e.meta.runner)
}

/// Drafts the runner pages of `kept` (the entries and files of finished
/// runners, in path order) and keeps what the rest of the build reads of
/// them, a provider's runners at a time; writes the pages of each provider
/// the check has gone past.
fn finish_runners(
    state: &mut Streaming<'_>,
    inputs: &anyhow::Result<PageInputs>,
    now: jiff::Timestamp,
    finished: Vec<EntryAndFile>,
) {
    let mut finished = finished.into_iter().peekable();
    while let Some(first) = finished.next() {
        let id = first.entry.meta.provider_id.clone();
        let mut batch = vec![first];
        while let Some(next) = finished.next_if(|made| made.entry.meta.provider_id == id) {
            batch.push(next);
        }
        if state.provider.as_ref().is_some_and(|(open, _)| *open != id) {
            finish_provider(state, inputs, now);
        }
        if state.provider.is_none() {
            if state.finished_providers.contains(&id) {
                state.out_of_order(&batch[0].entry, format!("provider {id}"));
            }
            state.provider = Some((id, state.done.len()));
        }
        finish_batch(state, inputs, now, batch);
    }
}

/// `finish_runners` for runners of one provider: the model of their
/// entries alone has each of them whole.
fn finish_batch(
    state: &mut Streaming<'_>,
    inputs: &anyhow::Result<PageInputs>,
    now: jiff::Timestamp,
    finished: Vec<EntryAndFile>,
) {
    let (entries, copies): (Vec<Arc<Entry>>, Vec<(String, Body)>) =
        finished.into_iter().map(|made| (made.entry, made.file)).unzip();
    state.finish_in_order(&entries);
    // The result files as submitted, beside their runners' pages.
    if state.error.is_none()
        && let Err(e) = state.emit.files(copies)
    {
        state.error = Some(e);
    }
    let local = model::without_groups(entries);
    let (changes, _) = model::changes::compute(&local, None);
    // Without inputs the build fails after the check, with their error.
    if let (Ok(inputs), None) = (inputs, &state.error) {
        let mut plots = Site::default();
        let made = drafts(inputs, &local, &changes, &local.runners, now, &mut plots)
            .and_then(|drafts| state.emit.files(plots.files).map(|()| drafts));
        match made {
            Ok(drafts) => state.drafts.extend(drafts),
            Err(e) => state.error = Some(e),
        }
    }
    let offset = state.done.len();
    let picks = model::picks(&local.entries, offset);
    let shown = picks.shown(offset, local.entries.len());
    state.picks.append(picks);
    state.changes.append(changes);
    let servers = local.servers;
    for (i, (entry, shown)) in local.entries.into_iter().zip(shown).enumerate() {
        let previous = state.done.last().map(|e| &*e.meta);
        let summary = entry.summary(shown, servers.binary_search(&i).is_ok(), previous);
        state.done.push(Arc::new(summary));
    }
}

/// Writes the runner pages of the provider whose runners were finished
/// last: its name is its last result's, in path order, as the whole model
/// has it (`Model::providers`).
fn finish_provider(state: &mut Streaming<'_>, inputs: &anyhow::Result<PageInputs>, now: jiff::Timestamp) {
    let Some((id, start)) = state.provider.take() else { return };
    state.finished_providers.insert(id);
    let drafts = std::mem::take(&mut state.drafts);
    let (Ok(inputs), None, Some(last)) = (inputs, &state.error, state.done[start..].last()) else { return };
    let name = last.meta.provider_name.clone();
    for batch in drafts.chunks(PAGES_AT_ONCE) {
        let written = finish_drafts(inputs, batch, &name, now).and_then(|site| state.emit.files(site.files));
        if let Err(e) = written {
            state.error = Some(e);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `FileSink` that drops every file.
    struct Nowhere;

    impl super::super::site::FileSink for Nowhere {
        fn files(&mut self, _: Vec<(String, Body)>) -> anyhow::Result<()> {
            Ok(())
        }

        fn piece(&mut self, _: &str, _: Vec<u8>, _: bool) -> anyhow::Result<()> {
            Ok(())
        }
    }

    /// The repository's results, by path below the results folder.
    fn runs() -> HashMap<String, Run> {
        let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
        let checked = crate::check(&[results], None, None, &|r: &Run| r.clone()).unwrap();
        checked.runs.into_iter().map(|r| (r.rel_path.clone(), r)).collect()
    }

    /// What a streaming intake says when the check hands over `order`
    /// (paths below the results folder, of `runs`) one file a chunk.
    fn stream_in(runs: &HashMap<String, Run>, order: &[&str]) -> String {
        let opts = Options::new(std::path::Path::new("results"));
        let mut sink = Nowhere;
        let intake = Intake::streaming(&opts, Err(anyhow::anyhow!("no pages in this test")), &mut sink);
        let mut taken = Vec::new();
        for rel_path in order {
            taken.push(intake.take(&runs[*rel_path]));
            intake.accepted(&mut std::iter::once(*rel_path));
        }
        match intake.finish(taken) {
            Ok(_) => "accepted".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_streaming_build_refuses_results_out_of_their_runners_order() {
        let mut runs = runs();
        let arm = "ubicloud/ubicloud-linux-arm64/2026-11-29-imported-2c7ad0467348.json";
        let x64 = "ubicloud/ubicloud-linux-x64/2026-11-29-imported-2c7ad0467348.json";
        let latchkey = "latchkey/latchkey-linux-x64/2026-11-29-imported-87d31437d07a.json";
        // A second result of the arm64 runner.
        let arm_later = "ubicloud/ubicloud-linux-arm64/2026-11-30-imported-2c7ad0467348.json";
        let mut second = runs[arm].clone();
        second.rel_path = arm_later.to_string();
        runs.insert(arm_later.to_string(), second);

        assert_eq!(stream_in(&runs, &[latchkey, arm, arm_later, x64]), "accepted");
        assert_eq!(
            stream_in(&runs, &[arm, x64, arm_later]),
            format!(
                "a streaming build was handed results/{arm_later} after it had finished runner \
                 ubicloud/ubicloud-linux-arm64: it needs each runner's results one after another, and each \
                 provider's runners one after another"
            )
        );
        assert_eq!(
            stream_in(&runs, &[arm, latchkey, x64]),
            format!(
                "a streaming build was handed results/{x64} after it had finished provider ubicloud: it needs \
                 each runner's results one after another, and each provider's runners one after another"
            )
        );
    }
}
