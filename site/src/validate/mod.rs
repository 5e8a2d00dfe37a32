//! Stage 2: read every loaded file strictly and apply the rules a reviewer
//! must apply, collecting every problem of every file (not only the first)
//! grouped by file. What passes becomes a `Run`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use runner_bench_format::imported::{Aggregate, ImportedResult};
use runner_bench_format::measured::{JobOutcome, MeasuredResult, Status, Validation};
use runner_bench_format::{AnyResult, MAX_FILE_BYTES, from_slice, hex};
use sha2::{Digest, Sha256};

use crate::escape;
use crate::exclusions::Exclusions;
use crate::layout;
use crate::load::{Loaded, LoadedFile};
use crate::releases::{ReleaseStatus, Releases};

mod claims;
mod digest;
mod durations;
mod figures;
mod identity;
mod interrupted;
mod profiles;
mod rows;
mod same_run;
mod time;
mod walk;

pub use profiles::is_tryout;

/// One broken rule in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, as loaded.
    pub file: String,
    /// JSON path of the field (`$` for the whole file), or the place in a
    /// non-JSON file.
    pub field: String,
    /// What is wrong, and where possible what would be right.
    pub reason: String,
}

/// A result that passed every rule.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file, as loaded.
    pub file: String,
    /// The path below the results folder.
    pub rel_path: String,
    /// The result, shared with `site serve`'s cache of parsed files.
    pub result: Arc<AnyResult>,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// Why maintainers keep it out of comparisons, if they do.
    pub excluded: Option<String>,
    /// Whether a measured result ran a published release's collector
    /// (`releases`); `None` for an imported result.
    pub release: Option<ReleaseStatus>,
    /// Rules the result meets only by an exception, each with why: fewer
    /// samples than requested where a job that did not succeed measured
    /// them (`provenance.jobs`).
    pub notes: Vec<Note>,
}

/// A rule an accepted result meets by an exception, and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Note {
    /// JSON path of the field.
    pub field: String,
    /// The shortfall and the jobs that explain it.
    pub reason: String,
}

impl Run {
    /// The provider's id.
    pub fn provider_id(&self) -> String {
        match &*self.result {
            AnyResult::Measured(m) => m.provider.id.to_string(),
            AnyResult::Imported(i) => i.provider.id.to_string(),
        }
    }

    /// The runner's label.
    pub fn runner_label(&self) -> String {
        match &*self.result {
            AnyResult::Measured(m) => m.runner.label.to_string(),
            AnyResult::Imported(i) => i.runner.label.to_string(),
        }
    }

    /// When it was measured (or imported), as RFC 3339.
    pub fn date(&self) -> &str {
        match &*self.result {
            AnyResult::Measured(m) => m.provenance.started_at.as_str(),
            AnyResult::Imported(i) => i.source.imported_at.as_str(),
        }
    }
}

/// The outcome of a check: by default each accepted file as a `Run`; a
/// check that hands each file to a `derive` (`validate_with`) holds what
/// that made of it instead.
#[derive(Debug)]
pub struct Checked<R = Run> {
    /// Files that passed, in path order.
    pub runs: Vec<R>,
    /// Every problem, grouped by file in path order.
    pub problems: Vec<Problem>,
    /// Result files looked at.
    pub files: usize,
    /// Folders checked that hold no result file (`refuse_empty_folders`).
    pub empty_folders: Vec<std::path::PathBuf>,
}

impl<R> Default for Checked<R> {
    fn default() -> Self {
        Checked { runs: Vec::new(), problems: Vec::new(), files: 0, empty_folders: Vec::new() }
    }
}

