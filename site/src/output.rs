//! Stage 4: what `site build` writes.
//!
//! - `<out>/reports/<provider>.md`: the provider reports;
//! - `<out>/index.html`: the providers and their runners;
//! - `<out>/providers/<provider>/index.html`: each report as HTML;
//! - `<out>/results/…`: every result file, as submitted.
//!
//! Kept small on purpose: a later issue builds the full website.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pulldown_cmark::{Event, Options, Parser, html};
use tera::Tera;

use crate::figures::escape_markdown;
use crate::report::{build_view, render_report};
use crate::{Run, providers};

const BASE_TEMPLATE: &str = include_str!("../../templates/base.html");

/// What a build wrote.
#[derive(Debug)]
pub struct Built {
    /// Provider ids, one report each.
    pub providers: Vec<String>,
    /// Result files copied.
    pub result_files: usize,
}

/// Checks `results`, stopping with every problem when any file is
/// rejected, then writes the website to `out`.
pub fn build_site(results: &Path, out: &Path) -> anyhow::Result<Built> {
    let checked = crate::check(&[results.to_path_buf()])?;
    if !checked.problems.is_empty() {
        bail!("the results do not pass the check:\n{}", checked.human_report().trim_end());
    }
    let runs = checked.runs;
    let ids = providers(&runs);
    let mut index = String::from("# runner-bench\n\nReports of CI runners, measured with the published protocol.\n");
    for id in &ids {
        let view = build_view(id, &runs);
        let markdown = render_report(&view)?;
        write(&out.join("reports").join(format!("{id}.md")), markdown.as_bytes())?;
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
        let page = page(&view.title, &markdown_to_html(&markdown), &notes)?;
        write(&out.join("providers").join(id).join("index.html"), page.as_bytes())?;

        let mut runners: Vec<String> = runs.iter().filter(|r| &r.provider_id() == id).map(Run::runner_label).collect();
        runners.sort();
        runners.dedup();
        let imported = if view.sources.is_empty() { "" } else { " (imported)" };
        index.push_str(&format!(
            "\n## [{}](providers/{id}/){imported}\n\n{}\n",
            escape_markdown(&view.provider_name),
            runners.iter().map(|r| format!("- {}", escape_markdown(r))).collect::<Vec<_>>().join("\n")
        ));
    }
    let page = page("runner-bench", &markdown_to_html(&index), &[])?;
    write(&out.join("index.html"), page.as_bytes())?;

    for run in &runs {
        let to = out.join("results").join(&run.rel_path);
        let bytes = std::fs::read(&run.file).with_context(|| format!("cannot read {}", run.file))?;
        write(&to, &bytes)?;
    }
    Ok(Built { providers: ids, result_files: runs.len() })
}

/// Markdown → HTML. Raw HTML in the markdown is shown as text, never
/// passed through: results are untrusted.
pub fn markdown_to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES;
    let events = Parser::new_ext(markdown, options).map(|e| match e {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

/// A page in templates/base.html; `title` and `notes` are escaped by tera.
fn page(title: &str, body_html: &str, notes: &[String]) -> anyhow::Result<String> {
    let mut tera = Tera::default();
    tera.add_raw_template("base.html", BASE_TEMPLATE).context("templates/base.html does not parse")?;
    let mut ctx = tera::Context::new();
    ctx.insert("title", title);
    ctx.insert("body", body_html);
    ctx.insert("notes", notes);
    tera.render("base.html", &ctx).with_context(|| format!("cannot render the page {title}"))
}

fn write(path: &PathBuf, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
