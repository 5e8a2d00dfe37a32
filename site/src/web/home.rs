//! The home page: each group's comparison tables and plots, and a page of
//! its own for each table too long for the home page.

use std::collections::HashMap;
use std::sync::Mutex;

use anyhow::Context as _;
use rayon::prelude::*;
use serde::Serialize;
use tera::Tera;

use super::group_name::group_name;
use super::leaders::{Leader, leaders};
use super::pages::{Common, OneValue, PerCent, PlotRef, Speeds, render};
use super::parts::{Part, Parts};
use super::plots::{PlotCache, group_plots};
use super::site::{FileSink, Site};
use crate::memo_key::key_of;
use crate::model::{Group, Model, ProfileRef, Row};
use crate::report::ProfileView;

/// What `site serve` keeps of the home page between builds besides its
/// long tables' pages (memo parts): its rows and its plots.
#[derive(Debug, Default)]
pub(super) struct HomeCache {
    /// The rendered rows by key (see `render_rows`).
    pub(super) rows: RowCache,
    /// The drawn plots (see `plots::group_plots`).
    pub(super) plots: PlotCache,
}

/// The home page and its plots; a page per table too long for the home
/// page, each as a memo part `(name, key, part)`; and the rows and plots a
/// rebuild may reuse. Where `old` and `parts` are given (the last build's),
/// rows, plots and table pages whose inputs are the same are taken from
/// them.
#[allow(clippy::too_many_arguments)]
pub(super) fn home_page(
    tera: &tera::Tera,
    templates_key: u64,
    common: &Common,
    model: &Model,
    prices: &Prices,
    home_rows: usize,
    old: Option<&HomeCache>,
    parts: Option<&Parts>,
    mut emit: Option<&mut (dyn FileSink + '_)>,
) -> anyhow::Result<(Site, Vec<Part>, HomeCache)> {
    let mut site = Site::default();
    let made = Mutex::new(RowCache::new());
    let mut drawn = PlotCache::new();
    let mut tables = Vec::new();
    let pages_key = key_of((common, templates_key));
    let rows = old.map(|o| &o.rows);
    let mut group_pages = Vec::new();
    for g in &model.groups {
        // The home page plots the rows it shows.
        let cache = old.map(|o| (&o.plots, &mut drawn));
        let cut = [g.cpu.len(), g.cpu_eembc.len(), g.disk.len(), g.cache.len(), g.cache_action.len(), g.internet.len()]
            .into_iter()
            .any(|n| n > home_rows)
            .then_some(home_rows);
        let stem = format!("plots/{}", g.id);
        let plots = group_plots(&mut site, &stem, &g.first_rows(home_rows), false, cut, cache)?;
        let mut table = |kind: &'static str, rendered: Rendered| {
            let long = LongTables { old: parts, pages_key, parts: &mut tables, emit: emit.as_deref_mut() };
            comparison_table(tera, common, g, kind, rendered, home_rows, long)
        };
        group_pages.push(GroupPage {
            id: &g.id,
            stage: g.stage,
            name: group_name(g, g.metas()),
            key: &g.key,
            imported: g.imported,
            profiles: &g.profiles,
            fingerprint: &g.fingerprint,
            protocol: g.protocol,
            profile: g.profile.as_ref(),
            disk_buffer: &g.disk_buffer,
            cpu: table("cpu", render_rows(tera, templates_key, "cpu", &g.cpu, prices, rows, &made)?)?,
            cpu_eembc: table(
                "cpu_eembc",
                render_rows(tera, templates_key, "cpu_eembc", &g.cpu_eembc, prices, rows, &made)?,
            )?,
            disk: table("disk", render_rows(tera, templates_key, "disk", &g.disk, prices, rows, &made)?)?,
            cache: table("cache", render_rows(tera, templates_key, "cache", &g.cache, prices, rows, &made)?)?,
            cache_action: table(
                "cache_action",
                render_rows(tera, templates_key, "cache_action", &g.cache_action, prices, rows, &made)?,
            )?,
            internet: table(
                "internet",
                render_rows(tera, templates_key, "internet", &g.internet, prices, rows, &made)?,
            )?,
            plots,
        });
        if emit.is_some() {
            // A streaming build hands back what each group's tables freed:
            // it holds freed pages for reuse (`memory`), and the groups'
            // rows and long pages, one after another, would otherwise add
            // up to its peak.
            super::memory::release_free_memory();
        }
    }
    site.add("index.html", home(tera, common, model, &group_pages)?);
    let rows = made.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((site, tables, HomeCache { rows, plots: drawn }))
}