impl<R> Checked<R> {
    /// Problems as GitHub Actions workflow commands, one annotation each.
    /// Each annotation carries the line of the problem's JSON path where the
    /// file can be read and the path found (`locate`), so that the pull
    /// request shows it on that line.
    pub fn github_report(&self) -> String {
        let mut out = String::new();
        let mut texts: std::collections::HashMap<&str, Option<String>> = std::collections::HashMap::new();
        for p in &self.problems {
            let text = texts.entry(p.file.as_str()).or_insert_with(|| walk::text_to_locate(&p.file));
            let line = text.as_deref().and_then(|t| crate::locate::line_of(t, &p.field));
            let _ = writeln!(
                out,
                "::error file={}{},title={}::{}",
                escape_property(&p.file),
                line.map(|n| format!(",line={n}")).unwrap_or_default(),
                escape_property("site check"),
                escape_data(&format!("{}: {}", p.field, p.reason))
            );
        }
        out
    }

    /// Files with at least one problem (an exclusions file counts).
    pub fn rejected_files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = Vec::new();
        for p in &self.problems {
            if !files.contains(&p.file.as_str()) {
                files.push(&p.file);
            }
        }
        files
    }

    /// Problems for people: each file once, then its problems indented.
    /// Text from the files is escaped (`escape`), as in every report.
    pub fn human_report(&self) -> String {
        let mut out = String::new();
        for file in self.rejected_files() {
            let _ = writeln!(out, "{}", escape::text(file));
            for p in self.problems.iter().filter(|p| p.file == file) {
                let _ = writeln!(out, "  {}: {}", escape::text(&p.field), escape::text(&p.reason));
            }
        }
        let rejected = self.rejected_files().len();
        if rejected == 0 {
            let _ = writeln!(out, "{} files accepted", self.files);
        } else {
            let _ = writeln!(out, "{rejected} rejected, {} of {} result files accepted", self.runs.len(), self.files);
        }
        out
    }
}

/// What `site check` reports of an accepted result, without the parsed
/// result: `site check` of 10,000 results need not hold them all (190 MB).
#[derive(Debug, Clone)]
pub struct Verdict {
    pub file: String,
    pub provider_id: String,
    pub runner_label: String,
    pub release: Option<ReleaseStatus>,
    pub notes: Vec<Note>,
}

impl Verdict {
    /// The verdict on `run` (a `derive` for `validate_with`).
    pub fn of(run: &Run) -> Verdict {
        Verdict {
            file: run.file.clone(),
            provider_id: run.provider_id(),
            runner_label: run.runner_label(),
            release: run.release.clone(),
            notes: run.notes.clone(),
        }
    }
}

impl Checked<Verdict> {
    /// For people: each accepted measured result's release status, then
    /// its notes, indented.
    pub fn status_report(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            if let Some(status) = &run.release {
                let _ = writeln!(out, "{}: {}", escape::text(&run.file), escape::text(&status.describe()));
            }
            for n in &run.notes {
                let _ = writeln!(out, "  {}: {}", escape::text(&n.field), escape::text(&n.reason));
            }
        }
        out
    }

    /// `status_report` as GitHub Actions notices, each note on its line.
    pub fn github_status_report(&self) -> String {
        let mut out = String::new();
        for run in &self.runs {
            let text = (!run.notes.is_empty()).then(|| walk::text_to_locate(&run.file)).flatten();
            let mut notice = |line: Option<usize>, message: &str| {
                let _ = writeln!(
                    out,
                    "::notice file={}{},title={}::{}",
                    escape_property(&run.file),
                    line.map(|n| format!(",line={n}")).unwrap_or_default(),
                    escape_property("site check"),
                    escape_data(message)
                );
            };
            if let Some(status) = &run.release {
                notice(None, &status.describe());
            }
            for n in &run.notes {
                let line = text.as_deref().and_then(|t| crate::locate::line_of(t, &n.field));
                notice(line, &format!("{}: {}", n.field, n.reason));
            }
        }
        out
    }
}

