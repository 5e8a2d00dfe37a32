//! HTML pages: tera templates from templates/ (read at build time when the
//! folder is there, so `site serve` picks up edits; otherwise the copies
//! built into the binary), with one serializable context per page kind.
//! Every `.html` template is autoescaped: text from results can never
//! become markup.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use rayon::prelude::*;
use serde::Serialize;
use tera::Tera;

use super::changes::Change;
use super::content::Page;
use super::details::Machine;
use super::model::{Group, Meta, Model, ProfileRef, Row, Stages};
use super::overview::OverviewRow;
use crate::providers::MachineView;
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow, ProfileView};

/// The templates, by name, as built into the binary: the pages' and the
/// provider report's (`report.md`, markdown, which tera does not autoescape;
/// its free text goes through the `md` filter).
pub const TEMPLATES: [(&str, &str); 14] = [
    ("base.html", include_str!("../../../templates/base.html")),
    ("macros.html", include_str!("../../../templates/macros.html")),
    ("home.html", include_str!("../../../templates/home.html")),
    ("home_row.html", include_str!("../../../templates/home_row.html")),
    ("table.html", include_str!("../../../templates/table.html")),
    ("provider.html", include_str!("../../../templates/provider.html")),
    ("runner.html", include_str!("../../../templates/runner.html")),
    ("build_cache.html", include_str!("../../../templates/build_cache.html")),
    ("server.html", include_str!("../../../templates/server.html")),
    ("coverage.html", include_str!("../../../templates/coverage.html")),
    ("overview.html", include_str!("../../../templates/overview.html")),
    ("page.html", include_str!("../../../templates/page.html")),
    ("404.html", include_str!("../../../templates/404.html")),
    ("report.md", include_str!("../../../templates/report.md")),
];

/// Loads the templates, each from `dir` where it exists there, and a key of
/// their sources (`site serve` reuses pages only while it is the same).
/// `cache` holds the last build's (`site serve`): while their sources are
/// the same they are not parsed again.
pub fn templates(dir: &Path, cache: Option<&mut TemplateCache>) -> anyhow::Result<(Arc<Tera>, u64)> {
    let mut sources = Vec::new();
    for (name, builtin) in TEMPLATES {
        let path = dir.join(name);
        // Only a missing file falls back: one that is there but cannot be
        // read is an error, not a silent return to the built-in wording.
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => builtin.to_string(),
            Err(e) => return Err(e).with_context(|| format!("cannot read the template {}", path.display())),
        };
        sources.push((name, text));
    }
    let key = super::memo::key_of(&sources);
    if let Some((old, tera)) = cache.as_deref().and_then(Option::as_ref)
        && *old == key
    {
        return Ok((tera.clone(), key));
    }
    let mut tera = Tera::default();
    tera.add_raw_templates(sources).context("the templates do not parse")?;
    tera.register_filter("md", crate::report::markdown_filter);
    let tera = Arc::new(tera);
    if let Some(cache) = cache {
        *cache = Some((key, tera.clone()));
    }
    Ok((tera, key))
}

/// The templates of the last build and the key of their sources.
pub type TemplateCache = Option<(u64, Arc<Tera>)>;

/// A navigation link.
#[derive(Debug, Clone, Hash, Serialize)]
pub struct NavLink {
    pub url: String,
    pub title: String,
}

/// What every page has.
#[derive(Debug, Clone, Hash, Serialize)]
pub struct Common {
    pub nav: Vec<NavLink>,
    /// `YYYY-MM-DD HH:MM UTC` of the build.
    pub built: String,
    pub stale_days: u32,
    /// Absolute base URL, without a trailing slash.
    pub base_url: String,
}

/// A plot as a page links it.
#[derive(Debug, Clone, Serialize)]
pub struct PlotRef {
    pub src: String,
    pub title: String,
    pub desc: String,
}

