//! The website's model: every accepted result as an `Entry` (its table rows
//! plus what every row shows about the result: dates, collector, marks and
//! links), the comparison groups of the home page, and each runner's
//! history. Figures are the reports' (see `report`), so a number reads the
//! same in a markdown report, an HTML table, a CSV file and a plot.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rayon::prelude::*;

use runner_bench_format::measured::{CacheMethod, Conclusion};
use runner_bench_format::{AnyResult, StageKind};
use serde::Serialize;

use super::build_cache::{self, ServerDoc};
use crate::figures;
use crate::keys::StageKeys;
use crate::releases::ReleaseStatus;
use crate::report::{self, CacheRow, CpuRow, DiskRow, InternetRow, ProfileView, RunnerPart};
use crate::stats::{self, Interval, Rank};
use crate::validate::Run;

/// What every row says about the result it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Meta {
    pub provider_id: String,
    pub provider_name: String,
    pub runner: String,
    /// `/runners/<provider>/<runner>/`; a build-cache server's document
    /// page (`build_cache::doc_url`) where the result measured no runner.
    pub runner_url: String,
    /// `/providers/<provider>/`.
    pub provider_url: String,
    /// `/results/<path>`: the file as submitted.
    pub source_url: String,
    /// The path below results/.
    pub rel_path: String,
    /// `YYYY-MM-DD` of the measurement: the run's, or the day an imported
    /// report's publisher states; the import's day where none is stated
    /// (then `date_measured` is false).
    pub date: String,
    /// Whether `date` is the day the figures were measured.
    pub date_measured: bool,
    /// `YYYY-MM-DD` of an imported result's import.
    pub imported_on: Option<String>,
    /// RFC 3339 of `date`'s instant, for the feed, the sitemap and the
    /// history plots.
    pub timestamp: String,
    /// The collector version, or `imported`.
    pub collector: String,
    pub imported: bool,
    /// Older than the configured age.
    pub stale: bool,
    /// A stage or sample that the parameters asked for is missing or
    /// failed, or a job of the run's workflow did not succeed.
    pub incomplete: bool,
    /// Why maintainers keep it out of comparisons.
    pub excluded: Option<String>,
    /// Measured with the quick profile, a try-out: shown, marked, never
    /// ranked.
    pub tryout: bool,
    /// The tag of the published release whose collector measured it.
    pub release: Option<String>,
    /// Why its collector is not a published release (a measured result
    /// only): shown with a "self-built" mark, never a reason to drop it.
    pub self_built: Option<String>,
    /// The workflow's jobs that did not succeed (`provenance.jobs`).
    pub failed_jobs: Vec<FailedJob>,
    /// The whole-profile fingerprint, shown beside each row: a stage's
    /// rows are compared by the stage's key (`keys`), which several
    /// profiles can share.
    pub fingerprint: String,
    pub protocol: Option<u32>,
    /// Each keyed stage's comparability key (`keys::stage_keys`).
    pub keys: StageKeys,
    /// The page sizes (KiB) behind the disk samples' buffers, ascending,
    /// each once (`keys::disk_buffer_pages`); empty where none is recorded.
    pub disk_buffer_pages: Vec<u32>,
    /// The key of the entry it was made from (`entry_key`): the same key,
    /// the same meta, so that a key of a row need not serialize it.
    #[serde(skip)]
    pub entry_key: u64,
}

/// A job of the run's workflow that did not succeed.
#[derive(Debug, Clone, Serialize)]
pub struct FailedJob {
    /// Its id in the workflow, e.g. `restore-2`.
    pub job: String,
    /// `failure`, `cancelled` or `skipped`.
    pub conclusion: &'static str,
}

impl Meta {
    /// Whether the row takes part in comparisons without reservation.
    pub fn clean(&self) -> bool {
        !self.incomplete && self.excluded.is_none() && !self.tryout
    }
}

/// One accepted result and its rows.
#[derive(Debug)]
pub struct Entry {
    /// Identifies everything the entry is made from (see `entry_key`).
    pub key: u64,
    /// Shared with every row made of the entry (`Row::meta`).
    pub meta: Arc<Meta>,
    pub profile: Option<ProfileView>,
    pub cpu: Option<CpuRow>,
    pub disk: Option<DiskRow>,
    pub cache: Vec<CacheRow>,
    pub internet: Option<InternetRow>,
    /// Its build-cache benchmark, which the build-cache section shows
    /// (`build_cache`), never the runner rankings.
    pub server: Option<ServerDoc>,
    /// What stages it has, for the coverage page.
    pub stages: Stages,
    /// Its machine and build, and why a stage is incomplete (runner page).
    pub details: super::details::Details,
    /// Its headline figures' intervals, computed once (`changes`).
    pub intervals: std::sync::OnceLock<super::changes::Intervals>,
}

