//! The build after the check, as its steps, in the order `build` runs them:
//!
//! 1. `model`: the comparison from the accepted results' entries, with
//!    each runner's change flags and the inputs every page is made with;
//! 2. `provider_pages`: each provider's report and plots;
//! 3. `runner_pages`: each runner's page (`site serve` only: `site build`
//!    wrote them as the check went, `intake`);
//! 4. `summarise_entries`: `site build` lets each entry go of what the
//!    steps below do not read;
//! 5. `home_and_data_files`: the comparison tables and the files that list
//!    every result (index.json, the CSV tables, the feed);
//! 6. `overview_and_coverage`: the overview, the coverage page and the
//!    build-cache section's index;
//! 7. `server_documents`: the build-cache section's page of each server;
//! 8. `other_pages`: the estimate, the hand-written pages and the 404 page;
//! 9. `site_files`: the published result files, sitemap.xml, robots.txt,
//!    the result schema and the static files;
//! 10. `leave_model`: the model's memory.
//!
//! Each step hands the files it made to the build's `FileSink` when it
//! ends, and a streaming build then hands the memory it freed back to the
//! OS (`memory`): the step that made something is the one that knows when
//! it is done with it.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::build_cache_pages::Section;
use super::coverage::{self, CoverageRow};
use super::csv;
use super::estimate;
use super::feed;
use super::home::{self, home_page};
use super::index_json::{self, IndexCache};
use super::inputs::PageInputs;
use super::intake::{Accepted, Streamed};
use super::memo::Memo;
use super::memory::release_free_memory;
use super::options::Options;
use super::overview;
use super::pages::{self, Common};
use super::parts::{Part, Parts};
use super::provider::provider_page;
use super::runner_pages::{PAGES_AT_ONCE, runner_parts};
use super::site::{Body, Emit, FileSink, Site};
use super::sitemap;
use crate::memo_key::key_of;
use crate::model::{self, Model, changes};
use crate::report::ReportRun;

/// The static files, by name, as built into the binary (read from
/// `templates/static/` when it is there).
pub const STATIC: [(&str, &str); 3] = [
    ("site.css", include_str!("../../../templates/static/site.css")),
    ("site.js", include_str!("../../../templates/static/site.js")),
    ("estimate.js", include_str!("../../../templates/static/estimate.js")),
];

/// How the steps run: the two ways the site is built
/// (`output::BuildMode`), as the steps see them.
pub enum StepMode<'m> {
    /// `site build`: the runner pages were written as the check went
    /// (`Intake::streaming`); each step writes its files a batch at a time
    /// and hands freed memory back, as the process ends with the build.
    Stream,
    /// `site serve`: every part is kept in the memo for the next build,
    /// which reuses those whose inputs are the same; independent steps run
    /// side by side.
    Serve(&'m mut Memo),
}

/// A build under way: what its steps share.
struct Build<'a, 'm> {
    opts: &'a Options,
    mode: StepMode<'m>,
    emit: Emit<'a>,
    start: Instant,
    /// The files made and not yet handed to `emit`.
    site: Site,
    /// The HTML pages made so far, for the sitemap, in its order.
    html_pages: Vec<String>,
}

/// Builds every file of the site from what `Intake` made of the accepted
/// results, handing each step's files to `emit`, and returns those made
/// after the last hand-over; with `StepMode::Serve`, reusing the parts the
/// memo kept from the last build whose inputs are the same, and keeping
/// this build's parts there.
pub fn build(opts: &Options, accepted: Accepted, mode: StepMode<'_>, emit: Emit<'_>) -> anyhow::Result<Site> {
    let Accepted { entries, copies, result_files, report_runs, streamed } = accepted;
    // Only a streaming intake made the runner pages, which the steps of a
    // streaming build leave out.
    anyhow::ensure!(
        streamed.is_some() == matches!(mode, StepMode::Stream),
        "a streaming build needs a streaming intake (`Intake::streaming`), and only it"
    );
    let mut b = Build { opts, mode, emit, start: Instant::now(), site: Site::default(), html_pages: Vec::new() };
    let (model, changes, inputs) = b.model(entries, streamed)?;
    b.provider_pages(&model, &inputs, report_runs)?;
    b.runner_pages(&model, &changes, &inputs)?;
    let model = b.summarise_entries(model)?;
    b.home_and_data_files(&model, &changes, &inputs)?;
    let section = b.overview_and_coverage(&model, &inputs)?;
    b.server_documents(&section, &inputs)?;
    drop(section);
    b.other_pages(&model, &inputs)?;
    b.site_files(&inputs, copies, result_files)?;
    b.leave_model(model);
    Ok(b.site)
}