/// Workflow-command data escaping (GitHub's `escapeData`), after the
/// control characters of every report (`escape::text`), so that no text
/// from a file reaches an annotation raw.
pub(crate) fn escape_data(s: &str) -> String {
    escape::text(s).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Workflow-command property escaping (GitHub's `escapeProperty`).
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[derive(Default)]
struct Collector {
    problems: Vec<Problem>,
}

impl Collector {
    fn push(&mut self, file: &str, field: impl Into<String>, reason: impl Into<String>) {
        self.problems.push(Problem { file: file.to_string(), field: field.into(), reason: reason.into() });
    }
}

/// Applies every rule to every loaded file, reusing what `cache` read in an
/// earlier build (`site serve`) and keeping what this one read there, and
/// judges each measured result's collector against `releases`, whose
/// problems become the check's too.
pub fn validate_cached(loaded: Loaded, releases: &Releases, cache: Option<&mut ParseCache>) -> Checked {
    validate_in(loaded, releases, cache, Context::default())
}

/// What a check judges files against besides the files and the releases.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// The time of the check: a date after it, beyond the clock-skew
    /// allowance, is refused. The real clock by default; tests pass a fixed
    /// time, so that they never depend on the day they run.
    pub now: jiff::Timestamp,
    /// Whether measured results may use parameters that no collector
    /// version the site knows defines. Only for tests of how the site
    /// describes such parameters; `site check` and `site build` never set
    /// it.
    pub unpublished_profiles: bool,
}

impl Default for Context {
    fn default() -> Self {
        Context { now: jiff::Timestamp::now(), unpublished_profiles: false }
    }
}

/// `validate_cached` in `context` (the time of the check, the profiles it
/// takes).
pub fn validate_in(loaded: Loaded, releases: &Releases, cache: Option<&mut ParseCache>, context: Context) -> Checked {
    validate_with(loaded, releases, cache, context, &|run: &Run| run.clone())
}

/// `validate_in`, handing each file that passes its own rules to `derive`
/// as soon as it is checked, on the CPU that checked it, and keeping what
/// `derive` makes of it instead of the `Run`. Without `cache` the parsed
/// result is then let go of, unless `derive` keeps it: `site build` makes
/// each result's model entry there, so that it never holds every parsed
/// result (with 10,000 results they were 190 MB, and faulting that memory
/// in and freeing it again a fifth of the build's CPU time). A file that the
/// rules across files then refuse is dropped with what `derive` made of it.
pub fn validate_with<D: Send>(
    loaded: Loaded,
    releases: &Releases,
    cache: Option<&mut ParseCache>,
    context: Context,
    derive: &(dyn Fn(&Run) -> D + Sync),
) -> Checked<D> {
    let mut c = Collector::default();
    let files = loaded.files.len();
    // Each accepted file with its names (`identity::renames`) and what
    // `derive` made of it.
    let mut accepted: Vec<(String, String, identity::Names, D)> = Vec::with_capacity(files);
    // Who claimed a run first, by each of its identities (`same_run`).
    // Keyed by the SHA-256 of each identity, and naming the file by its
    // place in `claimants`: with 10,000 files the identities and a copy of
    // the file name per identity were megabytes at the check's peak.
    // Sized for the most identities a file has (four, `same_run::claims`),
    // so that this pass, on one CPU, does not grow them again and again
    // (perf: about half its time in the claims map went to growing it).
    let mut claims: HashMap<[u8; 32], usize> = HashMap::with_capacity(4 * files);
    let mut claimants: Vec<String> = Vec::with_capacity(files);
    let mut published = profiles::Published::default();
    let judge = Judge { context, releases, exclusions: &loaded.exclusions, derive };
    let judged = check_all(&loaded.files, cache, &judge);
    for (f, j) in loaded.files.iter().zip(judged) {
        let file = f.path.display().to_string();
        let before = c.problems.len();
        c.problems.extend(j.check.problems.iter().cloned());
        let (Some(names), Some(expected)) = (j.names, &j.check.expected) else {
            continue;
        };
        c.problems.extend(j.problems);
        published.check(&mut c, &file, j.profile.as_ref());
        if &f.rel_path != expected {
            c.push(
                &file,
                "$",
                format!(
                    "the path does not agree with the content: expected results/{expected}, found results/{}",
                    f.rel_path
                ),
            );
        }
        // Each identity is claimed by the first file that has it; a later
        // file is reported once, at the first identity it shares (a copy
        // is one finding, however many ways it is a copy).
        let mut copy = false;
        let mut claimant = None;
        for claim in &j.check.claims {
            match claims.get(&claim.key) {
                Some(&first) if !copy => {
                    c.push(&file, claim.field, format!("{} {}", claim.reason, claimants[first]));
                    copy = true;
                }
                Some(_) => {}
                None => {
                    let index = *claimant.get_or_insert_with(|| {
                        claimants.push(file.clone());
                        claimants.len() - 1
                    });
                    claims.insert(claim.key, index);
                }
            }
        }
        // (`derive` made something of every file without a problem of its
        // own, so of every file without any.)
        if c.problems.len() == before
            && let Some(derived) = j.derived
        {
            accepted.push((file, f.rel_path.clone(), names, derived));
        }
    }
    let names: Vec<(&str, &identity::Names)> = accepted.iter().map(|a| (a.0.as_str(), &a.2)).collect();
    let renamed = identity::renames(&mut c, &names);
    accepted.retain(|a| !renamed.contains(&a.0));
    walk::skipped_rules(&mut c, &loaded.skipped);
    let rel_paths: std::collections::HashSet<&str> = accepted.iter().map(|a| a.1.as_str()).collect();
    for ex in &loaded.exclusions {
        exclusion_rules(&mut c, ex, &rel_paths);
    }
    for e in &releases.errors {
        c.push(&e.file, e.field.clone(), e.reason.clone());
    }
    let runs = accepted.into_iter().map(|a| a.3).collect();
    Checked { runs, problems: c.problems, files, empty_folders: loaded.empty_folders }
}

/// What the rules that a file's cached check leaves out judge it by: the
/// check's context, the releases and the exclusions; and the `derive` of
/// `validate_with`.
struct Judge<'a, D> {
    context: Context,
    releases: &'a Releases,
    exclusions: &'a [Exclusions],
    derive: &'a (dyn Fn(&Run) -> D + Sync),
}