/// Which stages a result has.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Stages {
    pub cpu: bool,
    pub disk: bool,
    pub cache: bool,
    pub internet: bool,
    pub http_cache: bool,
}

impl Stages {
    /// Stage names and flags, in table order.
    pub fn list(&self) -> [(&'static str, bool); 5] {
        [
            ("CoreMark", self.cpu),
            ("Disk", self.disk),
            ("Cache", self.cache),
            ("Internet", self.internet),
            ("Build cache", self.http_cache),
        ]
    }

    /// The stages of a runner's benchmark (the workflow's), in table order:
    /// all but the build-cache stage, which measures a server and runs only
    /// where it is named.
    pub fn runner_list(&self) -> [(&'static str, bool); 4] {
        let [cpu, disk, cache, internet, _] = self.list();
        [cpu, disk, cache, internet]
    }

    /// Whether it measured the runner itself: a result with only a
    /// build-cache stage measured a server, and is no runner's.
    pub fn runner(&self) -> bool {
        self.cpu || self.disk || self.cache || self.internet
    }

    fn or(self, o: Stages) -> Stages {
        Stages {
            cpu: self.cpu || o.cpu,
            disk: self.disk || o.disk,
            cache: self.cache || o.cache,
            internet: self.internet || o.internet,
            http_cache: self.http_cache || o.http_cache,
        }
    }
}

/// A table row: the result's `meta` and one row of figures.
#[derive(Debug, Clone, Serialize)]
pub struct Row<T> {
    /// The entry's: every stage's rows of a result share one (a rebuild
    /// makes every table again).
    pub meta: Arc<Meta>,
    pub fig: T,
    /// This row's figures lack a requested sample (a result can be
    /// incomplete in one stage and complete in another).
    pub incomplete: bool,
    /// Excluded or incomplete: shown, marked, and left out of plots.
    pub marked: bool,
    /// Its place in the table's ranking: clean, current rows with the
    /// headline figure only (`rank`).
    pub place: Option<Rank>,
    /// The 95 % bootstrap interval of the headline median, `lo–hi`
    /// (measured rows with at least `BOOTSTRAP_MIN_SAMPLES` samples).
    pub ci: Option<String>,
    /// The headline figure's interval, for the plots.
    #[serde(skip)]
    pub interval: Option<Interval>,
    /// The headline figure varies by more than `VARIATION_FLAG_PCT`.
    pub variable: bool,
    // A field added here that the home-page row shows must be added to its
    // key too (`pages::home_rows`).
}

impl<T> Row<T> {
    fn new(meta: &Arc<Meta>, fig: T, incomplete: bool) -> Row<T> {
        Row {
            marked: incomplete || meta.excluded.is_some() || meta.tryout,
            meta: meta.clone(),
            fig,
            incomplete,
            place: None,
            ci: None,
            interval: None,
            variable: false,
        }
    }
}

/// Above this population coefficient of variation of its headline figure,
/// in percent, a row is flagged as variable: its median says less about the
/// next run than a steadier row's. 10 %: CoreMark on a dedicated CPU varies
/// by about 1 %, a noisy neighbour makes it 5 to 10 %, and the seeds' cache
/// trials vary by up to 61 %.
pub const VARIATION_FLAG_PCT: f64 = 10.0;

/// The interval a table prints under a median: none where it is only the
/// samples' range and the table has a Min–max column that shows it already
/// (with 3 to 5 samples the bootstrap's percentiles are the smallest and
/// largest sample).
pub fn shown_interval(interval: Option<Interval>, samples: &[f64], range_column: bool) -> Option<String> {
    let interval = interval?;
    let (lo, hi) = samples.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if range_column && interval.lo == lo && interval.hi == hi {
        return None;
    }
    Some(figures::range(interval.lo, interval.hi))
}

/// The figure a table ranks its rows by (`pages::TABLES` names it).
trait Headline {
    /// Which way is better.
    const BETTER: Better;
    /// Whether the table has a Min–max column of the headline's samples.
    const RANGE_COLUMN: bool = false;
    /// The median.
    fn value(&self) -> Option<f64>;
    /// Its samples: measured rows only.
    fn samples(&self) -> &[f64];
    /// Its variation as a report published it, for rows without samples.
    fn published_variation_pct(&self) -> Option<f64> {
        None
    }
    /// The range of its samples as a report published it, for rows without
    /// samples: it stands for the interval in the ranking (`rank`).
    fn published_range(&self) -> Option<(f64, f64)> {
        None
    }
}

impl Headline for CpuRow {
    const BETTER: Better = Better::Higher;
    const RANGE_COLUMN: bool = true;
    fn value(&self) -> Option<f64> {
        self.median_value
    }
    fn samples(&self) -> &[f64] {
        &self.headline_samples
    }
    fn published_variation_pct(&self) -> Option<f64> {
        leading(&self.variation)
    }
    fn published_range(&self) -> Option<(f64, f64)> {
        if self.headline_samples.is_empty() { range(&self.range) } else { None }
    }
}

/// The headline figure for ranking: the exact median of its samples where
/// the row has them (a measured row), else the figure as shown (an
/// imported one); none where none is shown. Ranked by the figure as
/// printed, two rows 0.004 apart could tie and be ordered by name, or
/// reverse against the speed beside them.
fn exact(shown: &str, samples: &[f64]) -> Option<f64> {
    leading(shown).map(|printed| stats::median(samples).unwrap_or(printed))
}

impl Headline for DiskRow {
    const BETTER: Better = Better::Higher;
    fn value(&self) -> Option<f64> {
        exact(&self.rand_read, &self.headline_samples)
    }
    fn samples(&self) -> &[f64] {
        &self.headline_samples
    }
}

impl Headline for CacheRow {
    const BETTER: Better = Better::Lower;
    fn value(&self) -> Option<f64> {
        exact(&self.restore, &self.headline_samples)
    }
    fn samples(&self) -> &[f64] {
        &self.headline_samples
    }
    fn published_variation_pct(&self) -> Option<f64> {
        leading(&self.restore_variation)
    }
}

impl Headline for InternetRow {
    const BETTER: Better = Better::Higher;
    fn value(&self) -> Option<f64> {
        exact(&self.download, &self.headline_samples)
    }
    fn samples(&self) -> &[f64] {
        &self.headline_samples
    }
}

/// The tables of one stage whose rows are compared: one comparability key
/// of a runner stage (`keys`). Build-cache servers are never ranked here
/// (`build_cache`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Group {
    /// Anchor and file-name stem: the key.
    pub id: String,
    /// `cpu`, `disk`, `cache` or `internet`: only that stage's tables have
    /// rows.
    pub stage: &'static str,
    /// The stage's comparability key.
    pub key: String,
    /// For a disk group: what its samples' I/O buffers were
    /// (`disk_buffer_text`); empty otherwise.
    pub disk_buffer: String,
    /// Whether its rows are imported (keys of imported and measured results
    /// are never equal).
    pub imported: bool,
    /// The whole-profile fingerprints of its rows, newest protocol first.
    pub profiles: Vec<ProfileRef>,
    /// The first of `profiles`' fingerprints (empty: no published profile).
    pub fingerprint: String,
    /// The first of `profiles`' protocols.
    pub protocol: Option<u32>,
    /// The first of `profiles`' parameters.
    pub profile: Option<ProfileView>,
    /// CoreMark rows of the project's implementation (and imported ones).
    pub cpu: Vec<Row<CpuRow>>,
    /// CoreMark rows of EEMBC's own sources: two implementations are never
    /// ranked together, however close their speed.
    pub cpu_eembc: Vec<Row<CpuRow>>,
    pub disk: Vec<Row<DiskRow>>,
    /// Cache rows of the client method.
    pub cache: Vec<Row<CacheRow>>,
    /// Cache rows of the action method (imported figures among them): two
    /// methods time different things and are never ranked together.
    pub cache_action: Vec<Row<CacheRow>>,
    pub internet: Vec<Row<InternetRow>>,
}

impl Group {
    /// What its rows share, for titles and plot descriptions: `key K
    /// (fingerprint F)` or `key K (fingerprints F, G)` for a keyed stage,
    /// `fingerprint F` for the build-cache stage.
    pub fn label(&self) -> String {
        let fingerprints: Vec<&str> =
            self.profiles.iter().map(|p| p.fingerprint.as_str()).filter(|f| !f.is_empty()).collect();
        let profiles = match fingerprints.as_slice() {
            [] => "results without a published profile".to_string(),
            [one] => format!("fingerprint {one}"),
            many => format!("fingerprints {}", many.join(", ")),
        };
        if self.key.is_empty() { profiles } else { format!("key {} ({profiles})", self.key) }
    }
}

/// A whole-profile fingerprint of a group's rows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ProfileRef {
    /// Empty for results without a published profile.
    pub fingerprint: String,
    pub protocol: Option<u32>,
}

