//! Build-cache servers, which are not runners: each result file with a
//! build-cache stage is a server document with a page of its own, and its
//! rows never enter the runner rankings.
//!
//! A document's tables are grouped by backend, then request size and
//! connections, as RBCS publishes its benchmark: an imported document keeps
//! its published tables and row order; a measured one gets a table per
//! backend (in the order its runs name them), rows by CPU quota, memory
//! quota, request size and connections, which is the published order.
//!
//! Rows of two documents share a table (`shared_tables`) only where they
//! were measured under the same conditions: the same backend, CPU quota and
//! memory quota, and the same set of named conditions (the document's,
//! with those a table states for itself in place of the same-named ones).

use std::collections::BTreeSet;

use runner_bench_format::AnyResult;
use runner_bench_format::measured::{Condition, Status};
use serde::Serialize;

use crate::report::{HttpCacheRowView, HttpCacheView};
use crate::validate::Run;

/// The section's address.
pub const SECTION_URL: &str = "/build-cache/";

/// One result file's build-cache benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct ServerDoc {
    /// `/build-cache/<path of the result file without .json>/`.
    pub url: String,
    /// The path below results/ without `.json`, for plot file names.
    pub stem: String,
    /// Server software, e.g. `RBCS`.
    pub software: String,
    /// Figures taken from a published document.
    pub imported: bool,
    /// The server's URL (measured) or the published document's title
    /// (imported).
    pub target: String,
    /// Conditions that hold for every table, as recorded.
    pub conditions: Vec<NamedValue>,
    pub tables: Vec<ServerTable>,
}

/// A named condition as a page shows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NamedValue {
    pub name: String,
    pub value: String,
}

/// One table of a document: one backend.
#[derive(Debug, Clone, Serialize)]
pub struct ServerTable {
    /// The published title, or `<backend> backend`.
    pub title: String,
    /// Conditions the table states for itself (imported documents only).
    pub conditions: Vec<NamedValue>,
    pub rows: Vec<ServerRow>,
    /// The document's conditions with the table's own in place of the
    /// same-named ones, as a set: what two tables must agree on to share
    /// rows.
    #[serde(skip)]
    pub effective: BTreeSet<NamedValue>,
}

/// One row: figures as the reports print them, and as numbers for plots.
#[derive(Debug, Clone, Serialize)]
pub struct ServerRow {
    #[serde(flatten)]
    pub fig: HttpCacheRowView,
    /// A phase did not end `ok` (measured rows only): its figure is `—`.
    pub incomplete: bool,
    /// What went wrong in a phase that did not end `ok`.
    pub messages: Vec<String>,
    #[serde(skip)]
    pub num: RowNumbers,
}

/// A row's numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct RowNumbers {
    pub cpu_quota: Option<f64>,
    pub memory_quota_gb: Option<f64>,
    pub value_bytes: u64,
    pub connections: u32,
    pub put_per_s: Option<f64>,
    pub get_per_s: Option<f64>,
}

impl RowNumbers {
    /// The published order within a backend: CPU quota, memory quota,
    /// request size, connections (no quota first).
    fn order(&self) -> (i64, i64, u64, u32) {
        let q = |v: Option<f64>| v.map_or(i64::MIN, |v| (v * 1000.0).round() as i64);
        (q(self.cpu_quota), q(self.memory_quota_gb), self.value_bytes, self.connections)
    }

    /// Whether two rows' quotas are the same (both unlimited, or equal).
    fn same_quotas(&self, o: &RowNumbers) -> bool {
        let same = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        same(self.cpu_quota, o.cpu_quota) && same(self.memory_quota_gb, o.memory_quota_gb)
    }
}

/// The page address of the document at `rel_path` (below results/).
pub fn doc_url(rel_path: &str) -> String {
    format!("{SECTION_URL}{}/", stem(rel_path))
}

fn stem(rel_path: &str) -> &str {
    rel_path.strip_suffix(".json").unwrap_or(rel_path)
}

fn named(list: &[Condition]) -> Vec<NamedValue> {
    list.iter().map(|c| NamedValue { name: c.name.to_string(), value: c.value.to_string() }).collect()
}