/// A comparison group as the home page shows it: its tables (rows already
/// rendered, see `home_rows`), and its plots.
#[derive(Debug, Clone, Serialize)]
pub struct GroupPage<'a> {
    pub id: &'a str,
    /// `cpu`, `disk`, `cache`, `internet` or `http_cache`.
    pub stage: &'a str,
    /// The stage's comparability key; empty for the build-cache stage.
    pub key: &'a str,
    /// Whether its rows are imported.
    pub imported: bool,
    /// The whole-profile fingerprints of its rows, newest protocol first.
    pub profiles: &'a [ProfileRef],
    pub fingerprint: &'a str,
    pub protocol: Option<u32>,
    pub profile: Option<&'a ProfileView>,
    /// For a disk group, what its samples' buffers were (`Group::disk_buffer`).
    pub disk_buffer: &'a str,
    pub cpu: Table,
    pub cpu_eembc: Table,
    pub disk: Table,
    pub cache: Table,
    pub cache_action: Table,
    pub internet: Table,
    pub plots: Vec<PlotRef>,
}

/// The comparison tables: kind, slug (anchors and URLs), name, and the
/// headline figure their rows are ranked by (see `model::build`). The CPU
/// stage has a table per CoreMark implementation and the cache stage one per
/// method, which are never ranked together. Build-cache servers are not
/// runners and have a section of their own (`build_cache_pages`).
pub const TABLES: [(&str, &str, &str, &str); 6] = [
    ("cpu", "cpu", "CoreMark", "median iterations/s"),
    ("cpu_eembc", "cpu-eembc", "CoreMark, EEMBC's sources", "median iterations/s"),
    ("disk", "disk", "Disk", "random-read IOPS"),
    ("cache", "cache", "Cache, client method", "restore seconds"),
    ("cache_action", "cache-action", "Cache, action method", "restore seconds"),
    ("internet", "internet", "Internet", "download Mbps"),
];

/// One comparison table as a page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// `cpu`, `cpu_eembc`, `disk`, `cache`, `cache_action` or `internet`.
    pub kind: &'static str,
    /// Its name in anchors and URLs (`cache-action` for `cache_action`).
    pub slug: &'static str,
    /// Its name for people, e.g. `Cache, action method`.
    pub name: &'static str,
    /// The figure its rows are ranked by, e.g. `random-read IOPS`.
    pub ranked_by: &'static str,
    /// The rows shown, rendered. Templates place `rows_marker` instead,
    /// which `splice_rows` replaces after tera renders the page: passed
    /// through tera, thousands of rows cost a table page about 40 ms.
    #[serde(skip)]
    pub html: String,
    /// `<!--rows:GROUP:SLUG-->`. Row text cannot contain it: every `<` of
    /// a result's text is escaped.
    pub rows_marker: String,
    /// How many rows are shown, of how many the table has.
    pub shown: usize,
    pub total: usize,
    /// The page with every row, where this shows only the first ones.
    pub all_url: Option<String>,
}

/// Rendered table rows by a key of their template and content, which
/// `site serve` keeps between builds.
pub type RowCache = HashMap<u64, String>;

#[derive(Serialize)]
struct RowContext<'a, T> {
    kind: &'a str,
    r: &'a Row<T>,
    /// Its speed figures per US cent per minute, where the runner's price
    /// is stated.
    pc: PerCent,
}

/// A table row's speed figures per US cent per minute at `usd_per_minute`
/// (`providers::value_per_cent`).
pub trait Speeds {
    fn per_cent(&self, usd_per_minute: f64) -> PerCent;
}

/// `figure` per US cent per minute, two decimals; `None` without a number.
fn pc(figure: &str, usd_per_minute: f64) -> Option<String> {
    let v = super::model::leading(figure)?;
    Some(crate::figures::two(crate::providers::value_per_cent(v, usd_per_minute)?))
}

impl Speeds for CpuRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        let median = self.median_value.and_then(|v| crate::providers::value_per_cent(v, usd)).map(crate::figures::two);
        PerCent { median, ..PerCent::default() }
    }
}

impl Speeds for DiskRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent {
            read: pc(&self.read, usd),
            write: pc(&self.write, usd),
            rand_read: pc(&self.rand_read, usd),
            rand_write: pc(&self.rand_write, usd),
            ..PerCent::default()
        }
    }
}

