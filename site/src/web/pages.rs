//! HTML pages: tera templates from templates/ (read at build time when the
//! folder is there, so `site serve` picks up edits; otherwise the copies
//! built into the binary), with one serializable context per page kind.
//! Every `.html` template is autoescaped: text from results can never
//! become markup.
//!
//! This file holds what every page shares (the templates, the navigation,
//! a plot's link, a row's price-performance) and the hand-written and 404
//! pages; each other page kind is made in its own module (`home`,
//! `provider`, `history`, `overview`, `coverage`, `build_cache_pages`, `estimate`).

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use serde::Serialize;
use tera::Tera;

use super::content::Page;
use crate::report::{CacheRow, CpuRow, DiskRow, InternetRow};

/// The templates, by name, as built into the binary: the pages' and the
/// provider report's (`report.md`, markdown, which tera does not autoescape;
/// its free text goes through the `md` filter).
pub const TEMPLATES: [(&str, &str); 16] = [
    ("base.html", include_str!("../../../templates/base.html")),
    ("macros.html", include_str!("../../../templates/macros.html")),
    ("home.html", include_str!("../../../templates/home.html")),
    ("home_row.html", include_str!("../../../templates/home_row.html")),
    ("table.html", include_str!("../../../templates/table.html")),
    ("provider.html", include_str!("../../../templates/provider.html")),
    ("runner.html", include_str!("../../../templates/runner.html")),
    ("build_cache.html", include_str!("../../../templates/build_cache.html")),
    ("server.html", include_str!("../../../templates/server.html")),
    ("coverage.html", include_str!("../../../templates/coverage.html")),
    ("overview.html", include_str!("../../../templates/overview.html")),
    ("price_chart.html", include_str!("../../../templates/price_chart.html")),
    ("estimate.html", include_str!("../../../templates/estimate.html")),
    ("page.html", include_str!("../../../templates/page.html")),
    ("404.html", include_str!("../../../templates/404.html")),
    ("report.md", include_str!("../../../templates/report.md")),
];

/// Loads the templates, each from `dir` where it exists there, and a key of
/// their sources (`site serve` reuses pages only while it is the same).
/// `cache` holds the last build's (`site serve`): while their sources are
/// the same they are not parsed again.
pub fn templates(dir: &Path, cache: Option<&mut TemplateCache>) -> anyhow::Result<(Arc<Tera>, u64)> {
    let mut sources = Vec::new();
    for (name, builtin) in TEMPLATES {
        let path = dir.join(name);
        // Only a missing file falls back: one that is there but cannot be
        // read is an error, not a silent return to the built-in wording.
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => builtin.to_string(),
            Err(e) => return Err(e).with_context(|| format!("cannot read the template {}", path.display())),
        };
        sources.push((name, text));
    }
    let key = crate::memo_key::key_of(&sources);
    if let Some((old, tera)) = cache.as_deref().and_then(Option::as_ref)
        && *old == key
    {
        return Ok((tera.clone(), key));
    }
    let mut tera = Tera::default();
    tera.add_raw_templates(sources).context("the templates do not parse")?;
    tera.register_filter("md", crate::report::markdown_filter);
    let tera = Arc::new(tera);
    if let Some(cache) = cache {
        *cache = Some((key, tera.clone()));
    }
    Ok((tera, key))
}

/// The templates of the last build and the key of their sources.
pub type TemplateCache = Option<(u64, Arc<Tera>)>;

/// A navigation link.
#[derive(Debug, Clone, Hash, Serialize)]
pub struct NavLink {
    pub url: String,
    pub title: String,
}

/// What every page has.
#[derive(Debug, Clone, Hash, Serialize)]
pub struct Common {
    pub nav: Vec<NavLink>,
    /// `YYYY-MM-DD HH:MM UTC` of the build.
    pub built: String,
    pub stale_days: u32,
    /// Absolute base URL, without a trailing slash.
    pub base_url: String,
}

