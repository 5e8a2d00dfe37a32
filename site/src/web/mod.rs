//! The website: from accepted results to every published file.
//!
//! `build` runs the stages in order: the model (`model`), hand-written
//! pages (`content`), plots (`plot`), HTML (`pages`), then the data files
//! (`csv`, `index_json`, `feed`, `sitemap`). It returns the files as bytes;
//! `output` is the only module that writes them to disk.

pub mod content;
pub mod csv;
pub mod error;
pub mod feed;
pub mod index_json;
pub mod memo;
pub mod model;
pub mod pages;
pub mod plot;
pub mod sitemap;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context as _;
use rayon::prelude::*;

use self::index_json::IndexCache;
use self::memo::{Memo, key_of};
use self::model::{Entry, Group, Model, leading, range};
use self::pages::{Common, CoverageRow, GroupPage, HistoryRow, NavLink, PlotRef, RowCache, RunnerLink, Table};
use self::plot::history::{self, Line};
use self::plot::ranges::{self, Bar};
use self::plot::{Spec, xml_escape};
use crate::Run;
use crate::report::{build_view, render_report};

/// The static files, by name, as built into the binary (read from
/// `templates/static/` when it is there).
pub const STATIC: [(&str, &str); 2] = [
    ("site.css", include_str!("../../../templates/static/site.css")),
    ("site.js", include_str!("../../../templates/static/site.js")),
];

/// What a build reads and how it marks results.
#[derive(Debug, Clone)]
pub struct Options {
    pub results: PathBuf,
    pub content: PathBuf,
    pub docs: PathBuf,
    pub templates: PathBuf,
    /// Absolute URL of the site, no trailing slash (sitemap, feed).
    pub base_url: String,
    /// Results older than this many days are marked stale.
    pub stale_days: u32,
    /// The most rows a home-page table shows (the best ones, see
    /// `model::build`); a longer table links to a page of its own with
    /// every row, so that the home page stays small with many runners.
    pub home_rows: usize,
    /// The build time; tests fix it.
    pub now: jiff::Timestamp,
}

/// The default of `Options::home_rows`: with 1,000 runners, the home page
/// stays near 200 KB (docs/benchmarks.md).
pub const DEFAULT_HOME_ROWS: usize = 50;

/// The default base URL; Netlify's `URL` overrides it (see `cli`).
pub const DEFAULT_BASE_URL: &str = "https://runner-bench.netlify.app";

impl Options {
    /// The defaults for a results folder, as the command line has them.
    pub fn new(results: &Path) -> Options {
        Options {
            results: results.to_path_buf(),
            content: PathBuf::from("content"),
            docs: PathBuf::from("docs"),
            templates: PathBuf::from("templates"),
            base_url: DEFAULT_BASE_URL.to_string(),
            stale_days: 180,
            home_rows: DEFAULT_HOME_ROWS,
            now: jiff::Timestamp::now(),
        }
    }
}

/// One output file.
#[derive(Debug, Clone)]
pub enum Body {
    Bytes(Vec<u8>),
    /// A file copied as it is (result files are published as submitted),
    /// with its SHA-256 where the build knows it already.
    Copy {
        from: PathBuf,
        sha256: Option<String>,
    },
}

/// Everything a build produces.
#[derive(Debug, Default, Clone)]
pub struct Site {
    /// `(path below the output folder, body)`.
    pub files: Vec<(String, Body)>,
    /// Provider ids, one report each.
    pub providers: Vec<String>,
    /// Result files published.
    pub result_files: usize,
}

impl Site {
    fn add(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.push((path.into(), Body::Bytes(bytes.into())));
    }

    /// Appends the files of a part built on its own.
    fn join(&mut self, part: Site) {
        self.files.extend(part.files);
    }

    /// Appends named parts in order, keeping each in `memo` with its key.
    fn join_parts(&mut self, parts: Vec<(String, u64, Site)>, mut memo: Option<&mut Memo>) {
        for (name, key, part) in parts {
            if let Some(m) = memo.as_deref_mut() {
                m.keep(name, key, &part);
            }
            self.join(part);
        }
    }
}

/// Builds the whole site from checked `runs`.
pub fn build(opts: &Options, runs: Vec<Run>) -> anyhow::Result<Site> {
    build_cached(opts, runs, None)
}