/// One file's check, and what the rest of the check needs of its result,
/// which may be let go of (`validate_with`).
struct Judged<D> {
    check: Arc<FileCheck>,
    /// The problems of the rules that depend on the check, not the file
    /// alone (`time::future`, `profiles::own`), in that order.
    problems: Vec<Problem>,
    /// Where the file was read as a result: its names (`identity::renames`).
    names: Option<identity::Names>,
    /// An imported result's published profile (`profiles::Published`).
    profile: Option<runner_bench_format::imported::PublishedProfile>,
    /// What `derive` made of it, where it passed its own rules.
    derived: Option<D>,
}

impl<D> Judge<'_, D> {
    /// `check` with the rest of a file's own rules; without `keep` it lets
    /// go of the parsed result, where no cache shares it.
    fn judge(&self, f: &LoadedFile, mut check: Arc<FileCheck>, keep: bool) -> Judged<D> {
        let Some(result) = check.result.clone() else {
            return Judged { check, problems: vec![], names: None, profile: None, derived: None };
        };
        let file = f.path.display().to_string();
        let mut c = Collector::default();
        time::future(&mut c, &file, &result, check.latest_s, self.context.now);
        profiles::own(&mut c, &file, &result, self.context.unpublished_profiles);
        let derived = (check.problems.is_empty() && c.problems.is_empty()).then(|| {
            let excluded = self.exclusions.iter().find_map(|e| e.reason(&f.rel_path)).map(str::to_string);
            let release = match &*result {
                AnyResult::Measured(m) => Some(self.releases.status(&m.collector)),
                AnyResult::Imported(_) => None,
            };
            (self.derive)(&Run {
                file,
                rel_path: f.rel_path.clone(),
                result: result.clone(),
                sha256: check.sha.clone(),
                excluded,
                release,
                notes: check.notes.clone(),
            })
        });
        let (names, profile) = (Some(identity::Names::of(&result)), profiles::imported_profile(&result));
        drop(result);
        if !keep && let Some(check) = Arc::get_mut(&mut check) {
            check.result = None;
        }
        Judged { check, problems: c.problems, names, profile, derived }
    }
}

