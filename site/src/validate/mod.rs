//! Stage 2: read every loaded file strictly and apply the rules a reviewer
//! must apply, collecting every problem of every file (not only the first)
//! grouped by file. What passes becomes a `Run`.

//!
//! This module runs the check: it reads each file once, on every CPU, and
//! applies the rules across files; `rules` lists the rules each result is
//! held to, the modules below it hold the rules by subject, and
//! `findings` what any rule records.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use runner_bench_format::{AnyResult, MAX_FILE_BYTES, from_slice, hex};
use sha2::{Digest, Sha256};

use crate::exclusions::Exclusions;
use crate::layout;
use crate::load::{Loaded, LoadedFile};
use crate::releases::Releases;

mod bounds;
mod checked;
mod claims;
mod digest;
mod durations;
mod figures;
mod findings;
mod identity;
mod imported_figures;
mod interrupted;
mod profiles;
pub use profiles::BEFORE_ALL_CORE;
mod rows;
mod rules;
mod same_run;
mod time;
mod walk;

pub use self::checked::{Checked, Run, Verdict};
pub(crate) use self::checked::{escape_data, escape_property};
use self::findings::Collector;
pub use self::findings::{Note, Problem};
pub use self::profiles::is_tryout;

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

/// What the check hands each file that passes its own rules to, as soon
/// as it is checked, on the CPU that checked it (`validate`): it keeps what
/// it makes of the file (`keep`) in place of the parsed result. Any
/// `Fn(&Run) -> D` is one that keeps its value to the end of the check.
pub trait KeepAccepted<D>: Sync {
    /// What to keep of `run`.
    fn keep(&self, run: &Run) -> D;

    /// Where it also takes the accepted files as the check goes
    /// (`StreamAccepted`); the check then judges the files in small chunks,
    /// so that what `keep` made is taken soon after it was made.
    fn stream(&self) -> Option<&dyn StreamAccepted> {
        None
    }
}

impl<D, F: Fn(&Run) -> D + Sync> KeepAccepted<D> for F {
    fn keep(&self, run: &Run) -> D {
        self(run)
    }
}

/// A `KeepAccepted` that takes the files the check accepted a chunk at a
/// time, as it goes.
pub trait StreamAccepted: Sync {
    /// Called between chunks of files, on the check's own thread: the files
    /// up to the end of a chunk have been judged, and `accepted` are those
    /// of the chunk that passed every rule so far (paths below the results
    /// folder), in the order the check visits them, which is the walk's
    /// (`load`: depth first, each folder's entries by name), so that the
    /// layout's folders (`layout`: provider, then runner) come one after
    /// another. A file among them may still be refused by the rules that
    /// need every file (a result that renames a provider), which then fail
    /// the check.
    fn accepted(&self, accepted: &mut dyn Iterator<Item = &str>);
}