/// A plot as a page links it.
#[derive(Debug, Clone, Serialize)]
pub struct PlotRef {
    pub src: String,
    pub title: String,
    pub desc: String,
}

/// A table row's speed figures per US cent per minute at `usd_per_minute`
/// (`providers::value_per_cent`).
pub trait Speeds {
    fn per_cent(&self, usd_per_minute: f64) -> PerCent;
}

/// The column of a table row that tends to hold one value down a whole
/// table (its name and this row's value), which the table then says once
/// in its caption instead (`home::same_column`); `None` for a kind without
/// one.
pub trait OneValue {
    fn one_value_column(&self) -> Option<(&'static str, &str)>;
}

impl OneValue for CpuRow {
    fn one_value_column(&self) -> Option<(&'static str, &str)> {
        Some(("Binary", &self.binary))
    }
}

impl OneValue for DiskRow {
    fn one_value_column(&self) -> Option<(&'static str, &str)> {
        None
    }
}

impl OneValue for CacheRow {
    fn one_value_column(&self) -> Option<(&'static str, &str)> {
        Some(("Method", &self.method_label))
    }
}

impl OneValue for InternetRow {
    fn one_value_column(&self) -> Option<(&'static str, &str)> {
        Some(("Service", &self.service))
    }
}

/// `figure` per US cent per minute, two decimals; `None` without a number.
fn pc(figure: &str, usd_per_minute: f64) -> Option<String> {
    let v = crate::model::leading(figure)?;
    Some(crate::figures::two(crate::providers::value_per_cent(v, usd_per_minute)?))
}

impl Speeds for CpuRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        let median = self.median_value.and_then(|v| crate::providers::value_per_cent(v, usd)).map(crate::figures::two);
        PerCent { median, ..PerCent::default() }
    }
}

impl Speeds for DiskRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent {
            read: pc(&self.read, usd),
            write: pc(&self.write, usd),
            rand_read: pc(&self.rand_read, usd),
            rand_write: pc(&self.rand_write, usd),
            ..PerCent::default()
        }
    }
}

impl Speeds for CacheRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent {
            save_mib_per_s: pc(&self.save_mib_per_s, usd),
            restore_mib_per_s: pc(&self.restore_mib_per_s, usd),
            ..PerCent::default()
        }
    }
}

impl Speeds for InternetRow {
    fn per_cent(&self, usd: f64) -> PerCent {
        PerCent { download: pc(&self.download, usd), upload: pc(&self.upload, usd), ..PerCent::default() }
    }
}

/// A row's speed figures per US cent per minute
/// (`providers::value_per_cent`), named as the row's figures; `None`
/// without a stated price or a number, and then left out of the templates'
/// context (most runners state no price). Figures where lower is better
/// (seconds, milliseconds) have none.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PerCent {
    /// CoreMark median iterations/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median: Option<String>,
    /// Disk sequential MiB/s and random IOPS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_write: Option<String>,
    /// Cache MiB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub save_mib_per_s: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_mib_per_s: Option<String>,
    /// Internet Mbps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload: Option<String>,
}

#[derive(Serialize)]
struct PageContext<'a> {
    common: &'a Common,
    title: &'a str,
    description: &'a str,
    body: &'a str,
}

/// A hand-written page.
pub fn page(tera: &Tera, common: &Common, p: &Page) -> anyhow::Result<String> {
    let ctx = PageContext { common, title: &p.title, description: &p.description, body: &p.html };
    render(tera, "page.html", &ctx)
}

/// The 404 page.
pub fn not_found(tera: &Tera, common: &Common) -> anyhow::Result<String> {
    let ctx = PageContext { common, title: "Page not found", description: "This page does not exist.", body: "" };
    render(tera, "404.html", &ctx)
}

pub(super) fn render(tera: &Tera, name: &str, ctx: &impl Serialize) -> anyhow::Result<String> {
    let ctx =
        tera::Context::from_serialize(ctx).with_context(|| format!("the context of {name} does not serialize"))?;
    tera.render(name, &ctx).with_context(|| format!("cannot render templates/{name}"))
}