/// A runner: its results, oldest first.
#[derive(Debug)]
pub struct Runner {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    /// Indexes into `Model::entries`, oldest first.
    pub entries: Vec<usize>,
    /// Stages of its newest result, and of any result.
    pub newest_stages: Stages,
    pub any_stages: Stages,
}

/// Everything the pages, plots and data files are made from.
#[derive(Debug)]
pub struct Model {
    /// Every accepted result, in path order.
    /// Shared with `site serve`'s cache of entries.
    pub entries: Vec<Arc<Entry>>,
    /// By provider, then label.
    pub runners: Vec<Runner>,
    /// By stage; within a stage newest protocol first, then by id.
    pub groups: Vec<Group>,
    /// Provider id → display name, by id.
    pub providers: BTreeMap<String, String>,
    /// Indexes into `entries` of the results that have a server document
    /// page (`server_docs`), in path order.
    pub servers: Vec<usize>,
}

/// What `site serve` keeps between builds: each result's entry by its key,
/// so that a rebuild computes only the entries of changed results.
pub type EntryCache = HashMap<u64, Arc<Entry>>;

/// Builds the model; results older than `stale_before` are marked stale.
/// Entries are independent and computed on every CPU; those in `cache`
/// are reused, and the cache is left holding this build's entries.
pub fn build(runs: &[Run], stale_before: jiff::Timestamp, cache: Option<&mut EntryCache>) -> Model {
    let entries = entries(runs, stale_before, cache.as_deref());
    assemble(entries, cache)
}