/// One file read strictly and checked against every rule that needs no
/// other file (the costly part of a check, so it runs on every CPU and
/// `site serve` keeps it for files that did not change).
#[derive(Debug)]
struct FileCheck {
    /// The result; `None` when the file could not be read as one.
    result: Option<Arc<AnyResult>>,
    /// SHA-256 of the file's bytes, hex.
    sha: String,
    /// Where the layout says the file belongs, below the results folder.
    expected: Option<String>,
    /// The file's own problems, in the order they are reported.
    problems: Vec<Problem>,
    /// Rules met by an exception (`Run::notes`).
    notes: Vec<Note>,
    /// The run's identities (`same_run`), computed here because hashing
    /// the samples is the costly part and runs on every CPU.
    claims: Vec<same_run::Claim>,
    /// The latest of the dates that `time::future` compares with the
    /// clock, seconds since 1970 (`time::latest_s`).
    latest_s: i64,
}

/// What `site serve` keeps between builds: each file's check, by path,
/// with the size and modification time it had, so that a rebuild reads
/// only the files that changed.
#[derive(Debug, Default)]
pub struct ParseCache {
    entries: HashMap<std::path::PathBuf, (u64, Option<std::time::SystemTime>, Arc<FileCheck>)>,
}

/// Checks every file on its own, on every CPU (files are independent),
/// reusing `cache` entries whose file has not changed, and judges each
/// (`Judge::judge`) on the same CPU.
fn check_all<D: Send>(files: &[LoadedFile], cache: Option<&mut ParseCache>, judge: &Judge<'_, D>) -> Vec<Judged<D>> {
    let empty = HashMap::new();
    let old = cache.as_ref().map_or(&empty, |c| &c.entries);
    let keep = cache.is_some();
    let judged: Vec<Judged<D>> = files
        .par_iter()
        .map(|f| {
            let check = match old.get(&f.path) {
                Some((size, modified, check)) if *size == f.size && *modified == f.modified && f.modified.is_some() => {
                    check.clone()
                }
                _ => Arc::new(check_file(f)),
            };
            judge.judge(f, check, keep)
        })
        .collect();
    // The cache shares the parsed results with the runs (`Arc`), so keeping
    // it costs little memory.
    if let Some(cache) = cache {
        cache.entries =
            files.iter().zip(&judged).map(|(f, j)| (f.path.clone(), (f.size, f.modified, j.check.clone()))).collect();
    }
    judged
}

/// A file that could not be read as a result: its problems, and its
/// SHA-256 where its bytes were read.
fn failed(c: Collector, sha: String) -> FileCheck {
    FileCheck {
        result: None,
        sha,
        expected: None,
        problems: c.problems,
        notes: vec![],
        claims: vec![],
        latest_s: i64::MIN,
    }
}

fn check_file(f: &LoadedFile) -> FileCheck {
    let file = f.path.display().to_string();
    let mut c = Collector::default();
    if f.size > MAX_FILE_BYTES {
        c.push(&file, "$", format!("the file is {} bytes; the limit is {MAX_FILE_BYTES} bytes", f.size));
        return failed(c, String::new());
    }
    // Each thread reads its files into one buffer, kept between files: a
    // new buffer per file was a fresh allocation of about 20 KB, which the
    // allocator hands back to the OS at once during the check
    // (`web::memory`), so every file also cost its pages faulted in again.
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|bytes| check_bytes(f, &file, c, bytes))
}