/// Where the long tables' pages go: memo parts, taken from the last build
/// (`old`) where their key is the same; `pages_key` is the key of the
/// site-wide inputs.
struct LongTables<'a, 'e> {
    old: Option<&'a Parts>,
    pages_key: u64,
    parts: &'a mut Vec<Part>,
    /// Where a streaming build hands each page as soon as it is made, so
    /// that it never holds every long table's page; its part then keeps
    /// its name only.
    emit: Option<&'a mut (dyn FileSink + 'e)>,
}

/// Each runner's stated price (`Prices`), for the tables'
/// price-performance.
pub(super) fn prices(model: &Model, providers: &crate::providers::Providers, now: jiff::Timestamp) -> Prices {
    let mut out = Prices::new();
    for r in &model.runners {
        if let Some(usd) = providers.machine(&r.provider_id, &r.label, now).usd_per_minute {
            out.entry(r.provider_id.clone()).or_default().insert(r.label.clone(), usd);
        }
    }
    out
}

/// One home-page table from its rendered rows (each with its key, see
/// `render_rows`): the first `render_rows` of them; a longer table also
/// gets a page of its own with every row, under `/tables/<group>/<kind>/`,
/// which the home page links to, as a memo part named by its path: a
/// rebuild takes it from the last build where its inputs (the rows' keys
/// among them) are the same. Joining and splicing every row of a
/// thousand-row table again on every `site serve` rebuild was a tenth of
/// the home page's time. A build without a memo makes no key.
fn comparison_table(
    tera: &tera::Tera,
    common: &Common,
    g: &Group,
    kind: &'static str,
    Rendered { rows, same }: Rendered,
    home_rows: usize,
    long: LongTables<'_, '_>,
) -> anyhow::Result<Table> {
    let (_, slug, name, ranked_by) =
        TABLES.into_iter().find(|t| t.0 == kind).context("a comparison table of an unknown kind")?;
    let total = rows.len();
    let shown = total.min(home_rows);
    let all_url = (total > shown).then(|| format!("/tables/{}/{slug}/", g.id));
    let rows_marker = format!("<!--rows:{}:{slug}-->", g.id);
    let html = rows[..shown].iter().map(|(_, html)| html.as_str()).collect();
    let home = Table { kind, slug, name, ranked_by, html, rows_marker, shown, total, all_url, same };
    if let Some(url) = &home.all_url {
        let path = format!("{}index.html", &url[1..]);
        let key = match long.old {
            Some(_) => {
                let keys: Vec<u64> = rows.iter().map(|(key, _)| *key).collect();
                key_of((long.pages_key, table_head_key(g)?, kind, home_rows, keys))
            }
            None => 0,
        };
        let part = Parts::part(long.old, &path, key, || {
            let html = rows.iter().map(|(_, html)| html.as_str()).collect();
            let all = Table { html, shown: total, all_url: None, ..home.clone() };
            let mut part = Site::default();
            part.add(path.clone(), table(tera, common, g, &all)?);
            Ok(part)
        })?;
        let part = match long.emit {
            Some(emit) => {
                emit.files(part.files)?;
                Site::default()
            }
            None => part,
        };
        long.parts.push((path, key, part));
    }
    Ok(home)
}

/// A comparison group as the home page shows it: its tables (rows already
/// rendered, see `render_rows`), and its plots.
#[derive(Debug, Clone, Serialize)]
pub(super) struct GroupPage<'a> {
    pub id: &'a str,
    /// `cpu`, `disk`, `cache`, `internet` or `http_cache`.
    pub stage: &'a str,
    /// What it compares, in words (`group_name`).
    pub name: String,
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
pub(super) const TABLES: [(&str, &str, &str, &str); 6] = [
    ("cpu", "cpu", "CoreMark", "median iterations/s"),
    ("cpu_eembc", "cpu-eembc", "CoreMark, EEMBC's sources", "median iterations/s"),
    ("disk", "disk", "Disk", "random-read IOPS"),
    ("cache", "cache", "Cache, client method", "restore seconds"),
    ("cache_action", "cache-action", "Cache, action method", "restore seconds"),
    ("internet", "internet", "Internet", "download Mbps"),
];

/// One comparison table as a page shows it.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Table {
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
    /// The column whose every row holds one value, which the caption says
    /// instead of the rows (`same_column`).
    pub same: Option<SameColumn>,
}

/// A column of a table whose every row holds one value: said once, in the
/// caption, where a column repeating it down the table only took room.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(super) struct SameColumn {
    pub name: &'static str,
    pub value: String,
}