impl Speeds for CacheRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent {
            save_mib_per_s: pc(&self.save_mib_per_s, usd),
            restore_mib_per_s: pc(&self.restore_mib_per_s, usd),
            ..PerCent::default()
        }
    }
}

impl Speeds for InternetRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent { download: pc(&self.download, usd), upload: pc(&self.upload, usd), ..PerCent::default() }
    }
}

/// Each runner's stated price in US dollars per minute, by provider id,
/// then label: runners without one are not in it.
pub type Prices = HashMap<String, HashMap<String, f64>>;

/// The rows of one comparison table, each rendered on its own with
/// templates/home_row.html on every CPU, with the price-performance of the
/// runners in `prices`. Where `cache` is given, a row whose content and
/// templates it has seen is taken from it, and every row made is added to
/// `made`. Each row comes with its key (0 without a cache).
#[allow(clippy::too_many_arguments)]
pub fn home_rows<T: Serialize + Sync + Speeds>(
    tera: &Tera,
    templates_key: u64,
    kind: &str,
    rows: &[Row<T>],
    prices: &Prices,
    cache: Option<&RowCache>,
    made: &Mutex<RowCache>,
) -> anyhow::Result<Vec<(u64, String)>> {
    rows.par_iter()
        .map(|r| {
            let usd = prices.get(&r.meta.provider_id).and_then(|p| p.get(&r.meta.runner)).copied();
            let pc = usd.map(|usd| r.fig.per_cent(usd)).unwrap_or_default();
            let ctx = RowContext { kind, r, pc };
            let Some(cache) = cache else { return Ok((0, render(tera, "home_row.html", &ctx)?)) };
            // The row's content but its meta, which its entry's key stands
            // for: serializing every row's meta for its key was most of the
            // home page's time in a rebuild.
            let own = (kind, &r.fig, r.incomplete, r.marked, &r.place, &r.ci, r.variable, &ctx.pc);
            let json = serde_json::to_vec(&own).context("a home-page row does not serialize")?;
            let key = super::memo::key_of((templates_key, r.meta.entry_key, json));
            let html = match cache.get(&key) {
                Some(html) => html.clone(),
                None => render(tera, "home_row.html", &ctx)?,
            };
            made.lock().unwrap_or_else(|e| e.into_inner()).insert(key, html.clone());
            Ok((key, html))
        })
        .collect()
}

#[derive(Serialize)]
struct TableContext<'a> {
    common: &'a Common,
    title: String,
    description: String,
    /// The group's heading only: serializing its rows for tera would cost
    /// more than rendering the page.
    g: GroupHead<'a>,
    t: &'a Table,
}

#[derive(Serialize)]
struct GroupHead<'a> {
    id: &'a str,
    key: &'a str,
    profiles: &'a [ProfileRef],
    disk_buffer: &'a str,
}

/// A key of what `table` shows of `g` besides the rows (its heading).
pub fn table_head_key(g: &Group) -> anyhow::Result<u64> {
    let head = GroupHead { id: &g.id, key: &g.key, profiles: &g.profiles, disk_buffer: &g.disk_buffer };
    Ok(super::memo::key_of((g.label(), serde_json::to_string(&head)?)))
}

/// A page with every row of one comparison table, for a table longer than
/// the home page shows.
pub fn table(tera: &Tera, common: &Common, g: &Group, t: &Table) -> anyhow::Result<String> {
    let name = t.name;
    let group = g.label();
    let ctx = TableContext {
        common,
        title: format!("{name}: all {} rows ({group})", t.total),
        description: format!("Every row of the {name} comparison table of {group}, ranked by {}.", t.ranked_by),
        g: GroupHead { id: &g.id, key: &g.key, profiles: &g.profiles, disk_buffer: &g.disk_buffer },
        t,
    };
    splice_rows("table.html", render(tera, "table.html", &ctx)?, [t])
}

