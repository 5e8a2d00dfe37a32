//! The home page: each group's comparison tables and plots, and a page of
//! its own for each table too long for the home page.

use std::sync::Mutex;

use anyhow::Context as _;

use super::Site;
use super::memo::{Memo, Part, key_of};
use super::model::{Group, Model};
use super::pages::{self, Common, GroupPage, Prices, RowCache, Table};
use super::plots::{PlotCache, group_plots};

/// What `site serve` keeps of the home page between builds besides its
/// long tables' pages (memo parts): its rows and its plots.
#[derive(Debug, Default)]
pub(super) struct HomeCache {
    /// The rendered rows by key (see `pages::home_rows`).
    pub(super) rows: RowCache,
    /// The drawn plots (see `plots::group_plots`).
    pub(super) plots: PlotCache,
}

/// The home page and its plots; a page per table too long for the home
/// page, each as a memo part `(name, key, part)`; and the rows and plots a
/// rebuild may reuse. Where `memo` is given (the last build's), rows, plots
/// and table pages whose inputs are the same are taken from it.
#[allow(clippy::too_many_arguments)]
pub(super) fn home_page(
    tera: &tera::Tera,
    templates_key: u64,
    common: &Common,
    model: &Model,
    prices: &Prices,
    home_rows: usize,
    memo: Option<&Memo>,
) -> anyhow::Result<(Site, Vec<Part>, HomeCache)> {
    let mut site = Site::default();
    let made = Mutex::new(RowCache::new());
    let mut drawn = PlotCache::new();
    let mut tables = Vec::new();
    let pages_key = key_of((common, templates_key));
    let old = memo.map(|m| &m.home);
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
        let mut table = |kind: &'static str, rows: Vec<(u64, String)>| {
            let long = LongTables { memo, pages_key, parts: &mut tables };
            comparison_table(tera, common, g, kind, rows, home_rows, long)
        };
        group_pages.push(GroupPage {
            id: &g.id,
            stage: g.stage,
            key: &g.key,
            imported: g.imported,
            profiles: &g.profiles,
            fingerprint: &g.fingerprint,
            protocol: g.protocol,
            profile: g.profile.as_ref(),
            disk_buffer: &g.disk_buffer,
            cpu: table("cpu", pages::home_rows(tera, templates_key, "cpu", &g.cpu, prices, rows, &made)?)?,
            cpu_eembc: table(
                "cpu_eembc",
                pages::home_rows(tera, templates_key, "cpu_eembc", &g.cpu_eembc, prices, rows, &made)?,
            )?,
            disk: table("disk", pages::home_rows(tera, templates_key, "disk", &g.disk, prices, rows, &made)?)?,
            cache: table("cache", pages::home_rows(tera, templates_key, "cache", &g.cache, prices, rows, &made)?)?,
            cache_action: table(
                "cache_action",
                pages::home_rows(tera, templates_key, "cache_action", &g.cache_action, prices, rows, &made)?,
            )?,
            internet: table(
                "internet",
                pages::home_rows(tera, templates_key, "internet", &g.internet, prices, rows, &made)?,
            )?,
            plots,
        });
    }
    let leaders = super::leaders::leaders(model, &pages::TABLES);
    site.add("index.html", pages::home(tera, common, model, &group_pages, &leaders)?);
    let rows = made.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((site, tables, HomeCache { rows, plots: drawn }))
}

/// Where the long tables' pages go: memo parts, taken from the last build
/// (`memo`) where their key is the same; `pages_key` is the key of the
/// site-wide inputs.
struct LongTables<'a> {
    memo: Option<&'a Memo>,
    pages_key: u64,
    parts: &'a mut Vec<Part>,
}

/// Each runner's stated price (`pages::Prices`), for the tables'
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
/// `pages::home_rows`): the first `home_rows` of them; a longer table also
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
    rows: Vec<(u64, String)>,
    home_rows: usize,
    long: LongTables<'_>,
) -> anyhow::Result<Table> {
    let (_, slug, name, ranked_by) =
        pages::TABLES.into_iter().find(|t| t.0 == kind).context("a comparison table of an unknown kind")?;
    let total = rows.len();
    let shown = total.min(home_rows);
    let all_url = (total > shown).then(|| format!("/tables/{}/{slug}/", g.id));
    let rows_marker = format!("<!--rows:{}:{slug}-->", g.id);
    let html = rows[..shown].iter().map(|(_, html)| html.as_str()).collect();
    let home = Table { kind, slug, name, ranked_by, html, rows_marker, shown, total, all_url };
    if let Some(url) = &home.all_url {
        let path = format!("{}index.html", &url[1..]);
        let key = match long.memo {
            Some(_) => {
                let keys: Vec<u64> = rows.iter().map(|(key, _)| *key).collect();
                key_of((long.pages_key, pages::table_head_key(g)?, kind, home_rows, keys))
            }
            None => 0,
        };
        let part = Memo::part(long.memo, &path, key, || {
            let html = rows.iter().map(|(_, html)| html.as_str()).collect();
            let all = Table { html, shown: total, all_url: None, ..home.clone() };
            let mut part = Site::default();
            part.add(path.clone(), pages::table(tera, common, g, &all)?);
            Ok(part)
        })?;
        long.parts.push((path, key, part));
    }
    Ok(home)
}