/// `build`, reusing the parts that `memo` kept from the last build whose
/// inputs are the same, and keeping this build's parts there.
///
/// It takes the runs so that it can let go of the parsed results as soon as
/// the model and the provider reports are made: with thousands of results
/// they are most of a build's memory, and the rest needs only their paths.
pub fn build_cached(opts: &Options, runs: Vec<Run>, mut memo: Option<&mut Memo>) -> anyhow::Result<Site> {
    if opts.stale_days == 0 {
        return Err(error::InputError::StaleDays(0).into());
    }
    if opts.home_rows == 0 {
        return Err(error::InputError::HomeRows(0).into());
    }
    let stale_before = opts.now - jiff::SignedDuration::from_hours(24 * i64::from(opts.stale_days));
    let start = std::time::Instant::now();
    let model = model::build(&runs, stale_before, memo.as_deref_mut().map(|m| &mut m.entries));
    crate::output::log_time(start, "  model");
    let content = content::load(&opts.content, &opts.docs)?;
    let (tera, templates_key) = pages::templates(&opts.templates)?;
    let mut nav: Vec<(u32, NavLink)> = vec![
        (20, NavLink { url: "/coverage/".into(), title: "Coverage".into() }),
        (30, NavLink { url: "/methodology/".into(), title: "Methodology".into() }),
    ];
    nav.extend(
        content.iter().filter_map(|p| Some((p.nav?, NavLink { url: format!("/{}/", p.slug), title: p.title.clone() }))),
    );
    nav.sort_by_key(|n| n.0);
    let common = Common {
        nav: nav.into_iter().map(|n| n.1).collect(),
        built: opts.now.strftime("%Y-%m-%d %H:%M UTC").to_string(),
        stale_days: opts.stale_days,
        base_url: opts.base_url.trim_end_matches('/').to_string(),
    };
    let common_key = key_of((&common, templates_key));
    // Each provider's and runner's part is made from its own entries only.
    let entry_keys = |r: &model::Runner| r.entries.iter().map(|&i| model.entries[i].key).collect::<Vec<u64>>();
    let mut site = Site::default();
    let mut html_pages: Vec<String> = Vec::new();

    // Providers: the markdown report, as a file and as HTML, and plots of
    // the provider's rows of every group. Pages are independent: each is
    // built into its own part on any CPU, and the parts joined in order.
    let old = memo.as_deref();
    let parts = model
        .providers
        .par_iter()
        .map(|(id, name)| {
            let mine: Vec<Vec<u64>> = model.runners.iter().filter(|r| &r.provider_id == id).map(entry_keys).collect();
            let (part, key) = (format!("providers/{id}"), key_of((common_key, id, name, mine)));
            let site = Memo::part(old, &part, key, || provider_page(&tera, &common, &model, &runs, id, name))?;
            Ok((part, key, site))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    site.join_parts(parts, memo.as_deref_mut());
    crate::output::log_time(start, "  providers");
    // Every result file is published as submitted; nothing else needs the
    // parsed results.
    let copies: Vec<(String, Body)> = runs
        .iter()
        .map(|run| {
            let body = Body::Copy { from: PathBuf::from(&run.file), sha256: Some(run.sha256.clone()) };
            (format!("results/{}", run.rel_path), body)
        })
        .collect();
    drop(runs);
    // `site serve` keeps the results in its cache, so nothing was freed.
    if memo.is_none() {
        release_free_memory();
    }

    // Home (the comparison, with each group's plots) and the data files
    // that list every result do not depend on each other: make them at
    // the same time.
    let old = memo.as_deref();
    let (rows, plots, index) = (old.map(|m| &m.rows), old.map(|m| &m.plots), old.map(|m| &m.index));
    let (home, data) = rayon::join(
        || home_page(&tera, templates_key, &common, &model, opts.home_rows, rows, plots),
        || data_files(&model, &common, opts.stale_days, index),
    );
    let ((home, rows, plots), (data, index)) = (home?, data?);
    if let Some(m) = memo.as_deref_mut() {
        (m.rows, m.plots, m.index) = (rows, plots, index);
    }
    html_pages.push("/".into());
    html_pages.extend(home.files.iter().filter_map(|(path, _)| {
        path.strip_prefix("tables/").and_then(|p| p.strip_suffix("index.html")).map(|p| format!("/tables/{p}"))
    }));
    site.join(home);
    site.join(data);
    crate::output::log_time(start, "  home and data files");

    for id in model.providers.keys() {
        html_pages.push(format!("/providers/{id}/"));
        site.providers.push(id.clone());
    }

    // Runners: the history across runs, newest first.
    let old = memo.as_deref();
    let parts = model
        .runners
        .par_iter()
        .map(|r| {
            let part = format!("runners/{}/{}", r.provider_id, r.label);
            let key = key_of((common_key, &r.provider_id, &r.provider_name, &r.label, entry_keys(r)));
            let site = Memo::part(old, &part, key, || runner_page(&tera, &common, &model, r))?;
            Ok((part, key, site))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    site.join_parts(parts, memo.as_deref_mut());
    let mut coverage = Vec::new();
    for r in &model.runners {
        html_pages.push(format!("/runners/{}/{}/", r.provider_id, r.label));
        coverage.push(CoverageRow {
            provider_id: r.provider_id.clone(),
            provider_name: r.provider_name.clone(),
            label: r.label.clone(),
            url: format!("/runners/{}/{}/", r.provider_id, r.label),
            newest: r.newest_stages,
            any: r.any_stages,
            missing: r.newest_stages.list().iter().filter(|s| !s.1).map(|s| s.0).collect(),
        });
    }
    crate::output::log_time(start, "  runners");
    site.add("coverage/index.html", pages::coverage(&tera, &common, &coverage)?);
    html_pages.push("/coverage/".into());

    for p in &content {
        site.add(format!("{}/index.html", p.slug), pages::page(&tera, &common, p)?);
        html_pages.push(format!("/{}/", p.slug));
    }
    site.add("404.html", pages::not_found(&tera, &common)?);

    // Data: every result as submitted, the index, the tables, the feed.
    site.result_files = copies.len();
    site.files.extend(copies);
    site.add("sitemap.xml", sitemap::render(&common.base_url, &html_pages));
    site.add("robots.txt", format!("User-agent: *\nAllow: /\nSitemap: {}/sitemap.xml\n", common.base_url));
    // Result files name this address in "$schema" (docs/result-format.md),
    // so editors can check a file before it is submitted.
    let schema = opts.docs.join("result-v1.schema.json");
    if schema.is_file() {
        site.files.push(("result-v1.schema.json".to_string(), Body::Copy { from: schema, sha256: None }));
    }
    crate::output::log_time(start, "  data files");
    if let Some(m) = memo {
        m.finish();
    }
    for (name, builtin) in STATIC {
        let text =
            std::fs::read_to_string(opts.templates.join("static").join(name)).unwrap_or_else(|_| builtin.to_string());
        site.add(format!("static/{name}"), text);
    }
    Ok(site)
}

/// The home page and its plots, a page per table too long for the home
/// page, and the rows it rendered (see `pages::home_rows`).
fn home_page(
    tera: &tera::Tera,
    templates_key: u64,
    common: &Common,
    model: &Model,
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
        let cut =
            [g.cpu.len(), g.disk.len(), g.cache.len(), g.cache_action.len(), g.internet.len(), g.http_cache.len()]
                .into_iter()
                .any(|n| n > home_rows)
                .then_some(home_rows);
        let stem = format!("plots/{}", g.id);
        let plots = group_plots(&mut site, &stem, &g.first_rows(home_rows), false, cut, cache)?;
        let mut table =
            |kind: &'static str, rows: Vec<String>| comparison_table(&mut site, tera, common, g, kind, rows, home_rows);
        group_pages.push(GroupPage {
            id: &g.id,
            fingerprint: &g.fingerprint,
            protocol: g.protocol,
            profile: g.profile.as_ref(),
            cpu: table("cpu", pages::home_rows(tera, templates_key, "cpu", &g.cpu, rows, &made)?)?,
            disk: table("disk", pages::home_rows(tera, templates_key, "disk", &g.disk, rows, &made)?)?,
            cache: table("cache", pages::home_rows(tera, templates_key, "cache", &g.cache, rows, &made)?)?,
            cache_action: table(
                "cache_action",
                pages::home_rows(tera, templates_key, "cache_action", &g.cache_action, rows, &made)?,
            )?,
            internet: table("internet", pages::home_rows(tera, templates_key, "internet", &g.internet, rows, &made)?)?,
            http_cache: table(
                "http_cache",
                pages::home_rows(tera, templates_key, "http_cache", &g.http_cache, rows, &made)?,
            )?,
            plots,
        });
    }
    site.add("index.html", pages::home(tera, common, model, &group_pages)?);
    Ok((site, made.into_inner().unwrap_or_else(|e| e.into_inner()), drawn))
}

/// One home-page table from its rendered rows: the first `home_rows` of
/// them; a longer table also gets a page of its own with every row, under
/// `/tables/<group>/<kind>/`, which the home page links to.
fn comparison_table(
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

/// The index, the tables and the feed, and the index's objects by key.
fn data_files(
    model: &Model,
    common: &Common,
    stale_days: u32,
    index: Option<&IndexCache>,
) -> anyhow::Result<(Site, IndexCache)> {
    let mut site = Site::default();
    let (bytes, objects) = index_json::render(model, &common.built, stale_days, index)?;
    site.add("index.json", bytes);
    for (name, text) in csv::tables(&model.groups) {
        site.add(format!("data/{name}"), text);
    }
    site.add("feed.xml", feed::render(model, &common.base_url));
    Ok((site, objects))
}

/// One runner's page and history plot.
fn runner_page(tera: &tera::Tera, common: &Common, model: &Model, r: &model::Runner) -> anyhow::Result<Site> {
    let mut part = Site::default();
    let rows: Vec<HistoryRow> = r.entries.iter().rev().map(|&i| history_row(&model.entries[i])).collect();
    let line = cpu_line(model, &r.label, &r.entries);
    let plots =
        history_plot(&mut part, &format!("plots/runners/{}/{}.svg", r.provider_id, r.label), &r.label, &[line])?;
    let html = pages::runner(tera, common, &r.provider_id, &r.provider_name, &r.label, &rows, &plots)?;
    part.add(format!("runners/{}/{}/index.html", r.provider_id, r.label), html);
    Ok(part)
}

/// One provider's page, report and plots.
fn provider_page(
    tera: &tera::Tera,
    common: &Common,
    model: &Model,
    runs: &[Run],
    id: &str,
    name: &str,
) -> anyhow::Result<Site> {
    let mut site = Site::default();
    let view = build_view(id, runs);
    let markdown = render_report(&view)?;
    let notes: Vec<String> = view
        .sources
        .iter()
        .map(|s| {
            format!(
                "Figures imported from the published document {} ({}, SHA-256 {}): aggregates as published, \
                 without raw samples.",
                s.document, s.title, s.sha256
            )
        })
        .collect();
    let mut plots = Vec::new();
    for g in &model.groups {
        let mine = g.only_provider(id);
        plots.extend(group_plots(&mut site, &format!("plots/providers/{id}/{}", g.id), &mine, true, None, None)?);
    }
    let runners: Vec<RunnerLink> = model
        .runners
        .iter()
        .filter(|r| r.provider_id == id)
        .map(|r| RunnerLink {
            label: r.label.clone(),
            url: format!("/runners/{}/{}/", r.provider_id, r.label),
            results: r.entries.len(),
            newest: r.entries.last().map(|&i| model.entries[i].meta.date.clone()).unwrap_or_default(),
        })
        .collect();
    let lines: Vec<Line> =
        model.runners.iter().filter(|r| r.provider_id == id).map(|r| cpu_line(model, &r.label, &r.entries)).collect();
    plots.extend(history_plot(&mut site, &format!("plots/providers/{id}/history.svg"), name, &lines)?);
    let html = pages::provider(
        tera,
        common,
        id,
        name,
        &view.title,
        &crate::output::markdown_to_html(&markdown),
        &notes,
        &runners,
        &plots,
    )?;
    site.add(format!("reports/{id}.md"), markdown);
    site.add(format!("providers/{id}/index.html"), html);
    Ok(site)
}

impl Group {
    /// The first `n` rows of each table, in their order.
    fn first_rows(&self, n: usize) -> Group {
        Group {
            cpu: self.cpu.iter().take(n).cloned().collect(),
            disk: self.disk.iter().take(n).cloned().collect(),
            cache: self.cache.iter().take(n).cloned().collect(),
            cache_action: self.cache_action.iter().take(n).cloned().collect(),
            internet: self.internet.iter().take(n).cloned().collect(),
            http_cache: self.http_cache.iter().take(n).cloned().collect(),
            ..self.without_rows()
        }
    }

    /// The group's heading, without rows.
    fn without_rows(&self) -> Group {
        Group {
            id: self.id.clone(),
            fingerprint: self.fingerprint.clone(),
            protocol: self.protocol,
            profile: self.profile.clone(),
            ..Group::default()
        }
    }

    /// The rows of one provider.
    fn only_provider(&self, id: &str) -> Group {
        let keep = |m: &model::Meta| m.provider_id == id;
        Group {
            cpu: self.cpu.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            disk: self.disk.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            cache: self.cache.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            cache_action: self.cache_action.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            internet: self.internet.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            http_cache: self.http_cache.iter().filter(|r| keep(&r.meta)).cloned().collect(),
            ..self.without_rows()
        }
    }
}

/// Draws a group's plots under `stem` and returns them as pages link them.
/// Marked rows (excluded, incomplete) are left out of plots: a plot invites
/// comparison, the tables keep them visible.
/// Drawn plots (`None`: nothing to draw) by a key of their text and bars,
/// which `site serve` keeps for the home page.
pub type PlotCache = HashMap<u64, Option<String>>;

/// Draws a plot, or takes it from `cache.0` when the same text and bars were
/// drawn before; records it in `cache.1`.
fn draw_plot(spec: &Spec, bars: &[Bar], cache: Option<(&PlotCache, &mut PlotCache)>) -> anyhow::Result<Option<String>> {
    let Some((old, made)) = cache else { return ranges::draw(spec, bars) };
    let bars_key: Vec<_> = bars
        .iter()
        .map(|b| (&b.label, b.value.to_bits(), b.range.map(|(lo, hi)| (lo.to_bits(), hi.to_bits())), b.series))
        .collect();
    let key = key_of((&spec.title, &spec.desc, &spec.axis, bars_key));
    let svg = match old.get(&key) {
        Some(svg) => svg.clone(),
        None => ranges::draw(spec, bars)?,
    };
    made.insert(key, svg.clone());
    Ok(svg)
}

/// `cut`: the home page shows only this many rows of a table (and so of
/// a plot), which the descriptions then say.
fn group_plots(
    site: &mut Site,
    stem: &str,
    g: &Group,
    by_runner_only: bool,
    cut: Option<usize>,
    mut cache: Option<(&PlotCache, &mut PlotCache)>,
) -> anyhow::Result<Vec<PlotRef>> {
    let mut fp = if g.fingerprint.is_empty() {
        "results without a published profile".to_string()
    } else {
        format!("fingerprint {}", g.fingerprint)
    };
    if let Some(n) = cut {
        fp.push_str(&format!("; the first {n} rows of each table"));
    }
    let label =
        |m: &model::Meta| if by_runner_only { m.runner.clone() } else { format!("{} ({})", m.runner, m.provider_name) };
    let mut out = Vec::new();
    let mut add = |site: &mut Site, file: &str, spec: Spec, bars: Vec<Bar>| -> anyhow::Result<()> {
        let cache = cache.as_mut().map(|(old, made)| (*old, &mut **made));
        if let Some(svg) = draw_plot(&spec, &bars, cache)? {
            let path = format!("{stem}/{file}");
            out.push(PlotRef { src: format!("/{path}"), title: spec.title.clone(), desc: spec.desc.clone() });
            site.add(path, svg);
        }
        Ok(())
    };

    let cpu: Vec<Bar> = g
        .cpu
        .iter()
        .filter(|r| !r.marked)
        .filter_map(|r| {
            Some(Bar { label: label(&r.meta), value: r.fig.median_value?, range: range(&r.fig.range), series: 0 })
        })
        .collect();
    add(
        site,
        "coremark.svg",
        Spec {
            title: "CoreMark iterations/s".into(),
            desc: format!(
                "Median CoreMark iterations per second per runner, with min–max whiskers; higher is better ({fp})."
            ),
            axis: "iterations/s (higher is better)".into(),
        },
        cpu,
    )?;

    let mut mib = Vec::new();
    let mut iops = Vec::new();
    for r in g.disk.iter().filter(|r| !r.marked) {
        for (name, v, series) in [("read", &r.fig.read, 0), ("write", &r.fig.write, 1)] {
            if let Some(v) = leading(v) {
                mib.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
        for (name, v, series) in [("random read", &r.fig.rand_read, 2), ("random write", &r.fig.rand_write, 3)] {
            if let Some(v) = leading(v) {
                iops.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
    }
    add(
        site,
        "disk-mib.svg",
        Spec {
            title: "Disk sequential MiB/s".into(),
            desc: format!("Median sequential read and write throughput per runner in MiB/s; higher is better ({fp})."),
            axis: "MiB/s (higher is better)".into(),
        },
        mib,
    )?;
    add(
        site,
        "disk-iops.svg",
        Spec {
            title: "Disk random IOPS".into(),
            desc: format!("Median random read and write operations per second per runner; higher is better ({fp})."),
            axis: "IOPS (higher is better)".into(),
        },
        iops,
    )?;

    // One plot per cache method: the two time different things.
    for (rows, file, method, what) in [
        (&g.cache, "cache.svg", "client", "the collector's own client, no step transitions"),
        (
            &g.cache_action,
            "cache-action.svg",
            "action",
            "the action step with its node start-up and adjacent step transitions",
        ),
    ] {
        let mut cache = Vec::new();
        for r in rows.iter().filter(|r| !r.marked) {
            for (name, v, series) in [("save", &r.fig.save, 0), ("restore", &r.fig.restore, 1)] {
                if let Some(median) = leading(v) {
                    cache.push(Bar {
                        label: format!("{} · {} · {name}", label(&r.meta), r.fig.backend),
                        value: median,
                        range: range(v),
                        series,
                    });
                }
            }
        }
        add(
            site,
            file,
            Spec {
                title: format!("Cache save and restore seconds, {method} method"),
                desc: format!(
                    "Median seconds to save and to restore the cache payload per runner and backend, timed by the {method} method ({what}), with min–max whiskers; lower is better ({fp})."
                ),
                axis: "seconds (lower is better)".into(),
            },
            cache,
        )?;
    }

    let mut net = Vec::new();
    for r in g.internet.iter().filter(|r| !r.marked) {
        for (name, v, series) in [("download", &r.fig.download, 0), ("upload", &r.fig.upload, 1)] {
            if let Some(v) = leading(v) {
                net.push(Bar { label: format!("{} · {name}", label(&r.meta)), value: v, range: None, series });
            }
        }
    }
    add(
        site,
        "internet.svg",
        Spec {
            title: "Internet Mbps".into(),
            desc: format!(
                "Median download and upload speed per runner in decimal megabits per second; higher is better ({fp})."
            ),
            axis: "Mbps (higher is better)".into(),
        },
        net,
    )?;
    Ok(out)
}

/// A runner's CoreMark medians over time.
fn cpu_line(model: &Model, label: &str, entries: &[usize]) -> Line {
    let points = entries
        .iter()
        .map(|&i| &model.entries[i])
        .filter(|e| e.meta.excluded.is_none())
        .filter_map(|e| {
            let t = e.meta.timestamp.parse::<jiff::Timestamp>().ok()?;
            Some((t.as_second(), e.cpu.as_ref()?.median_value?))
        })
        .collect();
    Line { label: label.to_string(), points }
}

fn history_plot(site: &mut Site, path: &str, name: &str, lines: &[Line]) -> anyhow::Result<Vec<PlotRef>> {
    let spec = Spec {
        title: format!("CoreMark history of {name}"),
        desc: format!(
            "Median CoreMark iterations per second of each result of {name} over time, one line per runner; higher is better."
        ),
        axis: "iterations/s".into(),
    };
    Ok(match history::draw(&spec, lines)? {
        Some(svg) => {
            site.add(path, svg);
            vec![PlotRef { src: format!("/{path}"), title: spec.title, desc: spec.desc }]
        }
        None => Vec::new(),
    })
}

fn history_row(e: &Entry) -> HistoryRow {
    let none = || crate::figures::NONE.to_string();
    let first_cache = e.cache.first();
    HistoryRow {
        meta: e.meta.clone(),
        cpu: e.cpu.as_ref().map_or_else(none, |c| c.median.clone()),
        disk_read: e.disk.as_ref().map_or_else(none, |d| d.read.clone()),
        disk_write: e.disk.as_ref().map_or_else(none, |d| d.write.clone()),
        cache_save: first_cache.map_or_else(none, |c| format!("{} ({})", c.save, c.backend)),
        cache_restore: first_cache.map_or_else(none, |c| c.restore.clone()),
        cache_method: first_cache.map_or_else(none, |c| c.method_label.clone()),
        download: e.internet.as_ref().map_or_else(none, |n| n.download.clone()),
        upload: e.internet.as_ref().map_or_else(none, |n| n.upload.clone()),
    }
}

/// Hands memory that was freed back to the OS. The results were parsed on
/// worker threads, whose malloc arenas keep the freed space for themselves,
/// while the pages are rendered on this thread: without this, a build's peak
/// memory is the results plus the pages instead of the larger of the two.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of every arena to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A page that shows a failed build's error, for `site serve`. Built by
/// hand, not with tera, because the templates may be what failed.
pub fn error_page(error: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Build failed · runner-bench</title>\
         <link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" href=\"/static/site.css\"></head><body><main id=\"main\"><h1>The build failed</h1>\
         <p>Fix the problem below; this page reloads when the next build succeeds.</p><pre class=\"reload-error\">{}</pre>\
         </main></body></html>\n",
        xml_escape(error)
    )
}