#[derive(Serialize)]
struct HomeContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    groups: &'a [GroupPage<'a>],
    results: usize,
    runners: usize,
    providers: usize,
    /// Build-cache server documents, which the home page links to.
    servers: usize,
    /// Who leads each stage's largest table.
    leaders: &'a [super::leaders::Leader],
}

/// The home page: the comparison.
pub fn home(
    tera: &Tera,
    common: &Common,
    model: &Model,
    groups: &[GroupPage<'_>],
    leaders: &[super::leaders::Leader],
) -> anyhow::Result<String> {
    let ctx = HomeContext {
        common,
        title: "CI runner benchmarks",
        description: "CoreMark, disk, cache and internet figures of CI runners, compared only where they were \
                      measured the same way; every figure links to its result file.",
        groups,
        // Runners' results only: build-cache servers have their own section.
        results: model.runners.iter().map(|r| r.entries.len()).sum(),
        runners: model.runners.len(),
        providers: model.runners.iter().map(|r| &r.provider_id).collect::<std::collections::BTreeSet<_>>().len(),
        servers: model.servers.len(),
        leaders,
    };
    let page = render(tera, "home.html", &ctx)?;
    let tables = groups.iter().flat_map(|g| [&g.cpu, &g.cpu_eembc, &g.disk, &g.cache, &g.cache_action, &g.internet]);
    splice_rows("home.html", page, tables)
}

/// Puts each table's rows where the page rendered its marker; a table with
/// rows whose marker is missing or repeated is an error in the template.
fn splice_rows<'t>(
    name: &str,
    mut page: String,
    tables: impl IntoIterator<Item = &'t Table>,
) -> anyhow::Result<String> {
    for t in tables.into_iter().filter(|t| t.total > 0) {
        let mut found = page.match_indices(&t.rows_marker).map(|(at, _)| at);
        let (Some(at), None) = (found.next(), found.next()) else {
            anyhow::bail!(
                "templates/{name} must place the rows of table {} exactly once, with {{{{ t.rows_marker | safe }}}}",
                t.rows_marker
            );
        };
        page.replace_range(at..at + t.rows_marker.len(), &t.html);
    }
    Ok(page)
}

/// A runner in a list.
#[derive(Debug, Clone, Serialize)]
pub struct RunnerLink {
    pub label: String,
    pub url: String,
    pub results: usize,
    pub newest: String,
}

/// A build-cache server document in a list.
#[derive(Debug, Clone, Serialize)]
pub struct ServerLink {
    /// Software and server URL or document title.
    pub label: String,
    pub url: String,
    /// The measurement day, or `imported` and the import day.
    pub date: String,
}

#[derive(Serialize)]
struct ProviderContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: String,
    provider_id: &'a str,
    provider_name: &'a str,
    report_html: &'a str,
    notes: &'a [String],
    runners: &'a [RunnerLink],
    servers: &'a [ServerLink],
    plots: &'a [PlotRef],
}

/// A provider page: its report as HTML, its plots, runners and build-cache
/// server documents.
#[allow(clippy::too_many_arguments)]
pub fn provider(
    tera: &Tera,
    common: &Common,
    provider_id: &str,
    provider_name: &str,
    title: &str,
    report_html: &str,
    notes: &[String],
    runners: &[RunnerLink],
    servers: &[ServerLink],
    plots: &[PlotRef],
) -> anyhow::Result<String> {
    let ctx = ProviderContext {
        common,
        title,
        description: format!("Benchmarks of {provider_name}'s CI runners: CoreMark, disk, cache and internet."),
        provider_id,
        provider_name,
        report_html,
        notes,
        runners,
        servers,
        plots,
    };
    render(tera, "provider.html", &ctx)
}