/// `check_file` after the size check, reading the file into `bytes`.
fn check_bytes(f: &LoadedFile, file: &str, mut c: Collector, bytes: &mut Vec<u8>) -> FileCheck {
    bytes.clear();
    if let Err(e) = std::fs::File::open(&f.path).and_then(|mut r| std::io::Read::read_to_end(&mut r, bytes)) {
        c.push(file, "$", format!("cannot read the file: {e}"));
        return failed(c, String::new());
    }
    let sha = hex(&Sha256::digest(&*bytes));
    let result = match from_slice(bytes, &f.path) {
        Ok(r) => r,
        Err(e) => {
            c.push(file, e.field, e.reason);
            return failed(c, sha);
        }
    };
    let mut notes = Vec::new();
    identity::empty_names(&mut c, file, &result);
    let expected = match &result {
        AnyResult::Measured(m) => {
            notes = measured_rules(&mut c, file, m);
            layout::measured_path(m, &sha)
        }
        AnyResult::Imported(i) => {
            imported_rules(&mut c, file, i);
            layout::imported_path(i)
        }
    };
    let claims = same_run::claims(&result, &sha);
    let latest_s = time::latest_s(&result);
    FileCheck {
        result: Some(Arc::new(result)),
        sha,
        expected: Some(expected),
        problems: c.problems,
        notes,
        claims,
        latest_s,
    }
}

/// The rules of an exclusions file; `accepted` holds the paths of the
/// accepted results, below the results folder.
fn exclusion_rules(c: &mut Collector, ex: &Exclusions, accepted: &std::collections::HashSet<&str>) {
    let file = ex.path.display().to_string();
    let root = ex.path.parent().unwrap_or(Path::new(""));
    match &ex.entries {
        Err(e) => c.push(&file, "$", format!("not a valid exclusions file: {e}")),
        Ok(entries) => {
            for (i, e) in entries.iter().enumerate() {
                // A path that leaves the folder (`..`, absolute) could point
                // at any file on the machine that runs the check.
                let below = Path::new(&e.file)
                    .components()
                    .all(|part| matches!(part, std::path::Component::Normal(_) | std::path::Component::CurDir));
                let known = accepted.contains(e.file.as_str()) || (below && root.join(&e.file).is_file());
                if !below {
                    c.push(
                        &file,
                        format!("exclude[{i}].file"),
                        format!("{} leaves this folder; name a result file below it, without ..", e.file),
                    );
                } else if !known {
                    c.push(&file, format!("exclude[{i}].file"), format!("no result file {} in this folder", e.file));
                }
                // Shown on the site and in the reports beside the result: the
                // rules of a message in a result file.
                if e.reason.trim().is_empty() {
                    c.push(&file, format!("exclude[{i}].reason"), "must say why the result is excluded");
                } else if let Err(why) = runner_bench_format::Message::new(e.reason.clone()) {
                    c.push(&file, format!("exclude[{i}].reason"), why);
                }
                if entries[..i].iter().any(|o| o.file == e.file) {
                    c.push(&file, format!("exclude[{i}].file"), format!("{} is excluded twice", e.file));
                }
            }
        }
    }
}

/// Why a shortfall is accepted: the jobs that did not succeed and measure
/// the missing samples, `job restore-2 ended with conclusion failure`.
fn because(jobs: &[&JobOutcome]) -> String {
    let jobs: Vec<String> =
        jobs.iter().map(|j| format!("job {} ended with conclusion {}", j.job, j.conclusion.name())).collect();
    format!("the missing ones count as attempted and not completed: {}", jobs.join("; "))
}

/// What a rejected shortfall adds when the file records jobs: none of
/// them explains it.
fn unexplained(m: &MeasuredResult) -> &'static str {
    if m.provenance.jobs.is_empty() { "" } else { "; no job in provenance.jobs that measures it ended without success" }
}

