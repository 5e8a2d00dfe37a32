//! Hand-written pages: `content/*.md` with TOML front matter between `+++`
//! lines, and the documents of docs/ that the site publishes. Markdown is
//! rendered with pulldown-cmark; raw HTML is shown as text.

use std::path::Path;

use anyhow::Context;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};
use serde::Deserialize;

use crate::web::error::InputError;

/// Where a relative link to a file of the repository goes: its page when
/// the site publishes it, else the file on GitHub.
const REPOSITORY_BLOB: &str = "https://github.com/runner-bench/runner-bench/blob/main/";

/// A published page.
#[derive(Debug, Clone)]
pub struct Page {
    /// URL slug: the page is `/<slug>/`.
    pub slug: String,
    pub title: String,
    /// One sentence for the meta description.
    pub description: String,
    /// Position in the navigation; pages without one are not listed.
    pub nav: Option<u32>,
    /// The body, HTML.
    pub html: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    nav: Option<u32>,
}

/// The documents of docs/ that become pages, with their slug, title and
/// description.
pub const DOCS: [(&str, &str, &str); 2] = [
    ("methodology", "Methodology", "How runner-bench measures runners and computes every figure."),
    ("result-format", "Result format", "The result file format, field by field."),
];

/// Reads every `*.md` in `content` (sorted by name) and the `DOCS` in
/// `docs`; either folder may be missing.
pub fn load(content: &Path, docs: &Path) -> anyhow::Result<Vec<Page>> {
    let mut pages = Vec::new();
    if content.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(content)
            .with_context(|| format!("cannot read {}", content.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let slug = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            pages.push(parse(&path, &slug, &text)?);
        }
    }
    for (slug, title, description) in DOCS {
        let path = docs.join(format!("{slug}.md"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            pages.push(Page {
                slug: slug.to_string(),
                title: title.to_string(),
                description: description.to_string(),
                nav: None,
                html: markdown_to_html(strip_h1(&text), "docs/"),
            });
        }
    }
    Ok(pages)
}

/// Parses one content page.
pub fn parse(path: &Path, slug: &str, text: &str) -> Result<Page, InputError> {
    let file = path.display().to_string();
    let rest = text.strip_prefix("+++\n").ok_or_else(|| InputError::NoFrontMatter { file: file.clone() })?;
    let end = rest.find("\n+++\n").ok_or_else(|| InputError::NoFrontMatter { file: file.clone() })?;
    let front: FrontMatter = toml::from_str(&rest[..end])
        .map_err(|e| InputError::FrontMatter { file: file.clone(), reason: e.message().to_string() })?;
    Ok(Page {
        slug: slug.to_string(),
        title: front.title,
        description: front.description,
        nav: front.nav,
        html: markdown_to_html(&rest[end + 5..], "content/"),
    })
}

/// Drops a leading `# Title` line: the page template prints the title.
fn strip_h1(text: &str) -> &str {
    match text.strip_prefix("# ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, body)| body),
        None => text,
    }
}

/// Markdown → HTML. Raw HTML is shown as text, and relative links to
/// `*.md` files are rewritten: a published document to its page, anything
/// else to the file in the repository (`base` is the folder the markdown
/// lives in, e.g. `docs/`).
///
/// Every heading gets an id: its own (`## Title {#id}`), else the one
/// GitHub gives it (`heading_id`), so that a link written against the
/// document on GitHub (`methodology.md#exclusions`) lands on the same
/// heading of its page. Where the document has at least `TOC_MIN_SECTIONS`
/// second-level headings, a table of contents of its second- and
/// third-level headings comes first.
pub fn markdown_to_html(markdown: &str, base: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut events: Vec<Event<'_>> = Parser::new_ext(markdown, options)
        .map(|e| match e {
            Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
                let dest_url = rewrite_link(&dest_url, base).map_or(dest_url, CowStr::from);
                Event::Start(Tag::Link { link_type, dest_url, title, id })
            }
            other => other,
        })
        .collect();
    let headings = name_headings(&mut events);
    let mut out = String::new();
    if headings.iter().filter(|h| h.level == HeadingLevel::H2).count() >= TOC_MIN_SECTIONS {
        out.push_str(&contents(&headings));
    }
    html::push_html(&mut out, events.into_iter());
    out
}