/// One result in a runner's history: its stages, each with its own marks,
/// its machine and build, and the changes flagged on it (`changes`).
#[derive(Debug, Clone)]
pub struct HistoryRow<'a> {
    pub meta: &'a Meta,
    /// The row's anchor, `r-` and the result file's stem.
    pub anchor: String,
    /// Its headline figures that moved beyond their intervals since the
    /// runner's previous result.
    pub changes: &'a [Change],
    pub cpu: Option<StageRow<'a, CpuRow>>,
    pub disk: Option<StageRow<'a, DiskRow>>,
    /// One per cache backend and method the result measured.
    pub cache: Vec<StageRow<'a, CacheRow>>,
    pub internet: Option<StageRow<'a, InternetRow>>,
    /// Its build-cache benchmark's page, where it has one.
    pub server: Option<ServerRef<'a>>,
}

/// Consecutive results of a runner (newest first) on the same machine and
/// build: one row of the runner page's machine and build tables, so that a
/// change of machine stands out and ten runs on one machine are one row.
#[derive(Debug, Clone)]
pub struct MachineSpan<'a> {
    pub machine: &'a Machine,
    /// Anchor and date of its newest and oldest result.
    pub newest: (&'a str, &'a str),
    pub oldest: (&'a str, &'a str),
    pub results: usize,
}

/// One stage's figures of one result, marked on their own.
#[derive(Debug, Clone)]
pub struct StageRow<'a, T> {
    pub fig: &'a T,
    /// A sample this stage's parameters asked for is missing or failed.
    pub incomplete: bool,
    /// Why, where the file says (measured results).
    pub reason: Option<&'a str>,
    /// The headline median's 95 % bootstrap interval, `lo–hi`.
    pub ci: Option<String>,
    /// Its headline figure varies by more than `VARIATION_FLAG_PCT`.
    pub variable: bool,
    /// Its speed figures per US cent per minute, where a price is stated.
    pub per_cent: PerCent,
}

/// A result's build-cache benchmark, as its runner page links it.
#[derive(Debug, Clone)]
pub struct ServerRef<'a> {
    pub software: &'a str,
    /// The server's URL or the document's title.
    pub target: &'a str,
    /// Its document page: the newest result per runner and server has one.
    pub url: Option<&'a str>,
}

/// A row's speed figures per US cent per minute
/// (`providers::value_per_cent`), named as the row's figures; `None`
/// without a stated price or a number, and then left out of the templates'
/// context (most runners state no price). Figures where lower is better
/// (seconds, milliseconds) have none.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PerCent {
    /// CoreMark median iterations/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median: Option<String>,
    /// Disk sequential MiB/s and random IOPS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_write: Option<String>,
    /// Cache MiB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub save_mib_per_s: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_mib_per_s: Option<String>,
    /// Internet Mbps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload: Option<String>,
}

/// What a runner page says about the runner's machine and provider.
#[derive(Debug, Clone, Serialize)]
pub struct MachinePart<'a> {
    pub machine: &'a MachineView,
    /// The provider's name and site as its file states them.
    pub provider_file_name: Option<&'a str>,
    pub provider_site: Option<&'a str>,
}

#[derive(Serialize)]
struct RunnerContext<'a> {
    common: &'a Common,
    title: String,
    description: String,
    provider_id: &'a str,
    provider_name: &'a str,
    label: &'a str,
    machine: &'a MachinePart<'a>,
    /// Its tables, as HTML (`runner_tables::render`).
    tables: String,
    plots: &'a [PlotRef],
}