/// The entry of each of `runs`, in order, computed on every CPU; those in
/// `cache` are reused.
pub fn entries(runs: &[Run], stale_before: jiff::Timestamp, cache: Option<&EntryCache>) -> Vec<Arc<Entry>> {
    runs.par_iter().map(|r| entry_of(r, stale_before, cache)).collect()
}

/// The entry of `run`: the one in `cache` where it has it, else made.
pub fn entry_of(run: &Run, stale_before: jiff::Timestamp, cache: Option<&EntryCache>) -> Arc<Entry> {
    let key = entry_key(run, stale_before);
    cache.and_then(|c| c.get(&key)).cloned().unwrap_or_else(|| Arc::new(entry(run, key, stale_before)))
}

/// The model of every run's entry (`entries`), in the runs' order; leaves
/// `cache` holding these entries.
pub fn assemble(entries: Vec<Arc<Entry>>, cache: Option<&mut EntryCache>) -> Model {
    if let Some(cache) = cache {
        *cache = entries.iter().map(|e| (e.key, e.clone())).collect();
    }
    // Ids and names borrowed from the entries: 10,000 entries name a few
    // hundred runners (`site serve` makes this again on every rebuild).
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    let mut by_runner: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        names.insert(&e.meta.provider_id, &e.meta.provider_name);
        // A build-cache server is not a runner: it has a page in the
        // build-cache section instead.
        if !e.stages.runner() {
            continue;
        }
        by_runner.entry((&e.meta.provider_id, &e.meta.runner)).or_default().push(i);
    }
    let runners = || {
        by_runner
            .into_iter()
            .map(|((provider_id, label), mut idx)| {
                idx.sort_by(|&a, &b| newer_key(&entries[a]).cmp(&newer_key(&entries[b])));
                let newest_stages = idx.last().map(|&i| entries[i].stages).unwrap_or_default();
                let any_stages = idx.iter().fold(Stages::default(), |s, &i| s.or(entries[i].stages));
                Runner {
                    provider_name: names.get(provider_id).map_or(provider_id, |n| n).to_string(),
                    provider_id: provider_id.to_string(),
                    label: label.to_string(),
                    entries: idx,
                    newest_stages,
                    any_stages,
                }
            })
            .collect()
    };
    // The runners, the ranked groups and the server documents are made
    // from the entries independently.
    let (runners, (groups, servers)) =
        rayon::join(runners, || rayon::join(|| groups(&entries), || server_docs(&entries)));
    let providers = names.iter().map(|(id, name)| (id.to_string(), name.to_string())).collect();
    Model { entries, runners, groups, providers, servers }
}

/// Later date, then later path: the order "newest" means everywhere.
pub(super) fn newer_key(e: &Entry) -> (&str, &str) {
    (&e.meta.timestamp, &e.meta.rel_path)
}

/// Lets go of the tables of the server documents that `server_docs` will
/// give no page: of a runner's results with a build-cache stage only the
/// newest per server has a document page, and the others' tables, a few
/// KiB a result, were 29 MiB with 10,000 results (docs/benchmarks.md).
/// What the others still show (their runner page's software, server and
/// link) stays. An entry shared with `site serve`'s cache is left whole: a
/// later rebuild may make it the newest.
pub fn drop_superseded_server_tables(entries: &mut [Arc<Entry>]) {
    // Per runner and server, the newest entry so far, chosen as
    // `server_docs` chooses; then the others' tables are dropped on every
    // CPU: dropped one at a time, on one CPU while the others waited, they
    // were about 40 ms of a 10,000-result build under perf
    // (docs/benchmarks.md).
    let mut superseded = vec![false; entries.len()];
    let mut newest: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(doc) = &e.server else { continue };
        if !e.stages.runner() {
            continue;
        }
        let slot = newest.entry((&e.meta.provider_id, &e.meta.runner, &doc.target)).or_insert(i);
        if *slot == i {
            continue;
        }
        if newer_key(e) > newer_key(&entries[*slot]) {
            superseded[*slot] = true;
            *slot = i;
        } else {
            superseded[i] = true;
        }
    }
    drop(newest);
    entries.par_iter_mut().zip(superseded).filter(|(_, superseded)| *superseded).for_each(|(entry, _)| {
        if let Some(e) = Arc::get_mut(entry)
            && let Some(doc) = &mut e.server
        {
            doc.tables = Vec::new();
            doc.conditions = Vec::new();
        }
    });
}