/// The fewest second-level headings that give a document a table of
/// contents: a shorter page is read whole.
const TOC_MIN_SECTIONS: usize = 3;

/// A heading as the table of contents lists it.
#[derive(Debug, PartialEq, Eq)]
struct Heading {
    level: HeadingLevel,
    id: String,
    text: String,
}

/// Gives every heading of `events` an id (its own, else `heading_id` of its
/// text, made unique as GitHub does: `-1`, `-2` after a repeat) and
/// returns them in order.
fn name_headings(events: &mut [Event<'_>]) -> Vec<Heading> {
    let mut taken: std::collections::HashSet<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Start(Tag::Heading { id: Some(id), .. }) => Some(id.to_string()),
            _ => None,
        })
        .collect();
    let mut headings = Vec::new();
    for i in 0..events.len() {
        let Event::Start(Tag::Heading { level, id, .. }) = &events[i] else { continue };
        let level = *level;
        let mut text = String::new();
        for e in &events[i + 1..] {
            match e {
                Event::End(TagEnd::Heading(_)) => break,
                Event::Text(t) | Event::Code(t) => text.push_str(t),
                _ => {}
            }
        }
        let id = match id {
            Some(id) => id.to_string(),
            None => {
                let base = heading_id(&text);
                let mut id = base.clone();
                let mut n = 0;
                while !taken.insert(id.clone()) {
                    n += 1;
                    id = format!("{base}-{n}");
                }
                id
            }
        };
        if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
            *slot = Some(CowStr::from(id.clone()));
        }
        headings.push(Heading { level, id, text });
    }
    headings
}