impl Build<'_, '_> {
    fn streams(&self) -> bool {
        matches!(self.mode, StepMode::Stream)
    }

    fn memo(&self) -> Option<&Memo> {
        match &self.mode {
            StepMode::Serve(memo) => Some(memo),
            StepMode::Stream => None,
        }
    }

    fn parts(&self) -> Option<&Parts> {
        self.memo().map(|m| &m.parts)
    }

    /// Hands the files made so far to the sink.
    fn hand_over(&mut self) -> anyhow::Result<()> {
        self.emit.files(std::mem::take(&mut self.site.files))
    }

    /// Ends a step: hands its files over and, in a streaming build, the
    /// memory it freed back to the OS.
    fn end_step(&mut self, name: &str) -> anyhow::Result<()> {
        self.hand_over()?;
        if self.streams() {
            release_free_memory();
        }
        crate::timing::log_time(self.start, name);
        Ok(())
    }

    /// Appends named parts to the site in order, keeping each in the memo
    /// with its key.
    fn join_parts(&mut self, parts: Vec<Part>) {
        let mut kept = match &mut self.mode {
            StepMode::Serve(memo) => Some(&mut memo.parts),
            StepMode::Stream => None,
        };
        for (name, key, part) in parts {
            if let Some(k) = kept.as_deref_mut() {
                k.keep(name, key, &part);
            }
            self.site.join(part);
        }
    }

    /// Step 1. A streaming intake made the change flags as the check went,
    /// and the inputs before it. Otherwise: the model and its change flags
    /// on one side; the templates, the hand-written pages and the provider
    /// files, read and parsed, on the other, as the model's serial parts
    /// leave a CPU idle.
    fn model(
        &mut self,
        entries: Vec<Arc<model::Entry>>,
        streamed: Option<Streamed>,
    ) -> anyhow::Result<(Model, changes::Changes, PageInputs)> {
        let (model, changes, inputs) = match (streamed, &mut self.mode) {
            (Some(Streamed { inputs, changes, picks }), _) => {
                (model::assemble_picked(entries, &picks), changes, inputs)
            }
            (None, mode) => {
                let memo = match mode {
                    StepMode::Serve(memo) => Some(&mut **memo),
                    StepMode::Stream => None,
                };
                let (memo_entries, memo_changes, memo_templates) = match memo {
                    Some(m) => (Some(&mut m.entries), Some(&mut m.changes), Some(&mut m.templates)),
                    None => (None, None, None),
                };
                let opts = self.opts;
                let ((model, changes), inputs) = rayon::join(
                    || {
                        let model = model::assemble(entries, memo_entries);
                        let (changes, change_cache) = changes::compute(&model, memo_changes.as_deref());
                        if let Some(cache) = memo_changes {
                            *cache = change_cache;
                        }
                        (model, changes)
                    },
                    || PageInputs::load(opts, memo_templates),
                );
                (model, changes, inputs)
            }
        };
        crate::timing::log_time(self.start, "  model");
        Ok((model, changes, inputs?))
    }