/// The results that get a server document page: every result that measured
/// only a build-cache server (its rows link there), and of the runner
/// results with a build-cache stage the newest per runner and server, as
/// the comparison tables show the newest result per runner. A runner
/// measured against one server a thousand times is one document, not a
/// thousand pages and plots (docs/benchmarks.md: they tripled the files of
/// a 10,000-result build). In path order.
fn server_docs(entries: &[Arc<Entry>]) -> Vec<usize> {
    let mut newest: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(doc) = &e.server else { continue };
        if !e.stages.runner() {
            out.push(i);
            continue;
        }
        let slot = newest.entry((&e.meta.provider_id, &e.meta.runner, &doc.target)).or_insert(i);
        if newer_key(e) > newer_key(&entries[*slot]) {
            *slot = i;
        }
    }
    out.extend(newest.into_values());
    out.sort_unstable();
    out
}

/// The stages of the home page's groups, in page order. Build-cache servers
/// are not runners: they have a section of their own (`build_cache`).
const GROUP_STAGES: [&str; 4] = ["cpu", "disk", "cache", "internet"];

/// What a disk group's note says of its samples' buffers; empty where
/// the results do not record them.
pub fn disk_buffer_text(pages_kib: &[u32]) -> String {
    let page = |kib: u32| match kib {
        k if k >= 1024 && k % 1024 == 0 => format!("{} MiB", k / 1024),
        k => format!("{k} KiB"),
    };
    match pages_kib {
        [] => String::new(),
        [only] if *only >= 1024 => format!("Each sample read and wrote through one {} huge page.", page(*only)),
        [only] => format!(
            "Each sample read and wrote through a buffer of {} pages, not one huge page (the collector asks \
             for one on Linux only, where the kernel may give none): on some virtual disks the 1 MiB figures \
             then depend on where in memory those pages lay.",
            page(*only)
        ),
        mixed => format!(
            "The samples read and wrote through buffers of {} pages: some got a huge page, some did not.",
            mixed.iter().map(|&k| page(k)).collect::<Vec<_>>().join(" and ")
        ),
    }
}

/// The stage `name`'s key of an entry, where the entry has rows of that
/// stage.
fn group_key<'e>(e: &'e Entry, name: &str) -> Option<&'e str> {
    let keyed = |s: StageKind, has: bool| has.then(|| e.meta.keys.get(s));
    match name {
        "cpu" => keyed(StageKind::Cpu, e.cpu.is_some()),
        "disk" => keyed(StageKind::Disk, e.disk.is_some()),
        "cache" => keyed(StageKind::Cache, !e.cache.is_empty()),
        "internet" => keyed(StageKind::Internet, e.internet.is_some()),
        _ => None,
    }
}

/// Per stage, per comparability key (`keys`) and runner: the newest
/// complete result that is not excluded, else the newest one not excluded
/// (marked incomplete); every excluded result is shown too, marked. Results
/// of different profiles share a stage's table wherever that stage's key is
/// equal.
fn groups(entries: &[Arc<Entry>]) -> Vec<Group> {
    // The stages' groups are made from the same entries independently: on
    // every CPU (a `site serve` rebuild makes them all again).
    let stages: Vec<Vec<Group>> =
        (0..GROUP_STAGES.len()).into_par_iter().map(|i| stage_groups(entries, GROUP_STAGES[i])).collect();
    let mut groups: Vec<Group> = stages.into_iter().flatten().collect();
    groups.par_iter_mut().for_each(|g| {
        // Newest protocol first; results without a stated protocol last.
        g.profiles.sort_by(profile_order);
        if let Some(first) = g.profiles.first() {
            g.fingerprint = first.fingerprint.clone();
            g.protocol = first.protocol;
        }
        // Clean rows first, current before stale, then the best headline
        // figure (`pages::TABLES` names it), then the runner:
        // the reader's question is "which is fastest", marked rows stay
        // visible below, and a home page that shows only the first rows of
        // a long table (`Options::home_rows`) shows the best ones.
        rank(&mut g.cpu);
        rank(&mut g.cpu_eembc);
        rank(&mut g.disk);
        rank(&mut g.cache);
        rank(&mut g.cache_action);
        rank(&mut g.internet);
    });
    // By stage; within a stage newest protocol first (results without a
    // stated protocol last), measured before imported, then by id.
    let stage_index = |g: &Group| GROUP_STAGES.iter().position(|s| *s == g.stage);
    groups.sort_by(|a, b| {
        stage_index(a)
            .cmp(&stage_index(b))
            .then_with(|| b.protocol.cmp(&a.protocol))
            .then_with(|| a.imported.cmp(&b.imported))
            .then_with(|| a.id.cmp(&b.id))
    });
    groups
}

