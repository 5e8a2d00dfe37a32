//! Every internal link of the website lands: its page exists and, where it
//! names a fragment (`/methodology/#exclusions`, `#stages`), that page has
//! an element with that id. Built by the `site` binary from the
//! repository's results, content, docs and templates, as Netlify builds it.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// An attribute value with the character references that the site's
/// escaping writes (tera's and pulldown-cmark's) read back.
fn unescape(value: &str) -> String {
    [("&#x2F;", "/"), ("&#x27;", "'"), ("&#39;", "'"), ("&quot;", "\""), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        .iter()
        .fold(value.to_string(), |v, (from, to)| v.replace(from, to))
}

/// The values of every `name="…"` attribute in `html`, read back.
fn attributes(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        out.push(unescape(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

/// The file below `out` that serves `path` (`/a/b/` → `a/b/index.html`).
fn file_of(out: &Path, path: &str) -> PathBuf {
    let rel = path.trim_start_matches('/');
    if rel.is_empty() || rel.ends_with('/') { out.join(rel).join("index.html") } else { out.join(rel) }
}

/// The broken internal links of the site in `out`, as `page: link (why)`.
fn broken_links(out: &Path) -> Vec<String> {
    let pages: Vec<PathBuf> = walkdir::WalkDir::new(out)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    let mut ids: HashMap<PathBuf, BTreeSet<String>> = HashMap::new();
    let mut texts = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        ids.insert(page.clone(), attributes(&text, "id").into_iter().collect());
        texts.push((page.clone(), text));
    }
    let mut broken = Vec::new();
    for (page, text) in &texts {
        for href in attributes(text, "href") {
            if href.contains("://") || href.starts_with("mailto:") || href.starts_with("//") {
                continue;
            }
            let (path, fragment) = href.split_once('#').map_or((href.as_str(), None), |(p, f)| (p, Some(f)));
            let target = if path.is_empty() { page.clone() } else { file_of(out, path) };
            let shown = page.strip_prefix(out).unwrap().display().to_string();
            if !path.is_empty() && !path.starts_with('/') {
                broken.push(format!("{shown}: {href} (a relative link)"));
            } else if !target.is_file() {
                broken.push(format!("{shown}: {href} (no such file)"));
            } else if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
                let has = match ids.get(&target) {
                    Some(ids) => ids.contains(fragment),
                    None => attributes(&std::fs::read_to_string(&target).unwrap(), "id").iter().any(|i| i == fragment),
                };
                if !has {
                    broken.push(format!("{shown}: {href} (no element with id {fragment})"));
                }
            }
        }
    }
    broken
}

#[test]
fn every_internal_link_of_the_site_lands() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_site"))
        .current_dir(ROOT)
        .args(["build", "--results", "results", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(status.status.success(), "site build failed: {}", String::from_utf8_lossy(&status.stderr));
    let broken = broken_links(out.path());
    assert_eq!(broken, Vec::<String>::new(), "broken internal links");
}

#[test]
fn long_documents_have_a_table_of_contents_and_every_heading_an_id() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_site"))
        .current_dir(ROOT)
        .args(["build", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(status.status.success(), "site build failed: {}", String::from_utf8_lossy(&status.stderr));
    for page in ["methodology", "result-format", "about", "submit"] {
        let html = std::fs::read_to_string(out.path().join(page).join("index.html")).unwrap();
        let body = &html[html.find("<article").unwrap()..];
        for level in ["<h2", "<h3", "<h4"] {
            for (i, _) in body.match_indices(level) {
                assert!(
                    body[i..].starts_with(&format!("{level} id=\"")),
                    "/{page}/: a heading without an id: {}",
                    &body[i..i + 60]
                );
            }
        }
        let sections = body.matches("<h2 id=").count();
        assert_eq!(body.contains("<nav class=\"toc\""), sections >= 3, "/{page}/ has {sections} sections");
    }
}

#[test]
fn the_checker_reports_a_missing_fragment_and_a_missing_page() {
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(out.path().join("a")).unwrap();
    std::fs::write(
        out.path().join("a/index.html"),
        "<h2 id=\"here\">x</h2><a href=\"#here\">ok</a><a href=\"#gone\">x</a><a href=\"/b/\">x</a><a \
         href=\"/a/#here\">ok</a><a href=\"https://x.org/#y\">ok</a>",
    )
    .unwrap();
    assert_eq!(
        broken_links(out.path()),
        ["a/index.html: #gone (no element with id gone)", "a/index.html: /b/ (no such file)"]
    );
}
