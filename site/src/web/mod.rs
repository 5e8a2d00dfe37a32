//! The website: from accepted results to every published file.
//!
//! `build` runs the stages in order: the model (`model`) and the change
//! flags of each runner's history (`changes`), hand-written
//! pages (`content`), plots (`plot`), HTML (`pages`), then the data files
//! (`csv`, `index_json`, `feed`, `sitemap`). It returns the files as bytes;
//! `output` is the only module that writes them to disk.
//!
//! The modules form layers, each importing only from those below it:
//!
//! 1. this file, the order of the stages, and `memo`, what `site serve`
//!    keeps between builds: each cache is the type of the module it caches,
//!    and only this file hands them out;
//! 2. `intake`, what a build makes of each result as the check accepts it
//!    (`site build` makes each runner's page there as the check finishes
//!    the runner, and writes it when the check finishes the provider), with the runners' stage (`runner_pages`),
//!    what every page is made with (`inputs`) and the build's options
//!    (`options`);
//! 3. one module per page kind: `home` (the comparison tables),
//!    `provider`, `history` (a runner's page, its tables in
//!    `runner_tables`), `overview`, `coverage`, `build_cache_pages` (the
//!    build-cache section: servers are not runners; its tables in
//!    `build_cache_tables`), `estimate` (a job's time and cost on every
//!    runner), with the comparison plots in `plots`, and the
//!    data files (`csv`, `index_json`, `feed`, `sitemap`);
//! 4. what pages share: templates and their contexts' common parts
//!    (`pages`), HTML cells (`html`), plots (`plot`), the parts a rebuild
//!    reuses (`parts`) and the files a build makes (`site`).
//!
//! Below the website is what it shows, `crate::model`.
//!
//! `memory` hands freed memory back between stages, and `error_page` is
//! what `site serve` shows while a build fails.

mod build_cache_pages;
mod build_cache_tables;
pub mod content;
mod coverage;
pub mod csv;
pub mod error;
mod error_page;
pub mod estimate;
pub mod feed;
mod group_name;
mod history;
mod home;
pub(crate) mod html;
pub mod index_json;
mod inputs;
mod intake;
mod leaders;
pub mod memo;
pub(crate) mod memory;
mod options;
pub mod overview;
pub mod pages;
mod parts;
pub mod plot;
mod plots;
mod provider;
mod runner_pages;
mod runner_tables;
mod site;
pub mod sitemap;

use std::sync::Arc;

use rayon::prelude::*;

use self::coverage::CoverageRow;
pub use self::error_page::error_page;
use self::home::home_page;
use self::index_json::IndexCache;
pub use self::inputs::PageInputs;
pub use self::intake::{Accepted, Intake, Streamed, Taken};
use self::memo::Memo;
use self::memory::release_free_memory;
pub use self::options::{DEFAULT_BASE_URL, DEFAULT_HOME_ROWS, Options};
use self::pages::Common;
use self::parts::{Part, Parts};
pub use self::plots::PlotCache;
use self::provider::provider_page;
use self::runner_pages::{PAGES_AT_ONCE, runner_parts};
pub use self::site::{Body, Emit, Site};
use crate::Run;
use crate::memo_key::key_of;
use crate::model::{self, Model, changes};

/// The static files, by name, as built into the binary (read from
/// `templates/static/` when it is there).
pub const STATIC: [(&str, &str); 3] = [
    ("site.css", include_str!("../../../templates/static/site.css")),
    ("site.js", include_str!("../../../templates/static/site.js")),
    ("estimate.js", include_str!("../../../templates/static/estimate.js")),
];

/// Builds the whole site from checked `runs`. Like every build without a
/// memo, it leaves its model to the end of the process (`build_cached`).
pub fn build(opts: &Options, runs: Vec<Run>) -> anyhow::Result<Site> {
    let intake = Intake::new(opts, None);
    let taken = runs.par_iter().map(|r| intake.take(r)).collect();
    drop(runs);
    build_cached(opts, intake.finish(taken)?, None, None)
}