/// The groups of one stage, in key order, measured before imported.
fn stage_groups(entries: &[Arc<Entry>], stage: &'static str) -> Vec<Group> {
    // Hash maps, not ordered ones: keys are long strings that share long
    // prefixes, and comparing them a dozen times per entry was 4 % of a
    // `site serve` rebuild's CPU time (`perf`). The sorts below give the
    // order.
    let mut chosen: HashMap<(&str, bool, &str, &str), usize> = HashMap::new();
    let mut shown: Vec<(usize, &str)> = Vec::new();
    // Build-cache servers are not ranked with runners.
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.stages.runner()) {
        let Some(key) = group_key(e, stage) else { continue };
        if e.meta.excluded.is_some() {
            shown.push((i, key));
            continue;
        }
        let slot = (key, e.meta.imported, e.meta.provider_id.as_str(), e.meta.runner.as_str());
        let better = match chosen.get(&slot) {
            None => true,
            Some(&j) => {
                let old = &entries[j];
                (e.meta.clean(), newer_key(e)) > (old.meta.clean(), newer_key(old))
            }
        };
        if better {
            chosen.insert(slot, i);
        }
    }
    shown.extend(chosen.into_iter().map(|((key, ..), i)| (i, key)));
    // Rows in entry order, as the tables' stable sorts expect.
    shown.sort_unstable_by_key(|&(i, _)| i);

    // Imported and measured figures are never ranked in one table: their
    // keys differ (`keys`), and a group is one key and one of the two.
    let mut mine: HashMap<(&str, bool), Group> = HashMap::new();
    for &(i, key) in &shown {
        let e = &entries[i];
        let g = mine.entry((key, e.meta.imported)).or_insert_with(|| Group {
            id: key.to_string(),
            stage,
            key: key.to_string(),
            imported: e.meta.imported,
            ..Group::default()
        });
        if stage == "disk" && g.disk_buffer.is_empty() {
            // One key, one set of page sizes (`keys`).
            g.disk_buffer = disk_buffer_text(&e.meta.disk_buffer_pages);
        }
        let profile = ProfileRef { fingerprint: e.meta.fingerprint.clone(), protocol: e.meta.protocol };
        if !g.profiles.contains(&profile) {
            // `profile` stays the first of `profiles` in their order.
            if g.profiles.iter().all(|p| profile_order(&profile, p).is_lt()) {
                g.profile = e.profile.clone();
            }
            g.profiles.push(profile);
        }
        add_rows(g, e, stage);
    }
    let mut mine: Vec<((&str, bool), Group)> = mine.into_iter().collect();
    mine.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    mine.into_iter().map(|(_, g)| g).collect()
}

/// Newest protocol first (none last), then by fingerprint.
fn profile_order(a: &ProfileRef, b: &ProfileRef) -> std::cmp::Ordering {
    b.protocol.cmp(&a.protocol).then_with(|| a.fingerprint.cmp(&b.fingerprint))
}

/// Adds the rows of `stage` of `e` to `g`.
fn add_rows(g: &mut Group, e: &Entry, stage: &str) {
    let m = &e.meta;
    match stage {
        "cpu" => {
            if let Some(fig) = e.cpu.clone() {
                let incomplete = cpu_incomplete(&fig);
                let table = if fig.official_sources { &mut g.cpu_eembc } else { &mut g.cpu };
                table.push(Row::new(m, fig, incomplete));
            }
        }
        "disk" => g.disk.extend(e.disk.clone().map(|fig| {
            let incomplete = disk_incomplete(&fig);
            Row::new(m, fig, incomplete)
        })),
        "cache" => {
            for fig in e.cache.iter().cloned() {
                let incomplete = cache_incomplete(&fig);
                let table = match fig.method {
                    CacheMethod::Client => &mut g.cache,
                    CacheMethod::Action => &mut g.cache_action,
                };
                table.push(Row::new(m, fig, incomplete));
            }
        }
        "internet" => g.internet.extend(e.internet.clone().map(|fig| {
            let incomplete = internet_incomplete(&fig);
            Row::new(m, fig, incomplete)
        })),
        other => unreachable!("{other} is not one of GROUP_STAGES"),
    }
}

/// Which stage sections a result has; measured and imported results have
/// different section types with the same five names.
macro_rules! present_stages {
    ($s:expr) => {
        Stages {
            cpu: $s.cpu.is_some(),
            disk: $s.disk.is_some(),
            cache: $s.cache.is_some(),
            internet: $s.internet.is_some(),
            http_cache: $s.http_cache.is_some(),
        }
    };
}

