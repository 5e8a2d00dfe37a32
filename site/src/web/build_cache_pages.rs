//! The build-cache section's pages: `/build-cache/` lists every server
//! document and the tables that rows of several documents share
//! (`build_cache::shared_tables`); `/build-cache/<result path>/` shows one
//! document: its tables with the conditions beside each, and a plot of
//! requests/s by request size per table and connection count.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

use super::pages::{Common, PlotRef, render};
use super::parts::{Part, Parts};
use super::plot::Spec;
use super::plot::requests::{self, Series};
use super::site::Site;
use crate::memo_key::key_of;
use crate::model::build_cache::{NamedValue, SECTION_URL, ServerDoc, ServerTable, SharedTable, shared_tables};
use crate::model::{Meta, Model};

/// A condition beside a table: the document's, or the table's own.
#[derive(Debug, Clone, Serialize)]
struct Beside<'a> {
    name: &'a str,
    value: &'a str,
    /// Stated by the table itself (in place of the document's, where the
    /// document names it too).
    own: bool,
}

/// A document's table as its page shows it.
#[derive(Debug, Clone, Serialize)]
struct TableView<'a> {
    /// `table-1`, `table-2`, … in the document's order.
    id: String,
    t: &'a ServerTable,
    beside: Vec<Beside<'a>>,
    /// Whether a row lacks a figure (a phase did not end `ok`): the table
    /// then has a column saying why.
    incomplete: bool,
    plots: Vec<PlotRef>,
    /// Anchors of the section page's shared tables that hold its rows.
    shared: Vec<String>,
}

#[derive(Serialize)]
struct SectionContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    /// The documents' and shared tables, as HTML (`build_cache_tables`).
    body: String,
}

#[derive(Serialize)]
struct DocContext<'a> {
    common: &'a Common,
    title: String,
    description: String,
    meta: &'a Meta,
    doc: &'a ServerDoc,
    tables: Vec<TableView<'a>>,
}

/// The section of one build: every server document with the shared tables
/// that hold its rows. Its index page is one page (`index_page`); the
/// documents' pages are made a batch at a time (`doc_parts`), each batch
/// written before the next is made: with 100,000 results the pages and
/// plots of 10,000 documents, held at once, were the build's peak.
pub(super) struct Section<'m> {
    docs: Vec<(&'m Meta, &'m ServerDoc, u64)>,
    shared: Vec<SharedTable>,
    /// (document, table) → the shared tables holding its rows, in order.
    holding: HashMap<(usize, usize), Vec<usize>>,
}

impl<'m> Section<'m> {
    /// The section of `model`'s server documents.
    pub(super) fn of(model: &'m Model) -> Section<'m> {
        let docs: Vec<(&Meta, &ServerDoc, u64)> = model
            .servers
            .iter()
            .filter_map(|&i| Some((&*model.entries[i].meta, model.entries[i].server.as_deref()?, model.entries[i].key)))
            .collect();
        let only_docs: Vec<&ServerDoc> = docs.iter().map(|d| d.1).collect();
        let shared = shared_tables(&only_docs);
        let mut holding: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
        for (s, t) in shared.iter().enumerate() {
            for r in &t.rows {
                let tables = holding.entry((r.doc, r.table)).or_default();
                if tables.last() != Some(&s) {
                    tables.push(s);
                }
            }
        }
        Section { docs, shared, holding }
    }

    /// The addresses of its pages, the index first (for the sitemap).
    pub(super) fn urls(&self) -> impl Iterator<Item = String> + '_ {
        std::iter::once(SECTION_URL.to_string()).chain(self.docs.iter().map(|d| d.1.url.clone()))
    }

    /// How many document pages it has.
    pub(super) fn len(&self) -> usize {
        self.docs.len()
    }

    /// The index page, which lists every document.
    pub(super) fn index_page(&self, tera: &tera::Tera, common: &Common) -> anyhow::Result<Site> {
        let docs: Vec<(&Meta, &ServerDoc)> = self.docs.iter().map(|&(meta, doc, _)| (meta, doc)).collect();
        let ctx = SectionContext {
            common,
            title: "Build-cache servers",
            description: "PUT and GET requests per second of remote build-cache servers, one page per benchmark \
                          document; servers are not runners and are never ranked with them.",
            body: super::build_cache_tables::section_body(&docs, &self.shared),
        };
        let mut section = Site::default();
        section.add(format!("{}index.html", &SECTION_URL[1..]), render(tera, "build_cache.html", &ctx)?);
        Ok(section)
    }

    /// The pages of the documents `range` (in path order), a part each,
    /// named and keyed for `Memo`. Document pages are independent: each is
    /// made on any CPU, or reused from `old` when the key of its inputs
    /// (the site-wide inputs, its entry and the shared tables it links to)
    /// is the last build's.
    pub(super) fn doc_parts(
        &self,
        range: std::ops::Range<usize>,
        tera: &tera::Tera,
        common: &Common,
        common_key: u64,
        old: Option<&Parts>,
    ) -> anyhow::Result<Vec<Part>> {
        self.docs[range.clone()]
            .par_iter()
            .zip(range)
            .map(|(&(meta, doc, entry_key), d)| {
                // Per table, the anchors of the shared tables holding its rows.
                let anchors: Vec<Vec<String>> = (0..doc.tables.len())
                    .map(|i| {
                        self.holding.get(&(d, i)).map_or_else(Vec::new, |tables| {
                            tables.iter().map(|&s| format!("{SECTION_URL}#{}", self.shared[s].id)).collect()
                        })
                    })
                    .collect();
                let (part, key) = (doc.url.clone(), key_of((common_key, entry_key, &anchors)));
                let site = Parts::part(old, &part, key, || doc_page(tera, common, meta, doc, anchors))?;
                Ok((part, key, site))
            })
            .collect()
    }
}