/// The column of `rows` (`OneValue`) that holds one value in every row; a
/// table of one row has none (every column would).
fn same_column<T: OneValue>(rows: &[Row<T>]) -> Option<SameColumn> {
    let (first, rest) = rows.split_first()?;
    let (name, value) = first.fig.one_value_column()?;
    let same = !rest.is_empty() && rest.iter().all(|r| r.fig.one_value_column().map(|c| c.1) == Some(value));
    same.then(|| SameColumn { name, value: value.to_string() })
}

/// Rendered table rows by a key of their template and content, which
/// `site serve` keeps between builds.
pub(super) type RowCache = HashMap<u64, String>;

#[derive(Serialize)]
struct RowContext<'a, T> {
    kind: &'a str,
    r: &'a Row<T>,
    /// Whether the table says the row's `OneValue` column in its caption,
    /// so the row leaves that cell out.
    same: bool,
    /// Its speed figures per US cent per minute, where the runner's price
    /// is stated.
    pc: PerCent,
}

/// Each runner's stated price in US dollars per minute, by provider id,
/// then label: runners without one are not in it.
pub(super) type Prices = HashMap<String, HashMap<String, f64>>;

/// The rows of one comparison table, each rendered on its own with
/// templates/home_row.html on every CPU, with the price-performance of the
/// runners in `prices`. Where `cache` is given, a row whose content and
/// templates it has seen is taken from it, and every row made is added to
/// `made`. Each row comes with its key (0 without a cache).
#[allow(clippy::too_many_arguments)]
pub(super) fn render_rows<T: Serialize + Sync + Speeds + OneValue>(
    tera: &Tera,
    templates_key: u64,
    kind: &str,
    rows: &[Row<T>],
    prices: &Prices,
    cache: Option<&RowCache>,
    made: &Mutex<RowCache>,
) -> anyhow::Result<Rendered> {
    let same = same_column(rows);
    let html = rows
        .par_iter()
        .map(|r| {
            let usd = prices.get(&r.meta.provider_id).and_then(|p| p.get(&r.meta.runner)).copied();
            let pc = usd.map(|usd| r.fig.per_cent(usd)).unwrap_or_default();
            let ctx = RowContext { kind, r, same: same.is_some(), pc };
            let Some(cache) = cache else { return Ok((0, render(tera, "home_row.html", &ctx)?)) };
            // The row's content but its meta, which its entry's key stands
            // for: serializing every row's meta for its key was most of the
            // home page's time in a rebuild.
            let own = (kind, &r.fig, r.incomplete, r.marked, &r.place, &r.ci, r.variable, &ctx.pc, ctx.same);
            let json = serde_json::to_vec(&own).context("a home-page row does not serialize")?;
            let key = key_of((templates_key, r.meta.entry_key, json));
            let html = match cache.get(&key) {
                Some(html) => html.clone(),
                None => render(tera, "home_row.html", &ctx)?,
            };
            made.lock().unwrap_or_else(|e| e.into_inner()).insert(key, html.clone());
            Ok((key, html))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Rendered { rows: html, same })
}

/// A table's rows as `render_rows` makes them, each with its memo key, and
/// the column they leave to the caption.
pub(super) struct Rendered {
    rows: Vec<(u64, String)>,
    same: Option<SameColumn>,
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
    /// What the group compares, in words (`group_name`).
    name: String,
    key: &'a str,
    profiles: &'a [ProfileRef],
    disk_buffer: &'a str,
}

/// A key of what `table` shows of `g` besides the rows (its heading).
pub(super) fn table_head_key(g: &Group) -> anyhow::Result<u64> {
    let head = GroupHead {
        id: &g.id,
        name: group_name(g, g.metas()),
        key: &g.key,
        profiles: &g.profiles,
        disk_buffer: &g.disk_buffer,
    };
    Ok(key_of((g.label(), serde_json::to_string(&head)?)))
}

/// A page with every row of one comparison table, for a table longer than
/// the home page shows.
pub(super) fn table(tera: &Tera, common: &Common, g: &Group, t: &Table) -> anyhow::Result<String> {
    let name = t.name;
    let group = group_name(g, g.metas());
    let ctx = TableContext {
        common,
        title: format!("{name}: all {} rows ({group})", t.total),
        description: format!("Every row of the {name} comparison table of {group}, ranked by {}.", t.ranked_by),
        g: GroupHead {
            id: &g.id,
            name: group.clone(),
            key: &g.key,
            profiles: &g.profiles,
            disk_buffer: &g.disk_buffer,
        },
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
    leaders: Vec<Leader>,
}

/// The home page: the comparison.
pub(super) fn home(tera: &Tera, common: &Common, model: &Model, groups: &[GroupPage<'_>]) -> anyhow::Result<String> {
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
        leaders: leaders(model, &TABLES),
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
            same: None,
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