/// A runner page: what it is and costs, and its history across runs,
/// newest first.
#[allow(clippy::too_many_arguments)]
pub fn runner(
    tera: &Tera,
    common: &Common,
    provider_id: &str,
    provider_name: &str,
    label: &str,
    machine: &MachinePart<'_>,
    rows: &[HistoryRow<'_>],
    machines: &[MachineSpan<'_>],
    any: Stages,
    plots: &[PlotRef],
) -> anyhow::Result<String> {
    let ctx = RunnerContext {
        common,
        title: format!("{label} ({provider_name})"),
        description: format!("Every benchmark result of the {provider_name} runner {label}, newest first."),
        provider_id,
        provider_name,
        label,
        machine,
        tables: super::runner_tables::render(
            rows,
            machines,
            any,
            machine.machine.usd_per_minute.is_some_and(|v| v != 0.0),
        ),
        plots,
    };
    render(tera, "runner.html", &ctx)
}

#[derive(Serialize)]
struct OverviewContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    rows: &'a [OverviewRow],
    /// The filters' choices.
    arch: Vec<String>,
    os: Vec<String>,
}

/// The overview: one row per runner (`overview::rows`).
pub fn overview(tera: &Tera, common: &Common, rows: &[OverviewRow]) -> anyhow::Result<String> {
    let (arch, os) = super::overview::choices(rows);
    let ctx = OverviewContext {
        common,
        title: "Overview",
        description: "Every runner in one table: the headline figure of each stage against the best comparable \
                      result, with size and price.",
        rows,
        arch,
        os,
    };
    render(tera, "overview.html", &ctx)
}

/// A row of the coverage page.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageRow {
    pub provider_id: String,
    pub provider_name: String,
    pub label: String,
    pub url: String,
    pub newest: Stages,
    pub any: Stages,
    /// Stage names its newest result lacks.
    pub missing: Vec<&'static str>,
}

#[derive(Serialize)]
struct CoverageContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    stages: Vec<&'static str>,
    rows: &'a [CoverageRow],
    complete: usize,
}

/// Which runners have which stages.
pub fn coverage(tera: &Tera, common: &Common, rows: &[CoverageRow]) -> anyhow::Result<String> {
    let ctx = CoverageContext {
        common,
        title: "Coverage",
        description: "Which runners have results for which benchmark stages, and which are missing.",
        stages: Stages::default().list().iter().map(|s| s.0).collect(),
        rows,
        complete: rows.iter().filter(|r| r.missing.is_empty()).count(),
    };
    render(tera, "coverage.html", &ctx)
}

#[derive(Serialize)]
struct PageContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    body: &'a str,
}

/// A hand-written page.
pub fn page(tera: &Tera, common: &Common, p: &Page) -> anyhow::Result<String> {
    let ctx = PageContext { common, title: &p.title, description: &p.description, body: &p.html };
    render(tera, "page.html", &ctx)
}

/// The 404 page.
pub fn not_found(tera: &Tera, common: &Common) -> anyhow::Result<String> {
    let ctx = PageContext { common, title: "Page not found", description: "This page does not exist.", body: "" };
    render(tera, "404.html", &ctx)
}

pub(super) fn render(tera: &Tera, name: &str, ctx: &impl Serialize) -> anyhow::Result<String> {
    let ctx =
        tera::Context::from_serialize(ctx).with_context(|| format!("the context of {name} does not serialize"))?;
    tera.render(name, &ctx).with_context(|| format!("cannot render templates/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(total: usize) -> Table {
        Table {
            kind: "cpu",
            slug: "cpu",
            name: "CoreMark",
            ranked_by: "median iterations/s",
            html: "<tr><td>1</td></tr>".into(),
            rows_marker: "<!--rows:abc:cpu-->".into(),
            shown: total,
            total,
            all_url: None,
        }
    }

    #[test]
    fn rows_go_where_the_marker_is_and_a_missing_marker_is_an_error() {
        let page = "<tbody><!--rows:abc:cpu--></tbody>".to_string();
        assert_eq!(splice_rows("x.html", page, [&table(1)]).unwrap(), "<tbody><tr><td>1</td></tr></tbody>");
        let expected = "templates/x.html must place the rows of table <!--rows:abc:cpu--> exactly once, with \
                        {{ t.rows_marker | safe }}";
        let missing = splice_rows("x.html", "<tbody></tbody>".into(), [&table(1)]).unwrap_err();
        assert_eq!(missing.to_string(), expected);
        let twice = "<!--rows:abc:cpu--><!--rows:abc:cpu-->".to_string();
        assert_eq!(splice_rows("x.html", twice, [&table(1)]).unwrap_err().to_string(), expected);
        // An empty table is not rendered, so its marker may be absent.
        assert_eq!(splice_rows("x.html", String::new(), [&table(0)]).unwrap(), "");
    }
}