/// One server document's page and plots; `anchors` are, per table, the
/// shared tables that hold its rows.
fn doc_page(
    tera: &tera::Tera,
    common: &Common,
    meta: &Meta,
    doc: &ServerDoc,
    anchors: Vec<Vec<String>>,
) -> anyhow::Result<Site> {
    let mut site = Site::default();
    let tables = doc
        .tables
        .iter()
        .zip(anchors)
        .enumerate()
        .map(|(i, (t, shared))| {
            let id = format!("table-{}", i + 1);
            let plots = table_plots(&mut site, doc, &id, t)?;
            Ok(TableView {
                beside: beside(doc, t),
                incomplete: t.rows.iter().any(|r| r.incomplete),
                id,
                t,
                plots,
                shared,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let ctx = DocContext {
        common,
        title: format!("{} build-cache benchmark: {} ({})", doc.software, doc.target, meta.date),
        description: format!(
            "PUT and GET requests per second of the build-cache server {} by backend, request size and client \
             connections, with the conditions they were measured under.",
            doc.software
        ),
        meta,
        doc,
        tables,
    };
    site.add(format!("{}index.html", &doc.url[1..]), render(tera, "server.html", &ctx)?);
    Ok(site)
}

/// The conditions beside a table: the document's, in its order, except
/// those the table names itself, then the table's own.
fn beside<'a>(doc: &'a ServerDoc, t: &'a ServerTable) -> Vec<Beside<'a>> {
    let own_names: Vec<&str> = t.conditions.iter().map(|c| c.name.as_str()).collect();
    let item = |c: &'a NamedValue, own| Beside { name: &c.name, value: &c.value, own };
    doc.conditions
        .iter()
        .filter(|c| !own_names.contains(&c.name.as_str()))
        .map(|c| item(c, false))
        .chain(t.conditions.iter().map(|c| item(c, true)))
        .collect()
}

/// One plot per connection count of `t`: requests/s by request size, a PUT
/// and a GET line per quota.
fn table_plots(site: &mut Site, doc: &ServerDoc, id: &str, t: &ServerTable) -> anyhow::Result<Vec<PlotRef>> {
    let mut sizes: Vec<u64> = t.rows.iter().map(|r| r.num.value_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut connections: Vec<u32> = t.rows.iter().map(|r| r.num.connections).collect();
    connections.sort_unstable();
    connections.dedup();
    // Quotas in the table's order.
    let mut quotas: Vec<(&str, &str)> = Vec::new();
    for r in &t.rows {
        let q = (r.fig.cpu_quota.as_str(), r.fig.memory_quota_gb.as_str());
        if !quotas.contains(&q) {
            quotas.push(q);
        }
    }
    // One y scale for the table's plots: the largest figure of any.
    let shared_top = t.rows.iter().flat_map(|r| [r.num.put_per_s, r.num.get_per_s]).flatten().fold(0.0, f64::max);
    let scale = if connections.len() > 1 { " The plots of this table share one y scale." } else { "" };
    let mut out = Vec::new();
    for c in connections.iter().copied() {
        let mut series = Vec::new();
        for (qi, &(cpu, memory)) in quotas.iter().enumerate() {
            let rows: Vec<_> = t
                .rows
                .iter()
                .filter(|r| r.num.connections == c && r.fig.cpu_quota == cpu && r.fig.memory_quota_gb == memory)
                .collect();
            let at = |v: u64| sizes.iter().position(|&s| s == v).unwrap_or_default();
            let put = rows.iter().filter_map(|r| Some((at(r.num.value_bytes), r.num.put_per_s?))).collect();
            let get = rows.iter().filter_map(|r| Some((at(r.num.value_bytes), r.num.get_per_s?))).collect();
            let label = |phase: &str| format!("{phase}, CPU quota {cpu}, memory {memory} GB");
            // PUT lines thin, so that the two phases read apart in print too.
            series.push(Series { label: label("PUT"), points: put, colour: 2 * qi, thin: true });
            series.push(Series { label: label("GET"), points: get, colour: 2 * qi + 1, thin: false });
        }
        let spec = Spec {
            title: format!("{}, {c} connections: requests/s", t.title),
            desc: format!(
                "{} PUT and GET requests per second by request size in bytes over {c} client connections, a line \
                 per phase and server quota; higher is better.{scale}",
                doc.software
            ),
            axis: "requests/s (higher is better)".into(),
        };
        if let Some(svg) = requests::draw(&spec, &sizes, &series, shared_top)? {
            // Beside the page, in its folder: a folder of their own made 2,000
            // more folders with 10,000 results, each an inode to allocate.
            let path = format!("build-cache/{}/{id}-{c}-connections.svg", doc.stem);
            out.push(PlotRef { src: format!("/{path}"), title: spec.title, desc: spec.desc });
            site.add(path, svg);
        }
    }
    Ok(out)
}