/// A hash of everything an entry is made from: the file's content, its
/// path, its exclusion, its release status and the staleness cut-off.
fn entry_key(run: &Run, stale_before: jiff::Timestamp) -> u64 {
    super::memo::key_of((&run.sha256, &run.rel_path, &run.excluded, &run.release, stale_before.as_second()))
}

fn entry(run: &Run, key: u64, stale_before: jiff::Timestamp) -> Entry {
    let part: RunnerPart = report::part(run);
    // When the figures were measured, where known: staleness counts from it
    // and from nothing else.
    let (provider_name, collector, imported, measured_at, stages, requested_missing) = match &*run.result {
        AnyResult::Measured(m) => {
            let s = &m.stages;
            let stages = present_stages!(s);
            // A measured run asks for CPU, disk and cache, and for the
            // internet stage when its parameters enable it.
            let missing = !(stages.cpu && stages.disk && stages.cache) || (m.parameters.internet && !stages.internet);
            let name = m.provider.name.as_ref().map(|n| n.to_string());
            let at = Some(m.provenance.started_at.instant());
            (name, m.collector.version.to_string(), false, at, stages, missing)
        }
        AnyResult::Imported(i) => {
            let s = &i.stages;
            let stages = present_stages!(s);
            let name = i.provider.name.as_ref().map(|n| n.to_string());
            let at = i.source.measured_on.as_ref().map(|d| d.instant());
            (name, "imported".to_string(), true, at, stages, false)
        }
    };
    // A job that did not succeed left its part missing or partial, even
    // where what it left still fills every table.
    let failed_jobs: Vec<FailedJob> = match &*run.result {
        AnyResult::Measured(m) => m
            .provenance
            .jobs
            .iter()
            .filter(|j| j.conclusion != Conclusion::Success)
            .map(|j| FailedJob { job: j.job.to_string(), conclusion: j.conclusion.name() })
            .collect(),
        AnyResult::Imported(_) => Vec::new(),
    };
    let (release, self_built) = match &run.release {
        Some(ReleaseStatus::Released { tag }) => (Some(tag.clone()), None),
        Some(ReleaseStatus::SelfBuilt { reason }) => (None, Some(reason.clone())),
        None => (None, None),
    };
    // The result is incomplete where any of its rows is (the same rules as
    // the rows' own marks in `groups`).
    let some_incomplete = part.cpu.as_ref().is_some_and(cpu_incomplete)
        || part.disk.as_ref().is_some_and(disk_incomplete)
        || part.internet.as_ref().is_some_and(internet_incomplete)
        || part.cache.iter().any(cache_incomplete);
    let provider_id = run.provider_id();
    let runner = run.runner_label();
    let server = part.http_cache.as_ref().and_then(|view| build_cache::server_doc(run, view));
    // A server's rows link to its document's page: it has no runner page.
    let runner_url = match &server {
        Some(doc) if !stages.runner() => doc.url.clone(),
        _ => format!("/runners/{provider_id}/{runner}/"),
    };
    let meta = Meta {
        provider_name: provider_name.unwrap_or_else(|| provider_id.clone()),
        runner_url,
        provider_url: format!("/providers/{provider_id}/"),
        source_url: format!("/results/{}", run.rel_path),
        rel_path: run.rel_path.clone(),
        date: match measured_at {
            Some(t) if imported => t.strftime("%Y-%m-%d").to_string(),
            _ => run.date().get(..10).unwrap_or(run.date()).to_string(),
        },
        date_measured: measured_at.is_some(),
        imported_on: imported.then(|| run.date().get(..10).unwrap_or(run.date()).to_string()),
        timestamp: match measured_at {
            Some(t) if imported => t.to_string(),
            _ => run.date().to_string(),
        },
        collector,
        imported,
        stale: measured_at.is_some_and(|t| t < stale_before),
        incomplete: requested_missing || some_incomplete || !failed_jobs.is_empty(),
        excluded: run.excluded.clone(),
        tryout: matches!(&*run.result, AnyResult::Measured(m) if crate::validate::is_tryout(m)),
        release,
        self_built,
        failed_jobs,
        fingerprint: part.profile.as_ref().map(|p| p.fingerprint.clone()).unwrap_or_default(),
        protocol: part.profile.as_ref().map(|p| p.protocol),
        keys: crate::keys::stage_keys(&run.result),
        disk_buffer_pages: match &*run.result {
            AnyResult::Measured(m) => crate::keys::disk_buffer_pages(m),
            AnyResult::Imported(_) => Vec::new(),
        },
        provider_id,
        runner,
        entry_key: key,
    };
    Entry {
        key,
        meta: Arc::new(meta),
        profile: part.profile,
        cpu: part.cpu,
        disk: part.disk,
        cache: part.cache,
        internet: part.internet,
        server,
        stages,
        details: super::details::of(&run.result),
        intervals: std::sync::OnceLock::new(),
    }
}