/// Applies every rule to every loaded file, judging each measured result's
/// collector against `releases`, whose problems become the check's too;
/// the time of the check and the profiles it takes are `context`'s.
///
/// With `cache` (`site serve`) it reuses what an earlier check read of
/// each unchanged file and keeps what this one read there; without it, the
/// parsed result is let go of as soon as `keep` made what it keeps of it,
/// so that a build never holds every parsed result. A file that the rules
/// across files then refuse is dropped with what `keep` made of it.
pub fn validate<D: Send>(
    loaded: Loaded,
    releases: &Releases,
    mut cache: Option<&mut ParseCache>,
    context: Context,
    keep: &dyn KeepAccepted<D>,
) -> Checked<D> {
    let mut c = Collector::default();
    let files = loaded.files.len();
    let mut across = AcrossFiles::new(&loaded.files);
    let judge = Judge { context, releases, exclusions: &loaded.exclusions, keep };
    // `site serve`'s checks of the last build, and those of this one.
    let keep_checks = cache.is_some();
    let old = cache.as_deref_mut().map(|c| std::mem::take(&mut c.entries)).unwrap_or_default();
    let mut kept = HashMap::new();
    // The files a chunk at a time, in path order: each chunk checked on
    // every CPU, then the pass across files over it, so that only one
    // chunk's checks are held at once.
    let stream = keep.stream();
    let chunk_files = match stream {
        Some(_) => STREAM_CHUNK_PER_CPU * rayon::current_num_threads().max(1),
        None => CHECK_CHUNK,
    };
    for (n, chunk) in loaded.files.chunks(chunk_files).enumerate() {
        let judged = check_all(chunk, &old, keep_checks, &judge);
        if keep_checks {
            // The cache shares the parsed results with the runs (`Arc`),
            // so keeping it costs little memory.
            kept.extend(
                chunk.iter().zip(&judged).map(|(f, j)| (f.path.clone(), (f.size, f.modified, j.check.clone()))),
            );
        }
        let first = across.accepted.len();
        for (k, j) in judged.into_iter().enumerate() {
            across.judge(&mut c, n * chunk_files + k, j);
        }
        if let Some(stream) = stream {
            let rel_path = |a: &(usize, identity::Names, D)| loaded.files[a.0].rel_path.as_str();
            stream.accepted(&mut across.accepted[first..].iter().map(rel_path));
        }
    }
    let accepted = across.accepted;
    let names: Vec<(&Path, &identity::Names)> =
        accepted.iter().map(|a| (loaded.files[a.0].path.as_path(), &a.1)).collect();
    let renamed: std::collections::HashSet<usize> = identity::renames(&mut c, &names).into_iter().collect();
    drop(names);
    let accepted: Vec<(usize, identity::Names, D)> =
        accepted.into_iter().enumerate().filter(|(i, _)| !renamed.contains(i)).map(|(_, a)| a).collect();
    walk::skipped_rules(&mut c, &loaded.skipped);
    let rel_paths: std::collections::HashSet<&str> =
        accepted.iter().map(|a| loaded.files[a.0].rel_path.as_str()).collect();
    for ex in &loaded.exclusions {
        rules::exclusion_rules(&mut c, ex, &rel_paths);
    }
    for e in &releases.errors {
        c.push(&e.file, e.field.clone(), e.reason.clone());
    }
    if let Some(cache) = cache {
        cache.entries = kept;
    }
    let runs = accepted.into_iter().map(|a| a.2).collect();
    Checked { runs, problems: c.problems, files, empty_folders: loaded.empty_folders }
}

/// The pass across files, a file at a time in path order: the rules that
/// compare a file with those before it, and the files accepted so far.
/// Files are named by their place in the loaded files: a copy of each name
/// per accepted file and per claimant was a large part of the check's peak
/// (docs/benchmarks.md).
struct AcrossFiles<'f, D> {
    files: &'f [LoadedFile],
    /// Each accepted file with its names (`identity::renames`) and what
    /// `keep` made of it.
    accepted: Vec<(usize, identity::Names, D)>,
    /// Who claimed a run first (its place in `files`), by each of its
    /// identities (`same_run`). Keyed by the first 128 bits of the SHA-256
    /// of each identity, as the identities themselves, or their whole
    /// hashes, were a large part of the check's peak; two of a million
    /// identities share 128 bits with a probability under 10^-26.
    claims: HashMap<[u8; 16], u32>,
    published: profiles::Published,
}