/// The format's cross-field rules plus the published complete-sample and
/// cache rules. Returns the rules met by an exception: fewer samples or
/// pairs than requested, where a job that did not succeed measured them.
fn measured_rules(c: &mut Collector, file: &str, m: &MeasuredResult) -> Vec<Note> {
    for p in m.problems() {
        c.push(file, p.field, p.reason);
    }
    figures::measured(c, file, m);
    durations::measured(c, file, m);
    claims::measured(c, file, m);
    time::measured(c, file, m);
    let mut notes: Vec<Note> = profiles::tryout_note(m).into_iter().collect();
    let params = &m.parameters;
    // The jobs that did not succeed and measure `stage` (and `trial`).
    let explaining = |stage: &str, trial: Option<u32>| -> Vec<&JobOutcome> {
        m.provenance.jobs.iter().filter(|j| j.explains(stage, trial)).collect()
    };
    let mut attempted = |stage: &str, field: &str, n: usize, requested: u32, parameter: &str| {
        if n >= requested as usize {
            return;
        }
        let shortfall = format!("{n} of {requested} requested samples attempted ({parameter})");
        let jobs = explaining(stage, None);
        if jobs.is_empty() {
            c.push(
                file,
                field,
                format!(
                    "{shortfall}; every requested sample is attempted, including after a sample timeout{}",
                    unexplained(m)
                ),
            );
        } else {
            notes.push(Note { field: field.to_string(), reason: format!("{shortfall}; {}", because(&jobs)) });
        }
    };
    if let Some(cpu) = &m.stages.cpu {
        attempted("cpu", "$.stages.cpu.samples", cpu.samples.len(), params.cpu_samples, "parameters.cpu_samples");
    }
    if let Some(disk) = &m.stages.disk {
        let n = disk.samples.len();
        attempted("disk", "$.stages.disk.samples", n, params.disk_samples, "parameters.disk_samples");
    }
    if let Some(net) = &m.stages.internet {
        let n = params.internet_samples;
        attempted("internet", "$.stages.internet.download", net.download.len(), n, "parameters.internet_samples");
        attempted("internet", "$.stages.internet.upload", net.upload.len(), n, "parameters.internet_samples");
        attempted(
            "internet",
            "$.stages.internet.request",
            net.request.len(),
            params.internet_request_samples,
            "parameters.internet_request_samples",
        );
    }
    if let Some(cpu) = &m.stages.cpu {
        for (i, s) in cpu.samples.iter().enumerate() {
            if s.status == Status::Ok && s.validation == Some(Validation::Failed) {
                c.push(
                    file,
                    format!("$.stages.cpu.samples[{i}].validation"),
                    "CoreMark validation failed, so the sample is not accepted; its status must not be \"ok\"",
                );
            }
        }
    }
    if let Some(cache) = &m.stages.cache {
        for (i, pair) in cache.pairs.iter().enumerate() {
            let path = format!("$.stages.cache.pairs[{i}]");
            let retried = cache.pairs[..i].iter().any(|o| o.backend == pair.backend && o.trial == pair.trial);
            if retried {
                c.push(
                    file,
                    path.clone(),
                    format!(
                        "backend \"{}\" trial {} appears twice; a miss is a failure and is never retried or replaced",
                        pair.backend, pair.trial
                    ),
                );
            }
            // Only instances known to be one are refused: an unknown id equals
            // nothing, and the restore's notice says it could not be checked.
            if let Some(restore) = &pair.restore
                && restore.instance.same_as(&pair.save.instance) == Some(true)
            {
                c.push(
                    file,
                    format!("{path}.restore.instance"),
                    format!(
                        "the restore ran on the save's OS instance (boot_id {}); a restore must come from a different \
                         OS instance than its save",
                        restore.instance.boot_id
                    ),
                );
            }
            let kind = cache.backends.iter().find(|b| b.id == pair.backend).map(|b| b.kind);
            if let Some(v) = &pair.verification
                && v.routing.matches
                && kind.is_some_and(|kind| !v.routing.consistent(kind))
            {
                c.push(
                    file,
                    format!("{path}.verification.routing.matches"),
                    format!(
                        "is true but the observed routing \"{}\" differs from the expected \"{}\"",
                        v.routing.observed, v.routing.expected
                    ),
                );
            }
        }
        for b in &cache.backends {
            let n = cache.pairs.iter().filter(|p| p.backend == b.id).count();
            if n >= params.cache_trials as usize {
                continue;
            }
            let shortfall = format!(
                "backend \"{}\" has {n} of {} requested pairs (parameters.cache_trials)",
                b.id, params.cache_trials
            );
            // Each missing trial must be explained by a job of that trial.
            let missing =
                (1..=params.cache_trials).filter(|&t| !cache.pairs.iter().any(|p| p.backend == b.id && p.trial == t));
            let mut jobs: Vec<&JobOutcome> = Vec::new();
            let mut explained = true;
            for t in missing {
                let those = explaining("cache", Some(t));
                explained &= !those.is_empty();
                for j in those {
                    if !jobs.contains(&j) {
                        jobs.push(j);
                    }
                }
            }
            // (Nothing missing by trial means out-of-range trials, which the
            // format's rules reject already.)
            if explained && !jobs.is_empty() {
                notes.push(Note {
                    field: "$.stages.cache.pairs".to_string(),
                    reason: format!("{shortfall}; {}", because(&jobs)),
                });
            } else {
                c.push(
                    file,
                    "$.stages.cache.pairs",
                    format!("{shortfall}; every trial is attempted{}", unexplained(m)),
                );
            }
        }
    }
    notes.extend(interrupted::rules(c, file, m));
    notes
}