/// The document-wide conditions with `own` in place of the same-named ones.
fn effective(doc: &[NamedValue], own: &[NamedValue]) -> BTreeSet<NamedValue> {
    let named_here: BTreeSet<&str> = own.iter().map(|c| c.name.as_str()).collect();
    doc.iter().filter(|c| !named_here.contains(c.name.as_str())).chain(own).cloned().collect()
}

/// The server document of `run`, where it has a build-cache stage; `view`
/// is the report's view of that stage (`report::part`), whose formatted
/// figures the pages show, so that they read as the report does.
pub fn server_doc(run: &Run, view: &HttpCacheView) -> Option<ServerDoc> {
    let url = doc_url(&run.rel_path);
    let stem = stem(&run.rel_path).to_string();
    match &*run.result {
        AnyResult::Imported(i) => {
            let h = i.stages.http_cache.as_ref()?;
            let conditions = named(&h.conditions);
            let tables = h
                .tables
                .iter()
                .zip(&view.tables)
                .map(|(t, tv)| {
                    let own = named(&t.conditions);
                    let rows = t
                        .rows
                        .iter()
                        .zip(&tv.rows)
                        .map(|(r, fig)| ServerRow {
                            fig: fig.clone(),
                            incomplete: false,
                            messages: Vec::new(),
                            num: RowNumbers {
                                cpu_quota: Some(r.cpu_quota.get()),
                                memory_quota_gb: Some(r.memory_quota_gb.get()),
                                value_bytes: r.value_bytes,
                                connections: r.connections,
                                put_per_s: Some(r.put_per_s.get()),
                                get_per_s: Some(r.get_per_s.get()),
                            },
                        })
                        .collect();
                    ServerTable {
                        title: t.title.to_string(),
                        effective: effective(&conditions, &own),
                        conditions: own,
                        rows,
                    }
                })
                .collect();
            Some(ServerDoc {
                url,
                stem,
                software: h.software.to_string(),
                imported: true,
                target: i.source.title.to_string(),
                conditions,
                tables,
            })
        }
        AnyResult::Measured(m) => {
            let h = m.stages.http_cache.as_ref()?;
            let conditions = named(&h.server.conditions);
            let figs = view.tables.first().map_or(&[][..], |t| &t.rows[..]);
            let mut tables: Vec<ServerTable> = Vec::new();
            for (r, fig) in h.runs.iter().zip(figs) {
                let backend = r.backend.to_string();
                let messages = [&r.put, &r.get]
                    .into_iter()
                    .zip(["PUT", "GET"])
                    .filter(|(p, _)| p.status != Status::Ok)
                    .map(|(p, name)| match &p.message {
                        Some(msg) => format!("{name}: {msg}"),
                        None if p.status == Status::Timeout => format!("{name}: timeout"),
                        None => format!("{name}: error"),
                    })
                    .collect::<Vec<_>>();
                let row = ServerRow {
                    fig: fig.clone(),
                    incomplete: !messages.is_empty(),
                    messages,
                    num: RowNumbers {
                        cpu_quota: r.cpu_quota.map(|q| q.get()),
                        memory_quota_gb: r.memory_quota_gb.map(|q| q.get()),
                        value_bytes: r.value_bytes,
                        connections: r.connections,
                        put_per_s: r.put.requests_per_s(),
                        get_per_s: r.get.requests_per_s(),
                    },
                };
                match tables.iter_mut().find(|t| t.rows.first().is_some_and(|f| f.fig.backend == backend)) {
                    Some(t) => t.rows.push(row),
                    None => tables.push(ServerTable {
                        title: format!("{backend} backend"),
                        conditions: Vec::new(),
                        effective: effective(&conditions, &[]),
                        rows: vec![row],
                    }),
                }
            }
            for t in &mut tables {
                // Stable: two runs of one cell keep their recorded order.
                t.rows.sort_by_key(|r| r.num.order());
            }
            Some(ServerDoc {
                url,
                stem,
                software: h.server.software.to_string(),
                imported: false,
                target: h.server.url.to_string(),
                conditions,
                tables,
            })
        }
    }
}