/// Fewer accepted CoreMark samples than requested (so perhaps no median).
pub(super) fn cpu_incomplete(c: &CpuRow) -> bool {
    !c.complete || c.median_value.is_none()
}

/// Fewer complete disk samples than requested.
pub(super) fn disk_incomplete(d: &DiskRow) -> bool {
    !d.complete
}

/// The internet stage did not end `ok`.
pub(super) fn internet_incomplete(n: &InternetRow) -> bool {
    n.status != "ok"
}

/// Fewer verified pairs than trials (`2/3`).
pub(super) fn cache_incomplete(c: &CacheRow) -> bool {
    let mut it = c.verified.split('/').map(|n| n.trim().parse::<u32>().ok());
    matches!((it.next(), it.next()), (Some(Some(a)), Some(Some(b))) if a < b)
}

/// Which way a headline figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Better {
    Higher,
    Lower,
}

/// Sorts a table: clean rows first and current before stale, then by the
/// headline figure (best first; rows without it last), then by provider,
/// runner and the row's own order. Then gives the clean, current rows with
/// the figure their places: where two rows' 95 % intervals overlap they
/// share one, marked "≈" (`stats::ranks`); an imported row has no
/// interval and keeps a place of its own. Flags every row whose figure
/// varies by more than `VARIATION_FLAG_PCT`.
fn rank<T: Headline + Send>(rows: &mut [Row<T>]) {
    let key = |r: &Row<T>| {
        let v = r.fig.value().filter(|v| v.is_finite());
        let v = match T::BETTER {
            Better::Higher => v.map_or(f64::INFINITY, |v| -v),
            Better::Lower => v.unwrap_or(f64::INFINITY),
        };
        (r.marked, r.meta.stale, v)
    };
    // A stable sort keeps the row order of one runner (cache backends).
    rows.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        (ka.0, ka.1)
            .cmp(&(kb.0, kb.1))
            .then(ka.2.total_cmp(&kb.2))
            .then_with(|| (&a.meta.provider_id, &a.meta.runner).cmp(&(&b.meta.provider_id, &b.meta.runner)))
    });
    rows.par_iter_mut().for_each(|r| {
        r.interval = stats::median_ci95(r.fig.samples());
        r.ci = shown_interval(r.interval, r.fig.samples(), T::RANGE_COLUMN);
        let variation = match r.fig.samples() {
            [] => r.fig.published_variation_pct(),
            s => stats::variation_pct(s),
        };
        r.variable = variation.is_some_and(|v| v > VARIATION_FLAG_PCT);
    });
    let ranked = rows.iter().take_while(|r| !r.marked && !r.meta.stale && r.fig.value().is_some()).count();
    // An imported row has no samples to compute an interval from; where
    // its report published the samples' range, two rows whose ranges
    // overlap cannot be told apart either, and share a place.
    let intervals: Vec<Option<Interval>> = rows[..ranked]
        .iter()
        .map(|r| r.interval.or_else(|| r.fig.published_range().map(|(lo, hi)| Interval { lo, hi })))
        .collect();
    for (r, place) in rows.iter_mut().zip(stats::ranks(&intervals)) {
        r.place = Some(place);
    }
}

/// The leading number of a formatted figure (`33392.77`, `7.76; 7.12–22.53`),
/// `None` for an em dash.
pub fn leading(s: &str) -> Option<f64> {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(s.len());
    s[..end].parse().ok()
}

/// The `min–max` range of a formatted figure (`29068.42–37639.26` or
/// `7.76; 7.12–22.53`).
pub fn range(s: &str) -> Option<(f64, f64)> {
    let r = s.rsplit("; ").next()?;
    let (a, b) = r.split_once('–')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_from_formatted_figures() {
        assert_eq!(leading("33392.77"), Some(33392.77));
        assert_eq!(leading("7.76; 7.12–22.53"), Some(7.76));
        assert_eq!(leading("—"), None);
        assert_eq!(range("29068.42–37639.26"), Some((29068.42, 37639.26)));
        assert_eq!(range("7.76; 7.12–22.53"), Some((7.12, 22.53)));
        assert_eq!(range("—"), None);
    }

    #[test]
    fn rows_rank_by_the_exact_median_not_the_printed_one() {
        // Both print 1.40: the exact medians tell them apart.
        assert_eq!(exact("1.40; 1.40–1.41", &[1.403, 1.404, 1.405]), Some(1.404));
        assert_eq!(exact("1.40; 1.40–1.40", &[1.395, 1.396, 1.397]), Some(1.396));
        // An imported row has no samples: the figure as published.
        assert_eq!(exact("22.10; 18.53–66.84", &[]), Some(22.10));
        // No figure shown, no figure ranked.
        assert_eq!(exact("—", &[1.0]), None);
    }
}