    /// Step 2. Each provider's markdown report, as a file and as HTML, and
    /// plots of the provider's rows of every group. Pages are independent:
    /// each is built into its own part on any CPU from its provider's
    /// entries only, and the parts joined in order. A streaming build makes
    /// a CPU's worth at a time, each batch written before the next is made,
    /// so that it never holds every provider's pages. What the reports read
    /// of the results is let go of here: nothing else needs it.
    fn provider_pages(&mut self, model: &Model, inputs: &PageInputs, runs: Vec<ReportRun>) -> anyhow::Result<()> {
        let PageInputs { providers, tera, common, common_key, .. } = inputs;
        let entry_keys = |r: &model::Runner| r.entries.iter().map(|&i| model.entries[i].key).collect::<Vec<u64>>();
        let ids: Vec<(&String, &String)> = model.providers.iter().collect();
        let now = self.opts.now;
        let batch_len = match self.streams() {
            true => rayon::current_num_threads().max(1),
            false => ids.len().max(1),
        };
        for batch in ids.chunks(batch_len) {
            let old = self.parts();
            let parts = batch
                .par_iter()
                .map(|&(id, name)| {
                    let mine: Vec<Vec<u64>> =
                        model.runners.iter().filter(|r| &r.provider_id == id).map(entry_keys).collect();
                    // The provider's file is shown too (sizes, prices, its site).
                    let file = serde_json::to_string(&providers.provider(id)).unwrap_or_default();
                    let (part, key) = (format!("providers/{id}"), key_of((*common_key, id, name, mine, file)));
                    let site = Parts::part(old, &part, key, || {
                        provider_page(tera, common, model, &runs, id, name, providers, now)
                    })?;
                    Ok((part, key, site))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            self.join_parts(parts);
            self.hand_over()?;
        }
        // Freed on every CPU: a thousand parsed results freed one at a time
        // on one CPU kept the other waiting.
        runs.into_par_iter().for_each(drop);
        self.end_step("  providers")
    }

    /// Step 3 (`site serve`): each runner's history across runs, newest
    /// first, a few hundred pages at a time.
    fn runner_pages(&mut self, model: &Model, changes: &changes::Changes, inputs: &PageInputs) -> anyhow::Result<()> {
        if self.streams() {
            return Ok(());
        }
        for runners in model.runners.chunks(PAGES_AT_ONCE) {
            let parts = runner_parts(inputs, model, changes, runners, self.opts.now, self.parts())?;
            self.join_parts(parts);
            self.hand_over()?;
        }
        self.end_step("  runners")
    }

    /// Step 4 (`site build`): what the steps below read of each entry is a
    /// small part of it, so a streaming build lets go of the rest
    /// (`model::Entry::keep_summary`), and the home page and the data files
    /// are not made beside every result's runner-page rows. `site serve`
    /// keeps whole entries for its next build.
    fn summarise_entries(&mut self, mut model: Model) -> anyhow::Result<Model> {
        if self.streams() {
            model.entries.par_iter_mut().for_each(|e| {
                if let Some(e) = Arc::get_mut(e) {
                    e.keep_summary();
                }
            });
            self.end_step("  entries summarised")?;
        }
        Ok(model)
    }

    /// Step 5. The home page (the comparison, with each group's plots) and
    /// the data files that list every result do not depend on each other:
    /// `site serve` makes them at the same time; a streaming build makes
    /// them one after the other, writing the index and the long tables'
    /// pages a piece at a time as it goes.
    fn home_and_data_files(
        &mut self,
        model: &Model,
        changes: &changes::Changes,
        inputs: &PageInputs,
    ) -> anyhow::Result<()> {
        let PageInputs { providers, tera, templates_key, common, .. } = inputs;
        let (opts, templates_key) = (self.opts, *templates_key);
        let prices = home::prices(model, providers, opts.now);
        // The overview's rows for the data files (index.json's `overview`,
        // overview.csv); step 6 makes its pages of its own, since a
        // streaming build lets go of each order as soon as it is written.
        let sections = overview::sections(model, providers, opts.now);
        let home = |old: Option<&Memo>, emit: Option<&mut dyn FileSink>| {
            let (home, parts) = (old.map(|m| &m.home), old.map(|m| &m.parts));
            home_page(tera, templates_key, common, model, &prices, opts.home_rows, home, parts, emit)
        };
        let ((home, tables), data) = match &mut self.mode {
            StepMode::Stream => {
                let data = stream_data_files(model, &sections, changes, common, opts.stale_days, &mut *self.emit);
                let (home, tables, _) = home(None, Some(&mut *self.emit))?;
                ((home, tables), data?)
            }
            StepMode::Serve(memo) => {
                let old: &Memo = memo;
                let (home, data) = rayon::join(
                    || home(Some(old), None),
                    || data_files(model, &sections, changes, common, opts.stale_days, old),
                );
                let ((home, tables, home_cache), (data, index_cache)) = (home?, data?);
                (memo.home, memo.index) = (home_cache, index_cache);
                ((home, tables), data)
            }
        };
        self.html_pages.push("/".into());
        self.html_pages
            .extend(tables.iter().filter_map(|(path, ..)| path.strip_suffix("index.html").map(|p| format!("/{p}"))));
        self.site.join(home);
        self.join_parts(tables);
        self.site.join(data);
        self.end_step("  home and data files")?;
        for id in model.providers.keys() {
            self.html_pages.push(format!("/providers/{id}/"));
            self.site.providers.push(id.clone());
        }
        Ok(())
    }

    /// Step 6. The overview, the coverage page and the build-cache
    /// section's index, each made from the model alone. `site serve` makes
    /// all three at the same time. A streaming build makes the overview's
    /// three pages first, each written before the next is made and its rows
    /// let go of as soon as the orders by cost are made of them, as the
    /// overview's rows and pages beside the section's index would set the
    /// build's peak.
    fn overview_and_coverage<'m>(&mut self, model: &'m Model, inputs: &PageInputs) -> anyhow::Result<Section<'m>> {
        let PageInputs { providers, tera, common, common_key, .. } = inputs;
        let (common_key, now) = (*common_key, self.opts.now);
        let mut coverage = Vec::new();
        for r in &model.runners {
            self.html_pages.push(format!("/runners/{}/{}/", r.provider_id, r.label));
            let newest = r.entries.last().map(|&i| &model.entries[i].meta);
            coverage.push(CoverageRow {
                provider_id: r.provider_id.clone(),
                provider_name: r.provider_name.clone(),
                label: r.label.clone(),
                url: format!("/runners/{}/{}/", r.provider_id, r.label),
                newest: r.newest_stages,
                any: r.any_stages,
                // The optional build-cache stage is never listed as missing.
                missing: r.newest_stages.runner_list().iter().filter(|s| !s.1).map(|s| s.0).collect(),
                incomplete: newest.map(|m| m.incomplete_stages.clone()).unwrap_or_default(),
                reasons: newest.map(|m| m.incomplete_why.clone()).unwrap_or_default(),
            });
        }
        let section = Section::of(model);
        let coverage_and_index = |parts| {
            rayon::join(
                || rows_page(parts, common_key, "coverage", &coverage, || coverage::page(tera, common, &coverage)),
                || section.index_page(tera, common),
            )
        };
        let overview_page = |parts, name, rows: &Vec<overview::Section>, order| {
            rows_page(parts, common_key, name, rows, || overview::page(tera, common, rows, order))
        };
        let (overview_parts, (coverage_part, section_index)) = match self.streams() {
            true => {
                let sections = overview::sections(model, providers, now);
                let page = overview_page(None, "overview", &sections, "coremark")?.2;
                self.site.join(page);
                self.end_step("  overview")?;
                let by_cost = overview::by_cost(&sections);
                let page = overview_page(None, "overview/by-cost", &by_cost, "cost")?.2;
                self.site.join(page);
                drop(by_cost);
                self.end_step("  overview by cost")?;
                let by_all_core_cost = overview::by_all_core_cost(&sections);
                drop(sections);
                let page = overview_page(None, "overview/by-allcore-cost", &by_all_core_cost, "allcore-cost")?.2;
                self.site.join(page);
                drop(by_all_core_cost);
                self.end_step("  overview by cost of all-core work")?;
                (Ok(Vec::new()), coverage_and_index(None))
            }
            false => {
                let parts = self.parts();
                rayon::join(
                    || {
                        let sections = overview::sections(model, providers, now);
                        let by_cost = overview::by_cost(&sections);
                        let by_all_core_cost = overview::by_all_core_cost(&sections);
                        Ok::<_, anyhow::Error>(vec![
                            overview_page(parts, "overview", &sections, "coremark")?,
                            overview_page(parts, "overview/by-cost", &by_cost, "cost")?,
                            overview_page(parts, "overview/by-allcore-cost", &by_all_core_cost, "allcore-cost")?,
                        ])
                    },
                    || coverage_and_index(parts),
                )
            }
        };
        self.join_parts(overview_parts?);
        self.join_parts(vec![coverage_part?]);
        self.site.join(section_index?);
        self.html_pages.extend(section.urls());
        self.end_step("  overview, coverage and build-cache index")?;
        Ok(section)
    }