/// A table that rows of more than one document share.
#[derive(Debug, Clone, Serialize)]
pub struct SharedTable {
    /// Anchor on the section page, `shared-1`, `shared-2`, ….
    pub id: String,
    pub backend: String,
    pub cpu_quota: String,
    pub memory_quota_gb: String,
    /// The conditions every row was measured under, by name.
    pub conditions: Vec<NamedValue>,
    pub rows: Vec<SharedRow>,
}

/// A row of a shared table, with the document it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct SharedRow {
    /// Index into the documents `shared_tables` was given.
    pub doc: usize,
    /// Index into that document's tables.
    pub table: usize,
    pub row: ServerRow,
}

/// The tables that rows of two or more of `docs` share: one per backend,
/// quotas and set of conditions that more than one document has rows of,
/// in the order the documents first name them; rows by request size, then
/// connections, then the published row of a cell before measured ones, then
/// document.
pub fn shared_tables(docs: &[&ServerDoc]) -> Vec<SharedTable> {
    struct Key<'a> {
        backend: &'a str,
        num: RowNumbers,
        effective: &'a BTreeSet<NamedValue>,
    }
    let mut keys: Vec<(Key<'_>, Vec<SharedRow>)> = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        for (ti, t) in doc.tables.iter().enumerate() {
            for r in &t.rows {
                let same = |k: &Key<'_>| {
                    k.backend == r.fig.backend && k.num.same_quotas(&r.num) && k.effective == &t.effective
                };
                let shared = SharedRow { doc: d, table: ti, row: r.clone() };
                match keys.iter_mut().find(|(k, _)| same(k)) {
                    Some((_, rows)) => rows.push(shared),
                    None => {
                        keys.push((Key { backend: &r.fig.backend, num: r.num, effective: &t.effective }, vec![shared]))
                    }
                }
            }
        }
    }
    keys.into_iter()
        .filter(|(_, rows)| rows.iter().any(|r| r.doc != rows[0].doc))
        .enumerate()
        .map(|(i, (key, mut rows))| {
            rows.sort_by_key(|r| (r.row.num.value_bytes, r.row.num.connections, !docs[r.doc].imported, r.doc));
            let first = &rows[0].row.fig;
            SharedTable {
                id: format!("shared-{}", i + 1),
                backend: key.backend.to_string(),
                cpu_quota: first.cpu_quota.clone(),
                memory_quota_gb: first.memory_quota_gb.clone(),
                conditions: key.effective.iter().cloned().collect(),
                rows,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nv(name: &str, value: &str) -> NamedValue {
        NamedValue { name: name.into(), value: value.into() }
    }

    #[test]
    fn a_table_condition_replaces_the_documents_of_the_same_name() {
        let doc = [nv("digest", "none"), nv("TLS", "disabled"), nv("network RTT", "14ms")];
        let own = [nv("digest", "MD5"), nv("compression", "disabled")];
        let got: Vec<NamedValue> = effective(&doc, &own).into_iter().collect();
        assert_eq!(
            got,
            [nv("TLS", "disabled"), nv("compression", "disabled"), nv("digest", "MD5"), nv("network RTT", "14ms")]
        );
        // Order does not matter; a value does.
        assert_eq!(effective(&doc, &[]), effective(&[doc[2].clone(), doc[0].clone(), doc[1].clone()], &[]));
        assert_ne!(effective(&doc, &[]), effective(&doc, &[nv("TLS", "enabled")]));
    }

    #[test]
    fn quotas_match_when_both_unlimited_or_equal() {
        let q = |cpu, memory| RowNumbers { cpu_quota: cpu, memory_quota_gb: memory, ..RowNumbers::default() };
        assert!(q(None, None).same_quotas(&q(None, None)));
        assert!(q(Some(1.0), Some(4.0)).same_quotas(&q(Some(1.0), Some(4.0))));
        assert!(!q(Some(1.0), Some(4.0)).same_quotas(&q(None, Some(4.0))));
        assert!(!q(Some(1.0), Some(4.0)).same_quotas(&q(Some(1.0), Some(0.5))));
    }
}
