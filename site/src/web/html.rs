//! HTML written by hand where a template would be slow: the tables that
//! repeat for every result (runner pages, `runner_tables`; the build-cache
//! section, `build_cache_tables`). The markup is the templates' (macros.html
//! names the macros these stand for), and every text from a result goes
//! through `Html::text`, Tera's own escaping.

use std::collections::HashMap;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::model::Meta;
use crate::model::run::NO_RUN_RECORD;

/// An HTML string being written: `raw` for the page's own markup, `text`
/// for anything that comes from a result.
pub(super) struct Html(String);

impl Html {
    pub(super) fn with_capacity(bytes: usize) -> Html {
        Html(String::with_capacity(bytes))
    }

    pub(super) fn into_string(self) -> String {
        self.0
    }

    pub(super) fn raw(&mut self, s: &str) -> &mut Self {
        self.0.push_str(s);
        self
    }

    /// One `<td>` cell of each text, in order; `num` right-aligns them
    /// (`class="num"`).
    pub(super) fn cells(&mut self, num: bool, texts: &[&str]) -> &mut Self {
        for t in texts {
            self.raw(if num { "<td class=\"num\">" } else { "<td>" }).text(t).raw("</td>");
        }
        self
    }

    pub(super) fn text(&mut self, s: &str) -> &mut Self {
        // Tera's escaping, so that these tables read as the template's did.
        if s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'' | b'/')) {
            self.0.push_str(&tera::escape_html(s));
        } else {
            self.0.push_str(s);
        }
        self
    }
}

/// Whether Tera's `{% if %}` takes the value as true: present and not empty.
pub(super) fn given(s: Option<&str>) -> bool {
    s.is_some_and(|s| !s.is_empty())
}

/// A result's date, collector, marks and source cells (macros.html's
/// `meta_cells`, without the variation mark), the incomplete mark where
/// `incomplete`. With `detail` (a runner page), also why it is self-built
/// (each reason apart)
/// and which jobs did not succeed; without, its whole-profile fingerprint
/// beside the collector.
pub(super) fn meta_cells(h: &mut Html, meta: &Meta, incomplete: bool, detail: bool) {
    h.raw("<td>");
    if meta.date_measured {
        h.raw("<time datetime=\"").text(&meta.timestamp).raw("\">").text(&meta.date).raw("</time>");
    } else {
        h.raw("<span class=\"undated\">date not published</span> <small>imported <time datetime=\"")
            .text(&meta.timestamp)
            .raw("\">")
            .text(&meta.date)
            .raw("</time></small>");
    }
    h.raw("</td>\n<td>").text(&meta.collector);
    if !detail && !meta.fingerprint.is_empty() {
        h.raw("<span class=\"reason\">profile <code>").text(&meta.fingerprint).raw("</code></span>");
    }
    h.raw("</td>\n<td>");
    marks(h, meta, incomplete);
    if let Some(why) = meta.excluded.as_deref().filter(|s| !s.is_empty()) {
        h.raw("<span class=\"reason\">").text(why).raw("</span>");
    }
    if incomplete {
        incomplete_why(h, meta);
    }
    if !detail {
        h.raw("</td>\n<td><a href=\"").text(&meta.source_url).raw("\">JSON</a></td>");
        return;
    }
    for why in self_built(meta) {
        h.raw("<span class=\"reason\">Self-built: ").text(why).raw("</span>");
    }
    if !meta.failed_jobs.is_empty() {
        h.raw("<span class=\"reason\">Jobs that did not succeed: ");
        for (n, j) in meta.failed_jobs.iter().enumerate() {
            h.raw("<span class=\"job\">").text(&j.job).raw(" (").text(j.conclusion).raw(")</span>");
            if n + 1 < meta.failed_jobs.len() {
                h.raw(", ");
            }
        }
        h.raw("</span>");
    }
    h.raw("</td>\n<td><a href=\"").text(&meta.source_url).raw("\">JSON</a></td>");
}

/// Why the result is incomplete (`Meta::incomplete_why`), beside its mark.
pub(super) fn incomplete_why(h: &mut Html, meta: &Meta) {
    if !meta.incomplete_why.is_empty() {
        h.raw("<span class=\"reason\">Incomplete: ").text(&meta.incomplete_why.join("; ")).raw("</span>");
    }
}

/// A result's marks (macros.html's `marks`, without the variation mark):
/// excluded, try-out, incomplete (as the caller says), stale, imported,
/// self-built.
pub(super) fn marks(h: &mut Html, meta: &Meta, incomplete: bool) {
    if let Some(why) = meta.excluded.as_deref().filter(|s| !s.is_empty()) {
        h.raw("<span class=\"mark excluded\" title=\"").text(why).raw("\">excluded</span> ");
    }
    if meta.tryout {
        h.raw("<span class=\"mark tryout\">try-out</span> ");
    }
    if incomplete {
        h.raw("<span class=\"mark incomplete\">incomplete</span> ");
    }
    if meta.stale {
        h.raw("<span class=\"mark stale\">stale</span> ");
    }
    if meta.imported {
        h.raw("<span class=\"mark imported\">imported</span>");
    }
    let why = self_built(meta);
    if !why.is_empty() {
        h.raw("<span class=\"mark self-built\" title=\"").text(&why.join("; ")).raw("\">self-built</span>");
    }
}

/// Why a result is self-built, each reason on its own: its collector is
/// not a published release (`Meta::self_built`), and it is a measured
/// result without a GitHub run record (`run::NO_RUN_RECORD`).
fn self_built(meta: &Meta) -> Vec<&str> {
    let release = meta.self_built.as_deref().filter(|s| !s.is_empty());
    release.into_iter().chain(meta.no_run_record.then_some(NO_RUN_RECORD)).collect()
}

/// Markdown → HTML. Raw HTML in the markdown is shown as text, never
/// passed through: results are untrusted.
pub fn markdown_to_html(markdown: &str) -> String {
    report_to_html(markdown, &HashMap::new())
}

/// A provider report's markdown → HTML, as `markdown_to_html`, with each
/// table row's first cell linked where its whole text is a key of `links`
/// (a runner's label → its page): the markdown stays the published report's
/// text, and the page links every runner it names in a table.
pub(super) fn report_to_html(markdown: &str, links: &HashMap<String, String>) -> String {
    let options = Options::ENABLE_TABLES;
    let (mut head, mut cell) = (false, 0_usize);
    let events = Parser::new_ext(markdown, options).flat_map(|e| {
        match &e {
            Event::Start(Tag::TableHead) => head = true,
            Event::End(TagEnd::TableHead) => head = false,
            Event::Start(Tag::TableRow) => cell = 0,
            Event::Start(Tag::TableCell) => cell += 1,
            _ => {}
        }
        match e {
            Event::Html(s) | Event::InlineHtml(s) => vec![Event::Text(s)],
            Event::Text(t) if !head && cell == 1 && links.contains_key(t.as_ref()) => {
                let dest = CowStr::from(links[t.as_ref()].clone());
                let link = Tag::Link { link_type: LinkType::Inline, dest_url: dest, title: "".into(), id: "".into() };
                vec![Event::Start(link), Event::Text(t), Event::End(TagEnd::Link)]
            }
            other => vec![other],
        }
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

/// The day a document's figures were measured, or when it was imported
/// where its publisher states none.
pub(super) fn day(meta: &Meta) -> String {
    if meta.date_measured { meta.date.clone() } else { format!("imported {}", meta.date) }
}