    /// Step 7. The server documents' pages, a batch at a time, each batch
    /// written before the next is made (`build_cache_pages::Section`).
    fn server_documents(&mut self, section: &Section<'_>, inputs: &PageInputs) -> anyhow::Result<()> {
        let PageInputs { tera, common, common_key, .. } = inputs;
        for start in (0..section.len()).step_by(PAGES_AT_ONCE) {
            let range = start..section.len().min(start + PAGES_AT_ONCE);
            let docs = section.doc_parts(range, tera, common, *common_key, self.parts())?;
            self.join_parts(docs);
            self.hand_over()?;
        }
        self.end_step("  server documents")
    }

    /// Step 8. A job's estimate, from each runner's ranked rows and price;
    /// the hand-written pages; the 404 page.
    fn other_pages(&mut self, model: &Model, inputs: &PageInputs) -> anyhow::Result<()> {
        let PageInputs { content, providers, tera, common, .. } = inputs;
        self.html_pages.push("/coverage/".into());
        self.html_pages.extend(["/overview/", "/overview/by-cost/", "/overview/by-allcore-cost/"].map(String::from));
        let figures = estimate::figures(model, providers, self.opts.now);
        let (estimate_pages, urls) = estimate::pages(tera, common, &figures)?;
        self.site.join(estimate_pages);
        self.html_pages.extend(urls);
        for p in content {
            self.site.add(format!("{}/index.html", p.slug), pages::page(tera, common, p)?);
            self.html_pages.push(format!("/{}/", p.slug));
        }
        self.site.add("404.html", pages::not_found(tera, common)?);
        crate::timing::log_time(self.start, "  estimate and other pages");
        Ok(())
    }