/// GitHub's anchor for a heading: lower case, every character that is not
/// a letter, a digit, a space, `-` or `_` dropped, spaces made `-`.
fn heading_id(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The table of contents: the second-level headings, each with its
/// third-level ones below it, as HTML (pulldown-cmark escapes the text and
/// the links).
fn contents(headings: &[Heading]) -> String {
    let item = |h: &Heading| {
        [
            Event::Start(Tag::Link {
                link_type: pulldown_cmark::LinkType::Inline,
                dest_url: CowStr::from(format!("#{}", h.id)),
                title: CowStr::from(""),
                id: CowStr::from(""),
            }),
            Event::Text(CowStr::from(h.text.clone())),
            Event::End(TagEnd::Link),
        ]
    };
    let mut events = vec![Event::Html(CowStr::from(
        "<nav class=\"toc\" aria-label=\"Contents\">\n<p><strong>Contents</strong></p>\n",
    ))];
    events.push(Event::Start(Tag::List(Some(1))));
    let mut in_item = false;
    let mut in_sub = false;
    for h in headings {
        match h.level {
            HeadingLevel::H2 => {
                if in_sub {
                    events.push(Event::End(TagEnd::List(true)));
                    in_sub = false;
                }
                if in_item {
                    events.push(Event::End(TagEnd::Item));
                }
                events.push(Event::Start(Tag::Item));
                events.extend(item(h));
                in_item = true;
            }
            HeadingLevel::H3 if in_item => {
                if !in_sub {
                    events.push(Event::Start(Tag::List(Some(1))));
                    in_sub = true;
                }
                events.push(Event::Start(Tag::Item));
                events.extend(item(h));
                events.push(Event::End(TagEnd::Item));
            }
            _ => {}
        }
    }
    if in_sub {
        events.push(Event::End(TagEnd::List(true)));
    }
    if in_item {
        events.push(Event::End(TagEnd::Item));
    }
    events.push(Event::End(TagEnd::List(true)));
    events.push(Event::Html(CowStr::from("</nav>\n")));
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out
}

/// The new target of a relative link, `None` to keep it.
fn rewrite_link(dest: &str, base: &str) -> Option<String> {
    if dest.contains("://") || dest.starts_with('/') || dest.starts_with('#') || dest.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = dest.split_once('#').map_or((dest, None), |(p, f)| (p, Some(f)));
    let fragment = fragment.map(|f| format!("#{f}")).unwrap_or_default();
    // Resolve `..` against the markdown's folder.
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let resolved = parts.join("/");
    for (slug, _, _) in DOCS {
        if resolved == format!("docs/{slug}.md") {
            return Some(format!("/{slug}/{fragment}"));
        }
    }
    if let Some(name) = resolved.strip_prefix("content/").and_then(|n| n.strip_suffix(".md")) {
        return Some(format!("/{name}/{fragment}"));
    }
    Some(format!("{REPOSITORY_BLOB}{resolved}{fragment}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_documents_become_pages() {
        assert_eq!(rewrite_link("result-format.md", "docs/").as_deref(), Some("/result-format/"));
        assert_eq!(
            rewrite_link("../docs/methodology.md#file-layout", "content/").as_deref(),
            Some("/methodology/#file-layout")
        );
        assert_eq!(rewrite_link("submit.md", "content/").as_deref(), Some("/submit/"));
        assert_eq!(
            rewrite_link("../results/README.md", "docs/").as_deref(),
            Some("https://github.com/runner-bench/runner-bench/blob/main/results/README.md")
        );
        assert_eq!(rewrite_link("https://x.org/a.md", "docs/"), None);
        assert_eq!(rewrite_link("#stats", "docs/"), None);
    }

    #[test]
    fn headings_get_github_ids_and_long_documents_a_table_of_contents() {
        let html = markdown_to_html(
            "## What `site check` refuses\n\n### Dates\n\n## Changes {#history-changes}\n\n## Dates\n\n## <b>&\n",
            "docs/",
        );
        assert_eq!(
            html,
            "<nav class=\"toc\" aria-label=\"Contents\">\n<p><strong>Contents</strong></p>\n<ol>\n\
             <li><a href=\"#what-site-check-refuses\">What site check refuses</a>\n\
             <ol>\n<li><a href=\"#dates\">Dates</a></li>\n</ol>\n</li>\n\
             <li><a href=\"#history-changes\">Changes</a></li>\n\
             <li><a href=\"#dates-1\">Dates</a></li>\n\
             <li><a href=\"#b\">&lt;b&gt;&amp;</a></li>\n\
             </ol>\n</nav>\n\
             <h2 id=\"what-site-check-refuses\">What <code>site check</code> refuses</h2>\n\
             <h3 id=\"dates\">Dates</h3>\n\
             <h2 id=\"history-changes\">Changes</h2>\n\
             <h2 id=\"dates-1\">Dates</h2>\n\
             <h2 id=\"b\">&lt;b&gt;&amp;</h2>\n"
        );
        // A short page is read whole: its headings get ids, and no contents.
        assert_eq!(markdown_to_html("## Data\n", "content/"), "<h2 id=\"data\">Data</h2>\n");
    }

    #[test]
    fn raw_html_stays_text() {
        assert_eq!(markdown_to_html("<script>alert(1)</script>", ""), "&lt;script&gt;alert(1)&lt;/script&gt;");
    }

    #[test]
    fn front_matter_errors_name_the_file() {
        let err = parse(Path::new("content/x.md"), "x", "no front matter").unwrap_err();
        assert_eq!(err.to_string(), "content/x.md: a page starts with TOML front matter between two `+++` lines");
        let err = parse(Path::new("content/x.md"), "x", "+++\ntitel = \"x\"\n+++\nbody").unwrap_err();
        assert_eq!(
            err.to_string(),
            "content/x.md: invalid front matter: unknown field `titel`, expected one of `title`, `description`, `nav`"
        );
    }
}