/// Hands the files made so far to `emit`, where there is one.
fn emit_files(site: &mut Site, emit: &mut Option<Emit<'_>>) -> anyhow::Result<()> {
    match emit {
        Some(emit) => emit(std::mem::take(&mut site.files)),
        None => Ok(()),
    }
}

/// `build` from what `Intake` made of the accepted results, reusing the
/// parts that `memo` kept from the last build whose inputs are the same,
/// and keeping this build's parts there; with `emit`, handing each stage's
/// files to it as they are made. Without a memo (`site build`, whose
/// process ends with the build) the model is not freed: its memory goes
/// back to the OS when the process ends.
pub fn build_cached(
    opts: &Options,
    accepted: Accepted,
    mut memo: Option<&mut Memo>,
    mut emit: Option<Emit<'_>>,
) -> anyhow::Result<Site> {
    if opts.stale_days == 0 {
        return Err(error::InputError::StaleDays(0).into());
    }
    if opts.home_rows == 0 {
        return Err(error::InputError::HomeRows(0).into());
    }
    let start = std::time::Instant::now();
    // `site serve` keeps the results and parts in its cache, so a rebuild
    // frees little: only a build hands memory back, at each stage's end
    // (how long freed pages are kept is set for the whole build, check
    // included, by `output::build_with`).
    let trim = memo.is_none();
    let end_stage = |site: &mut Site, emit: &mut Option<Emit<'_>>| -> anyhow::Result<()> {
        emit_files(site, emit)?;
        if trim {
            release_free_memory();
        }
        Ok(())
    };
    let Accepted { entries, copies, result_files, report_runs: runs, streamed } = accepted;
    // A streaming intake made the runner pages and the change flags as the
    // check went. Otherwise: the model and its change flags on one side;
    // the templates, the hand-written pages and the provider files, read
    // and parsed, on the other: the model's serial parts left a CPU idle
    // (docs/benchmarks.md).
    let runner_pages_made = streamed.is_some();
    let (model, changes, inputs) = match streamed {
        Some(Streamed { inputs, changes, picks }) => (model::assemble_picked(entries, &picks), changes, inputs),
        None => {
            let (memo_entries, memo_changes, memo_templates) = match memo.as_deref_mut() {
                Some(m) => (Some(&mut m.entries), Some(&mut m.changes), Some(&mut m.templates)),
                None => (None, None, None),
            };
            let ((model, changes), inputs) = rayon::join(
                || {
                    let model = model::assemble(entries, memo_entries);
                    crate::timing::log_time(start, "  model");
                    // The history's change flags, which the runner pages and the feed show.
                    let (changes, change_cache) = changes::compute(&model, memo_changes.as_deref());
                    if let Some(cache) = memo_changes {
                        *cache = change_cache;
                    }
                    crate::timing::log_time(start, "  changes");
                    (model, changes)
                },
                || PageInputs::load(opts, memo_templates),
            );
            (model, changes, inputs)
        }
    };
    let inputs = inputs?;
    let PageInputs { content, providers, tera, templates_key, common, common_key } = &inputs;
    let (tera, templates_key, common_key) = (&**tera, *templates_key, *common_key);
    let mut site = Site::default();
    let mut html_pages: Vec<String> = Vec::new();

    // Providers: the markdown report, as a file and as HTML, and plots of
    // the provider's rows of every group. Pages are independent: each is
    // built into its own part on any CPU, and the parts joined in order, a
    // CPU's worth at a time, each batch written before the next is made
    // (with 100,000 results, 20 providers' pages held at once were 175 MiB
    // on top of the build's peak). Each provider's part is made from its
    // own entries only.
    let entry_keys = |r: &model::Runner| r.entries.iter().map(|&i| model.entries[i].key).collect::<Vec<u64>>();
    let ids: Vec<(&String, &String)> = model.providers.iter().collect();
    // (`site serve` keeps every part, and makes all at once.)
    let batch_len = if trim { rayon::current_num_threads().max(1) } else { ids.len().max(1) };
    for batch in ids.chunks(batch_len) {
        let old = memo.as_deref();
        let parts = batch
            .par_iter()
            .map(|&(id, name)| {
                let mine: Vec<Vec<u64>> =
                    model.runners.iter().filter(|r| &r.provider_id == id).map(entry_keys).collect();
                // The provider's file is shown too (sizes, prices, its site).
                let file = serde_json::to_string(&providers.provider(id)).unwrap_or_default();
                let (part, key) = (format!("providers/{id}"), key_of((common_key, id, name, mine, file)));
                let site = Parts::part(old.map(|m| &m.parts), &part, key, || {
                    provider_page(tera, common, &model, &runs, id, name, providers, opts.now)
                })?;
                Ok((part, key, site))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        join_parts(&mut site, parts, memo.as_deref_mut().map(|m| &mut m.parts));
        emit_files(&mut site, &mut emit)?;
    }
    crate::timing::log_time(start, "  providers");
    // Nothing else needs what the reports read of the results: it is freed
    // on every CPU (a thousand parsed results, one at a time on one CPU,
    // were about 20 ms of a 10,000-result build under perf while the other
    // CPU waited).
    runs.into_par_iter().for_each(drop);
    if trim {
        release_free_memory();
    }

    // Runners: the history across runs, newest first. A few hundred pages
    // at a time, each batch written before the next is made: all 1,000
    // pages of 10,000 results, held at once, were 50 MiB on top of the
    // build's peak.
    if !runner_pages_made {
        for runners in model.runners.chunks(PAGES_AT_ONCE) {
            let old = memo.as_deref().map(|m| &m.parts);
            let parts = runner_parts(&inputs, &model, &changes, runners, opts.now, old)?;
            join_parts(&mut site, parts, memo.as_deref_mut().map(|m| &mut m.parts));
            emit_files(&mut site, &mut emit)?;
        }
    }
    end_stage(&mut site, &mut emit)?;
    crate::timing::log_time(start, "  runners");
    // What the stages below read of each entry is a small part of it: a
    // build lets go of the rest (`model::Entry::keep_summary`), so that
    // the home page and the data files are not made beside every result's
    // runner-page rows. `site serve` keeps whole entries for its next build.
    let mut model = model;
    if trim {
        model.entries.par_iter_mut().for_each(|e| {
            if let Some(e) = Arc::get_mut(e) {
                e.keep_summary();
            }
        });
        release_free_memory();
    }

    // Home (the comparison, with each group's plots) and the data files
    // that list every result do not depend on each other: make them at
    // the same time.
    let old = memo.as_deref();
    let index = old.map(|m| &m.index);
    let prices = home::prices(&model, providers, opts.now);
    let home = |emit| {
        let (home, parts) = (old.map(|m| &m.home), old.map(|m| &m.parts));
        home_page(tera, templates_key, common, &model, &prices, opts.home_rows, home, parts, emit)
    };
    let data = |emit| data_files(&model, &changes, common, opts.stale_days, index, emit);
    // A build without a memo makes them one after the other, writing the
    // index and the long tables' pages a piece at a time as it goes.
    let (home, data) = match memo.is_none() {
        true => {
            let data = data(emit.as_mut());
            (home(emit.as_mut()), data)
        }
        false => rayon::join(|| home(None), || data(None)),
    };
    let ((home, tables, home_cache), (data, index)) = (home?, data?);
    if let Some(m) = memo.as_deref_mut() {
        (m.home, m.index) = (home_cache, index);
    }
    html_pages.push("/".into());
    html_pages.extend(tables.iter().filter_map(|(path, ..)| path.strip_suffix("index.html").map(|p| format!("/{p}"))));
    site.join(home);
    join_parts(&mut site, tables, memo.as_deref_mut().map(|m| &mut m.parts));
    site.join(data);
    end_stage(&mut site, &mut emit)?;
    crate::timing::log_time(start, "  home and data files");

    for id in model.providers.keys() {
        html_pages.push(format!("/providers/{id}/"));
        site.providers.push(id.clone());
    }

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
            // The optional build-cache stage is never listed as missing.
            missing: r.newest_stages.runner_list().iter().filter(|s| !s.1).map(|s| s.0).collect(),
        });
    }
    // The overview first, then the coverage page beside the build-cache
    // section's index, each made from the model alone and written before
    // the next is made: with 100,000 results the overview's rows and pages
    // made beside the section's index were the build's peak.
    // The overview, the coverage page and the build-cache section's index
    // are made from the model alone: `site serve` makes all three at the
    // same time. A build without a memo makes the overview's two pages
    // first, each written before the next is made and its rows let go of
    // as soon as the order by cost is made of them: with 100,000 results
    // the overview's rows and pages beside the section's index were the
    // build's peak.
    let parts = memo.as_deref().map(|m| &m.parts);
    let section = build_cache_pages::Section::of(&model);
    let coverage_and_index = || {
        rayon::join(
            || rows_page(parts, common_key, "coverage", &coverage, || coverage::page(tera, common, &coverage)),
            || section.index_page(tera, common),
        )
    };
    let overview_page = |name, rows: &Vec<overview::Section>, order| {
        rows_page(parts, common_key, name, rows, || overview::page(tera, common, rows, order))
    };
    let (overview_parts, (coverage_part, section_index)) = match trim {
        true => {
            let sections = overview::sections(&model, providers, opts.now);
            site.join(overview_page("overview", &sections, "coremark")?.2);
            end_stage(&mut site, &mut emit)?;
            let by_cost = overview::by_cost(&sections);
            drop(sections);
            site.join(overview_page("overview/by-cost", &by_cost, "cost")?.2);
            drop(by_cost);
            end_stage(&mut site, &mut emit)?;
            (Ok(Vec::new()), coverage_and_index())
        }
        false => rayon::join(
            || {
                let sections = overview::sections(&model, providers, opts.now);
                let by_cost = overview::by_cost(&sections);
                Ok::<_, anyhow::Error>(vec![
                    overview_page("overview", &sections, "coremark")?,
                    overview_page("overview/by-cost", &by_cost, "cost")?,
                ])
            },
            coverage_and_index,
        ),
    };
    join_parts(&mut site, overview_parts?, memo.as_deref_mut().map(|m| &mut m.parts));
    join_parts(&mut site, vec![coverage_part?], memo.as_deref_mut().map(|m| &mut m.parts));
    site.join(section_index?);
    html_pages.extend(section.urls());
    end_stage(&mut site, &mut emit)?;
    // The server documents' pages, a batch at a time, each batch written
    // before the next is made (`build_cache_pages::Section`).
    for start in (0..section.len()).step_by(PAGES_AT_ONCE) {
        let range = start..section.len().min(start + PAGES_AT_ONCE);
        let docs = section.doc_parts(range, tera, common, common_key, memo.as_deref().map(|m| &m.parts))?;
        join_parts(&mut site, docs, memo.as_deref_mut().map(|m| &mut m.parts));
        emit_files(&mut site, &mut emit)?;
    }
    end_stage(&mut site, &mut emit)?;
    html_pages.push("/coverage/".into());
    html_pages.extend(["/overview/".into(), "/overview/by-cost/".into()]);
    // A job's estimate, from each runner's ranked rows and price.
    let (estimate_pages, urls) = estimate::pages(tera, common, &estimate::figures(&model, providers, opts.now))?;
    site.join(estimate_pages);
    html_pages.extend(urls);

    for p in content {
        site.add(format!("{}/index.html", p.slug), pages::page(tera, common, p)?);
        html_pages.push(format!("/{}/", p.slug));
    }
    site.add("404.html", pages::not_found(tera, common)?);

    // Data: every result as submitted, the index, the tables, the feed.
    site.result_files = result_files;
    site.files.extend(copies);
    site.add("sitemap.xml", sitemap::render(&common.base_url, &html_pages));
    site.add("robots.txt", format!("User-agent: *\nAllow: /\nSitemap: {}/sitemap.xml\n", common.base_url));
    // Result files name this address in "$schema" (docs/result-format.md),
    // so editors can check a file before it is submitted.
    let schema = opts.docs.join("result-v1.schema.json");
    if schema.is_file() {
        site.files.push(("result-v1.schema.json".to_string(), Body::Copy { from: schema, sha256: None }));
    }
    crate::timing::log_time(start, "  data files");
    if let Some(m) = memo {
        m.parts.finish();
    }
    for (name, builtin) in STATIC {
        let text =
            std::fs::read_to_string(opts.templates.join("static").join(name)).unwrap_or_else(|_| builtin.to_string());
        site.add(format!("static/{name}"), text);
    }
    if trim {
        // `site build` ends with the build: freeing the model (10,000
        // entries of many small values) one value at a time, on one CPU,
        // was the last 30 ms of the build (docs/benchmarks.md), and the
        // process's end frees it all at once. `site serve` keeps its
        // entries in its cache.
        std::mem::forget(model);
    }
    Ok(site)
}

