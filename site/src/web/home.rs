//! The home page: each group's comparison tables and plots, and a page of
//! its own for each table too long for the home page.

use std::sync::Mutex;

use anyhow::Context as _;

use super::Site;
use super::model::{Group, Model};
use super::pages::{self, Common, GroupPage, Prices, RowCache, Table};
use super::plots::{PlotCache, group_plots};

/// The home page and its plots, a page per table too long for the home
/// page, and the rows it rendered (see `pages::home_rows`).
#[allow(clippy::too_many_arguments)]
pub(super) fn home_page(
    tera: &tera::Tera,
    templates_key: u64,
    common: &Common,
    model: &Model,
    prices: &Prices,
    home_rows: usize,
    rows: Option<&RowCache>,
    plots: Option<&PlotCache>,
) -> anyhow::Result<(Site, RowCache, PlotCache)> {
    let mut site = Site::default();
    let made = Mutex::new(RowCache::new());
    let mut drawn = PlotCache::new();
    let mut group_pages = Vec::new();
    for g in &model.groups {
        // The home page plots the rows it shows.
        let cache = plots.map(|old| (old, &mut drawn));
        let cut = [g.cpu.len(), g.cpu_eembc.len(), g.disk.len(), g.cache.len(), g.cache_action.len(), g.internet.len()]
            .into_iter()
            .any(|n| n > home_rows)
            .then_some(home_rows);
        let stem = format!("plots/{}", g.id);
        let plots = group_plots(&mut site, &stem, &g.first_rows(home_rows), false, cut, cache)?;
        let mut table =
            |kind: &'static str, rows: Vec<String>| comparison_table(&mut site, tera, common, g, kind, rows, home_rows);
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
    site.add("index.html", pages::home(tera, common, model, &group_pages)?);
    Ok((site, made.into_inner().unwrap_or_else(|e| e.into_inner()), drawn))
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

/// One home-page table from its rendered rows: the first `home_rows` of
/// them; a longer table also gets a page of its own with every row, under
/// `/tables/<group>/<kind>/`, which the home page links to.
pub(super) fn comparison_table(
    site: &mut Site,
    tera: &tera::Tera,
    common: &Common,
    g: &Group,
    kind: &'static str,
    rows: Vec<String>,
    home_rows: usize,
) -> anyhow::Result<Table> {
    let (_, slug, name, ranked_by) =
        pages::TABLES.into_iter().find(|t| t.0 == kind).context("a comparison table of an unknown kind")?;
    let total = rows.len();
    let shown = total.min(home_rows);
    let all_url = (total > shown).then(|| format!("/tables/{}/{slug}/", g.id));
    let rows_marker = format!("<!--rows:{}:{slug}-->", g.id);
    let home = Table { kind, slug, name, ranked_by, html: rows[..shown].concat(), rows_marker, shown, total, all_url };
    if let Some(url) = &home.all_url {
        let all = Table { html: rows.concat(), shown: total, all_url: None, ..home.clone() };
        site.add(format!("{}index.html", &url[1..]), pages::table(tera, common, g, &all)?);
    }
    Ok(home)
}