impl<'f, D> AcrossFiles<'f, D> {
    fn new(files: &'f [LoadedFile]) -> AcrossFiles<'f, D> {
        let files_len = files.len();
        AcrossFiles {
            files,
            accepted: Vec::with_capacity(files_len),
            // Sized for the most identities a file has (four,
            // `same_run::claims`), so that this pass, on one CPU, does not
            // grow them again and again (perf: about half its time in the
            // claims map went to growing it).
            claims: HashMap::with_capacity(4 * files_len),
            published: profiles::Published::default(),
        }
    }

    /// Judges file `f`, whose own check is `j`, by the rules across files;
    /// accepts it where it has no problem at all.
    fn judge(&mut self, c: &mut Collector, i: usize, j: Judged<D>) {
        let f = &self.files[i];
        let file = f.path.display().to_string();
        let before = c.problems.len();
        c.problems.extend(j.check.problems.iter().cloned());
        let (Some(mut names), Some(expected)) = (j.names, &j.check.expected) else {
            return;
        };
        c.problems.extend(j.problems);
        self.published.check(c, &file, j.profile.as_ref());
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
        for claim in &j.check.claims {
            let key = claim_key(&claim.key);
            match self.claims.get(&key) {
                Some(&first) if !copy => {
                    let first = self.files[first as usize].path.display();
                    c.push(&file, claim.field(), format!("{} {first}", claim.reason()));
                    copy = true;
                }
                Some(_) => {}
                None => {
                    // (A check of 4 billion files is not a case.)
                    self.claims.insert(key, u32::try_from(i).unwrap_or(u32::MAX));
                }
            }
        }
        // (`keep` made something of every file without a problem of its
        // own, so of every file without any.)
        if c.problems.len() == before
            && let Some(derived) = j.derived
        {
            // A runner's files follow each other and name it alike: they
            // share the names' text.
            if let Some(last) = self.accepted.last() {
                names.share(&last.1);
            }
            self.accepted.push((i, names, derived));
        }
    }
}

/// The part of an identity's SHA-256 that `AcrossFiles::claims` keys by.
fn claim_key(sha256: &[u8; 32]) -> [u8; 16] {
    let mut key = [0; 16];
    key.copy_from_slice(&sha256[..16]);
    key
}

/// What the rules that a file's cached check leaves out judge it by: the
/// check's context, the releases and the exclusions; and the `keep` of
/// `validate`.
struct Judge<'a, D> {
    context: Context,
    releases: &'a Releases,
    exclusions: &'a [Exclusions],
    keep: &'a dyn KeepAccepted<D>,
}

/// One file's check, and what the rest of the check needs of its result,
/// which may be let go of (`validate`).
struct Judged<D> {
    check: Arc<FileCheck>,
    /// The problems of the rules that depend on the check, not the file
    /// alone (`time::future`, `profiles::own`), in that order.
    problems: Vec<Problem>,
    /// Where the file was read as a result: its names (`identity::renames`).
    names: Option<identity::Names>,
    /// An imported result's published profile (`profiles::Published`).
    profile: Option<runner_bench_format::imported::PublishedProfile>,
    /// What `keep` made of it, where it passed its own rules.
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
            self.keep.keep(&Run {
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
    entries: CacheEntries,
}

/// How many files `validate` checks before its pass across files
/// takes them: enough that each chunk keeps every CPU busy (a smaller chunk
/// made `site serve`'s rebuild slower, its CPUs waiting at each end).
const CHECK_CHUNK: usize = 4096;

/// How many files per CPU it checks at once for a `KeepAccepted` that streams:
/// few enough that a build (`web::Intake`) holds few whole results at once
/// (each is tens of KiB until its runner is finished).
const STREAM_CHUNK_PER_CPU: usize = 128;

/// What `ParseCache` keeps of each file, by path.
type CacheEntries = HashMap<std::path::PathBuf, (u64, Option<std::time::SystemTime>, Arc<FileCheck>)>;

/// Checks every file on its own, on every CPU (files are independent),
/// reusing `old` entries (`ParseCache`) whose file has not changed, and
/// judges each (`Judge::judge`) on the same CPU; `keep`, where a cache
/// keeps the checks.
///
/// Each CPU takes its files last first: a runner's files are named by date,
/// so its newest comes first and `keep` (`web::Intake`) lets go of the
/// older ones at once, instead of making each one's report rows in turn
/// as the newest so far (`report::ReportRuns`).
fn check_all<D: Send>(files: &[LoadedFile], old: &CacheEntries, keep: bool, judge: &Judge<'_, D>) -> Vec<Judged<D>> {
    let mut judged: Vec<Judged<D>> = files
        .par_iter()
        .rev()
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
    judged.reverse();
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
            notes = rules::measured_rules(&mut c, file, m);
            layout::measured_path(m, &sha)
        }
        AnyResult::Imported(i) => {
            rules::imported_rules(&mut c, file, i);
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