/// Appends named parts to `site` in order, keeping each in `parts` with
/// its key.
fn join_parts(site: &mut Site, parts: Vec<Part>, mut kept: Option<&mut Parts>) {
    for (name, key, part) in parts {
        if let Some(k) = kept.as_deref_mut() {
            k.keep(name, key, &part);
        }
        site.join(part);
    }
}

/// The page `<name>/index.html`, made from `rows` alone, as the memo part
/// `name`: it lists every runner, so a `site serve` rebuild renders it again
/// only when its rows changed. Their JSON is the key (the rows have numbers,
/// which do not hash); a build without a memo makes no key.
fn rows_page(
    old: Option<&Parts>,
    common_key: u64,
    name: &str,
    rows: &impl serde::Serialize,
    render: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<(String, u64, Site)> {
    let key = match old {
        Some(_) => key_of((common_key, serde_json::to_string(rows)?)),
        None => 0,
    };
    let part = Parts::part(old, name, key, || {
        let mut part = Site::default();
        part.add(format!("{name}/index.html"), render()?);
        Ok(part)
    })?;
    Ok((name.to_string(), key, part))
}

/// The index, the tables and the feed, and the index's objects by key.
/// Without a cache, with `emit`, the index is handed to it a piece at a
/// time (`index_json::render_pieces`).
fn data_files(
    model: &Model,
    changes: &changes::Changes,
    common: &Common,
    stale_days: u32,
    index: Option<&IndexCache>,
    emit: Option<&mut Emit<'_>>,
) -> anyhow::Result<(Site, IndexCache)> {
    let mut site = Site::default();
    let objects = match (index, emit) {
        (None, Some(emit)) => {
            let mut first = true;
            index_json::render_pieces(model, &common.built, stale_days, &mut |bytes| {
                let piece = Body::Piece { bytes, first: std::mem::take(&mut first) };
                emit(vec![("index.json".to_string(), piece)])
            })?;
            IndexCache::new()
        }
        (index, _) => {
            let (bytes, objects) = index_json::render(model, &common.built, stale_days, index)?;
            site.add("index.json", bytes);
            objects
        }
    };
    for (name, text) in csv::tables(model) {
        site.add(format!("data/{name}"), text);
    }
    site.add("feed.xml", feed::render(model, changes, &common.base_url)?);
    Ok((site, objects))
}