    /// Step 9. Every result as submitted, the sitemap, robots.txt, the
    /// result schema and the static files; the memo's parts of this build
    /// become the last build's.
    fn site_files(
        &mut self,
        inputs: &PageInputs,
        copies: Vec<(String, Body)>,
        result_files: usize,
    ) -> anyhow::Result<()> {
        let base_url = &inputs.common.base_url;
        let opts = self.opts;
        self.site.result_files = result_files;
        self.site.files.extend(copies);
        self.site.add("sitemap.xml", sitemap::render(base_url, &self.html_pages));
        self.site.add("robots.txt", format!("User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n"));
        // Result files name this address in "$schema" (docs/result-format.md),
        // so editors can check a file before it is submitted.
        let schema = opts.docs.join("result-v1.schema.json");
        if schema.is_file() {
            self.site.files.push(("result-v1.schema.json".to_string(), Body::Copy { from: schema, sha256: None }));
        }
        if let StepMode::Serve(memo) = &mut self.mode {
            memo.parts.finish();
        }
        for (name, builtin) in STATIC {
            let text = std::fs::read_to_string(opts.templates.join("static").join(name))
                .unwrap_or_else(|_| builtin.to_string());
            self.site.add(format!("static/{name}"), text);
        }
        crate::timing::log_time(self.start, "  data files");
        Ok(())
    }

    /// Step 10. `site serve` keeps its entries in its memo, and frees the
    /// rest of the model here. A streaming build is `site build`, whose
    /// process ends with the build: freeing the model one small value at a
    /// time, on one CPU, would be the build's last serial work, while the
    /// process's end frees it all at once; so the model is left to it.
    fn leave_model(&mut self, model: Model) {
        match self.mode {
            StepMode::Stream => std::mem::forget(model),
            StepMode::Serve(_) => drop(model),
        }
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

/// The index, the tables and the feed, and the index's objects by key,
/// reusing those of `memo` that did not change.
fn data_files(
    model: &Model,
    sections: &[overview::Section],
    changes: &changes::Changes,
    common: &Common,
    stale_days: u32,
    memo: &Memo,
) -> anyhow::Result<(Site, IndexCache)> {
    let mut site = Site::default();
    let (bytes, objects) = index_json::render(model, sections, &common.built, stale_days, Some(&memo.index))?;
    site.add("index.json", bytes);
    tables_and_feed(&mut site, model, sections, changes, common)?;
    Ok((site, objects))
}

/// The data files of a streaming build: the index handed to `emit` a
/// piece at a time (`index_json::render_pieces`), the tables and the feed
/// returned.
fn stream_data_files(
    model: &Model,
    sections: &[overview::Section],
    changes: &changes::Changes,
    common: &Common,
    stale_days: u32,
    emit: &mut dyn FileSink,
) -> anyhow::Result<Site> {
    let mut first = true;
    index_json::render_pieces(model, sections, &common.built, stale_days, &mut |bytes| {
        emit.piece("index.json", bytes, std::mem::take(&mut first))
    })?;
    let mut site = Site::default();
    tables_and_feed(&mut site, model, sections, changes, common)?;
    Ok(site)
}

fn tables_and_feed(
    site: &mut Site,
    model: &Model,
    sections: &[overview::Section],
    changes: &changes::Changes,
    common: &Common,
) -> anyhow::Result<()> {
    for (name, text) in csv::tables(model, sections) {
        site.add(format!("data/{name}"), text);
    }
    site.add("feed.xml", feed::render(model, changes, &common.base_url)?);
    Ok(())
}