/// Published aggregates must be self-consistent: a median within its
/// range, no more verified pairs or completed samples than attempted.
fn imported_rules(c: &mut Collector, file: &str, i: &ImportedResult) {
    figures::imported(c, file, i);
    time::imported(c, file, i);
    profiles::imported(c, file, i);
    rows::imported(c, file, i);
    if let Some(cpu) = &i.stages.cpu {
        aggregate(c, file, "$.stages.cpu.iterations_per_s".to_string(), &cpu.iterations_per_s);
    }
    if let Some(cache) = &i.stages.cache {
        for (n, b) in cache.backends.iter().enumerate() {
            aggregate(c, file, format!("$.stages.cache.backends[{n}].save_s"), &b.save_s);
            aggregate(c, file, format!("$.stages.cache.backends[{n}].restore_s"), &b.restore_s);
            if b.verified_pairs > b.pairs {
                c.push(
                    file,
                    format!("$.stages.cache.backends[{n}].verified_pairs"),
                    format!("{} verified pairs of {} pairs", b.verified_pairs, b.pairs),
                );
            }
        }
    }
    if let Some(counts) = i.stages.disk.as_ref().and_then(|d| d.counts)
        && !(counts.completed <= counts.attempted && counts.attempted <= counts.requested)
    {
        c.push(
            file,
            "$.stages.disk.counts",
            format!(
                "{} completed / {} attempted / {} requested is not possible",
                counts.completed, counts.attempted, counts.requested
            ),
        );
    }
}

fn aggregate(c: &mut Collector, file: &str, field: String, a: &Aggregate) {
    let (min, median, max) = (a.min.get(), a.median.get(), a.max.get());
    if !(min <= median && median <= max) {
        c.push(file, field, format!("the median {median} is outside the range {min}–{max}"));
    }
}

/// A figure from a file, as a message shows it: as written where it is of
/// an everyday size, in scientific notation where plain decimals would run
/// to hundreds of digits (`1e-300`, not `0.000…0001`). A precision, where
/// given, applies to everyday sizes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Num(pub(crate) f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x != 0.0 && !(1e-6..1e15).contains(&x.abs()) {
            return write!(f, "{x:.3e}");
        }
        match f.precision() {
            Some(p) => write!(f, "{x:.p$}"),
            None => write!(f, "{x}"),
        }
    }
}
