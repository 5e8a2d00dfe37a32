//! The comparison groups of the home page: the rows of every entry that
//! share a comparability key (`keys`), ranked by the table's headline
//! figure, with each row's interval and variation.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use runner_bench_format::measured::CacheMethod;
use serde::Serialize;

use super::entry::{Entry, Meta, leading, range};
use super::incomplete::{cache_incomplete, cpu_incomplete, disk_incomplete, internet_incomplete};
use super::picks::{GROUP_STAGES, Picks};
use crate::figures;
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow, ProfileView};
use crate::stats::{self, Interval, Rank};

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
    // key too (`home::render_rows`).
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

/// The figure a table ranks its rows by (`home::TABLES` names it).
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
    /// An imported report publishes each backend's min–max restore
    /// seconds: rows whose ranges overlap share a place, as CoreMark's do.
    fn published_range(&self) -> Option<(f64, f64)> {
        if self.headline_samples.is_empty() { range(&self.restore) } else { None }
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
    /// The metadata of every row, table by table.
    pub fn metas(&self) -> impl Iterator<Item = &Meta> {
        (self.cpu.iter().map(|r| &*r.meta))
            .chain(self.cpu_eembc.iter().map(|r| &*r.meta))
            .chain(self.disk.iter().map(|r| &*r.meta))
            .chain(self.cache.iter().map(|r| &*r.meta))
            .chain(self.cache_action.iter().map(|r| &*r.meta))
            .chain(self.internet.iter().map(|r| &*r.meta))
    }

    /// Whether every row is a try-out (the quick profile's): shown, never
    /// ranked.
    pub fn tryouts(&self) -> bool {
        let mut metas = self.metas().peekable();
        metas.peek().is_some() && metas.all(|m| m.tryout)
    }

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

/// The comparison groups of the results that `picks` chose
/// (`picks::picks`): per stage, one group per comparability key, measured
/// and imported apart. Results of different profiles share a stage's table
/// wherever that stage's key is equal.
pub(crate) fn groups(entries: &[Arc<Entry>], picks: &Picks) -> Vec<Group> {
    // The stages' groups are made from the same entries independently: on
    // every CPU (a `site serve` rebuild makes them all again).
    let stages: Vec<Vec<Group>> = (0..GROUP_STAGES.len())
        .into_par_iter()
        .map(|i| stage_groups(entries, GROUP_STAGES[i], picks.of_stage(i)))
        .collect();
    let mut groups: Vec<Group> = stages.into_iter().flatten().collect();
    groups.par_iter_mut().for_each(|g| {
        // Newest protocol first; results without a stated protocol last.
        g.profiles.sort_by(profile_order);
        if let Some(first) = g.profiles.first() {
            g.fingerprint = first.fingerprint.clone();
            g.protocol = first.protocol;
        }
        // Clean rows first, current before stale, then the best headline
        // figure (`home::TABLES` names it), then the runner:
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
    // By stage; within a stage ranked groups before try-outs, measured
    // before imported (an imported report's protocol number is its
    // publisher's claim, so however large it never puts the report first),
    // then newest protocol first (results without a stated protocol last),
    // then by id. Keyed once per group: `tryouts` reads every row.
    groups.sort_by_cached_key(|g| {
        let stage = GROUP_STAGES.iter().position(|s| *s == g.stage);
        (stage, g.tryouts(), g.imported, std::cmp::Reverse(g.protocol), g.id.clone())
    });
    groups
}

/// The groups of one stage, in key order, measured before imported, of
/// the results `shown` (in entry order, with their keys).
fn stage_groups(entries: &[Arc<Entry>], stage: &'static str, shown: &[(usize, String)]) -> Vec<Group> {
    // Imported and measured figures are never ranked in one table: their
    // keys differ (`keys`), and a group is one key and one of the two.
    let mut mine: HashMap<(&str, bool), Group> = HashMap::new();
    for (i, key) in shown {
        let (e, key) = (&entries[*i], key.as_str());
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
        let profile = ProfileRef { fingerprint: e.meta.fingerprint.to_string(), protocol: e.meta.protocol };
        if !g.profiles.contains(&profile) {
            // `profile` stays the first of `profiles` in their order.
            if g.profiles.iter().all(|p| profile_order(&profile, p).is_lt()) {
                g.profile = e.profile.as_deref().cloned();
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
        "disk" => g.disk.extend(e.disk.as_deref().cloned().map(|fig| {
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
        "internet" => g.internet.extend(e.internet.as_deref().cloned().map(|fig| {
            let incomplete = internet_incomplete(&fig);
            Row::new(m, fig, incomplete)
        })),
        other => unreachable!("{other} is not one of GROUP_STAGES"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
