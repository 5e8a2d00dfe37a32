//! The build-cache section's tables (`/build-cache/`): the documents, and
//! the tables that rows of several documents share. Written here rather
//! than by templates/build_cache.html, which keeps the page around them:
//! a shared table holds a row per document and request size and
//! connection count, and as template code (each row and its result's
//! metadata turned into Tera's context, then its macros) the page of 1,000
//! documents took 45 ms of a 390 ms `site serve` rebuild. The markup is the
//! template's (site/src/web/html.rs).

use super::html::{Html, day, given, marks, meta_cells};
use crate::model::Meta;
use crate::model::build_cache::{ServerDoc, SharedTable};

/// The section's body below its lead paragraph: the documents' table (or
/// a note that there are none) and the shared tables (or a note).
pub(super) fn section_body(docs: &[(&Meta, &ServerDoc)], shared: &[SharedTable]) -> String {
    let rows: usize = shared.iter().map(|t| t.rows.len()).sum();
    let mut h = Html::with_capacity(4_096 + docs.len() * 1_024 + rows * 512);
    documents(&mut h, docs);
    h.raw("\n<h2 id=\"shared\">Tables shared by several documents</h2>");
    if shared.is_empty() {
        h.raw("\n<p>No two documents have rows measured under the same conditions (backend, CPU and memory quota, and every named condition) yet.</p>");
    }
    for t in shared {
        shared_table(&mut h, docs, t);
    }
    h.into_string()
}

fn documents(h: &mut Html, docs: &[(&Meta, &ServerDoc)]) {
    if docs.is_empty() {
        h.raw("<p>No build-cache results yet.</p>");
        return;
    }
    h.raw("<div class=\"scroll\"><table id=\"t-build-cache-documents\">\n<caption>Benchmark documents, in path order</caption>\n<thead><tr><th scope=\"col\">Document</th><th scope=\"col\">Software</th><th scope=\"col\">Server</th><th scope=\"col\" class=\"num\">Tables</th><th scope=\"col\" class=\"num\">Rows</th><th scope=\"col\">Date</th><th scope=\"col\">Collector</th><th scope=\"col\">Marks</th><th scope=\"col\">Source</th></tr></thead>\n<tbody>");
    for (meta, doc) in docs {
        let marked = given(meta.excluded.as_deref());
        h.raw(if marked { "\n<tr class=\"marked\">" } else { "\n<tr>" })
            .raw("<th scope=\"row\"><a href=\"")
            .text(&doc.url)
            .raw("\">")
            .text(&doc.target)
            .raw("</a></th>")
            .cells(false, &[&doc.software])
            .raw("<td>")
            .text(&meta.runner)
            .raw(" (")
            .text(&meta.provider_name)
            .raw(")</td><td class=\"num\">")
            .raw(&doc.tables.len().to_string())
            .raw("</td><td class=\"num\">")
            .raw(&doc.tables.iter().map(|t| t.rows.len()).sum::<usize>().to_string())
            .raw("</td>");
        meta_cells(h, meta, false, false);
        h.raw("</tr>");
    }
    h.raw("\n</tbody></table></div>");
}

fn shared_table(h: &mut Html, docs: &[(&Meta, &ServerDoc)], t: &SharedTable) {
    h.raw("\n<section class=\"bc-table\" aria-labelledby=\"")
        .text(&t.id)
        .raw("\">\n<h3 id=\"")
        .text(&t.id)
        .raw("\">")
        .text(&t.backend)
        .raw(" backend, CPU quota ")
        .text(&t.cpu_quota)
        .raw(", memory quota ")
        .text(&t.memory_quota_gb)
        .raw(" GB</h3>\n<div class=\"beside\">\n<div class=\"scroll\"><table id=\"t-")
        .text(&t.id)
        .raw("\">\n<caption>Requests per second by request size and client connections (higher is better)</caption>\n<thead><tr><th scope=\"col\">Document</th><th scope=\"col\">CPU</th><th scope=\"col\" class=\"num\">Request size (bytes)</th><th scope=\"col\" class=\"num\">Client connections</th><th scope=\"col\" class=\"num\">PUT (req/s)</th><th scope=\"col\" class=\"num\">GET (req/s)</th><th scope=\"col\">Marks</th></tr></thead>\n<tbody>");
    for r in &t.rows {
        let (meta, doc) = docs[r.doc];
        let row = &r.row;
        let marked = row.incomplete || given(meta.excluded.as_deref());
        h.raw(if marked { "\n<tr class=\"marked\">" } else { "\n<tr>" })
            .raw("<th scope=\"row\"><a href=\"")
            .text(&doc.url)
            .raw("\">")
            .text(&doc.software)
            .raw(" (")
            .text(&meta.runner)
            .raw(", ")
            .text(&day(meta))
            .raw(")</a></th>")
            .cells(false, &[&row.fig.cpu])
            .cells(true, &[&row.fig.value_bytes, &row.fig.connections, &row.fig.put_per_s, &row.fig.get_per_s])
            .raw("<td>");
        marks(h, meta, row.incomplete);
        h.raw("</td></tr>");
    }
    h.raw("\n</tbody></table></div>\n<aside class=\"conditions\" aria-label=\"Conditions of this table\">\n<h4>Conditions</h4>\n<dl>");
    for c in &t.conditions {
        h.raw("\n<dt>").text(&c.name).raw("</dt><dd>").text(&c.value).raw("</dd>");
    }
    h.raw("\n</dl>\n</aside>\n</div>\n</section>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_documents_the_section_says_so() {
        let body = section_body(&[], &[]);
        assert_eq!(
            body,
            "<p>No build-cache results yet.</p>\n<h2 id=\"shared\">Tables shared by several documents</h2>\n<p>No two \
             documents have rows measured under the same conditions (backend, CPU and memory quota, and every named \
             condition) yet.</p>"
        );
    }
}
